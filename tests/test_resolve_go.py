"""Go import resolution: which files of a directory make up the package an import names
(build-excluded generators and foreign package clauses are not members), and that a testdata,
`_x` or `.x` directory an import names is its package, as the go tool finds it."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import make_repo
from indexer.api import open_store
from indexer.build import index
from indexer.extract.blob import extract_blob
from indexer.lang.go.build_constraints import go_build_ignored
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve import imports as resolve_module
from indexer.store.records import load_record
from tests.examples import examples
from tests.test_resolve import pairs, run, statuses

MOD = "go.mod"
LIB = "example.com/m/lib"


def go(spec: str) -> ImportSpec:
    return ImportSpec(kind="go", spec=spec, line=3)


def gofacts(package: str, build_ignored: bool = False) -> BlobFacts:
    return BlobFacts(language="go", lines=1, package_name=package, build_ignored=build_ignored)


def targets(tree: dict[str, str], facts: dict[str, BlobFacts], spec: str = LIB,
            importer: str = "cmd/main.go") -> list[str] | list[tuple[str, str, str]]:
    """The files an import of `spec` lands on, or its unresolved status when it lands nowhere."""
    edges, unresolved = run({MOD: "module example.com/m\n", importer: "", **tree}, {importer: [go(spec)]}, facts)
    return [e.target for e in edges] if edges else statuses(unresolved)


# --- the build constraint, read by the extractor ----------------------------------------

@pytest.mark.parametrize("header,ignored", [
    ("//go:build ignore\n// +build ignore\n\npackage main\n", True),
    ("// Copyright\n\n//go:build ignore\n\npackage main\n", True),
    ("//go:build ignore && linux\n\npackage main\n", True),
    ("// +build ignore\n\npackage main\n", True),  # before Go 1.17
    ("// +build ignore,linux\n\npackage main\n", True),
    ("/* licence\n   text */\n//go:build ignore\n\npackage main\n", True),
    ("//go:build linux\n\npackage main\n", False),
    ("//go:build !ignore\n\npackage main\n", False),
    ("//go:build ignore || linux\n\npackage main\n", False),
    ("//go:build linux\n// +build ignore\n\npackage main\n", False),  # //go:build alone decides
    ("// +build linux ignore\n\npackage main\n", False),  # OR: linux builds it
    ("// +build ignore\npackage main\n", False),  # not followed by a blank line: a plain comment
    ("package main\n\n//go:build ignore\n", False),  # after the package clause: a plain comment
    # the expression as go/build/constraint evaluates it: out of every build without `ignore`
    ("//go:build !linux && ignore\n\npackage main\n", True),
    ("//go:build (linux || darwin) && ignore\n\npackage main\n", True),
    ("//go:build linux && !linux\n\npackage main\n", True),  # no build at all
    ("//go:build (linux || ignore) && !windows\n\npackage main\n", False),
    ("//go:build !(linux && ignore)\n\npackage main\n", False),
    ("//go:build ignore && (\n\npackage main\n", False),  # malformed: the go tool refuses it, no exclusion
    ("//go:build\tignore\n\npackage main\n", True),
    ("//go:buildignore\n\npackage main\n", False),  # no //go:build line
    ("//go:build !!linux && ignore\n\npackage main\n", False),  # malformed: no double negation
    ("//go:build ignore && !\n\npackage main\n", False),  # malformed: nothing negated
    ("//go:build ignore linux\n\npackage main\n", False),  # malformed: no operator between tags
    ("// comment x\n// +build ignore\n\npackage main\n", True),
    ("// +build\n\npackage main\n", True),  # no option: `ignore` (constraint.parsePlusBuildExpr)
    ("// +build !!linux\n\npackage main\n", True),  # a malformed term is `ignore`
    ("// +build !linux,ignore darwin,ignore\n\npackage main\n", True),
    ("// +build !ignore\n\npackage main\n", False),
    ("// +build linux\n// +build ignore\n\npackage main\n", True),  # the lines all must hold
    # a block comment ends the leading run that may hold +build lines; //go:build is read past it
    ("/* c */\n\n// +build ignore\n\npackage main\n", False),
    ("/* licence\n   text\n*/\n//go:build ignore\n\npackage main\n", True),
    ("/* a\n*/ package main\n\n//go:build ignore\n", False),
    ("/* c */ package main\n\n//go:build ignore\n", False),
])
def test_build_ignore_constraint(header, ignored):
    assert go_build_ignored(header.encode()) is ignored


_TAGS = st.sampled_from(["linux", "darwin", "ignore", "cgo", "go1.21"])


@st.composite
def _expressions(draw: st.DrawFn, depth: int = 0) -> tuple[str, str]:
    """A //go:build expression and the same in Python, over a few tags."""
    if depth > 3 or draw(st.booleans()):
        tag = draw(_TAGS)
        return tag, f"t[{tag!r}]"
    kind = draw(st.sampled_from(["!", "&&", "||", "()"]))
    left = draw(_expressions(depth + 1))
    if kind == "()":
        return f"({left[0]})", f"({left[1]})"
    a = f"({left[0]})" if " " in left[0] else left[0]  # an operand is a tag, a negation or parenthesised
    if kind == "!":
        return ("!(" + a + ")" if a[:1] == "!" else "!" + a), f"(not {left[1]})"
    right = draw(_expressions(depth + 1))
    b = f"({right[0]})" if " " in right[0] else right[0]
    return f"{a} {kind} {b}", f"({left[1]} {'and' if kind == '&&' else 'or'} {right[1]})"


