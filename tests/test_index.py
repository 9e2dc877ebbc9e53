"""The indexer's spine: revs, determinism, incremental reuse, crash safety, concurrency, bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Iterator

import pygit2
import pytest

from corpora.gitbuild import Exec, Link, RepoBuilder, Submodule, make_repo
from indexer import api
from indexer.contract.errors import (
    EmptyRepository,
    MissingObjects,
    NotARepository,
    SchemaMismatch,
    StoreError,
    StoreLocked,
    UnknownRev,
)
from indexer.git import read as gitread
from indexer.store.database import Store, WriteLock
from tests.indexed import fingerprint_indexed
from tests.reindexed import reindexed_as_cold

ROOT = Path(__file__).resolve().parent.parent


def _module(i: int) -> str:
    return (f"import pkg.mod{(i + 1) % 80}\n\nCONSTANT_{i} = {i}\n\n\n"
            f"class Thing{i}:\n    def method_{i}(self, x):\n        return helper_{i}(x)\n\n\n"
            f"def helper_{i}(x):\n    return x + {i}\n")


def _many_files(n: int = 80) -> dict[str, str]:
    files = {f"pkg/mod{i}.py": _module(i) for i in range(n)}
    files["pkg/__init__.py"] = ""
    files["README.md"] = "# sample\n\nSome words here.\n"
    return files


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "store")
    yield s
    s.close()


@pytest.fixture
def sample(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({
        "app/__init__.py": "",
        "app/core.py": "class Engine:\n    def start(self):\n        return 1\n\n\ndef boot():\n    return Engine()\n",
        "app/cli.py": "from app.core import boot\n\n\ndef main():\n    boot()\n",
        "bin/run": Exec("#!/usr/bin/env python3\nimport sys\nprint(sys.argv)\n"),
        "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00binary",
        "big.txt": "x" * (1 << 20) + "\n",
        "link": Link("app/core.py"),
        "ext/lib": Submodule("1" * 40),
    }, message="first")
    builder.tag("v1", first)
    second = builder.commit({"app/cli.py": "from app.core import boot, Engine\n\n\ndef main():\n    boot()\n"},
                            message="second")
    return builder, first, second


def test_index_reports_what_it_read(sample, store):
    builder, first, second = sample
    report = api.index(str(builder.path), "main", store=store, workers=1)
    assert report.oid == second
    assert report.files == 8
    assert report.parsed_blobs == 6  # every regular blob once; the symlink and submodule are not parsed
    assert report.reused_blobs == 0
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons == {"logo.png": "binary", "big.txt": "too_large", "link": "symlink", "ext/lib": "submodule"}
    assert report.languages["python"] == 4  # three .py files and the extensionless script, by its shebang
    snap = api.snapshot(str(builder.path), "main", store=store)
    assert {s.name for _, s in snap.symbols()} >= {"Engine", "start", "boot", "main"}
    assert snap.file("link").target == "app/core.py"
    assert snap.file("ext/lib").target == "1" * 40
    assert snap.file("bin/run").mode == pygit2.GIT_FILEMODE_BLOB_EXECUTABLE
    # the file table's size and lines: the blob's bytes (a link's, its target's), -1 lines where
    # no text is read (a binary blob, a link, a submodule, which has no blob)
    rows = {f.path: (f.blob != "", f.size, f.lines, f.language) for f in snap.files}
    assert rows["logo.png"] == (True, len(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary"), -1, "binary")
    assert rows["link"] == (True, len("app/core.py"), -1, "symlink")
    assert rows["ext/lib"] == (False, 0, -1, "submodule")
    assert time.strptime(snap.indexed_at, "%Y-%m-%dT%H:%M:%SZ")  # when it was indexed, in UTC
    assert rows["app/cli.py"] == (True, len(b"from app.core import boot, Engine\n\n\ndef main():\n    boot()\n"), 5,
                                  "python")


def test_every_rev_form_resolves_to_its_commit(sample, tmp_path):
    builder, first, second = sample
    repo = gitread.open_repo(builder.path)
    for rev, expected in [("main", second), ("HEAD", second), ("v1", first), (first, first),
                          (first[:8], first), ("HEAD~1", first), ("main^", first)]:
        assert gitread.resolve_rev(repo, rev) == expected, rev
    bare = tmp_path / "bare.git"
    pygit2.clone_repository(str(builder.path), str(bare), bare=True)
    assert gitread.resolve_rev(gitread.open_repo(bare), "HEAD~1") == first


def test_bare_repository_indexes_like_its_origin(sample, tmp_path):
    builder, first, second = sample
    bare = tmp_path / "bare.git"
    pygit2.clone_repository(str(builder.path), str(bare), bare=True)
    a = api.index(str(builder.path), "main", store=Store.open(tmp_path / "s1"), workers=1)
    b = api.index(str(bare), "main", store=Store.open(tmp_path / "s2"), workers=1)
    assert a.fingerprint == b.fingerprint


def _dump(repo: str, rev: str, store: Store) -> bytes:
    return b"".join(api.snapshot(repo, rev, store=store).canonical_lines())


def test_same_oid_same_bytes_whatever_the_workers_or_cache(tmp_path):
    oids = make_repo(tmp_path / "repo", [_many_files()])
    repo = str(tmp_path / "repo")
    one = Store.open(tmp_path / "one")
    two = Store.open(tmp_path / "two")
    r1 = api.index(repo, "main", store=one, workers=1)
    r2 = api.index(repo, "main", store=two, workers=2)
    assert r1.fingerprint == r2.fingerprint
    assert _dump(repo, "main", one) == _dump(repo, "main", two)
    # A store that already holds every blob's facts, built in another order, agrees too.
    make_repo(tmp_path / "copy", [_many_files()])
    r3 = api.index(str(tmp_path / "copy"), "main", store=two, workers=2)
    assert r3.fingerprint == r1.fingerprint and r3.oid == oids[0]


def test_parsed_and_reused_count_blob_facts_the_same_way_everywhere(tmp_path):
    # One blob under a name that leaves its language to the content (NOTES) and under one that
    # says "text" (notes.txt) has two facts keys although both are text: two blob facts, never
    # a negative reuse count.
    from indexer.fleet import batch
    words = "Plain words about the project.\n"
    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({"NOTES": words, "notes.txt": words, "a.py": "def f():\n    return 1\n",
                            "b.py": "def f():\n    return 1\n", "link": Link("a.py")})
    second = builder.commit({"c.py": "X = 1\n"})
    repo = str(builder.path)
    with Store.open(tmp_path / "store") as store:
        cold = api.index(repo, first, store=store, workers=1)
        assert (cold.parsed_blobs, cold.reused_blobs) == (3, 0)  # NOTES, notes.txt, one .py blob; no link
        again = api.index(repo, first, store=store, workers=1)
        assert again.snapshot_reused and (again.parsed_blobs, again.reused_blobs) == (0, 3)
        later = api.index(repo, second, store=store, workers=1)
        assert (later.parsed_blobs, later.reused_blobs) == (1, 3)
    with Store.open(tmp_path / "batch-store") as store:
        report = batch.run(store, [batch.JobSpec(repo, first), batch.JobSpec(repo, second),
                                   batch.JobSpec(repo, second)], workers=1)
    counts = [(j.status, j.parsed_blobs, j.reused_blobs) for j in report.jobs]
    assert counts[0] == ("indexed", 3, 0)
    assert sorted(counts[1:]) == [("indexed", 1, 3), ("skipped_existing", 0, 4)]


def test_a_new_commit_parses_only_new_blobs_and_adds_little(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit(_many_files())
    store = Store.open(tmp_path / "store")
    first = api.index(str(builder.path), "main", store=store, workers=1)
    size_after_first = _store_bytes(store)
    builder.commit({"pkg/mod3.py": _module(3) + "\n\ndef added():\n    return 3\n"})
    second = api.index(str(builder.path), "main", store=store, workers=1)
    assert second.parsed_blobs == 1
    assert second.reused_blobs == first.parsed_blobs - 1
    assert second.fingerprint != first.fingerprint
    growth = _store_bytes(store) - size_after_first
    assert growth < size_after_first * 0.5
    snap = api.snapshot(str(builder.path), "main", store=store)
    assert [p for p, s in snap.definitions("added")] == ["pkg/mod3.py"]
    # the name index serves every snapshot of the store; each sees its own names only
    assert "added" in snap.defined_names()
    assert "added" not in api.snapshot(str(builder.path), first.oid, store=store).defined_names()
    # The old snapshot is still there, unchanged.
    again = api.index(str(builder.path), first.oid, store=store, workers=1)
    assert again.fingerprint == first.fingerprint and again.parsed_blobs == 0
    assert (again.files, again.symbols, again.edges, again.languages, again.skipped) == (
        first.files, first.symbols, first.edges, first.languages, first.skipped)


def _store_bytes(store: Store) -> int:
    with store.env.begin() as txn:
        pages = 0
        for db in (store.facts, store.defs, store.occ, store.snapshots, store.repos):
            st = txn.stat(db)
            pages += st["branch_pages"] + st["leaf_pages"] + st["overflow_pages"]
    return pages * store.env.stat()["psize"]


def test_rev_moves_and_pinned_snapshot_stays(sample, store):
    builder, first, second = sample
    snap = api.snapshot(str(builder.path), "main", store=store)
    assert snap.oid == second and snap.current_oid() == second
    third = builder.commit({"app/new.py": "def fresh():\n    pass\n"})
    pinned = api.snapshot(str(builder.path), "main", store=store)
    assert pinned.oid == second  # served from the pinned snapshot
    assert pinned.current_oid() == third  # and freshness can tell it moved
    api.index(str(builder.path), "main", store=store, workers=1)
    assert api.snapshot(str(builder.path), "main", store=store).oid == third


_KILL_SCRIPT = """
import sys
from indexer import api
from indexer.store.database import Store
api.index(sys.argv[1], "main", store=Store.open(sys.argv[2]), workers=2)
"""


@pytest.fixture(scope="module")
def killable(tmp_path_factory) -> tuple[str, str]:
    """A repository of 400 modules, which the killed indexes read and never change, and the
    fingerprint of its `main` indexed into a fresh store."""
    root = tmp_path_factory.mktemp("killable")
    make_repo(root / "repo", [{f"pkg/m{i}.py": _module(i) * 3 for i in range(400)}])
    return str(root / "repo"), fingerprint_indexed(root / "clean", root / "repo", "main")


@pytest.mark.parametrize("moment", ["at its start", "its workers into their work", "its workers gone"])
def test_killed_indexer_leaves_no_half_snapshot(moment, killable, tmp_path):
    """SIGKILL to an index at a state of its run (its workers' own, through /proc): at the start,
    mid-extraction, and once its workers are gone, as it assembles and writes. What the store
    holds after is no snapshot or the whole one, and an index then gives a clean one's."""
    from tests.processes import children, held_in_their_work, into_their_work, wait_for_children

    repo, clean_fingerprint = killable
    home = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):  # the second run on a store the first was killed writing
        proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT, repo, str(home)], env=env)
        if moment != "at its start":
            wait_for_children(proc, 2)
            workers = children(proc.pid)
        if moment == "its workers gone":
            into_their_work(proc, workers)
            deadline = time.monotonic() + 60
            while set(workers) & set(children(proc.pid)) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.002)
        with held_in_their_work(proc, workers) if moment == "its workers into their work" else nullcontext():
            proc.kill()
        proc.wait()
        store = Store.open(home)
        try:
            snap_oid = None
            try:
                snap_oid = api.snapshot(repo, "main", store=store, index_if_absent=False).fingerprint
            except Exception as exc:  # absent is the only acceptable failure
                assert getattr(exc, "code", "") == "not_indexed", exc
            assert snap_oid in (None, clean_fingerprint)
        finally:
            store.close()
    store = Store.open(home)
    finished = api.index(repo, "main", store=store, workers=1)  # in this process: the store is under test
    assert finished.fingerprint == clean_fingerprint


