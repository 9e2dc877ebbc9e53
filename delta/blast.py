"""Blast radius: how many other files depend on each changed file, read from the
snapshot at the base OID (indexed first when absent and indexing is allowed).

Availability rules: an index that is absent or not genuinely populated is a
`not_assessed` mark for every file, never a repo-wide zero; each file is asked at its
base-side path (a rename where it used to live); a path the base snapshot does not
carry (an added file, a copy's new path, a file the indexer skipped) gets its own
`not_assessed` mark with the reason. A zero means "checked, nothing depends on it".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from msgspec import Struct

from delta.inventory import FileChange
from indexer.contract.errors import RennetError
from indexer.contract.result import Unknown, not_assessed

if TYPE_CHECKING:
    from indexer.store.snapshot import Snapshot


class BlastSource(Struct, frozen=True):
    """Where the fan-in counts came from."""

    snapshot_oid: str
    fingerprint: str
    indexed_at: str


SnapshotLoader = Callable[[str], "Snapshot"]  # commit OID -> its snapshot (may raise RennetError)


def load_snapshot(loader: SnapshotLoader | None, oid: str, what: str) -> tuple[Snapshot | None, Unknown | None]:
    """(snapshot, None), or (None, the not_assessed mark saying why there is none)."""
    if loader is None:
        return None, not_assessed(f"indexing is disabled for this packet; the {what} snapshot was not read")
    try:
        snap = loader(oid)
    except RennetError as exc:
        return None, not_assessed(f"no {what} snapshot at {oid[:12]}: {exc.code}: {exc.message}")
    except Exception as exc:  # a failed index is an absent index: the packet says so rather than dying
        return None, not_assessed(f"indexing the {what} at {oid[:12]} failed: {type(exc).__name__}: {exc}")
    if snap.files and not snap.record.fan_in:
        return None, not_assessed(f"the {what} snapshot at {oid[:12]} carries no fan-in index")
    return snap, None


def fan_in(change: FileChange, base: Snapshot | None, absent: Unknown | None) -> int | Unknown:
    """The base's fan-in of the file, or why it is not known. A reason names no path: the file's
    entry holds its paths, and a text rendering shows a reason as a message, not as a name."""
    if absent is not None or base is None:  # the packet's `blast` field says why, once
        return not_assessed("no populated fan-in index for the base; see the packet's blast field")
    if change.status == "added":
        return not_assessed("added in this range: the base has no such file")
    if change.status == "copied":
        return not_assessed("copied: the new path is not in the base")
    path = change.base_path or change.path
    count = base.fan_in(path)
    if count is None:
        return not_assessed("the base snapshot does not carry its base path")
    entry = base.file(path)
    if entry is not None and entry.skipped:
        return not_assessed(f"not indexed at the base ({entry.skipped})")
    return count


def source_of(base: Snapshot) -> BlastSource:
    return BlastSource(base.oid, base.fingerprint, base.indexed_at or "")