@settings(max_examples=examples(150), deadline=None)
@given(_expressions())
def test_a_go_build_expression_excludes_a_file_when_no_setting_without_ignore_builds_it(expression):
    go_expr, python = expression
    others = sorted({"linux", "darwin", "cgo", "go1.21"})
    buildable = any(eval(python, {"t": {**dict(zip(others, values)), "ignore": False}})
                    for values in itertools.product((False, True), repeat=len(others)))
    assert go_build_ignored(f"//go:build {go_expr}\n\npackage main\n".encode()) is (not buildable)


@settings(max_examples=examples(150), deadline=None)
@given(st.binary(max_size=300))
def test_any_header_bytes_give_an_answer(data):
    assert go_build_ignored(b"//go:build " + data + b"\n\npackage main\n") in (True, False)
    assert go_build_ignored(b"// +build " + data + b"\n\npackage main\n") in (True, False)
    assert go_build_ignored(data) in (True, False)


def test_the_longest_expressions_checked_are_read_as_go_reads_them():
    """Two hundred tokens of two tags are checked, and so is any constraint whose every setting
    of its tags, each evaluating all its tokens, costs 4,096 (2 ** tags * tokens) or less: each
    still needs `ignore`. One costing more is taken as buildable, as it is without `ignore`, so
    a header of many `+build` lines or tags costs a file a bounded time."""
    assert go_build_ignored(b"//go:build ignore && !b" + b" && a" * 98 + b"\n\npackage main\n") is True
    seven = b" && ".join(b"t%d" % i for i in range(7))
    either = b"(" + b" || ".join(b"t%d" % i for i in range(7)) + b")"
    at = b"ignore && " + seven.replace(b"t6", b"!t6") + b" && " + either  # 7 tags, 32 tokens
    assert go_build_ignored(b"//go:build " + at + b"\n\npackage main\n") is True
    past = at.replace(b"!t6", b"!(t6)")  # 34 tokens
    assert go_build_ignored(b"//go:build " + past + b"\n\npackage main\n") is False
    line = b"// +build " + seven.replace(b" && ", b",") + b",ignore\n"  # 8 terms of 7 tags
    assert go_build_ignored(line * 4 + b"\npackage main\n") is True
    assert go_build_ignored(line * 5 + b"\npackage main\n") is False
    assert go_build_ignored(b"// +build a b c d e f g h i\n" * 4000 + b"// +build ignore\n\npackage main\n") is False


def test_a_go_build_line_too_deep_is_buildable():
    assert go_build_ignored(b"//go:build " + b"(" * 5000 + b"ignore" + b")" * 5000 + b"\n\npackage main\n") is False


