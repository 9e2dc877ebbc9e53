"""The one way a snapshot becomes visible: its commit transaction, and the pin of a rev.

Every writer (`index`, `batch`, a bundle's import, a workspace member added through `index`)
ends here. Facts a snapshot needs are in the store before its record (the facts writer's
transactions, a bundle's `commit_facts`, or the same one as here), and the record goes in one transaction
with its rank arcs, the repository's link to it and the rev's pin: until that transaction
commits no reader sees the snapshot, and a killed writer leaves none half written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

import msgspec

from indexer.contract.errors import BadInput, StoreError
from indexer.store.records import (
    PIN_REV_BYTES,
    encode,
    pin_key,
    pinnable,
    put_rank_arcs,
    put_stored_many,
    repo_key,
    snapshot_key,
)

if TYPE_CHECKING:
    from indexer.store.database import Store
    from indexer.store.records import StoredFacts


class Pin(msgspec.Struct, frozen=True):
    """A repository's hold on a snapshot: its link (repository, commit OID), which carries when
    the snapshot was indexed, and the rev pinned to the commit; `rev` None links without
    pinning (a job of a range names its commit by OID)."""

    repo_id: str
    rev: str | None
    # where the repository was indexed from (`gitread.repo_display_path`), kept as the store's
    # name of it (`REPO_PATHS`): `store list` shows it in place of the identity, a digest
    path: str | None = None

    def __post_init__(self) -> None:
        # A rev is pinned under its name, which LMDB holds to a key's size: a longer one (a rev
        # such as `HEAD~0~0...`) is refused here, before anything is indexed, not when stored.
        if self.rev is not None and not pinnable(self.rev):
            raise BadInput(f"the rev {self.rev[:40]!r}... is over {PIN_REV_BYTES} bytes, longer than a rev that can be "
                           "pinned: pass its commit's sha or a shorter name")


# The table (`Store.kv`) of repository identity -> the path it was last indexed from. A label:
# an identity whose path does not read back is shown by its identity, as one never recorded.
REPO_PATHS = "repo_paths"


class PackedSnapshot(msgspec.Struct, frozen=True):
    """A snapshot record in its stored form, ready to commit."""

    oid: str
    version: str  # the extractor version it was built by: its key's second half
    record: bytes  # records.pack_record
    arcs: bytes | None  # rank.arcs.pack of its rank arcs; None: none kept (a bundle carries none)
    indexed_at: str


class Committed(msgspec.Struct, frozen=True):
    snapshot_new: bool  # False: the store held this snapshot already, and keeps it
    facts_new: int  # of the facts given, how many the store lacked


def commit_snapshot(store: Store, snapshot: PackedSnapshot, pin: Pin | None = None,
                    facts: Iterable[StoredFacts] = (),
                    existing: Callable[[bytes], None] | None = None,
                    differs: Callable[[bytes], None] | None = None, replace: bool = False,
                    held: Sequence[bytes] = (), lacking: Callable[[bytes], None] | None = None) -> Committed:
    """One transaction: the `facts` the store lacks (content-addressed: a key stored holds the
    same facts) with their name-index rows, the snapshot record and its rank arcs, the
    repository's link to it and the rev's pin (`pin`). A record is never overwritten: where the
    store holds one at the same key, `existing` is first handed its stored bytes (raising
    there aborts the whole transaction) and the stored one stays. Facts are never overwritten
    either; with `differs`, a given fact whose key the store holds with other bytes is handed
    to it (a writer that does not trust its facts to be this code's raises there). `replace`
    is the one exception: a partial snapshot (blobs listed as `missing_object`) gives way to
    the same commit's built once they are at hand. `held` are keys of facts the snapshot needs
    that the caller did not give, believing the store holds them (a partial bundle): one the
    store lacks is handed to `lacking`, which raises, and nothing is written."""
    return commit_snapshots(store, [SnapshotWrite(snapshot, pin, facts, existing, differs, replace, held,
                                                  lacking)])[0]


class SnapshotWrite(msgspec.Struct, frozen=True):
    """The arguments of one `commit_snapshot`."""

    snapshot: PackedSnapshot
    pin: Pin | None = None
    facts: Iterable[StoredFacts] = ()  # read once, in the commit: may be made as they are read
    existing: Callable[[bytes], None] | None = None
    differs: Callable[[bytes], None] | None = None
    replace: bool = False
    held: Sequence[bytes] = ()
    lacking: Callable[[bytes], None] | None = None


def commit_snapshots(store: Store, writes: Sequence[SnapshotWrite]) -> list[Committed]:
    """`commit_snapshot` of each write, in order, all in one transaction (one flush to disk):
    a later one sees the facts an earlier one put, and a raise in any writes none of them."""
    paths = _paths_table(store, [w.pin for w in writes])
    with store.env.begin(write=True) as txn:
        return [_commit(txn, store, w, paths) for w in writes]


def _paths_table(store: Store, pins: Sequence[Pin | None]):
    """The handle of `REPO_PATHS` when a pin names a path, opened before the caller's write
    transaction (opening it takes one of its own)."""
    return store.kv(REPO_PATHS).db if any(p is not None and p.path for p in pins) else None


def _commit(txn, store: Store, w: SnapshotWrite, paths) -> Committed:
    snapshot = w.snapshot
    key = snapshot_key(snapshot.oid, snapshot.version)
    stored = txn.get(key, db=store.snapshots)
    if stored is not None and w.existing is not None:
        w.existing(bytes(stored))
    for k in w.held:
        if txn.get(k, db=store.facts) is None:
            (w.lacking or _lacking)(k)
    new = put_stored_many(txn, store, _lacked(txn, store, w.facts, w.differs))
    if w.replace and stored is not None:
        stored = None  # the partial record is overwritten
    if stored is None:
        txn.put(key, snapshot.record, db=store.snapshots)
        if snapshot.arcs is not None:
            put_rank_arcs(txn, store, snapshot.oid, snapshot.version, snapshot.arcs)
        else:  # a bundle's record carries none: a partial one's it replaces would be read as its own
            txn.delete(key, db=store.rank)
    if w.pin is not None:
        # a new snapshot's link says when it was indexed; an older link is kept otherwise
        _pin(txn, store, w.pin, snapshot.oid, snapshot.indexed_at, relink=stored is None, paths=paths)
    return Committed(stored is None, new)


def commit_facts(store: Store, facts: Iterable[StoredFacts],
                 differs: Callable[[bytes], None] | None = None) -> list[bytes]:
    """One transaction of blob facts alone, those the store lacks with their name-index rows;
    the keys put. Content-addressed, they change no answer until a snapshot that needs them is
    committed: a writer of many (a bundle's import) puts them a bounded batch at a time, so
    other writers wait for one batch, never the whole import. `differs` as `commit_snapshot`'s."""
    put: list[bytes] = []

    def noted(lacked: Iterator[StoredFacts]) -> Iterator[StoredFacts]:
        for x in lacked:
            put.append(x.key)
            yield x
            del x  # put: let go before the next is made

    with store.env.begin(write=True) as txn:
        put_stored_many(txn, store, noted(_lacked(txn, store, facts, differs)))
    return put


def _lacked(txn, store: Store, facts: Iterable[StoredFacts],
            differs: Callable[[bytes], None] | None) -> Iterator[StoredFacts]:
    """The given facts the store lacks, each put before the next is made; the others compared
    with the stored ones when `differs` is given (a raise there aborts the transaction: none is
    kept)."""
    for x in facts:
        present = txn.get(x.key, db=store.facts)
        if present is None:
            yield x
        elif differs is not None and (bytes(present) != x.packed_core or bytes(
                txn.get(x.key, db=store.occurrences) or b"") != x.packed_occurrences):
            differs(x.key)
        del x, present  # one blob's stored form let go before the next is made


def _lacking(key: bytes) -> None:
    raise StoreError(f"facts {key.decode(errors='replace')} are not in the store; nothing committed")


def pin_snapshot(store: Store, pin: Pin, oid: str, version: str, indexed_at: str) -> bool:
    """Pin a snapshot the store holds already: link the repository to it (unless linked) and
    pin the rev, in one small transaction that first checks the record (`oid`, `version`) is
    still there. False, with nothing written, when it is not: a `store gc` may have dropped it
    since the caller found it. Check and pin share the transaction, and gc's whole collection is
    one too (LMDB runs one write transaction at a time, across processes), so a pin is never
    written to a snapshot gc dropped, and needs no write lock: an indexer holding it is not
    waited for."""
    paths = _paths_table(store, [pin])
    with store.env.begin(write=True) as txn:
        if txn.get(snapshot_key(oid, version), db=store.snapshots) is None:
            return False
        _pin(txn, store, pin, oid, indexed_at, relink=False, paths=paths)
    return True


def _pin(txn, store: Store, pin: Pin, oid: str, indexed_at: str, relink: bool, paths=None) -> None:
    link = repo_key(pin.repo_id, oid)
    if relink or txn.get(link, db=store.repos) is None:
        txn.put(link, encode({"indexed_at": indexed_at}), db=store.repos)
    if pin.rev is not None:
        txn.put(pin_key(pin.repo_id, pin.rev), oid.encode(), db=store.repos)
    if pin.path and paths is not None:
        try:
            path = pin.path.encode()
        except UnicodeEncodeError:  # a folder not named in UTF-8: shown by its identity
            return
        if txn.get(pin.repo_id.encode(), db=paths) != path:
            txn.put(pin.repo_id.encode(), path, db=paths)