# Reads the snapshot of rev argv[4] over and over: says so once it has read it, and stops once
# the file argv[3] exists (the writer is done), printing the fingerprints it saw and its reads.
_READER_SCRIPT = """
import os, sys
from indexer import api
from indexer.store.database import Store
store = Store.open(sys.argv[2])
seen = set()
reads = 0
while reads == 0 or not os.path.exists(sys.argv[3]):
    snap = api.snapshot(sys.argv[1], sys.argv[4], store=store, index_if_absent=False)
    seen.add(snap.fingerprint)
    assert snap.definitions("helper_1"), "definitions vanished"
    reads += 1
    if reads == 1:
        print("reading", flush=True)
print(len(seen), reads)
"""


def test_readers_keep_working_while_a_writer_indexes(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit(_many_files())
    builder.commit({f"pkg/new{i}.py": _module(i + 1000) for i in range(300)})
    home = tmp_path / "store"
    store = Store.open(home)
    api.index(str(builder.path), first, store=store, workers=1)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = tmp_path / "written"
    reader = subprocess.Popen([sys.executable, "-c", _READER_SCRIPT, str(builder.path), str(home), str(done), first],
                              env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline() == "reading\n"  # before the writer starts
        api.index(str(builder.path), "main", store=store, workers=2)
    finally:
        done.touch()
    out, _ = reader.communicate(timeout=60)
    assert reader.returncode == 0
    distinct, reads = map(int, out.split())
    assert distinct == 1 and reads > 10


def test_a_rev_too_long_to_pin_is_bad_input_before_anything_is_indexed(tmp_path, sample):
    """A rev is pinned under its name, in a key LMDB holds to 511 bytes (was: `store_corrupt` for a
    `HEAD~0~0...` that resolves, the store named as damaged); a shorter spelling is pinned, and a
    read of the long one finds the commit unpinned."""
    from indexer.contract.errors import BadInput, NotIndexed
    from indexer.store.records import PIN_REV_BYTES

    builder, first, second = sample
    long = "HEAD~1" + "~0" * 300
    with Store.open(tmp_path / "s") as store:
        with pytest.raises(BadInput, match="pinned"):
            api.index(str(builder.path), long, store=store)
        with pytest.raises(NotIndexed):  # refused before anything was stored
            api.snapshot(str(builder.path), first, store=store, index_if_absent=False)
        at_bound = "HEAD~1" + "~0" * ((PIN_REV_BYTES - len("HEAD~1")) // 2)
        assert api.index(str(builder.path), at_bound, store=store).oid == first
        assert api.snapshot(str(builder.path), long, store=store, index_if_absent=False).oid == first


def test_bad_input_is_typed(tmp_path, sample):
    builder, first, second = sample
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotARepository):
        api.index(str(tmp_path / "plain"), store=Store.open(tmp_path / "s"))
    with pytest.raises(NotARepository):
        api.index(str(tmp_path / "nowhere"), store=Store.open(tmp_path / "s"))
    with pytest.raises(UnknownRev):
        api.index(str(builder.path), "no-such-branch", store=Store.open(tmp_path / "s"))
    pygit2.init_repository(str(tmp_path / "empty"))
    with pytest.raises(EmptyRepository):
        api.index(str(tmp_path / "empty"), store=Store.open(tmp_path / "s"))


def test_shallow_clone_missing_history_is_typed(sample, tmp_path):
    builder, first, second = sample
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{builder.path}", str(shallow)], check=True)
    assert api.index(str(shallow), "HEAD", store=Store.open(tmp_path / "s"), workers=1).oid == second
    with pytest.raises((MissingObjects, UnknownRev)) as info:
        api.index(str(shallow), "HEAD~1", store=Store.open(tmp_path / "s"), workers=1)
    assert info.value.code in ("missing_objects", "unknown_rev")


def test_a_store_from_before_the_names_runs_is_upgraded_in_place(tmp_path, sample):
    """Schema 1 had no runs of names: opening such a store makes them from the name index's
    keys, once; its snapshots then answer near names."""
    import context_tools
    from indexer.store import name_runs

    builder, _, _ = sample
    home = tmp_path / "v1"
    with Store.open(home) as store:
        api.index(str(builder.path), "v1", store=store)
        with store.env.begin(write=True) as txn:  # as schema 1 left it
            txn.drop(store.names, delete=False)
            txn.put(b"schema", b"1", db=store.meta)
        with store.env.begin(db=store.defs) as txn:
            keys = list(txn.cursor().iternext_nodup(keys=True, values=False))
    with Store.open(home) as store:
        with store.env.begin(db=store.meta) as txn:
            assert bytes(txn.get(b"schema")) == b"2"
        runs = name_runs.load(store)
        assert len(runs) == 1 and runs[0].plain() == sorted(name_runs.name_of(k) for k in keys)
        assert {"Engine", "boot", "start"} <= set(runs[0].plain())
    near = context_tools.Client(store=str(home)).call("context.symbol", repo=str(builder.path), rev="v1",
                                                      name="engine")
    assert near.data.fuzzy and [d.qualified for d in near.data.definitions] == ["Engine"]
    with Store.open(home) as store:  # a second opener finds it done
        assert len(name_runs.load(store)) == 1


def test_store_of_another_version_or_corrupt_is_refused_untouched(tmp_path):
    home = tmp_path / "old"
    store = Store.open(home)
    with store.env.begin(db=store.meta, write=True) as txn:
        txn.put(b"schema", b"0")
    store.close()
    before = (home / "lmdb" / "data.mdb").read_bytes()
    with pytest.raises(SchemaMismatch) as info:
        Store.open(home)
    assert "move" in info.value.message
    assert (home / "lmdb" / "data.mdb").read_bytes() == before
    bad = tmp_path / "bad"
    (bad / "lmdb").mkdir(parents=True)
    (bad / "lmdb" / "data.mdb").write_bytes(b"this is not an lmdb file" * 500)
    with pytest.raises(StoreError) as info:
        Store.open(bad)
    assert info.value.code == "store_corrupt"


def test_second_writer_gets_store_locked(sample, tmp_path):
    builder, first, second = sample
    home = tmp_path / "store"
    store = Store.open(home)
    with WriteLock(home):
        with pytest.raises(StoreLocked):
            api.index(str(builder.path), "main", store=store, workers=1)
    assert api.index(str(builder.path), "main", store=store, workers=1).oid == second


def test_a_commit_already_indexed_is_reported_while_another_indexer_writes(sample, tmp_path):
    builder, first, second = sample
    home = tmp_path / "store"
    store = Store.open(home)
    api.index(str(builder.path), first, store=store, workers=1)
    with WriteLock(home):  # an indexer at work on something else
        again = api.index(str(builder.path), first, store=store, workers=1)
        assert again.oid == first and again.snapshot_reused and again.parsed_blobs == 0
        # a new rev naming the indexed commit is pinned too: it is what readers of that rev see
        api.index(str(builder.path), "main~1", store=store, workers=1)
        assert api.snapshot(str(builder.path), rev="main~1", store=store, index_if_absent=False).oid == first
        with pytest.raises(StoreLocked):  # what is not indexed still waits for the lock
            api.index(str(builder.path), "main", store=store, workers=1)


def test_a_malformed_manifest_is_listed_as_skipped(tmp_path, store):
    make_repo(tmp_path / "repo", [{
        "package.json": '{"name": "web", "dependencies": {',
        "pyproject.toml": '[project]\nname = "tool"\nversion = "1.0"\ndependencies = ["requests>=2"]\n',
        "tool/__init__.py": "",
    }])
    report = api.index(str(tmp_path / "repo"), store=store, workers=1)
    assert {(s.path, s.reason) for s in report.skipped} == {("package.json", "bad_manifest")}
    snap = api.snapshot(str(tmp_path / "repo"), store=store)
    assert [(p.name, p.version) for p in snap.record.packages] == [("tool", "1.0")]
    assert [(d.name, d.spec) for d in snap.record.dependencies] == [("requests", ">=2")]


def test_language_comes_from_content_where_the_name_does_not_decide(tmp_path, store):
    make_repo(tmp_path / "repo", [{
        "include/vec.h": "#include <vector>\nnamespace geo {\nclass Vec {\n public:\n  int x;\n};\n}\n",
        "include/plain.h": "struct point { int x; int y; };\nint add(int a, int b);\n",
        "tools/deploy": Exec("#!/bin/bash\ndeploy() {\n  echo hi\n}\n"),
        "tools/notes": "just some words\n",
    }])
    report = api.index(str(tmp_path / "repo"), store=store, workers=1)
    snap = api.snapshot(str(tmp_path / "repo"), store=store)
    assert {f.path: f.language for f in snap.files} == {
        "include/vec.h": "cpp", "include/plain.h": "c", "tools/deploy": "bash", "tools/notes": "text"}
    assert report.languages == {"bash": 1, "c": 1, "cpp": 1, "text": 1}
    assert [(p, s.kind) for p, s in snap.definitions("Vec")] == [("include/vec.h", "class")]


def test_one_home_opened_twice_in_a_process_is_shared(tmp_path):
    first = Store.open(tmp_path / "home")
    second = Store.open(tmp_path / "home")
    assert second is first
    first.close()
    assert second.kv("t").get(b"k") is None  # still open for the second opener
    second.close()
    third = Store.open(tmp_path / "home")
    assert third is not first
    third.close()


def test_a_re_index_equals_a_cold_index_of_the_same_commit(tmp_path):
    """What a re-index carries over from its parent snapshot (languages, import resolution,
    marks) must give the bytes a cold index gives, through changes of every kind."""
    builder = RepoBuilder(tmp_path / "repo")
    files = _many_files(40)
    files.update({
        ".gitattributes": "docs/** linguist-generated\n",
        "docs/guide.md": "# guide\n",
        "vendor/lib.py": "def vendored():\n    return 1\n",
        "pkg/api_pb2.py": "class Message:\n    pass\n",
        "pyproject.toml": '[project]\nname = "sample"\nversion = "1.0"\ndependencies = ["requests>=2"]\n',
    })
    commits = [builder.commit(files, message="base")]
    commits.append(builder.commit({"pkg/mod3.py": _module(3) + "\n\ndef added():\n    return 3\n"}, message="edit"))
    # the attributes change, pkg/mod1.py does not: its mark must change all the same
    commits.append(builder.commit({".gitattributes": "docs/** linguist-generated\npkg/mod1.py linguist-vendored\n"},
                                  message="attributes"))
    # a path goes, another comes: every import may resolve differently
    commits.append(builder.commit({"pkg/mod7.py": None, "pkg/extra.py": "import pkg.mod8\nimport pkg.mod7\n"},
                                  message="move"))
    # the same blob under another name: pkg/mod8.py's import of pkg.mod9 no longer resolves
    commits.append(builder.commit({"pkg/mod9.py": None, "pkg/renamed9.py": _module(9)}, message="rename"))
    # an import retargeted: pkg/mod21.py loses an importer (its fan-in), pkg/mod30.py gains one
    commits.append(builder.commit({"pkg/mod20.py": _module(20).replace("import pkg.mod21", "import pkg.mod30")},
                                  message="retarget"))
    # changes that reach other files' rank rows: a second definer of a name others use, a
    # file left defining nothing but a module dunder, a new user of many names, a mode alone
    commits.append(builder.commit({
        "pkg/mod35.py": _module(35) + "\n\ndef helper_5(x):\n    return x\n",
        "pkg/mod36.py": "import pkg.mod37\n\n__all__ = []\n",
        "pkg/user.py": "".join(f"from pkg.mod{i} import helper_{i}\n" for i in range(10, 16))
        + "\n\ndef use():\n    return " + " + ".join(f"helper_{i}(1)" for i in range(10, 16)) + "\n",
        "pkg/mod2.py": Exec(_module(2)),
        "pyproject.toml": '[project]\nname = "sample"\nversion = "1.1"\ndependencies = ["requests>=2", "attrs"]\n',
    }, message="reach"))
    reports = reindexed_as_cold(str(builder.path), commits, tmp_path / "incremental", workers=2)
    assert all(warm.parsed_blobs < len(files) for warm in reports[1:])  # re-indexes, not cold ones
    with Store.open(tmp_path / "incremental") as incremental:
        snap = api.snapshot(str(builder.path), commits[2], store=incremental)
        assert (snap.file("pkg/mod1.py").mark, snap.file("pkg/mod1.py").mark_rule) == (
            "vendored", "gitattributes:linguist-vendored")
        assert snap.file("docs/guide.md").mark == "generated"
        assert snap.file("vendor/lib.py").mark == "vendored"
        assert api.snapshot(str(builder.path), commits[1], store=incremental).file("pkg/mod1.py").mark == ""
        moved = api.snapshot(str(builder.path), commits[3], store=incremental)
        assert [e.target for e in moved.imports("pkg/extra.py")] == ["pkg/mod8.py"]
        # each change did what it was made for (or the comparison above proves less)
        renamed = api.snapshot(str(builder.path), commits[4], store=incremental)
        assert renamed.imports("pkg/mod8.py") == [] and renamed.file("pkg/renamed9.py") is not None
        before, after = moved, api.snapshot(str(builder.path), commits[5], store=incremental)
        assert after.fan_in("pkg/mod21.py") == before.fan_in("pkg/mod21.py") - 1
        assert after.fan_in("pkg/mod30.py") == before.fan_in("pkg/mod30.py") + 1
        reached = api.snapshot(str(builder.path), commits[6], store=incremental)
        assert reached.rank_of("pkg/mod36.py") < reached.rank_of("pkg/mod37.py")
        assert reached.rank_of("pkg/mod12.py") > after.rank_of("pkg/mod12.py")
        assert reached.file("pkg/mod2.py").mode == 0o100755


def test_tree_entries_from_an_earlier_tree_and_the_diff_equal_a_whole_walk(tmp_path):
    """A re-index reads the tree as the earlier snapshot's entries plus the diff of the two
    trees; through every kind of change that must be exactly what walking the tree gives."""
    builder = RepoBuilder(tmp_path / "repo")
    steps = [
        {"a.py": "x = 1\n", "d/b.py": "y = 2\n", "d/e/c.py": "z = 3\n", "run": Exec("#!/bin/sh\n"),
         "sub": Submodule("1" * 40), "l": Link("a.py"), "gone/f.txt": "f\n"},
        {"a.py": "x = 2\n"},  # content
        {"run": "#!/bin/sh\n"},  # mode only: executable -> regular
        {"d/b.py": Link("a.py")},  # file -> link
        {"l": "now a file\n"},  # link -> file
        {"sub": Submodule("2" * 40)},  # submodule moves
        {"gone/f.txt": None, "gone": "a file where a folder was\n"},  # folder -> file
        {"d/e/c.py": None, "d/e/c2.py": "z = 3\n", "new/deep/n.py": "n = 1\n"},  # move, new folders
    ]
    commits = [builder.commit(step) for step in steps]
    repo = gitread.open_repo(str(builder.path))
    for before, after in zip(commits, commits[1:]):
        base_tree, base = gitread.walk_tree(repo, before)
        assert gitread.walk_tree_since(repo, after, base_tree, base) == gitread.walk_tree(repo, after)
        # the entries it names as changed: exactly those not in the earlier tree as they were
        since = gitread.tree_since(repo, after, base_tree, base)
        assert sorted(since.changed, key=lambda e: e.path) == [e for e in since.entries if e not in set(base)]
    # an earlier tree that is not there: the whole walk answers, its changes not known
    assert gitread.walk_tree_since(repo, commits[-1], "0" * 40, []) == gitread.walk_tree(repo, commits[-1])
    assert gitread.tree_since(repo, commits[-1], "0" * 40, []).changed is None


@contextmanager
def indexed_losing(tmp_path: Path, path: str) -> Iterator[tuple[RepoBuilder, Store]]:
    """A repository of ten modules indexed into a store that then lost the facts of the blob at
    `path` (`lose_facts`), and that store, closed after."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit(_many_files(10))
    store = Store.open(tmp_path / "store")
    try:
        first = api.index(str(builder.path), "main", store=store, workers=1)
        lose_facts(store, str(builder.path), first.oid, path)
        yield builder, store
    finally:
        store.close()


def assert_as_cold(tmp_path: Path, builder: RepoBuilder, oid: str, fingerprint: str) -> None:
    """`fingerprint` is the one a fresh store's index of `oid` gives."""
    with Store.open(tmp_path / "cold") as cold_store:
        assert fingerprint == api.index(str(builder.path), oid, store=cold_store, workers=1).fingerprint


def lose_facts(store: Store, repo: str, oid: str, path: str) -> None:
    """Delete the stored facts (and occurrence rows) of the blob at `path` in snapshot `oid`,
    as a store that lost them would be."""
    lost = api.snapshot(repo, oid, store=store).file(path)
    key = f"{lost.blob}|{lost.language}|".encode()
    with store.env.begin(write=True) as txn:
        for db in (store.facts, store.occurrences):
            cursor = txn.cursor(db=db)
            assert cursor.set_range(key) and bytes(cursor.key()).startswith(key)
            cursor.delete()


def test_facts_lost_from_the_store_are_parsed_again_by_the_next_index(tmp_path):
    """A re-index does not look up blobs its earlier snapshot had at the same path; should the
    store have lost one's facts all the same, it is parsed again, never a failure."""
    with indexed_losing(tmp_path, "pkg/mod4.py") as (builder, store):
        second_oid = builder.commit({"pkg/mod3.py": _module(3) + "\n\ndef added():\n    return 3\n"})
        told: list[tuple[str, int, int]] = []
        second = api.index(str(builder.path), second_oid, store=store, workers=1,
                           progress=lambda step, done, total: told.append((step, done, total)))
        assert second.parsed_blobs == 2  # the changed file, and the one whose facts were lost
        # the progress counts the lost blob's parse too, in the same step
        assert [t for t in told if t[0] == "parse"] == [("parse", 1, 1), ("parse", 2, 2)]
        assert_as_cold(tmp_path, builder, second_oid, second.fingerprint)


def test_a_lost_blob_also_new_at_another_path_is_parsed_once(tmp_path):
    """The blob whose facts the store lost is added at a new path too: the new path's lookup
    parses it, and the path the earlier snapshot had it at takes those facts rather than
    parsing it a second time."""
    with indexed_losing(tmp_path, "pkg/mod4.py") as (builder, store):
        second_oid = builder.commit({"pkg/copy4.py": _module(4)})
        second = api.index(str(builder.path), second_oid, store=store, workers=1)
        assert second.parsed_blobs == 1
        assert_as_cold(tmp_path, builder, second_oid, second.fingerprint)


def test_a_failed_facts_write_fails_the_index_and_writes_no_snapshot(tmp_path, monkeypatch):
    """Parsed facts are written beside assembly (a few blobs in passing, more by the writer
    process: tests/test_facts_writer.py): a write that fails must still fail the index,
    before any snapshot is written, and leave a store the next run completes."""
    import lmdb

    from indexer.store import facts_writer
    from indexer.store.records import load_stored_record

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit(_many_files(10))
    second = builder.commit({"pkg/mod3.py": _module(3) + "\n\ndef added():\n    return 3\n"})
    store = Store.open(tmp_path / "store")
    try:
        api.index(str(builder.path), first, store=store, workers=2)
        real = facts_writer.put_stored_many

        def failing(txn, store_, items):
            real(txn, store_, items)
            raise lmdb.MapFullError("no room")

        monkeypatch.setattr(facts_writer, "put_stored_many", failing)
        with pytest.raises(lmdb.MapFullError):
            api.index(str(builder.path), second, store=store, workers=2)
        assert load_stored_record(store, second) is None
        monkeypatch.setattr(facts_writer, "put_stored_many", real)
        again = api.index(str(builder.path), second, store=store, workers=2)
        assert again.parsed_blobs == 1  # the failed transaction wrote nothing
        with Store.open(tmp_path / "cold") as cold_store:
            assert again.fingerprint == api.index(str(builder.path), second, store=cold_store,
                                                  workers=2).fingerprint
    finally:
        store.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_blob_missing_from_the_object_database_is_refused_when_complete_is_required(tmp_path, workers):
    builder = RepoBuilder(tmp_path / "repo")
    oid = builder.commit(_many_files(6))
    repo = pygit2.Repository(str(builder.path))
    blob = str(repo[oid].peel(pygit2.Commit).tree["pkg"]["mod2.py"].id)
    loose = Path(repo.path) / "objects" / blob[:2] / blob[2:]
    assert loose.is_file()  # built loose: removing the file removes the object
    loose.unlink()
    store = Store.open(tmp_path / "store")
    try:
        with pytest.raises(MissingObjects) as info:
            api.index(str(builder.path), oid, store=store, workers=workers, require_complete=True)
        assert info.value.code == "missing_objects" and blob[:12] in info.value.message
        from indexer.store.records import load_stored_record
        assert load_stored_record(store, oid) is None
    finally:
        store.close()


def test_extraction_chunks_hold_one_language_each_and_every_blob_once():
    """Each worker that meets a language compiles its queries: a re-index of a few hundred
    blobs hands each language to one worker; a cold index's languages are cut so the workers
    stay even."""
    from indexer.pipeline.extract import chunk_size, chunks
    from indexer.pipeline.plan import BlobJob

    counts = {"python": 232, "java": 149, "typescript": 140, "rust": 112, "c": 112, "go": 112, "javascript": 76}
    jobs = [BlobJob(f"{lang}{i:04d}", f"{lang}/{i}", lang, "v") for lang, n in counts.items() for i in range(n)]
    cut = chunks(jobs, chunk_size(len(jobs), 2))
    assert sorted(j.blob for chunk in cut for j in chunk) == sorted(j.blob for j in jobs)
    assert all(len({j.language for j in chunk}) == 1 for chunk in cut)
    assert len(cut) == len(counts)  # 933 blobs: one chunk per language
    assert [len(c) for c in cut] == sorted(counts.values(), reverse=True)
    cold = [BlobJob(f"{i:06d}", f"py/{i}", "python", "v") for i in range(100_000)]
    sizes = [len(c) for c in chunks(cold, chunk_size(len(cold), 2))]
    assert max(sizes) == 256 and sum(sizes) == 100_000
    few = [BlobJob(f"{i:02d}", f"py/{i}", "python", "v") for i in range(10)]
    assert [len(c) for c in chunks(few, chunk_size(len(few), 2))] == [10]


def test_a_chunk_is_half_a_workers_share_rounded_up_within_its_bounds():
    """The size the chunks are cut at: half of each worker's share, rounded up (a share's last
    blob never makes a chunk of its own), at least 64 and at most 256 blobs."""
    from indexer.pipeline.extract import chunk_size

    assert chunk_size(1000, 2) == 250
    assert chunk_size(1001, 2) == 251
    assert chunk_size(600, 3) == 100
    assert (chunk_size(10, 2), chunk_size(100_000, 2)) == (64, 256)


def test_a_reindex_extraction_hands_over_its_parsed_blobs_name_rows(tmp_path):
    """A re-index (a plan with an earlier snapshot) reads the name index while the facts
    writer may still be at work: extraction hands over the parsed blobs' name-index rows, each
    name defined and each used, under the blob; a cold index keeps none (never read)."""
    from indexer.pipeline.extract import ParseProgress, extract
    from indexer.pipeline.plan import plan
    from indexer.store.versions import snapshot_version

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({"a.py": "def alpha():\n    return 1\n"})
    second = builder.commit({"b.py": "from a import alpha\n\n\ndef gamma():\n    return alpha()\n"})
    repo = pygit2.Repository(str(builder.path))
    blob = bytes.fromhex(str(repo.revparse_single(f"{second}:b.py").id))
    with Store.open(tmp_path / "store") as store, Store.open(tmp_path / "cold") as cold:
        api.index(str(builder.path), first, store=store, workers=1)
        got = {}
        for name, into in (("re-index", store), ("cold", cold)):
            start = plan(into, repo, second, snapshot_version())
            with WriteLock(into.home) as lock:
                got[name] = extract(into, repo, start, 1, lock, ParseProgress(None), partial=False)
                got[name].stored()
    assert got["re-index"].parsed == 1 and got["re-index"].names.defs[b"gamma"] == [blob]
    assert blob in got["re-index"].names.uses[b"alpha"]
    assert got["cold"].parsed == 2 and (got["cold"].names.defs, got["cold"].names.uses) == ({}, {})


def test_workers_are_forked_for_more_than_in_process_max_blobs_and_more_than_one_worker(tmp_path):
    """Up to IN_PROCESS_MAX blobs, or one worker, are parsed in the indexer's own process: no
    pool is forked; one blob more on two workers forks them."""
    from indexer.pipeline.extract import IN_PROCESS_MAX, pool_for

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "A = 1\n"})
    with WriteLock(tmp_path) as lock:
        for jobs, workers in ((IN_PROCESS_MAX, 2), (1000, 1)):
            with pool_for(jobs, workers, lock, str(builder.path)) as pool:
                assert pool is None, (jobs, workers)
        with pool_for(IN_PROCESS_MAX + 1, 2, lock, str(builder.path)) as pool:
            assert pool is not None and pool.apply(abs, (-3,)) == 3



