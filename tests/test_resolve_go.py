"""Go import resolution: which files of a directory make up the package an import names
(build-excluded generators and foreign package clauses are not members) and which
directories hold no importable package (testdata, `_x`, `.x`)."""

from __future__ import annotations

import pytest

from corpora.gitbuild import make_repo
from indexer.api import open_store
from indexer.build import index
from indexer.lang.go.build_constraints import go_build_ignored
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve import imports as resolve_module
from indexer.store.records import load_record
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
])
def test_build_ignore_constraint(header, ignored):
    assert go_build_ignored(header.encode()) is ignored


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


def test_a_package_of_only_excluded_files_is_unresolved():
    tree = {"lib/gen.go": "", "lib/_old.go": ""}
    facts = {"lib/gen.go": gofacts("main", build_ignored=True), "lib/_old.go": gofacts("lib")}
    assert targets(tree, facts) == [("cmd/main.go", LIB, "unresolved")]


# --- directories the go tool skips -------------------------------------------------------

@pytest.mark.parametrize("directory", ["lib/testdata/x", "testdata", "_examples/x", "lib/.hidden"])
def test_no_package_in_ignored_directories(directory):
    spec = f"example.com/m/{directory}"
    assert targets({f"{directory}/x.go": ""}, {}, spec) == [("cmd/main.go", spec, "unresolved")]


def test_fixture_module_under_testdata_claims_neither_the_real_path_nor_its_files():
    tree = {"lib/a.go": "", "a/testdata/go.mod": "module example.com/m\n", "a/testdata/lib/x.go": ""}
    assert targets(tree, {}) == ["lib/a.go"]  # a/testdata/go.mod sorts before go.mod, still loses


def test_fixture_module_resolves_inside_itself():
    tree = {"x/testdata/mod/go.mod": "module fixture.test/f\n", "x/testdata/mod/p/p.go": ""}
    assert targets(tree, {}, "fixture.test/f/p", importer="x/testdata/mod/main.go") == ["x/testdata/mod/p/p.go"]


def test_relative_import_into_testdata_is_unresolved_and_dot_segments_are_not_hidden():
    tree = {"cmd/testdata/t.go": "", "lib/a.go": ""}
    assert targets(tree, {}, "./testdata") == [("cmd/main.go", "./testdata", "unresolved")]
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


def test_indexed_generator_gets_no_edge_and_testdata_no_package(tmp_path):
    [record] = _index_all(tmp_path, [REPO])
    assert ("cmd/main.go", "lib/lib.go") in pairs(record.edges)
    assert [e for e in record.edges if e.target in ("lib/gen.go", "lib/testdata/fixture.go")] == []
    assert ("lib/gen.go", "lib/lib.go") in pairs(record.edges)  # its own imports still resolve
    assert ("other/other.go", "example.com/m/lib/testdata", "unresolved") in statuses(record.unresolved)


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


# --- vendored dependencies ---------------------------------------------------------------

APP = "module example.com/app\n\ngo 1.22\n"
VENDORED = {"go.mod": APP, "main.go": "", "vendor/modules.txt": "# github.com/x/y v1.0.0\ngithub.com/x/y\n",
            "vendor/github.com/x/y/y.go": "", "vendor/github.com/x/z/z.go": ""}


def resolved(tree: dict[str, str], imports: dict[str, list[str]], facts=None) -> set[tuple[str, str, str]]:
    """(importer, spec, target or status) of every import, through resolve_since."""
    edges, unresolved = run(tree, {p: [go(s) for s in specs] for p, specs in imports.items()}, facts)
    return {(e.source, e.spec, e.target) for e in edges} | {(u.path, u.spec, u.status) for u in unresolved}


def test_vendored_package_resolves_from_its_module_and_from_other_vendored_code():
    # a hand-vendored copy may carry its go.mod: it is still found through vendor/, and the
    # vendored code's own imports go to the main module's vendor dir, not a vendor/ below it
    tree = {**VENDORED, "vendor/github.com/x/y/go.mod": "module github.com/x/y\n"}
    got = resolved(tree, {"main.go": ["github.com/x/y"], "vendor/github.com/x/y/y.go": ["github.com/x/z", "fmt"]})
    assert got == {("main.go", "github.com/x/y", "vendor/github.com/x/y/y.go"),
                   ("vendor/github.com/x/y/y.go", "github.com/x/z", "vendor/github.com/x/z/z.go"),
                   ("vendor/github.com/x/y/y.go", "fmt", "external")}


