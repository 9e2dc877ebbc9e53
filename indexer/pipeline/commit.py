"""Stage 4, commit: an assembled snapshot -> the store, through the one snapshot-commit
transaction (indexer/store/commit.py), which every writer shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer.rank.arcs import pack as pack_arcs
from indexer.store.commit import PackedSnapshot, Pin, commit_snapshot
from indexer.store.records import SnapshotHead, head_of, pack_record

if TYPE_CHECKING:
    from indexer.pipeline.assemble import Assembled
    from indexer.store.database import Store


def packed(assembled: Assembled) -> tuple[SnapshotHead, PackedSnapshot]:
    """The record's head (what a report reads) and the snapshot in its stored form."""
    record = assembled.record
    head = head_of(record)
    return head, PackedSnapshot(record.oid, record.extractor_version, pack_record(record, head, assembled.tail),
                                pack_arcs(assembled.arcs), record.indexed_at)


def commit(store: Store, assembled: Assembled, pin: Pin, replace: bool = False) -> SnapshotHead:
    """Write the snapshot and pin it; returns the head written. `replace`: over a stored partial
    snapshot of the same commit (one whose missing blobs are now at hand)."""
    head, snapshot = packed(assembled)
    commit_snapshot(store, snapshot, pin, replace=replace)
    return head