def test_a_commit_of_an_empty_tree_indexes_as_a_snapshot_of_no_files(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({}, replace=True)
    with Store.open(tmp_path / "store") as store:
        report = api.index(str(builder.path), "main", store=store, workers=1)
        snap = api.snapshot(str(builder.path), "main", store=store)
        assert (report.files, snap.files, snap.rank, snap.record.edges) == (0, [], {}, [])


_FEW = {
    "app/main.py": "from app import util\n\n\nclass Runner:\n    def run(self):\n        return util.helper(1)\n",
    "app/util.py": "def helper(x):\n    return x + 1\n",
    "web/index.ts": "import { shout } from './shout';\n\nexport class Page {\n  title(): string {\n"
                    "    return shout('hi');\n  }\n}\n",
    "web/shout.ts": "export function shout(s: string): string {\n  return s.toUpperCase();\n}\n",
    "cmd/main.go": "package main\n\nfunc main() {\n\trun()\n}\n\nfunc run() int {\n\treturn 1\n}\n",
    "src/lib.rs": "pub struct Store {\n    n: u32,\n}\n\nimpl Store {\n    pub fn get(&self) -> u32 {\n"
                  "        self.n\n    }\n}\n",
}


def test_a_few_blobs_are_parsed_in_process_with_the_facts_workers_give(tmp_path, monkeypatch):
    """Up to IN_PROCESS_MAX blobs to parse are parsed in the indexer's process, whatever the
    workers asked for; the snapshot is byte for byte the one forked workers give. A commit
    whose blobs are all stored starts no worker at all."""
    from indexer.pipeline import extract

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit(_FEW)
    same_tree = builder.commit({})  # another commit of the very same tree
    repo = str(builder.path)
    forked: list[int] = []
    real = extract.fork_pool

    def counted(workers, lock, repo_path=None):
        forked.append(workers)
        return real(workers, lock, repo_path)

    monkeypatch.setattr(extract, "fork_pool", counted)
    assert len(_FEW) <= extract.IN_PROCESS_MAX
    with Store.open(tmp_path / "here") as here, Store.open(tmp_path / "pooled") as pooled:
        mine = api.index(repo, first, store=here, workers=2)
        assert forked == [] and mine.parsed_blobs == len(_FEW)
        again = api.index(repo, same_tree, store=here, workers=2)
        assert forked == [] and again.parsed_blobs == 0 and again.fingerprint == mine.fingerprint
        monkeypatch.setattr(extract, "IN_PROCESS_MAX", 0)
        theirs = api.index(repo, first, store=pooled, workers=2)
        assert forked == [2] and theirs.parsed_blobs == len(_FEW)
        assert mine.fingerprint == theirs.fingerprint
        assert _dump(repo, first, here) == _dump(repo, first, pooled)
        assert mine.symbols == theirs.symbols > 0 and mine.edges == theirs.edges > 0


_WATCH = """
import sys, time
from pathlib import Path
from indexer.store.database import Store
home, released, keys = sys.argv[1], Path(sys.argv[2]), [bytes.fromhex(k) for k in sys.argv[3:]]
deadline = time.monotonic() + 20
found = False
with Store.open(home) as store:
    while time.monotonic() < deadline and not found:
        with store.env.begin(db=store.facts) as txn:
            found = all(txn.get(k) is not None for k in keys)
        time.sleep(0.01)
print(found)
released.touch()
"""


def test_a_small_extraction_writes_what_came_in_while_the_workers_finish_the_rest(tmp_path, monkeypatch):
    """A small extraction's facts are written in the indexer's process: those whose chunk came
    in are in the store before the last chunk is parsed, not all after it. One language's
    blobs are held in their worker until another process reads the other language's facts
    from the store (or gives up, which fails the test); the snapshot is the usual one."""
    from indexer.build import extractor_version
    from indexer.pipeline import extract
    from indexer.store.records import facts_key

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit(_FEW)
    repo = str(builder.path)
    released = tmp_path / "released"
    real_job = extract.extract_job

    def held(job, source=None):
        # in a worker (forked after this patch): Go waits for the watcher's word
        if job.language == "go":
            deadline = time.monotonic() + 30
            while not released.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return real_job(job, source)

    monkeypatch.setattr(extract, "extract_job", held)
    monkeypatch.setattr(extract, "IN_PROCESS_MAX", 0)
    odb = pygit2.Repository(repo)
    python_keys = [facts_key(str(odb.revparse_single(f"{first}:{p}").id), "python", extractor_version())
                   for p in _FEW if p.endswith(".py")]
    home = tmp_path / "store"
    Store.open(home).close()  # the watcher opens it as it is
    watcher = subprocess.Popen([sys.executable, "-c", _WATCH, str(home), str(released), *(k.hex() for k in python_keys)],
                               stdout=subprocess.PIPE, text=True, cwd=str(Path(__file__).resolve().parent.parent))
    with Store.open(home) as store:
        report = api.index(repo, first, store=store, workers=2)
    out, _ = watcher.communicate(timeout=60)
    assert out.strip() == "True"
    monkeypatch.setattr(extract, "extract_job", real_job)
    with Store.open(tmp_path / "plain") as plain:
        assert api.index(repo, first, store=plain, workers=2).fingerprint == report.fingerprint


def test_a_read_that_indexes_first_names_the_repository_not_the_subfolder_given(sample, store):
    """`rennet context ... --repo REPO/app` indexes REPO, and said `indexing HEAD of REPO/app
    first` (was): the face is told the repository's folder, as the answer's freshness names it."""
    builder, _first, _second = sample
    told: list[tuple[str, str]] = []

    @contextmanager
    def recording(repo: str, rev: str) -> Iterator[None]:
        told.append((repo, rev))
        yield None

    from indexer.fleet import workspace

    (builder.path / "app").mkdir(exist_ok=True)  # the builder writes commits, not a checkout
    api.show_indexing(recording)
    try:
        api.snapshot(str(builder.path / "app"), "HEAD", store=store, workers=1)
        workspace.create(store, "ws")
        workspace.add(store, "ws", str(builder.path / "app"), "main~1", workers=1)  # `workspace add` does too
    finally:
        api.show_indexing(None)
    assert told == [(os.path.realpath(builder.path), "HEAD"), (os.path.realpath(builder.path), "main~1")]


def test_rennet_snapshots_keeps_its_columns_in_line_beside_a_rev_pinned_by_its_oid():
    """A rev indexed by its full OID (a batch or delta job's) is wider than the rev column, and
    pushed its row's OID, status and time one column right of the others' (was)."""
    from context_tools.faces.packs.index import IndexedRev, SnapshotsData, render_snapshots
    from indexer.contract.result import Result

    oid = "bc26db70ea96331ce0f8e7f82d14d49e9227d115"
    rows = [IndexedRev("HEAD", "d" * 40, "d" * 40, "current", "2026-12-07T15:38:11Z"),
            IndexedRev(oid, oid, oid, "current", "2026-12-07T15:38:12Z")]
    lines = render_snapshots(Result(data=SnapshotsData("/src/demo", rows))).splitlines()[1:]
    assert len({line.index("current") for line in lines}) == 1, lines