def test_a_files_facts_say_whether_every_build_excludes_it():
    ignored = extract_blob(b"//go:build ignore\n\npackage main\n\nfunc main() {}\n", "gen.go", "go")
    built = extract_blob(b"//go:build linux\n\npackage main\n\nfunc main() {}\n", "gen.go", "go")
    assert (ignored.skipped, ignored.build_ignored, built.build_ignored) == ("", True, False)
    # the constraint is Go's: no other language's file is excluded from a build by it
    assert extract_blob(b"# //go:build ignore\n\nx = 1\n", "gen.py", "python").build_ignored is False


# --- package membership -----------------------------------------------------------------

LIB_TREE = {"lib/a.go": "", "lib/b.go": "", "lib/gen.go": "", "lib/a_test.go": ""}


def test_build_ignored_generator_is_not_part_of_the_package():
    facts = {"lib/a.go": gofacts("lib"), "lib/b.go": gofacts("lib"), "lib/gen.go": gofacts("lib", build_ignored=True)}
    assert targets(LIB_TREE, facts) == ["lib/a.go", "lib/b.go"]


def test_file_of_another_package_clause_is_not_part_of_the_package():
    # a `package main` generator without the constraint: the directory's library is the package
    facts = {"lib/a.go": gofacts("lib"), "lib/b.go": gofacts("lib"), "lib/gen.go": gofacts("main")}
    assert targets(LIB_TREE, facts) == ["lib/a.go", "lib/b.go"]


def test_library_wins_over_more_main_files_and_unparsed_files_stay():
    tree = {"lib/a.go": "", "lib/gen1.go": "", "lib/gen2.go": "", "lib/big.go": ""}
    facts = {"lib/a.go": gofacts("lib"), "lib/gen1.go": gofacts("main"), "lib/gen2.go": gofacts("main"),
             "lib/big.go": BlobFacts(language="go", lines=1, skipped="too_large")}
    assert targets(tree, facts) == ["lib/a.go", "lib/big.go"]


def test_disagreeing_libraries_take_the_most_declared_then_the_directory_name():
    tree = {"lib/a.go": "", "lib/b.go": "", "lib/c.go": ""}
    most = {"lib/a.go": gofacts("other"), "lib/b.go": gofacts("other"), "lib/c.go": gofacts("lib")}
    assert targets(tree, most) == ["lib/a.go", "lib/b.go"]
    tie = {"lib/a.go": gofacts("other"), "lib/b.go": gofacts("lib")}
    assert targets({"lib/a.go": "", "lib/b.go": ""}, tie) == ["lib/b.go"]


def test_a_documentation_file_takes_no_part_in_its_folders_package():
    # go/build ignores a file declaring `package documentation` (an old doc.go's way): it neither
    # wins the folder's disagreement ("documentation" sorts first) nor makes a package alone
    tie = {"lib/doc.go": gofacts("documentation"), "lib/x.go": gofacts("other")}
    assert targets({"lib/doc.go": "", "lib/x.go": ""}, tie) == ["lib/x.go"]
    alone = {"lib/doc.go": gofacts("documentation")}
    assert targets({"lib/doc.go": ""}, alone) == [("cmd/main.go", LIB, "unresolved")]


def test_a_package_of_only_excluded_files_is_unresolved():
    tree = {"lib/gen.go": "", "lib/_old.go": ""}
    facts = {"lib/gen.go": gofacts("main", build_ignored=True), "lib/_old.go": gofacts("lib")}
    assert targets(tree, facts) == [("cmd/main.go", LIB, "unresolved")]


