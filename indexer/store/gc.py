"""Garbage collection of the store: snapshots nothing holds, and blob facts no kept snapshot needs.

What goes: every snapshot no rev pin and no workspace member holds (`indexer.store.inventory`),
with its rank arcs and the `repos` stamps of commits no kept snapshot is at; the path kept of
each repository left with no snapshot and no holder (`kv:repo_paths`); every blob
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
from typing import Callable, NamedTuple

from indexer.store.commit import REPO_PATHS
from indexer.store.database import Store, WriteLock
from indexer.store.inventory import Inventory, SnapshotEntry, inventory
from indexer.store.records import facts_key_parts, repo_key_parts
from indexer.store.versions import facts_versions


@dataclass
class Plan:
    """What a collection drops (and, applied, dropped)."""

    snapshots: list[SnapshotEntry] = field(default_factory=list)
    kept_snapshots: int = 0
    facts: int = 0  # blob facts keys dropped
    kept_facts: int = 0
    occurrences: int = 0  # occurrence lists dropped (with their facts)
    stamps: int = 0  # `repos` rows of commits no kept snapshot is at
    paths: int = 0  # `kv:repo_paths` rows of repositories left with no snapshot and no holder
    blobs: int = 0  # raw blobs whose name-index rows go
    name_rows: int = 0  # rows of `defs` and `occ` dropped
    names: int = 0  # names gone from the runs of `names`
    bytes: int = 0  # keys and values dropped (what later writes get to reuse)


def _keep_facts(inv: Inventory) -> tuple[set[bytes], set[str]]:
    """(facts keys kept snapshots need, facts versions whose keys are all kept): a kept
    snapshot whose head does not read back keeps every facts key of its version, whatever
    language's (the version a facts key carries is its language's, not the snapshot's)."""
    keys: set[bytes] = set()
    versions: set[str] = set()
    for s in inv.snapshots:
        if not s.held:
            continue
        if s.facts_keys is None:
            versions.update(facts_versions(s.extractor_version))
        else:
            keys.update(s.facts_keys)
    return keys, versions


def _facts_version(key: bytes) -> str:
    return facts_key_parts(key)[2]


def _raw_blob(key: bytes) -> bytes:
    """The raw blob OID a facts key names: what the name index lists."""
    return bytes.fromhex(facts_key_parts(key)[0])


class Drops(NamedTuple):
    """The keys a collection deletes, besides its snapshots."""

    facts: list[bytes]  # facts keys (with their occurrence lists)
    blobs: set[bytes]  # raw blobs whose name-index rows go
    stamps: list[bytes]  # `repos` rows of commits no kept snapshot is at
    paths: list[bytes]  # `kv:repo_paths` keys of repositories nothing names any more


def _orphan_paths(store: Store, txn, inv: Inventory, kept_stamps: list[tuple[bytes, str]]) -> list[tuple[bytes, int]]:
    """(key, row bytes) of each `kv:repo_paths` row whose repository has no kept snapshot linked and
    no holder (a rev pin, of any extractor version, a list of working-tree snapshots, a workspace
    member): nothing `store list` or `info` shows names it any more. A row of one that still has
    either stays, so that what it lists keeps its path."""
    table = store.kv_in(txn, REPO_PATHS)
    if table is None:
        return []
    named = inv.holding | {repo_key_parts(k)[0] for k, _ in kept_stamps}
    return [(bytes(k), len(k) + len(v)) for k, v in txn.cursor(db=table)
            if bytes(k).decode(errors="replace") not in named]


def plan(store: Store, txn) -> tuple[Plan, Drops]:
    """(plan, what it deletes besides the snapshots), read inside `txn`."""
    inv = inventory(store, txn)
    out = Plan()
    out.snapshots = [s for s in inv.snapshots if not s.held]
    out.kept_snapshots = len(inv.snapshots) - len(out.snapshots)
    out.bytes += sum(s.bytes for s in out.snapshots)
    kept_oids = {s.oid for s in inv.snapshots if s.held}
    stamps = [k for k, oid in inv.stamps if oid not in kept_oids]
    out.stamps = len(stamps)
    paths = _orphan_paths(store, txn, inv, [(k, oid) for k, oid in inv.stamps if oid in kept_oids])
    out.paths = len(paths)
    out.bytes += sum(size for _, size in paths)
    keep, keep_versions = _keep_facts(inv)
    drop: list[bytes] = []
    kept_raw: set[bytes] = set()
    occurrences = txn.cursor(db=store.occurrences)
    for key, value in txn.cursor(db=store.facts):
        key = bytes(key)
        if key in keep or (keep_versions and _facts_version(key) in keep_versions):
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
    return out, Drops(drop, blobs, stamps, [k for k, _ in paths])


def collect(store: Store, dry_run: bool = False, step: Callable[[str], None] | None = None) -> Plan:
    """Drop what nothing holds (see the module's doc); with `dry_run`, only say what would go.
    `step(name)` is called between the stages of the write (tests kill the process there)."""
    if dry_run:
        with store.env.begin() as txn:
            return plan(store, txn)[0]
    with WriteLock(store.home):
        with store.env.begin(write=True) as txn:
            out, drops = plan(store, txn)
            for s in out.snapshots:
                txn.delete(s.key, db=store.snapshots)
                txn.delete(s.key, db=store.rank)
            for key in drops.stamps:
                txn.delete(key, db=store.repos)
            if drops.paths:
                paths = store.kv_in(txn, REPO_PATHS)
                for key in drops.paths:
                    txn.delete(key, db=paths)
            _stage(step, "snapshots")
            for key in drops.facts:
                txn.delete(key, db=store.facts)
                txn.delete(key, db=store.occurrences)
            _stage(step, "facts")
            gone = _drop_name_rows(txn, store, drops.blobs)
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
