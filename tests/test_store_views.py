"""Nothing read from the store in place keeps a view of its pages past the read.

A read transaction begun with `buffers=True` hands out memoryviews of LMDB's mapped pages,
and whatever msgspec decodes from them as `Raw` (or a slice of them) is a view too; once the
transaction ends a later write may reuse those pages (docs/security.md, Store faults). Here
every such read of the code is run against a store whose in-place reads are poisoned: each
value it hands out is a view of a buffer of its own, written over with other bytes as soon as
the transaction ends. What each read returned must then still equal what the plain store
gives. A second test finds every `buffers=True` read in the source, so one added later is
either listed here, and so run poisoned, or fails the test."""

from __future__ import annotations

import ast
import secrets
from collections.abc import Iterator
from pathlib import Path

import msgspec
import msgspec.inspect as mi
import pytest

from corpora.gitbuild import RepoBuilder
from indexer.api import index, snapshot
from indexer.fleet import bundle
from indexer.fleet.signing import split
from indexer.model import BlobFacts
from indexer.store import name_runs, resident, worktrees
from indexer.store import snapshot as snapshots
from indexer.store.database import Store
from indexer.store.facts_table import FactsSummary, load_summaries
from indexer.store.name_runs import NameRun
from indexer.store.records import (
    NO_FACTS,
    ImportFacts,
    UseFacts,
    core_reader,
    entry_facts_key,
    load_cores,
    load_facts,
    load_stored_record,
)
from indexer.store.versions import snapshot_version

ROOT = Path(__file__).resolve().parent.parent
KEY = secrets.token_bytes(32)
_SCRIBBLE = 0xDD

# Every function holding a `buffers=True` read, and the test that runs it poisoned.
READS_IN_PLACE = {
    "indexer/store/records.py:load_cores": "load_facts, load_summaries",
    "indexer/store/records.py:core_reader": "core_reader",
    "indexer/store/records.py:load_stored_record": "load_stored_record",
    "indexer/store/records.py:load_stored_record.packed_tail": "load_stored_record",
    "indexer/store/resident.py:KeptSummaries.load": "KeptSummaries.load",
    "indexer/store/worktrees.py:stored": "worktrees.stored",
    "indexer/store/name_runs.py:load": "name_runs.load",
    "indexer/store/snapshot.py:Snapshot._core_part": "Snapshot.import_facts, uses_of",
    "indexer/fleet/bundle.py:_fingerprint_over": "bundle.check of a partial bundle",
}


class _Poison:
    """The buffers one poisoned transaction handed out, written over when it ends."""

    def __init__(self) -> None:
        self.pages: list[bytearray] = []

    def view(self, value):
        if isinstance(value, bytes):
            page = bytearray(value)
            self.pages.append(page)
            return memoryview(page)
        if isinstance(value, tuple):
            return tuple(map(self.view, value))
        return value  # None, a bool

    def scribble(self) -> None:
        for page in self.pages:
            page[:] = bytes([_SCRIBBLE]) * len(page)


class _Cursor:
    def __init__(self, cursor, poison: _Poison) -> None:
        self._cursor = cursor
        self._poison = poison

    def __iter__(self) -> Iterator:
        return map(self._poison.view, iter(self._cursor))

    def __getattr__(self, name: str):
        method = getattr(self._cursor, name)

        def call(*args, **kwargs):
            found = method(*args, **kwargs)
            return map(self._poison.view, found) if isinstance(found, Iterator) else self._poison.view(found)
        return call


class _Txn:
    """A read transaction as `buffers=True` makes one, its values views of buffers that are
    written over when it ends."""

    def __init__(self, txn) -> None:
        self._txn = txn
        self._poison = _Poison()

    def get(self, key, default=None, db=None):
        return self._poison.view(self._txn.get(key, default, db=db) if db is not None else self._txn.get(key, default))

    def cursor(self, db=None) -> _Cursor:
        return _Cursor(self._txn.cursor(db=db) if db is not None else self._txn.cursor(), self._poison)

    def __enter__(self) -> _Txn:
        return self

    def __exit__(self, *exc) -> None:
        self._txn.__exit__(*exc)
        self._poison.scribble()

    def abort(self) -> None:
        self._txn.abort()
        self._poison.scribble()

    def commit(self) -> None:
        self._txn.commit()
        self._poison.scribble()