@pytest.mark.parametrize("name,before,after,changes", [
    ("go.mod", None, None, True),
    ("go.work", None, None, True),
    ("a.go", gofacts("lib"), gofacts("lib"), False),  # its body alone: the package is the same
    ("a.go", gofacts("lib"), gofacts("other"), True),
    ("a.go", gofacts("lib"), gofacts("lib", build_ignored=True), True),
    ("a.go", None, gofacts("lib"), True),  # new: it joins its directory's package
    ("a_test.go", gofacts("lib"), gofacts("lib_test"), False),  # never a member of a package
    ("a_test.go", None, gofacts("lib"), False),
    ("README.md", None, None, False),
    ("go.sum", None, None, False),
])
def test_only_a_change_of_membership_or_of_module_files_reresolves_other_files(name, before, after, changes):
    """resolve.imports.to_resolve re-resolves every Go importer when this says so: a file's
    package clause and build exclusion decide membership, go.mod and go.work everything."""
    from indexer.lang.go.resolve import changes_others

    assert changes_others(name, lambda: before, after) is changes
    # a file of another language, or a test file, is no member whatever its facts say
    if name.endswith("_test.go") or not name.endswith(".go") and name not in ("go.mod", "go.work"):
        assert changes_others(name, lambda: gofacts("x"), gofacts("y")) is False


# --- directories `...` patterns skip -----------------------------------------------------

@pytest.mark.parametrize("directory", ["lib/testdata/x", "testdata", "_examples/x", "lib/.hidden"])
def test_an_import_naming_a_skipped_directory_reaches_its_package(directory):
    # `go list` resolves example.com/m/lib/testdata/x to its files: only `...` skips such a
    # directory (was: unresolved)
    spec = f"example.com/m/{directory}"
    assert targets({f"{directory}/x.go": ""}, {}, spec) == [f"{directory}/x.go"]


def test_fixture_module_under_testdata_claims_neither_the_real_path_nor_its_files():
    tree = {"lib/a.go": "", "a/testdata/go.mod": "module example.com/m\n", "a/testdata/lib/x.go": ""}
    assert targets(tree, {}) == ["lib/a.go"]  # a/testdata/go.mod sorts before go.mod, still loses


def test_fixture_module_resolves_inside_itself():
    tree = {"x/testdata/mod/go.mod": "module fixture.test/f\n", "x/testdata/mod/p/p.go": ""}
    assert targets(tree, {}, "fixture.test/f/p", importer="x/testdata/mod/main.go") == ["x/testdata/mod/p/p.go"]


def test_relative_import_into_testdata_resolves_and_dot_segments_are_not_hidden():
    tree = {"cmd/testdata/t.go": "", "lib/a.go": ""}
    assert targets(tree, {}, "./testdata") == ["cmd/testdata/t.go"]
    assert targets(tree, {}, "../lib") == ["lib/a.go"]


# --- through real indexing ---------------------------------------------------------------

GEN = ("// Copyright\n\n//go:build ignore\n// +build ignore\n\npackage main\n\n"
       'import "example.com/m/lib"\n\nfunc main() { lib.Run() }\n')
REPO = {
    "go.mod": "module example.com/m\n\ngo 1.22\n",
    "cmd/main.go": 'package main\n\nimport "example.com/m/lib"\n\nfunc main() { lib.Run() }\n',
    "lib/lib.go": "package lib\n\nfunc Run() {}\n",
    "lib/gen.go": GEN,
    "lib/testdata/fixture.go": "package fixture\n",
    "other/other.go": 'package other\n\nimport "example.com/m/lib/testdata"\n\nvar _ = 1\n',
}


def _index_all(tmp_path, commits, name: str = "store"):
    oids = make_repo(tmp_path / "repo", commits)
    store = open_store(tmp_path / name)
    try:
        for oid in oids:  # each after the first starts from its parent's snapshot
            index(str(tmp_path / "repo"), oid, store=store, workers=1)
        return [load_record(store, oid) for oid in oids]
    finally:
        store.close()


def test_indexed_generator_gets_no_edge_and_testdata_a_package(tmp_path):
    [record] = _index_all(tmp_path, [REPO])
    assert ("cmd/main.go", "lib/lib.go") in pairs(record.edges)
    assert [e for e in record.edges if e.target == "lib/gen.go"] == []
    assert ("lib/gen.go", "lib/lib.go") in pairs(record.edges)  # its own imports still resolve
    assert ("other/other.go", "lib/testdata/fixture.go") in pairs(record.edges)