def test_only_the_importing_modules_own_vendor_dir_counts():
    tree = {**VENDORED, "vendor/github.com/x/y/go.mod": "module github.com/x/y\n",
            "tools/go.mod": "module example.com/tools\n", "tools/gen.go": "",  # no vendor/ of its own
            "sub/vendor/github.com/x/q/q.go": "", "sub/s.go": ""}  # not a module's vendor dir
    got = resolved(tree, {"tools/gen.go": ["github.com/x/y"], "sub/s.go": ["github.com/x/q", "github.com/x/y"]})
    assert got == {("tools/gen.go", "github.com/x/y", "external"),
                   ("sub/s.go", "github.com/x/q", "external"),
                   ("sub/s.go", "github.com/x/y", "vendor/github.com/x/y/y.go")}


def test_vendor_copy_wins_over_another_module_of_the_tree():
    # `go build` in vendor mode reads the dependency from vendor/, even with its source beside
    tree = {**VENDORED, "lib/go.mod": "module github.com/x/y\n", "lib/y.go": ""}
    assert resolved(tree, {"main.go": ["github.com/x/y"], "lib/y.go": ["github.com/x/y"]}) == {
        ("main.go", "github.com/x/y", "vendor/github.com/x/y/y.go")}  # lib/y.go: itself, dropped


# --- several modules: go.work members, replace directives -----------------------------------

MULTI = {"go.work": "go 1.22\n\nuse (\n\t./app\n\t./lib\n\t./tools\n)\n",
         "app/go.mod": "module example.com/app\n\nrequire example.com/lib v0.0.0\n\n"
                       "replace example.com/lib v0.0.0 => ../lib\n",
         "app/main.go": "", "app/internal/i.go": "",
         "lib/go.mod": "module example.com/lib\n", "lib/l.go": "", "lib/sub/s.go": "",
         "tools/go.mod": "module example.com/tools\n", "tools/t.go": ""}


def test_member_modules_resolve_each_others_paths():
    got = resolved(MULTI, {"app/main.go": ["example.com/tools", "example.com/app/internal", "example.com/lib/sub"],
                           "tools/t.go": ["example.com/lib", "example.com/app/missing"]})
    assert got == {("app/main.go", "example.com/tools", "tools/t.go"),
                   ("app/main.go", "example.com/app/internal", "app/internal/i.go"),
                   ("app/main.go", "example.com/lib/sub", "lib/sub/s.go"),
                   ("tools/t.go", "example.com/lib", "lib/l.go"),
                   ("tools/t.go", "example.com/app/missing", "unresolved")}


@pytest.mark.parametrize("gomod,expected", [
    # lib/ declares example.com/lib, but the replacement decides (a local fork, no go.mod needed)
    ("replace example.com/lib => ../forks/lib\n", "forks/lib/sub/s.go"),
    ("replace (\n\texample.com/lib v1.2.0 => ../forks/lib // pinned\n)\n", "forks/lib/sub/s.go"),
    ('replace "example.com/lib" => "./third/lib"\n', "app/third/lib/sub/s.go"),
    ("replace example.com/lib => ../../elsewhere/lib\n", "external"),  # outside the tree
    ("replace example.com/lib => ../nowhere\n", "external"),  # not a directory of the tree
    ("replace example.com/lib => example.com/fork v1.0.0\n", "external"),  # another module
    ("replace example.com/lib => ../forks/lib\nreplace example.com/lib/sub => ../lib/sub\n", "lib/sub/s.go"),
])
def test_local_replace_directive_resolves_to_the_replaced_directory(gomod, expected):
    tree = {"app/go.mod": "module example.com/app\n\n" + gomod, "app/main.go": "",
            "forks/lib/sub/s.go": "", "app/third/lib/sub/s.go": "",
            "lib/go.mod": "module example.com/lib\n", "lib/sub/s.go": ""}
    assert resolved(tree, {"app/main.go": ["example.com/lib/sub"]}) == {("app/main.go", "example.com/lib/sub", expected)}


