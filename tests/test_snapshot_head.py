"""The stored head keeps the file table by column: it must give back exactly the file table,
fan-in and rank of the record it was made from, and a snapshot's lookups by path and by
blob must answer from the columns what the records would."""

from __future__ import annotations

from corpora.fixtures import build_polyglot
from indexer import api
from indexer.store.database import Store
from indexer.store.records import decode_head, encode, head_of, load_record


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


def test_one_off_lookups_of_few_and_many_blobs_agree_with_the_index(tmp_path):
    # `common` in 20 blobs (more than a one-off lookup searches one by one), `rare` in 2, one
    # of them at two paths and a third under a name that calls it binary, never listed
    from corpora.gitbuild import RepoBuilder

    files: dict[str, object] = {f"pkg/m{i:02}.py": f"def common():\n    return {i}\n" for i in range(20)}
    files.update({"a/rare.py": "def rare():\n    return 1\n", "b/rare.py": "def rare():\n    return 1\n",
                  "c/rare2.py": "def rare():\n    return 2\n", "copy.png": "def rare():\n    return 1\n"})
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit(files)
    with Store.open(tmp_path / "store") as store:
        api.index(str(builder.path), "main", store=store, workers=1)
        for name, paths in (("rare", ["a/rare.py", "b/rare.py", "c/rare2.py"]),
                            ("common", [f"pkg/m{i:02}.py" for i in range(20)])):
            one_off = api.snapshot(str(builder.path), "main", store=store)
            first = one_off.definitions(name)
            assert sorted({p for p, _ in first}) == paths
            warm = api.snapshot(str(builder.path), "main", store=store)
            for _ in range(3):  # past the one-off lookups: the blob -> paths index answers
                warm.definitions("unrelated")
            assert warm.definitions(name) == first


def test_a_lazy_head_answers_as_the_head_and_decodes_only_the_columns_read(tmp_path):
    import pytest

    from indexer.store.records import HEAD_COLUMNS, LazyHead

    fixture = build_polyglot(tmp_path / "repo")
    with Store.open(tmp_path / "store") as store:
        report = api.index(str(fixture.path), "main", store=store, workers=1)
        record = load_record(store, report.oid)
        raw = encode(head_of(record))
        full = decode_head(raw)
        lazy = LazyHead(raw, store.home)
        assert not set(HEAD_COLUMNS) & set(vars(lazy))  # nothing decoded yet
        assert (lazy.oid, lazy.tree, lazy.fingerprint, lazy.symbols, lazy.edges, lazy.blob_facts) == (
            full.oid, full.tree, full.fingerprint, full.symbols, full.edges, full.blob_facts)
        assert lazy.paths == full.paths and set(HEAD_COLUMNS) & set(vars(lazy)) == {"paths"}
        assert all(getattr(lazy, c) == getattr(full, c) for c in HEAD_COLUMNS)
        assert lazy.files() == full.files() == record.files and lazy.entry(2) == full.entry(2)
        assert lazy.rank_map() == record.rank and lazy.fan_in_map() == record.fan_in
        with pytest.raises(AttributeError):
            _ = lazy.no_such_column

        # a fresh snapshot's definition lookup reads three columns of the twelve
        fresh = api.snapshot(str(fixture.path), "main", store=store)
        name = next(s.name for _, s in api.snapshot(str(fixture.path), "main", store=store).symbols())
        assert fresh.definitions(name)
        assert set(HEAD_COLUMNS) & set(vars(fresh._head)) <= {"paths", "blobs", "languages"}


def test_a_file_s_full_facts_are_its_own_sites_and_a_text_file_s_made_again(tmp_path):
    """`Snapshot.facts`: a parsed file's occurrences as stored (roles and all), a text file's
    plain sites made again from its blob (the store keeps only their sums), and None for a
    file whose facts the store does not hold."""
    from corpora.gitbuild import RepoBuilder
    from indexer.extract.blob import extract_blob
    from indexer.extract.tokens import plain_occurrences
    from indexer.store.records import path_facts_key

    source, text = b"def alpha(x):\n    return beta(x)\n", b"alpha and beta, in prose\n"
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"m.py": source, "notes.md": text, "gone.py": "G = 1\n"})
    with Store.open(tmp_path / "store") as store:
        api.index(str(builder.path), "main", store=store, workers=1)
        snap = api.snapshot(str(builder.path), "main", store=store)
        assert snap.facts("m.py").occurrences == extract_blob(source, "m.py", "python").occurrences
        assert {o.role for o in snap.facts("m.py").occurrences} >= {"definition", "call", "local"}
        assert snap.facts("notes.md").occurrences == plain_occurrences(text) != []
        gone = snap.file("gone.py")
        with store.env.begin(write=True) as txn:
            txn.delete(path_facts_key("gone.py", gone.blob, snap.extractor_version), db=store.facts)
        assert api.snapshot(str(builder.path), "main", store=store).facts("gone.py") is None