@pytest.fixture()
def redone(monkeypatch) -> list[set[str] | None]:
    """What each incremental resolution chose to redo (the real `to_resolve` runs)."""
    calls: list[set[str] | None] = []
    real = resolve_module.to_resolve

    def recording(files, facts, tree, prior):
        calls.append(real(files, facts, tree, prior))
        return calls[-1]

    monkeypatch.setattr(resolve_module, "to_resolve", recording)
    return calls


def test_reindex_after_a_build_constraint_change_resolves_as_a_cold_index(tmp_path, redone):
    unignored = GEN.replace("//go:build ignore\n// +build ignore\n\n", "").replace("package main", "package lib")
    steps = [REPO, {"lib/gen.go": unignored}, {"lib/gen.go": GEN}, {"lib/lib.go": "package lib\n\nfunc Run() { }\n"}]
    warm = _index_all(tmp_path, steps)
    # the generator's change re-resolves cmd/main.go, which imports its directory; a body edit does not
    assert [("cmd/main.go" in todo) for todo in redone] == [True, True, False]
    with_gen = [("cmd/main.go", "lib/gen.go") in pairs(r.edges) for r in warm]
    assert with_gen == [False, True, False, False]
    for i, record in enumerate(warm):
        [cold] = _index_all(tmp_path / f"cold{i}", [steps[0]] if i == 0 else [_replay(steps[: i + 1])])
        assert record.edges == cold.edges and record.unresolved == cold.unresolved, i


def _replay(steps: list[dict[str, str]]) -> dict[str, str]:
    """The tree after applying every step's changes, as one commit."""
    tree: dict[str, str] = {}
    for step in steps:
        tree.update(step)
    return tree


# --- go.mod replace directives -------------------------------------------------------------
# (the cases of vendor folders, go.work members and their replace directives, GOPATH trees and
# the tail rule are annotated trees: tests/fixtures/resolve/go_*.txt)

def resolved(tree: dict[str, str], imports: dict[str, list[str]], facts=None) -> set[tuple[str, str, str]]:
    """(importer, spec, target or status) of every import, through resolve_since."""
    edges, unresolved = run(tree, {p: [go(s) for s in specs] for p, specs in imports.items()}, facts)
    return {(e.source, e.spec, e.target) for e in edges} | {(u.path, u.spec, u.status) for u in unresolved}


@pytest.mark.parametrize("gomod,expected", [
    # lib/ declares example.com/lib, but the replacement decides (a local fork, no go.mod needed)
    ("replace example.com/lib => ../forks/lib\n", "forks/lib/sub/s.go"),
    ("replace (\n\texample.com/lib v1.2.0 => ../forks/lib // pinned\n)\n", "forks/lib/sub/s.go"),
    ('replace "example.com/lib" => "./third/lib"\n', "app/third/lib/sub/s.go"),
    # a string is one token, a space or `//` in it no end (was: `"../my` and `forks/lib"`: external)
    ('replace example.com/lib => "../my forks/lib" // a fork\n', "my forks/lib/sub/s.go"),
    ("replace example.com/lib => `../my forks//lib`\n", "my forks/lib/sub/s.go"),
    ('replace example.com/lib => "../my\\x20forks/lib\n', "lib/sub/s.go"),  # left open: no replace read
    ("replace example.com/lib => ../../elsewhere/lib\n", "external"),  # outside the tree
    ("replace example.com/lib => ../nowhere\n", "external"),  # not a directory of the tree
    ("replace example.com/lib => example.com/fork v1.0.0\n", "external"),  # another module
    ("replace example.com/lib => ../forks/lib\nreplace example.com/lib/sub => ../lib/sub\n", "lib/sub/s.go"),
])
def test_local_replace_directive_resolves_to_the_replaced_directory(gomod, expected):
    tree = {"app/go.mod": "module example.com/app\n\n" + gomod, "app/main.go": "",
            "forks/lib/sub/s.go": "", "app/third/lib/sub/s.go": "", "my forks/lib/sub/s.go": "",
            "lib/go.mod": "module example.com/lib\n", "lib/sub/s.go": ""}
    assert resolved(tree, {"app/main.go": ["example.com/lib/sub"]}) == {("app/main.go", "example.com/lib/sub", expected)}


