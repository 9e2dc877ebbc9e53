"""The stored head keeps the file table by column: it must give back exactly the file table,
fan-in and rank of the record it was made from, and a snapshot's lookups by path and by
blob must answer from the columns what the records would."""

from __future__ import annotations

from corpora.fixtures import build_polyglot
from indexer import api
from indexer.records import decode_head, encode, head_of, load_record
from indexer.store import Store


def test_a_head_gives_back_the_record_s_file_table_fan_in_and_rank(tmp_path):
    fixture = build_polyglot(tmp_path / "repo")
    with Store.open(tmp_path / "store") as store:
        report = api.index(str(fixture.path), "main", store=store, workers=1)
        record = load_record(store, report.oid)
    head = decode_head(encode(head_of(record)))
    assert head.files() == record.files
    assert [head.entry(i) for i in range(len(record.files))] == record.files
    assert head.fan_in_map() == record.fan_in and head.rank_map() == record.rank
    assert (head.oid, head.fingerprint, head.symbols, head.edges, head.blob_facts) == (
        record.oid, record.fingerprint, record.symbols, len(record.edges), record.blob_facts)
    assert record.blob_facts == report.parsed_blobs > 0  # a cold index parses every blob fact it needs
    # the fixture's table exercises the columns: marks, skips, links and submodules
    assert any(f.mark for f in record.files) and any(f.skipped for f in record.files)
    assert {"symlink", "submodule"} <= {f.language for f in record.files}


def test_lookups_answer_from_the_columns_what_the_file_table_says(tmp_path):
    fixture = build_polyglot(tmp_path / "repo")
    with Store.open(tmp_path / "store") as store:
        api.index(str(fixture.path), "main", store=store, workers=1)
        whole = api.snapshot(str(fixture.path), "main", store=store)
        expected = list(whole.files)
        names = sorted({s.name for _, s in whole.symbols()})[:40]
        want = {n: whole.definitions(n) for n in names}

        fresh = api.snapshot(str(fixture.path), "main", store=store)
        assert [fresh.file(f.path) for f in expected] == expected
        assert fresh.file("no/such/file.py") is None
        assert {n: fresh.definitions(n) for n in names} == want  # by blob, scanned then indexed
        assert "files" not in fresh.__dict__  # none of it made the file table's records
        assert fresh.files == expected
        assert fresh.rank == whole.rank and fresh.file(expected[3].path) == expected[3]
