"""Go import resolution: which files of a directory make up the package an import names
(build-excluded generators and foreign package clauses are not members) and which
directories hold no importable package (testdata, `_x`, `.x`)."""

from __future__ import annotations

import pytest

from corpora.gitbuild import make_repo
from indexer.api import open_store
from indexer.build import index
from indexer import resolve as resolve_module
from indexer.content import go_build_ignored
from indexer.model import BlobFacts, ImportSpec
from indexer.records import load_record
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