def test_replace_applies_to_its_own_module_and_a_go_work_replace_wins_for_its_members():
    tree = {**MULTI, "app/go.mod": MULTI["app/go.mod"] + "replace example.com/dep => ../mine/dep\n",
            "mine/dep/d.go": "", "forks/dep/d.go": "", "loose/go.mod": "module example.com/loose\n", "loose/x.go": ""}
    # tools/ has no replace: its import of example.com/lib is the member module lib/
    assert resolved(tree, {"tools/t.go": ["example.com/lib", "example.com/dep"], "app/main.go": ["example.com/dep"]}) == {
        ("tools/t.go", "example.com/lib", "lib/l.go"), ("tools/t.go", "example.com/dep", "external"),
        ("app/main.go", "example.com/dep", "mine/dep/d.go")}
    # a go.work replace overrides app's own, for every module it uses (loose/ is not one)
    work = {**tree, "go.work": tree["go.work"] + "\nreplace example.com/dep => ./forks/dep\n"}
    got = resolved(work, {"app/main.go": ["example.com/dep"], "tools/t.go": ["example.com/dep"],
                          "loose/x.go": ["example.com/dep"]})
    assert got == {("app/main.go", "example.com/dep", "forks/dep/d.go"), ("tools/t.go", "example.com/dep", "forks/dep/d.go"),
                   ("loose/x.go", "example.com/dep", "external")}


def test_workspace_members_come_before_a_vendor_copy_and_its_vendor_dir_is_the_workspaces():
    # in workspace mode the go tool builds members from their directories and reads only the
    # workspace's vendor/ (`go work vendor`), never a member module's own
    tree = {**MULTI, "app/vendor/example.com/lib/l.go": "", "app/vendor/example.com/dep/d.go": "",
            "vendor/example.com/dep/d.go": ""}
    assert resolved(tree, {"app/main.go": ["example.com/lib", "example.com/dep"]}) == {
        ("app/main.go", "example.com/lib", "lib/l.go"), ("app/main.go", "example.com/dep", "vendor/example.com/dep/d.go")}
    # without the go.work, app is built alone (module mode): from its own vendor/ copy
    alone = {p: t for p, t in tree.items() if p != "go.work"}
    assert resolved(alone, {"app/main.go": ["example.com/lib", "example.com/dep"]}) == {
        ("app/main.go", "example.com/lib", "app/vendor/example.com/lib/l.go"),
        ("app/main.go", "example.com/dep", "app/vendor/example.com/dep/d.go")}


def test_broken_go_mod_and_go_work_do_not_crash():
    tree = {"go.mod": b"module \xff\xfe\nreplace (\n", "go.work": b"replace => \nreplace a =>\n", "main.go": "",
            "x/x.go": ""}
    assert resolved(tree, {"main.go": ["a", "./x"]}) == {("main.go", "a", "external"), ("main.go", "./x", "x/x.go")}


# --- GOPATH trees: no go.mod ----------------------------------------------------------------

GOPATH = {"src/github.com/user/repo/pkg/a.go": "", "src/github.com/user/repo/other/o.go": "",
          "src/github.com/user/repo/vendor/github.com/dep/d/d.go": "",
          "src/github.com/user/repo/pkg/vendor/github.com/dep/d/inner.go": "",
          "src/github.com/user/lib/l.go": "", "README.md": ""}


def test_gopath_tree_resolves_under_its_src_directory():
    got = resolved(GOPATH, {"src/github.com/user/repo/pkg/a.go": [
        "github.com/user/repo/other", "github.com/user/lib", "github.com/user/repo/missing", "fmt"]})
    assert got == {("src/github.com/user/repo/pkg/a.go", "github.com/user/repo/other", "src/github.com/user/repo/other/o.go"),
                   ("src/github.com/user/repo/pkg/a.go", "github.com/user/lib", "src/github.com/user/lib/l.go"),
                   ("src/github.com/user/repo/pkg/a.go", "github.com/user/repo/missing", "external"),
                   ("src/github.com/user/repo/pkg/a.go", "fmt", "external")}