def test_broken_go_mod_and_go_work_do_not_crash():
    tree = {"go.mod": b"module \xff\xfe\nreplace (\n", "go.work": b"replace => \nreplace a =>\n", "main.go": "",
            "x/x.go": ""}
    assert resolved(tree, {"main.go": ["a", "./x"]}) == {("main.go", "a", "external"), ("main.go", "./x", "x/x.go")}


# --- test files and build constraints ------------------------------------------------------

def test_external_test_package_and_ignored_generator_imports_resolve():
    tree = {"lib/a.go": "", "lib/a_test.go": "", "lib/gen.go": "", "only/x_test.go": ""}
    facts = {"lib/a.go": gofacts("lib"), "only/x_test.go": gofacts("only"),
             "lib/a_test.go": BlobFacts(language="go", lines=1, package_name="lib_test",
                                        imports=[go(LIB), go("example.com/m/only")]),
             "lib/gen.go": BlobFacts(language="go", lines=1, package_name="main", build_ignored=True,
                                     imports=[go(LIB)])}
    edges, unresolved = run({MOD: "module example.com/m\n", **tree}, {}, facts)
    assert pairs(edges) == [("lib/a_test.go", "lib/a.go"), ("lib/gen.go", "lib/a.go")]
    assert statuses(unresolved) == [("lib/a_test.go", "example.com/m/only", "unresolved")]  # tests only


# --- through real indexing: a re-index resolves as a cold index ------------------------------

GOPATH_REPO = {
    "src/github.com/user/repo/cmd/main.go": 'package main\n\nimport "github.com/user/repo/lib"\n\nfunc main() { lib.Run() }\n',
    "src/github.com/user/repo/lib/lib.go": 'package lib\n\nimport "github.com/dep/d"\n\nfunc Run() { d.Do() }\n',
    "src/github.com/user/repo/vendor/github.com/dep/d/d.go": "package d\n\nfunc Do() {}\n",
    "src/github.com/user/repo/lib/gen.go": "package lib\n\nfunc gen() {}\n",
}
GOPATH_STEPS = [
    {"src/github.com/user/repo/lib/lib.go": 'package lib\n\nimport "github.com/dep/d"\n\nfunc Run() { d.Do(); d.Do() }\n'},
    {"src/github.com/user/repo/lib/gen.go": GEN.replace("example.com/m/lib", "github.com/user/repo/lib")},
    {"src/github.com/user/repo/vendor/github.com/dep/d/d.go": "package other\n\nfunc Do() {}\n"},
    {"src/github.com/user/repo/go.mod": "module github.com/user/repo\n"},  # a new path: module mode
]


def test_gopath_reindex_gives_the_cold_index_fingerprint(tmp_path, redone):
    steps = [GOPATH_REPO] + GOPATH_STEPS
    warm = _index_all(tmp_path, steps)
    assert redone[0] == {"src/github.com/user/repo/lib/lib.go"}  # a body edit re-resolves its file alone
    assert redone[3] is None  # an added go.mod: a new path, a full resolution
    for i, record in enumerate(warm):
        [cold] = _index_all(tmp_path / f"cold{i}", [_replay(steps[: i + 1])])
        assert (record.edges, record.unresolved, record.fingerprint) == (cold.edges, cold.unresolved, cold.fingerprint), i
    at = [pairs(r.edges) for r in warm]
    main, lib, gen = (f"src/github.com/user/repo/{p}" for p in ("cmd/main.go", "lib/lib.go", "lib/gen.go"))
    vendored = "src/github.com/user/repo/vendor/github.com/dep/d/d.go"
    assert (main, lib) in at[0] and (main, gen) in at[0] and (lib, vendored) in at[0]
    assert (main, gen) not in at[2]  # gen.go became a build-ignored generator
    assert (lib, vendored) in at[3]  # a foreign package clause alone: still the directory's package
    assert (main, lib) in at[4] and (lib, vendored) in at[4]  # module mode: own path, own vendor/


WORK_REPO = {"go.work": "go 1.22\n\nuse ./app\n", "app/go.mod": "module example.com/app\n",
             "app/main.go": 'package main\n\nimport "example.com/lib"\n\nfunc main() { lib.Run() }\n',
             "lib/lib.go": "package lib\n\nfunc Run() {}\n", "fork/lib.go": "package lib\n\nfunc Run() {}\n"}
