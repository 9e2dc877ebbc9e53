"""What the store holds and what holds it: the facts `rennet store info|list|gc` read.

A snapshot (`snapshots`: commit OID and extractor version) is held by a rev pin (`repos`:
`pin|<repository>|<rev>` -> OID, read at the current extractor version, as
`indexer.store.snapshot.load` reads it), by a checkout's list of its newest working-tree
snapshots (`indexer.store.worktrees`), or by a workspace member (`kv:workspaces`: OID and
the extractor version it was pinned at). Nothing else reaches a snapshot: a snapshot no
holder names can only be found again by indexing its commit afresh.
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from indexer.contract.read_back import read_back
from indexer.store import worktrees
from indexer.store.database import SCHEMA_VERSION, Store, unpack
from indexer.store.records import (
    NO_FACTS,
    PIN_PREFIX,
    is_oid,
    path_facts_key,
    pin_parts,
    pinned_in,
    repo_key_parts,
    snapshot_key_parts,
)
from indexer.store.versions import snapshot_version


class _HeadKeys(msgspec.Struct):
    """The fields of a stored snapshot head that say which blob facts it needs, and who it is.
    Unknown fields are skipped, so a head written by another extractor version decodes as long
    as these are there."""

    oid: str
    extractor_version: str
    paths: list[str]
    blobs: list[str]
    languages: list[str]
    fingerprint: str = ""
    indexed_at: str = ""
    tree: str = ""


_decode_head = read_back(msgspec.msgpack.Decoder(_HeadKeys).decode)


@dataclass(frozen=True)
class Holder:
    """One thing that holds a snapshot: a rev pin of a repository, or a workspace member."""

    kind: str  # "rev" | "worktree" | "workspace"
    repo_id: str
    name: str  # the rev, or "<workspace>/<member>"

    def describe(self) -> str:
        if self.kind == "rev":
            return f"rev {self.name} of {self.repo_id}"
        if self.kind == "worktree":
            return f"working tree of {self.repo_id} ({self.name})"
        return f"workspace member {self.name}"


@dataclass
class SnapshotEntry:
    """One stored snapshot and what the store knows of it."""

    key: bytes  # its `snapshots` key
    oid: str
    extractor_version: str
    fingerprint: str  # "" when its head does not decode
    indexed_at: str
    files: int
    bytes: int  # its record and rank arcs, keys included
    repos: list[str] = field(default_factory=list)  # repository identities that indexed it
    held_by: list[Holder] = field(default_factory=list)
    facts_keys: frozenset[builtins.bytes] | None = None  # None: its head did not decode (`bytes` is a field here)
    # a working-tree snapshot: its OID is the tree read from a checkout, which no commit names
    # (a commit's snapshot has its commit's OID and its tree's apart)
    worktree: bool = False

    @property
    def held(self) -> bool:
        return bool(self.held_by)


@dataclass
class Inventory:
    """Every snapshot with its holders, read in one read transaction."""

    snapshots: list[SnapshotEntry]
    repo_paths: dict[str, str]  # repository identity -> path, where a workspace member says it
    pins: list[tuple[bytes, str]]  # (pin key, OID) of every rev pin
    stamps: list[tuple[bytes, str]]  # (`repos` key of a repository's indexed snapshot, its OID)
    holding: set[str] = field(default_factory=set)  # identities of the repositories of every holder


def holders(store: Store, txn) -> tuple[dict[tuple[str, str], list[Holder]], dict[str, str], list, list,
                                        set[str]]:
    """((OID, extractor version) -> holders, repository paths, pins, indexed stamps, identities of
    the repositories of every holder, whether or not the store holds the snapshot it names).
    A holder that does not read back is `store_corrupt`, never passed over: what it holds
    would be listed as held by nothing, and `store gc` would drop it."""
    from indexer.fleet.workspace import records_in

    held: dict[tuple[str, str], list[Holder]] = {}
    pins: list[tuple[bytes, str]] = []
    stamps: list[tuple[bytes, str]] = []
    for key, value in txn.cursor(db=store.repos):
        key = bytes(key)
        if key.startswith(PIN_PREFIX):
            repo_id, rev = pin_parts(key)
            oid = pinned_in(bytes(value), key, store.home)
            pins.append((key, oid))
            held.setdefault((oid, snapshot_version()), []).append(Holder("rev", repo_id, rev))
        elif key.startswith(worktrees.LIST_PREFIX):
            repo_id, trees = worktrees.listed(key, bytes(value), store.home)
            for n, oid in enumerate(trees):
                held.setdefault((oid, snapshot_version()), []).append(
                    Holder("worktree", repo_id, "newest" if n == 0 else f"{n + 1} back"))
        else:
            stamps.append((key, repo_key_parts(key)[1]))
    paths = recorded_paths(store, txn)
    for ws in records_in(store, txn):
        for m in ws.members:
            paths[m.repo_id] = m.path
            held.setdefault((m.oid, m.extractor_version), []).append(
                Holder("workspace", m.repo_id, f"{ws.name}/{m.name}"))
    holding = {h.repo_id for hs in held.values() for h in hs}
    return held, paths, pins, stamps, holding


def recorded_paths(store: Store, txn) -> dict[str, str]:
    """Repository identity -> the path it was last indexed from (`commit.REPO_PATHS`). A label
    alone: one that does not read back as UTF-8 is left out, the repository shown by its identity."""
    from indexer.store.commit import REPO_PATHS

    table = store.kv_in(txn, REPO_PATHS)
    out: dict[str, str] = {}
    if table is None:
        return out
    for key, value in txn.cursor(db=table):
        try:
            out[bytes(key).decode()] = bytes(value).decode()
        except UnicodeDecodeError:
            continue
    return out


def facts_keys_of(raw_head: bytes, version: str) -> tuple[_HeadKeys | None, frozenset[bytes] | None]:
    """A stored head's identity and the facts keys its files are read under (None, None when
    it does not decode, or does not read back whole: columns of unequal length, another
    extractor version than its key's `version`, a blob that is no OID, where the keys made
    would miss some its files are read under)."""
    try:
        head = _decode_head(raw_head)
    except msgspec.DecodeError:
        return None, None
    if not len(head.paths) == len(head.blobs) == len(head.languages) or head.extractor_version != version:
        return None, None
    facts = [(p, b) for p, b, lang in zip(head.paths, head.blobs, head.languages) if lang not in NO_FACTS]
    if not all(is_oid(b) for _, b in facts):
        return None, None
    return head, frozenset(path_facts_key(p, b, version) for p, b in facts)


def inventory(store: Store, txn) -> Inventory:
    held, paths, pins, stamps, holding = holders(store, txn)
    repos_of: dict[str, list[str]] = {}
    for key, oid in stamps:
        repos_of.setdefault(oid, []).append(repo_key_parts(key)[0])
    out: list[SnapshotEntry] = []
    rank = txn.cursor(db=store.rank)
    for key, value in txn.cursor(db=store.snapshots):
        key, value = bytes(key), bytes(value)
        oid, version = snapshot_key_parts(key)
        size = int.from_bytes(value[:4], "big")
        try:
            raw_head = unpack(value[4:4 + size])
        except Exception:  # zlib.error: a head that does not inflate keeps what it holds unknown
            raw_head = b""
        head, keys = facts_keys_of(raw_head, version)
        arcs = rank.get(key)
        out.append(SnapshotEntry(
            key=key, oid=oid, extractor_version=version, fingerprint=head.fingerprint if head else "",
            indexed_at=head.indexed_at if head else "", files=len(head.paths) if head else 0,
            bytes=len(key) + len(value) + (len(key) + len(arcs) if arcs is not None else 0),
            repos=sorted(set(repos_of.get(oid, ()))), held_by=held.get((oid, version), []), facts_keys=keys,
            worktree=head is not None and head.tree == oid))
    out.sort(key=lambda s: (s.indexed_at, s.oid), reverse=True)
    return Inventory(out, paths, pins, stamps, holding)


@dataclass(frozen=True)
class StoreInfo:
    path: str
    schema: str
    extractor_version: str
    file_bytes: int  # the data file on disk
    used_bytes: int  # pages in use (the file does not shrink: freed pages are reused)
    repositories: int
    pins: int
    snapshots: int
    held_snapshots: int
    blob_facts: int
    names: int  # keys of the name index of definitions
    workspaces: int
    dossiers: int
    receipts: int


def info(store: Store) -> StoreInfo:
    from indexer.fleet.workspace import records_in

    with store.env.begin() as txn:
        inv = inventory(store, txn)
        facts = txn.stat(store.facts)["entries"]
        names = sum(1 for _ in txn.cursor(db=store.defs).iternext_nodup(keys=True, values=False))
        schema = bytes(txn.get(b"schema", db=store.meta) or b"").decode(errors="replace")
        workspaces = len(records_in(store, txn))
        counts = {name: txn.stat(db)["entries"] if db is not None else 0
                  for name, db in ((n, store.kv_in(txn, n)) for n in ("dossiers", "ledger"))}
    env = store.env.info()
    page = store.env.stat()["psize"]
    data = Path(store.env.path()) / "data.mdb"
    repos = {r for s in inv.snapshots for r in s.repos} | {pin_parts(k)[0] for k, _ in inv.pins}
    return StoreInfo(
        path=str(store.home), schema=schema or SCHEMA_VERSION.decode(), extractor_version=snapshot_version(),
        file_bytes=os.path.getsize(data) if data.exists() else 0, used_bytes=(env["last_pgno"] + 1) * page,
        repositories=len(repos), pins=len(inv.pins), snapshots=len(inv.snapshots),
        held_snapshots=sum(1 for s in inv.snapshots if s.held), blob_facts=facts, names=names,
        workspaces=workspaces, dossiers=counts["dossiers"], receipts=counts["ledger"])