class _Env:
    """An LMDB environment whose `buffers=True` transactions are poisoned (`_Txn`)."""

    def __init__(self, env) -> None:
        self._env = env

    def begin(self, **kwargs):
        if not kwargs.get("buffers"):
            return self._env.begin(**kwargs)
        return _Txn(self._env.begin(**{**kwargs, "buffers": False}))

    def __getattr__(self, name: str):
        return getattr(self._env, name)


def poisoned(store: Store) -> Store:
    """`store` read through a poisoned environment (`_Env`)."""
    return Store(store.home, _Env(store.env), store.readonly)


_encode = msgspec.msgpack.Encoder().encode


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Two commits of files with imports, bases, symbols and uses, indexed into a worker's
    store; a central store holding the first, imported from its bundle."""
    tmp = tmp_path_factory.mktemp("views")
    builder = RepoBuilder(tmp / "repo")
    files = {
        "app/base.py": "import os\nimport sys\n\n\nclass Base:\n    def run(self):\n        return os.getcwd()\n",
        "app/sub.py": "from app.base import Base\nfrom app import util\n\n\nclass Sub(Base):\n"
                      "    def go(self):\n        return util.helper() + self.run()\n",
        "app/util.py": "import json\n\n\ndef helper():\n    return json.dumps(2)\n",
        "app/__init__.py": "__all__ = ['util']\n",
        "web/main.js": "import { x } from './x.js';\nexport function main() { return x(); }\n",
        "web/x.js": "export const x = () => 1;\n",
    }
    first = builder.commit(files)
    second = builder.commit({"app/util.py": "import json\nimport re\n\n\ndef helper():\n    return 3\n\n\n"
                                            "def other():\n    return re.escape(json.dumps(4))\n"})
    worker = Store.open(tmp / "worker")
    for oid in (first, second):
        index(str(builder.path), oid, store=worker, workers=1)
    central = Store.open(tmp / "central")
    chunks, _ = bundle.make(snapshot(str(builder.path), first, store=worker, index_if_absent=False), KEY)
    bundle.import_data(central, b"".join(chunks), key=KEY)
    return str(builder.path), first, second, worker, central


def _keys(store: Store, repo: str, oid: str) -> dict[str, bytes]:
    record = snapshot(repo, oid, store=store, index_if_absent=False).record
    return {f.path: entry_facts_key(f, record.extractor_version) for f in record.files if f.language not in NO_FACTS}


def test_the_poison_tells_a_view_of_the_pages_from_a_copy(history):
    """Decoded without the copy `decode_summary` makes, a summary read poisoned no longer
    says what the store holds: the poison is seen where a view is kept."""
    repo, _, second, worker, _ = history
    keys = _keys(worker, repo, second)
    in_place = msgspec.msgpack.Decoder(FactsSummary).decode  # its `imports` a view of what it decodes
    assert _encode(load_cores(poisoned(worker), keys, in_place)) != _encode(load_cores(worker, keys, in_place))
    assert _encode(load_summaries(poisoned(worker), keys)) == _encode(load_summaries(worker, keys))


def test_facts_read_in_place_hold_once_the_read_ends(history):
    repo, _, second, worker, _ = history
    keys = _keys(worker, repo, second)
    bad = poisoned(worker)
    assert len(keys) >= 5
    for symbols in (True, False):
        assert _encode(load_facts(bad, keys, symbols=symbols)) == _encode(load_facts(worker, keys, symbols=symbols))
    summaries = load_summaries(bad, keys)
    assert sum(s.import_total for s in summaries.values()) >= 6  # the imports are there to be counted
    assert _encode(summaries) == _encode(load_summaries(worker, keys))
    with core_reader(bad) as read:
        cores = {key: read(key) for key in keys.values()}
    with core_reader(worker) as read:
        assert _encode(cores) == _encode({key: read(key) for key in keys.values()})


def test_the_resident_cache_keeps_what_the_store_holds(history):
    """The host's cache keeps summaries across indexes: read poisoned, then served from
    memory to a later index, they still say what the store holds."""
    repo, first, second, worker, _ = history
    cache, bad = resident.KeptSummaries(), poisoned(worker)
    for oid in (first, second, first):  # the second and third loads are served partly from memory
        keys = _keys(worker, repo, oid)
        assert _encode(cache.load(bad, keys)) == _encode(load_summaries(worker, keys))
    assert cache.served >= len(keys)


def test_a_record_read_in_place_holds_once_the_read_ends(history):
    repo, first, second, worker, _ = history
    bad = poisoned(worker)
    for oid in (first, second):
        stored, plain = load_stored_record(bad, oid), load_stored_record(worker, oid)
        assert stored is not None and plain is not None
        assert stored.head == plain.head and stored.packed_tail() == plain.packed_tail()
        assert _encode(stored.record()) == _encode(plain.record())
        head = stored.lazy_head()  # its columns decoded as asked, long after the read
        assert head.files() == plain.lazy_head().files() and head.rank_map() == plain.full_head().rank_map()
        assert worktrees.stored(bad, oid, snapshot_version())


def test_names_read_in_place_hold_once_the_read_ends(history):
    _, _, _, worker, _ = history
    runs = name_runs.load(poisoned(worker))
    assert runs and runs == name_runs.load(worker)
    assert "helper" in {name for run in runs for name in run.plain()}


def test_a_snapshots_parts_of_facts_hold_once_the_read_ends(history):
    """`import_facts` and `uses_of` are read in place and kept by the snapshot for the next
    ask: the MCP host keeps a snapshot across calls."""
    repo, _, second, worker, _ = history
    bad, plain = snapshots.load(poisoned(worker), repo, second), snapshots.load(worker, repo, second)
    paths = [f.path for f in plain.files if f.language not in NO_FACTS]
    for _ in range(2):  # read, then served from what the snapshot kept
        assert [_encode(bad.import_facts(p)) for p in paths] == [_encode(plain.import_facts(p)) for p in paths]
        assert [bad.uses_of(p) for p in paths] == [plain.uses_of(p) for p in paths]
    assert any(plain.uses_of(p) for p in paths) and any(plain.import_facts(p).imports for p in paths)


def test_a_partial_bundle_checks_over_facts_read_in_place(history):
    """A partial bundle's fingerprint is recomputed over the summaries of the facts the store
    holds, read in place and used once that read has ended."""
    repo, first, second, worker, central = history
    held = frozenset(_keys(worker, repo, first).values())
    chunks, _ = bundle.make(snapshot(repo, second, store=worker, index_if_absent=False), KEY, held)
    data = split(b"".join(chunks))[0]
    verified = bundle.check(data, poisoned(central))
    assert verified.held and verified.record.fingerprint == bundle.check(data, central).record.fingerprint


def _views(kind: mi.Type, where: str, seen: set[type]) -> Iterator[str]:
    """Where values of `kind` decode as views of their input: `Raw` and memoryview fields."""
    if isinstance(kind, (mi.RawType, mi.MemoryViewType)):
        yield where
    elif isinstance(kind, mi.StructType):
        if kind.cls not in seen:
            seen.add(kind.cls)
            for f in kind.fields:
                yield from _views(f.type, f"{kind.cls.__name__}.{f.name}", seen)
    else:
        for f in msgspec.structs.fields(kind):  # a container's or union's kinds of items
            value = getattr(kind, f.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, mi.Type):
                    yield from _views(item, where, seen)


def test_what_reads_in_place_decode_holds_no_view_but_the_summarys_copied_one():
    """The kinds the in-place reads decode (a blob's core facts, its summary, its imports and
    uses, a run of names), every field at any depth, even one the files above never fill:
    a `Raw` or memoryview field among them is a view of the store's pages unless copied
    while the read is open, as `decode_summary` copies the summary's imports."""
    seen: set[type] = set()
    found = {where for kind in mi.multi_type_info([BlobFacts, FactsSummary, ImportFacts, UseFacts, NameRun])
             for where in _views(kind, kind.__class__.__name__, seen)}
    assert found == {"FactsSummary.import_specs"}


def _reads_in_place(path: Path) -> Iterator[str]:
    """`file:function` of each function of `path` holding a call with `buffers=True`."""

    def walk(node: ast.AST, scope: list[str]) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from walk(child, [*scope, child.name])
                continue
            if isinstance(child, ast.Call) and any(
                    k.arg == "buffers" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                    for k in child.keywords):
                yield f"{path.relative_to(ROOT).as_posix()}:{'.'.join(scope)}"
            yield from walk(child, scope)

    yield from walk(ast.parse(path.read_text()), [])


def test_every_read_in_place_is_one_the_poisoned_reads_cover():
    found = {site for folder in ("indexer", "delta", "context_tools")
             for path in sorted((ROOT / folder).rglob("*.py")) for site in _reads_in_place(path)}
    assert found == set(READS_IN_PLACE), (
        "a read with buffers=True was added or moved: run it through `poisoned` here, so that "
        "nothing it returns keeps a view of the store's pages past the read")