WORK_STEPS = [
    {"go.work": "go 1.22\n\nuse ./app\n\nreplace example.com/lib => ./lib\n"},
    {"go.work": "go 1.22\n\nuse ./app\n\nreplace example.com/lib => ./fork\n"},
    {"go.work": "go 1.22\n\nuse ./app\n", "app/go.mod": "module example.com/app\n\nreplace example.com/lib => ../lib\n"},
]


def test_replace_changes_reindex_their_importers_as_a_cold_index(tmp_path, redone):
    steps = [WORK_REPO] + WORK_STEPS
    warm = _index_all(tmp_path, steps)
    assert all("app/main.go" in todo for todo in redone)  # unchanged, re-resolved for go.work / go.mod
    targets_at = [[e.target for e in r.edges if e.source == "app/main.go"] for r in warm]
    assert targets_at == [[], ["lib/lib.go"], ["fork/lib.go"], ["lib/lib.go"]]
    for i, record in enumerate(warm):
        [cold] = _index_all(tmp_path / f"cold{i}", [_replay(steps[: i + 1])])
        assert (record.edges, record.unresolved, record.fingerprint) == (cold.edges, cold.unresolved, cold.fingerprint), i


def test_indexed_vendored_import_is_a_resolved_edge_to_files_marked_vendored(tmp_path):
    repo = {"go.mod": "module example.com/app\n\ngo 1.22\n\nrequire github.com/x/y v1.0.0\n",
            "main.go": 'package main\n\nimport "github.com/x/y"\n\nfunc main() { y.Do() }\n',
            "vendor/modules.txt": "# github.com/x/y v1.0.0\n## explicit\ngithub.com/x/y\n",
            "vendor/github.com/x/y/y.go": "package y\n\nfunc Do() {}\n"}
    [record] = _index_all(tmp_path, [repo])
    assert [(e.source, e.target, e.kind) for e in record.edges] == [("main.go", "vendor/github.com/x/y/y.go", "go")]
    assert record.unresolved == []
    assert {f.path: f.mark for f in record.files}["vendor/github.com/x/y/y.go"] == "vendored"


# --- a GOPATH-era repository checked out as the tree's root, no go.mod anywhere ------------------

ROOTED_REPO = {
    "main.go": 'package main\n\nimport "github.com/org/repo/pkg/x"\n\nfunc main() { x.Run() }\n',
    "pkg/x/x.go": 'package x\n\nimport "github.com/org/repo/pkg/y"\n\nfunc Run() { y.Do() }\n',
}
ROOTED_STEPS = [
    {"pkg/x/x.go": 'package x\n\nimport "github.com/org/repo/pkg/y"\n\nfunc Run() { y.Do(); y.Do() }\n'},
    {"pkg/y/y.go": "package y\n\nfunc Do() {}\n"},  # a new path: the import of pkg/y now lands
    {"go.mod": "module github.com/org/repo\n"},  # module mode: resolved as the module's own path
    {"go.mod": None, "tools/go.mod": "module example.com/tools\n"},  # a go.mod elsewhere: the tail rule off
]


def test_the_tail_rule_reindexes_as_a_cold_index(tmp_path, redone):
    steps = [ROOTED_REPO] + ROOTED_STEPS
    warm = _index_all(tmp_path, steps)
    assert redone[0] == {"pkg/x/x.go"}
    for i, record in enumerate(warm):
        [cold] = _index_all(tmp_path / f"cold{i}", [_replay(steps[: i + 1])])
        assert (record.edges, record.unresolved, record.fingerprint) == (cold.edges, cold.unresolved, cold.fingerprint), i
    at = [[(e.source, e.target, e.kind) for e in r.edges] for r in warm]
    assert at[0] == at[1] == [("main.go", "pkg/x/x.go", "go")]
    assert at[2] == at[3] == [("main.go", "pkg/x/x.go", "go"), ("pkg/x/x.go", "pkg/y/y.go", "go")]
    assert at[4] == []
