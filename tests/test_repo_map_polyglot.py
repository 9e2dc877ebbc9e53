"""The whole indexer against the polyglot fixture, whose expectations were written by hand
from its sources: symbols, import edges, fan-in, entry points, packages, dependencies,
languages, marks and skipped files."""

from __future__ import annotations

import pytest

from corpora.fixtures import SYMBOL_KINDS, build_polyglot
from indexer import api
from indexer.store.database import Store


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = tmp_path_factory.mktemp("polyglot")
    fixture = build_polyglot(root / "repo")
    store = Store.open(root / "store")
    report = api.index(str(fixture.path), "main", store=store, workers=2)
    snap = api.snapshot(str(fixture.path), "main", store=store)
    yield fixture, report, snap
    store.close()


def test_every_expected_symbol_is_found_where_it_is_written(indexed):
    fixture, report, snap = indexed
    # The expectation is complete for its kinds; fields and variables are not written down.
    actual = {(p, s.name, s.kind, s.container, s.line) for p, s in snap.symbols() if s.kind in SYMBOL_KINDS}
    expected = {(e.path, e.name, e.kind, e.container, e.line) for e in fixture.symbols}
    assert sorted(expected - actual) == []
    # No symbol appears in a fixture file beyond those written down for it.
    covered = {e.path for e in fixture.symbols}
    extra = sorted(a for a in actual if a[0] in covered and a not in expected)
    assert extra == []


def test_import_edges_and_fan_in(indexed):
    fixture, report, snap = indexed
    assert {(e.source, e.target) for e in snap.record.edges} == fixture.edges
    assert {p: snap.fan_in(p) for p in fixture.fan_in} == fixture.fan_in
    # the networkx import graph says the same: fan-in is each node's in-degree
    graph = snap.import_graph()
    assert sorted(graph.nodes) == [f.path for f in snap.files]
    assert {p: graph.in_degree(p) for p in fixture.fan_in} == fixture.fan_in


def test_entry_points_packages_and_dependencies(indexed):
    fixture, report, snap = indexed
    assert sorted(snap.record.entry_points, key=repr) == sorted(fixture.entry_points, key=repr)
    assert sorted(snap.record.packages, key=repr) == sorted(fixture.packages, key=repr)
    assert sorted(snap.record.dependencies, key=repr) == sorted(fixture.dependencies, key=repr)


def test_languages_marks_and_skips(indexed):
    fixture, report, snap = indexed
    assert [f.path for f in snap.files] == fixture.files
    assert {p: snap.file(p).language for p in fixture.languages} == fixture.languages
    assert {f.path: f.mark for f in snap.files if f.mark} == fixture.marks
    assert {s.path: s.reason for s in report.skipped} == fixture.skipped


def test_defined_names_come_from_the_name_index_and_match_the_symbols(indexed):
    fixture, report, snap = indexed
    assert snap.defined_names() == sorted({s.name for _, s in snap.symbols()})


def test_per_file_lookups_agree_with_the_record_before_and_after_the_path_index(indexed):
    """The first lookups bisect the sorted file table, later ones use an index: both answer alike."""
    fixture, report, snap = indexed
    record = snap.record
    assert [f.path for f in snap.files] == sorted(f.path for f in snap.files)
    for _ in range(3):  # enough lookups to pass from bisecting to the index
        for f in record.files:
            assert snap.file(f.path) == f
            assert snap.fan_in(f.path) == record.fan_in[f.path]
            assert snap.rank_of(f.path) == record.rank[f.path]
        assert snap.file("no/such/file.py") is None and snap.fan_in("no/such/file.py") is None
        assert snap.rank_of("no/such/file.py") == 0.0


def test_each_import_family_names_every_language_whose_files_hold_its_imports(indexed):
    """Re-resolution after a configuration change looks only at files of the languages a
    family lists (resolve.FAMILY_LANGUAGES): every import the fixture's files hold must be of
    a family that lists the file's language."""
    from indexer.resolve.imports import FAMILY, FAMILY_LANGUAGES

    fixture, report, snap = indexed
    assert set(FAMILY_LANGUAGES) == set(FAMILY.values())
    seen = set()
    for f in snap.files:
        facts = snap.facts(f.path)
        for imp in facts.imports if facts is not None else ():
            family = FAMILY.get(imp.kind)
            if family is not None:
                assert f.language in FAMILY_LANGUAGES[family], (f.path, imp.kind)
                seen.add((family, f.language))
    # languages the fixture imports nothing in, extracted here
    from indexer.extract.blob import extract_blob

    for path, language, source in [("run.sh", "bash", b"source ./lib.sh\n. ./more.sh\n"),
                                   ("app.php", "php", b"<?php\nrequire 'lib.php';\nuse App\\Models\\User;\n")]:
        for imp in extract_blob(source, path, language).imports:
            assert language in FAMILY_LANGUAGES[FAMILY[imp.kind]], (path, imp.kind)
            seen.add((FAMILY[imp.kind], language))
    # every family is reached, and for JS its languages
    assert {family for family, _ in seen} == set(FAMILY_LANGUAGES)
    assert {language for family, language in seen if family == "js"} >= {"javascript", "typescript"}
