"""The file inventory of a range: libgit2's tree diff with rename and copy detection,
one entry per changed file with status, similarity, paths, modes, typed mode-change
evidence, the binary flag and line counts.

It agrees with `git diff --raw -M -C <merge-base> <head>` on status, paths and modes.
Type changes are kept as one `type_changed` entry (git's `T`), not split in two; libgit2
gives those no patch, so their lines are counted from a patch of the two sides' contents.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2
from msgspec import Struct
from pygit2.enums import DeltaStatus, DiffFind, DiffOption

from .range import RangeIdentity, path_selected

MODE_ABSENT = 0
MODE_FILE = 0o100644
MODE_EXEC = 0o100755
MODE_LINK = 0o120000
MODE_SUBMODULE = 0o160000

STATUS = {
    DeltaStatus.ADDED: "added",
    DeltaStatus.DELETED: "deleted",
    DeltaStatus.MODIFIED: "modified",
    DeltaStatus.RENAMED: "renamed",
    DeltaStatus.COPIED: "copied",
    DeltaStatus.TYPECHANGE: "type_changed",
}

ZERO_OID = "0" * 40

# git's defaults for `-M -C`: 50% similarity for renames and copies; the indent heuristic is
# on in git >= 2.14, and hunk boundaries must match what `git diff` shows the drafter.
DIFF_FLAGS = DiffOption.INCLUDE_TYPECHANGE | DiffOption.INDENT_HEURISTIC
FIND_FLAGS = DiffFind.FIND_RENAMES | DiffFind.FIND_COPIES


def mode_text(mode: int) -> str:
    return f"{mode:06o}"


class ModeChange(Struct, frozen=True, omit_defaults=True):
    """Typed evidence of a mode change the diff carries.

    kind: exec_set | exec_cleared | became_symlink | stopped_symlink | became_submodule |
    stopped_submodule | submodule_added | submodule_removed | submodule_bump"""

    kind: str
    old_mode: str
    new_mode: str
    old_commit: str | None = None  # submodule commits, when a side is a gitlink
    new_commit: str | None = None


@dataclass
class FileChange:
    """One changed file, with the libgit2 patch that carries its hunks (never serialized)."""

    status: str
    similarity: int | None
    old_path: str | None
    new_path: str | None
    old_mode: int
    new_mode: int
    old_oid: str
    new_oid: str
    binary: bool
    additions: int
    deletions: int
    mode_change: ModeChange | None
    patch: pygit2.Patch | None

    @property
    def path(self) -> str:
        """The path a reader looks the file up under: head side, or base side when deleted."""
        return self.new_path if self.new_path is not None else self.old_path  # type: ignore[return-value]

    @property
    def base_path(self) -> str | None:
        """Where the file lived at the merge base; None when it did not exist there."""
        return None if self.status in ("added", "copied") else self.old_path


def mode_change(old_mode: int, new_mode: int, old_oid: str, new_oid: str) -> ModeChange | None:
    def ev(kind: str) -> ModeChange:
        return ModeChange(kind, mode_text(old_mode), mode_text(new_mode),
                          old_oid if old_mode == MODE_SUBMODULE else None,
                          new_oid if new_mode == MODE_SUBMODULE else None)

    if old_mode == new_mode:
        if old_mode == MODE_SUBMODULE and old_oid != new_oid:
            return ev("submodule_bump")
        return None
    if old_mode == MODE_ABSENT:
        return ev("submodule_added") if new_mode == MODE_SUBMODULE else None
    if new_mode == MODE_ABSENT:
        return ev("submodule_removed") if old_mode == MODE_SUBMODULE else None
    if new_mode == MODE_SUBMODULE:
        return ev("became_submodule")
    if old_mode == MODE_SUBMODULE:
        return ev("stopped_submodule")
    if new_mode == MODE_LINK:
        return ev("became_symlink")
    if old_mode == MODE_LINK:
        return ev("stopped_symlink")
    if new_mode == MODE_EXEC:
        return ev("exec_set")
    if old_mode == MODE_EXEC:
        return ev("exec_cleared")
    return ev("mode_changed")


def tree_diff(repo: pygit2.Repository, old: str, new: str) -> pygit2.Diff:
    diff = repo.diff(repo[old].peel(pygit2.Tree), repo[new].peel(pygit2.Tree), flags=DIFF_FLAGS,
                     context_lines=3, interhunk_lines=0)
    diff.find_similar(flags=FIND_FLAGS, rename_threshold=50, copy_threshold=50)
    return diff


def _side_content(repo: pygit2.Repository, mode: int, oid: str) -> bytes | None:
    if mode == MODE_ABSENT:
        return None
    if mode == MODE_SUBMODULE:
        return f"Subproject commit {oid}\n".encode()  # what git prints for a gitlink side
    return repo[oid].data


def _type_change_patch(repo: pygit2.Repository, delta: pygit2.DiffDelta) -> pygit2.Patch:
    old = _side_content(repo, delta.old_file.mode, str(delta.old_file.id))
    new = _side_content(repo, delta.new_file.mode, str(delta.new_file.id))
    return pygit2.Patch.create_from(old, new, old_as_path=delta.old_file.path, new_as_path=delta.new_file.path,
                                    flag=DiffOption.INDENT_HEURISTIC, context_lines=3, interhunk_lines=0)


def _path_or_none(status: str, side: str, path: str) -> str | None:
    if status == "added" and side == "old":
        return None
    if status == "deleted" and side == "new":
        return None
    return path


def inventory(repo: pygit2.Repository, rng: RangeIdentity, paths: list[str] | None = None) -> list[FileChange]:
    """Every file changed over merge-base..head, sorted by path (then base-side path)."""
    if rng.empty:
        return []
    diff = tree_diff(repo, rng.merge_base_oid, rng.head_oid)
    changes: list[FileChange] = []
    for patch in diff:
        delta = patch.delta
        status = STATUS.get(delta.status)
        if status is None:
            continue
        old_path = _path_or_none(status, "old", delta.old_file.path)
        new_path = _path_or_none(status, "new", delta.new_file.path)
        if not any(p is not None and path_selected(p, paths) for p in (old_path, new_path)):
            continue
        if status == "type_changed":
            patch = _type_change_patch(repo, delta)
        _, additions, deletions = patch.line_stats
        binary = bool(patch.delta.is_binary)
        old_oid = str(delta.old_file.id) if delta.old_file.mode else ZERO_OID
        new_oid = str(delta.new_file.id) if delta.new_file.mode else ZERO_OID
        changes.append(FileChange(
            status=status,
            similarity=delta.similarity if status in ("renamed", "copied") else None,
            old_path=old_path, new_path=new_path,
            old_mode=delta.old_file.mode, new_mode=delta.new_file.mode,
            old_oid=old_oid, new_oid=new_oid,
            binary=binary,
            additions=0 if binary else additions, deletions=0 if binary else deletions,
            mode_change=mode_change(delta.old_file.mode, delta.new_file.mode, old_oid, new_oid),
            patch=patch,
        ))
    changes.sort(key=lambda c: (c.path, c.old_path or ""))
    return changes
