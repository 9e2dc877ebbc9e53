"""The working-tree snapshots a checkout keeps: the newest few, the rest deleted.

An agent editing a checkout makes a new working-tree snapshot at every answer after an edit;
each holds a whole file table. A checkout keeps its newest `KEEP` (the latest is the
`earlier` its next one starts from); older ones lose their record, rank arcs and stamp.
Blob facts stay: they are content-addressed and shared with every other snapshot.
"""

from __future__ import annotations

import os

import msgspec

from indexer.contract.encode import encode_msgpack
from indexer.contract.read_back import read_back
from indexer.store.database import Store, corrupt
from indexer.store.records import is_oid, repo_key, snapshot_key

KEEP = 8


LIST_PREFIX = b"worktrees|"  # the `repos` rows listing a checkout's working-tree snapshots


def _list_key(repo_id: str) -> bytes:
    return LIST_PREFIX + repo_id.encode()


_decode_list = read_back(msgspec.msgpack.Decoder(list[str]).decode)


def listed(key: bytes, value: bytes, home: str | os.PathLike[str]) -> tuple[str, list[str]]:
    """(repository identity, tree OIDs newest first) of a list row (its key starts with LIST_PREFIX)
    of the store at `home`; `store_corrupt` when its value is no list of OIDs: the snapshots it
    holds would be held by nothing."""
    repo_id = key[len(LIST_PREFIX):].decode(errors="replace")
    try:
        trees = _decode_list(value)
    except msgspec.DecodeError:
        trees = None
    if trees is None or not all(map(is_oid, trees)):
        raise corrupt(home, f"the list of working-tree snapshots of {repo_id} is no list of tree OIDs")
    return repo_id, trees


def remember(store: Store, repo_id: str, tree_oid: str, version: str, keep: int = KEEP) -> list[str]:
    """Put `tree_oid` first among the checkout's working-tree snapshots and delete those past
    the newest `keep`. Returns the tree OIDs deleted."""
    with store.env.begin(write=True) as txn:
        key = _list_key(repo_id)
        raw = txn.get(key, db=store.repos)
        known = listed(key, bytes(raw), store.home)[1] if raw is not None else []
        kept = [tree_oid, *(oid for oid in known if oid != tree_oid)]
        dropped = kept[keep:]
        kept = kept[:keep]
        for oid in dropped:
            txn.delete(snapshot_key(oid, version), db=store.snapshots)
            txn.delete(snapshot_key(oid, version), db=store.rank)
            txn.delete(repo_key(repo_id, oid), db=store.repos)
        txn.put(_list_key(repo_id), encode_msgpack(kept), db=store.repos)
    return dropped


def stored(store: Store, oid: str, version: str) -> bool:
    """Is the snapshot of `oid` still in the store (a memoized view of a deleted one is not served)?"""
    with store.env.begin(db=store.snapshots, buffers=True) as txn:
        return txn.get(snapshot_key(oid, version)) is not None