def test_gopath_vendor_dirs_nearest_first():
    got = resolved(GOPATH, {"src/github.com/user/repo/pkg/a.go": ["github.com/dep/d"],
                            "src/github.com/user/repo/other/o.go": ["github.com/dep/d"],
                            "src/github.com/user/lib/l.go": ["github.com/dep/d"]})
    assert got == {("src/github.com/user/repo/pkg/a.go", "github.com/dep/d",
                    "src/github.com/user/repo/pkg/vendor/github.com/dep/d/inner.go"),
                   ("src/github.com/user/repo/other/o.go", "github.com/dep/d",
                    "src/github.com/user/repo/vendor/github.com/dep/d/d.go"),
                   ("src/github.com/user/lib/l.go", "github.com/dep/d", "external")}  # not below that vendor/


def test_a_go_mod_turns_gopath_lookup_off_for_its_files():
    tree = {**GOPATH, "src/github.com/user/lib/go.mod": "module github.com/user/lib\n"}
    got = resolved(tree, {"src/github.com/user/lib/l.go": ["github.com/user/repo/other"]})
    assert got == {("src/github.com/user/lib/l.go", "github.com/user/repo/other", "external")}


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

ROOTED = {"main.go": "", "pkg/x/x.go": "", "pkg/x/x_test.go": "", "net/http/h.go": "", "x/x.go": "",
          "testdata/z/z.go": "", "docs/x/README.md": "", "lib/repo/pkg/y/y.go": "", "pkg/y/y.go": ""}


def test_an_import_path_whose_tail_is_a_directory_of_the_tree_resolves_there():
    got = resolved(ROOTED, {"main.go": [
        "github.com/org/repo/pkg/x", "github.com/org/repo/x", "github.com/org/repo", "net/http", "fmt",
        "github.com/org/repo/testdata/z", "github.com/org/repo/docs/x", "example.com/other/lib"]})
    assert got == {("main.go", "github.com/org/repo/pkg/x", "pkg/x/x.go"),  # its tail pkg/x, no test file
                   ("main.go", "github.com/org/repo/x", "external"),  # one segment is not enough
                   ("main.go", "github.com/org/repo", "external"),
                   ("main.go", "net/http", "external"),  # the standard library's, never the tree's net/http
                   ("main.go", "fmt", "external"),
                   ("main.go", "github.com/org/repo/testdata/z", "external"),  # no importable package there
                   ("main.go", "github.com/org/repo/docs/x", "external"),  # no .go file there
                   ("main.go", "example.com/other/lib", "external")}


def test_the_longest_tail_that_is_a_package_directory_wins():
    # both imports have the tail pkg/y; the second's longer tail lib/repo/pkg/y is a package too.
    # A tail is a path from the tree's root: repo/pkg/y is not lib/repo/pkg/y
    got = resolved(ROOTED, {"x/x.go": ["github.com/org/repo/pkg/y", "github.com/org/lib/repo/pkg/y"]})
    assert got == {("x/x.go", "github.com/org/repo/pkg/y", "pkg/y/y.go"),
                   ("x/x.go", "github.com/org/lib/repo/pkg/y", "lib/repo/pkg/y/y.go")}  # lib/repo/pkg/y, not pkg/y


def test_a_go_mod_anywhere_turns_the_tail_rule_off():
    tree = {**ROOTED, "tools/go.mod": "module example.com/tools\n", "tools/t.go": ""}
    assert resolved(tree, {"main.go": ["github.com/org/repo/pkg/x"]}) == {
        ("main.go", "github.com/org/repo/pkg/x", "external")}


def test_gopath_src_and_vendor_dirs_come_before_the_tail_rule():
    tree = {**ROOTED, "vendor/github.com/org/repo/pkg/x/v.go": ""}
    assert resolved(tree, {"main.go": ["github.com/org/repo/pkg/x"]}) == {
        ("main.go", "github.com/org/repo/pkg/x", "vendor/github.com/org/repo/pkg/x/v.go")}


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
