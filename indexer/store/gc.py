"""Garbage collection of the store: snapshots nothing holds, and blob facts no kept snapshot needs.

What goes: every snapshot no rev pin and no workspace member holds (`indexer.store.inventory`),
with its rank arcs and the `repos` stamps of commits no kept snapshot is at; every blob
facts key (facts and occurrences) no kept snapshot's files are read under; the name-index
rows (`defs`, `occ`) of blobs no kept facts key names, and from the runs of `names` the
names left with no row in `defs`.

Crash-safe as indexing is: the whole collection is one LMDB write transaction, taken under
the store's write lock (so no index writes facts meanwhile). A process killed at any point
leaves the store as it was before (LMDB commits atomically), or as it is after.
Freed pages are reused by later writes; the data file does not shrink.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from indexer.store.database import Store, WriteLock
from indexer.store.inventory import Inventory, SnapshotEntry, inventory
from indexer.store.records import facts_key_parts, is_facts_key


@dataclass
class Plan:
    """What a collection drops (and, applied, dropped)."""

    snapshots: list[SnapshotEntry] = field(default_factory=list)
    kept_snapshots: int = 0
    facts: int = 0  # blob facts keys dropped
    kept_facts: int = 0
    occurrences: int = 0  # occurrence lists dropped (with their facts)
    stamps: int = 0  # `repos` rows of commits no kept snapshot is at
    blobs: int = 0  # raw blobs whose name-index rows go
    name_rows: int = 0  # rows of `defs` and `occ` dropped
    names: int = 0  # names gone from the runs of `names`
    bytes: int = 0  # keys and values dropped (what later writes get to reuse)


def _keep_facts(inv: Inventory) -> tuple[set[bytes], set[str]]:
    """(facts keys kept snapshots need, snapshot extractor versions whose facts are all kept): a
    kept snapshot whose head does not decode keeps every facts key of its version."""
    keys: set[bytes] = set()
    versions: set[str] = set()
    for s in inv.snapshots:
        if not s.held:
            continue
        if s.facts_keys is None:
            versions.add(s.extractor_version)
        else:
            keys.update(s.facts_keys)
    return keys, versions


def _raw_blob(key: bytes) -> bytes:
    """The raw blob OID a facts key names: what the name index lists."""
    return bytes.fromhex(facts_key_parts(key)[0])


def plan(store: Store, txn) -> tuple[Plan, list[bytes], set[bytes], list[bytes]]:
    """(plan, facts keys to drop, raw blobs whose name rows go, `repos` stamp keys to drop),
    read inside `txn`."""
    inv = inventory(store, txn)
    out = Plan()
    out.snapshots = [s for s in inv.snapshots if not s.held]
    out.kept_snapshots = len(inv.snapshots) - len(out.snapshots)
    out.bytes += sum(s.bytes for s in out.snapshots)
    kept_oids = {s.oid for s in inv.snapshots if s.held}
    stamps = [k for k, oid in inv.stamps if oid not in kept_oids]
    out.stamps = len(stamps)
    keep, keep_versions = _keep_facts(inv)
    drop: list[bytes] = []
    kept_raw: set[bytes] = set()
    occurrences = txn.cursor(db=store.occurrences)
    for key, value in txn.cursor(db=store.facts):
        key = bytes(key)
        # a facts key holds its language's facts version, not the snapshot's: asked of each kept version
        if key in keep or any(is_facts_key(key, version) for version in keep_versions):
            kept_raw.add(_raw_blob(key))
            continue
        drop.append(key)
        out.bytes += len(key) + len(value)
        occ = occurrences.get(key)
        if occ is not None:
            out.occurrences += 1
            out.bytes += len(key) + len(occ)
    out.facts, out.kept_facts = len(drop), txn.stat(store.facts)["entries"] - len(drop)
    blobs = {_raw_blob(k) for k in drop} - kept_raw
    out.blobs = len(blobs)
    if blobs:
        for db in (store.defs, store.occ):
            for key, value in txn.cursor(db=db):
                if bytes(value) in blobs:
                    out.name_rows += 1
                    out.bytes += len(key) + len(value)
    return out, drop, blobs, stamps


def collect(store: Store, dry_run: bool = False, step: Callable[[str], None] | None = None) -> Plan:
    """Drop what nothing holds (see the module's doc); with `dry_run`, only say what would go.
    `step(name)` is called between the stages of the write (tests kill the process there)."""
    if dry_run:
        with store.env.begin() as txn:
            return plan(store, txn)[0]
    with WriteLock(store.home):
        with store.env.begin(write=True) as txn:
            out, drop, blobs, stamps = plan(store, txn)
            for s in out.snapshots:
                txn.delete(s.key, db=store.snapshots)
                txn.delete(s.key, db=store.rank)
            for key in stamps:
                txn.delete(key, db=store.repos)
            _stage(step, "snapshots")
            for key in drop:
                txn.delete(key, db=store.facts)
                txn.delete(key, db=store.occurrences)
            _stage(step, "facts")
            gone = _drop_name_rows(txn, store, blobs)
            _stage(step, "name rows")
            out.names = _drop_names(txn, store, gone)
            _stage(step, "names")
    return out


def _stage(step: Callable[[str], None] | None, name: str) -> None:
    if step is not None:
        step(name)


def _drop_name_rows(txn, store: Store, blobs: set[bytes]) -> set[bytes]:
    """Delete the `defs` and `occ` rows naming `blobs`; the `defs` keys left with no row."""
    if not blobs:
        return set()
    emptied: set[bytes] = set()
    for db in (store.defs, store.occ):
        cursor = txn.cursor(db=db)
        touched: set[bytes] = set()
        positioned = cursor.first()
        while positioned:
            if bytes(cursor.value()) in blobs:
                touched.add(bytes(cursor.key()))
                cursor.delete()  # moves to the next row
                positioned = bool(cursor.key())
            else:
                positioned = cursor.next()
        if db is store.defs:
            emptied = {k for k in touched if txn.get(k, db=db) is None}
    return emptied


def _drop_names(txn, store: Store, gone: set[bytes]) -> int:
    """Remove from the runs of `names` the keys no longer in `defs`, so the runs still list
    every key of `defs` once (a name defined again later is added again as new)."""
    if not gone:
        return 0
    from indexer.store.name_runs import decode_run, encode_run, run_of

    dropped = 0
    cursor = txn.cursor(db=store.names)
    for number, value in list(cursor):
        run = decode_run(bytes(value))
        plain = [n for n in run.plain() if n.encode() not in gone]
        others = [k for k in run.others if k not in gone]
        removed = run.size - len(plain) - len(others)
        if not removed:
            continue
        dropped += removed
        if plain or others:
            txn.put(bytes(number), encode_run(run_of(plain, others)), db=store.names)
        else:
            txn.delete(bytes(number), db=store.names)
    return dropped
