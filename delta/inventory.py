"""The file inventory of a range: libgit2's tree diff with rename and copy detection,
one entry per changed file with status, similarity, paths, modes, typed mode-change
evidence, the binary flag and line counts.

It agrees with `git diff --raw -M -C <merge-base> <head>` on status, paths, modes and
similarity: libgit2 gives the plain tree diff, `indexer.git.renames` pairs renames and copies
with git's rules and score. Type changes are one `type_changed` entry (git's `T`), not
split in two. Patches of pairs and type changes are made from the two sides' contents.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2
from msgspec import Struct
from pygit2.enums import DeltaStatus, DiffOption

from delta.range import RangeIdentity, path_selected
from indexer.git import renames
from indexer.git.read import blob_size, check_diff_reads, read_blob, text_path
from indexer.git.renames import Candidate

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

# The indent heuristic is on in git >= 2.14, and hunk boundaries must match what `git diff`
# shows the drafter. Type changes stay one entry, as git's `T`.
DIFF_FLAGS = DiffOption.INCLUDE_TYPECHANGE | DiffOption.INDENT_HEURISTIC


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
    # The two sides' bytes when `patch` was made from buffers: libgit2 points into them
    # rather than copying, so they must live as long as the patch, or its lines read freed
    # memory (and hunk ids stop being a function of the content).
    buffers: tuple[bytes | None, bytes | None] | None = None

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


def _trees(repo: pygit2.Repository, old: str, new: str) -> tuple[pygit2.Tree, pygit2.Tree]:
    return repo[old].peel(pygit2.Tree), repo[new].peel(pygit2.Tree)


def tree_diff(repo: pygit2.Repository, old: str, new: str) -> pygit2.Diff:
    """The plain tree diff (no rename detection: `indexer.git.renames` pairs the way git does)."""
    check_diff_reads(repo, old, new)
    a, b = _trees(repo, old, new)
    return a.diff_to_tree(b, flags=DIFF_FLAGS, context_lines=3, interhunk_lines=0)


def _side_content(repo: pygit2.Repository, mode: int, oid: str) -> bytes | None:
    if mode == MODE_ABSENT:
        return None
    if mode == MODE_SUBMODULE:
        return f"Subproject commit {oid}\n".encode()  # what git prints for a gitlink side
    return read_blob(repo, oid)


def _blob_patch(repo: pygit2.Repository, old_path: str | None, old_mode: int, old_oid: str,
                new_path: str | None, new_mode: int, new_oid: str
                ) -> tuple[pygit2.Patch, tuple[bytes | None, bytes | None]]:
    """A patch of two sides given by mode and OID, for pairs libgit2's tree diff does not
    hand over as one entry (type changes, renames and copies paired here), with the buffers
    it was made from: the caller keeps them as long as the patch (see `FileChange.buffers`)."""
    old = _side_content(repo, old_mode, old_oid)
    new = _side_content(repo, new_mode, new_oid)
    patch = pygit2.Patch.create_from(old, new, old_as_path=old_path or new_path or "",
                                     new_as_path=new_path or old_path or "",
                                     flag=DiffOption.INDENT_HEURISTIC, context_lines=3, interhunk_lines=0)
    return patch, (old, new)


@dataclass
class _Raw:
    """One entry of the plain tree diff (added, deleted, modified, type_changed)."""

    status: str
    path: str
    old_mode: int
    new_mode: int
    old_oid: str
    new_oid: str
    patch: pygit2.Patch | None
    buffers: tuple[bytes | None, bytes | None] | None = None


def _raw_entries(repo: pygit2.Repository, rng: RangeIdentity) -> list[_Raw]:
    out = []
    for patch in tree_diff(repo, rng.merge_base_oid, rng.head_oid):
        if patch is None:  # libgit2 hands over a patch for every entry of a tree diff
            continue
        delta = patch.delta
        status = STATUS.get(delta.status)
        if status is None:
            continue
        old_oid = str(delta.old_file.id) if delta.old_file.mode else ZERO_OID
        new_oid = str(delta.new_file.id) if delta.new_file.mode else ZERO_OID
        buffers = None
        if status == "type_changed":
            patch, buffers = _blob_patch(repo, delta.old_file.path, delta.old_file.mode, old_oid,
                                delta.new_file.path, delta.new_file.mode, new_oid)
        out.append(_Raw(status, text_path(delta.new_file.path if status != "deleted" else delta.old_file.path),
                        delta.old_file.mode, delta.new_file.mode, old_oid, new_oid, patch, buffers))
    return out


def inventory(repo: pygit2.Repository, rng: RangeIdentity, paths: list[str] | None = None) -> list[FileChange]:
    """Every file changed over merge-base..head, sorted by path (then base-side path)."""
    if rng.empty:
        return []
    raw = _raw_entries(repo, rng)
    sources = [Candidate(r.path, r.old_mode, r.old_oid, stays=r.status != "deleted")
               for r in raw if r.status in ("deleted", "modified", "type_changed")]
    dests = [Candidate(r.path, r.new_mode, r.new_oid) for r in raw if r.status == "added"]
    pairs = renames.pair(sources, dests, read=lambda oid: read_blob(repo, oid),
                         size=lambda oid: blob_size(repo, oid))
    paired_dests = {p.dest.path for p in pairs}
    consumed = {p.source.path for p in pairs if not p.source.stays}

    changes: list[FileChange] = []
    for p in pairs:
        src, dst = p.source, p.dest
        if not (path_selected(src.path, paths) or path_selected(dst.path, paths)):
            continue
        patch, buffers = _blob_patch(repo, src.path, src.mode, src.oid, dst.path, dst.mode, dst.oid)
        changes.append(_change("renamed" if p.renamed else "copied", p.similarity, src.path, dst.path,
                               src.mode, dst.mode, src.oid, dst.oid, patch, buffers))
    for r in raw:
        if (r.status == "added" and r.path in paired_dests) or (r.status == "deleted" and r.path in consumed):
            continue
        if not path_selected(r.path, paths):
            continue
        changes.append(_change(r.status, None, None if r.status == "added" else r.path,
                               None if r.status == "deleted" else r.path, r.old_mode, r.new_mode, r.old_oid,
                               r.new_oid, r.patch, r.buffers))
    changes.sort(key=lambda c: (c.path, c.old_path or ""))
    return changes


def _change(status: str, similarity: int | None, old_path: str | None, new_path: str | None, old_mode: int,
            new_mode: int, old_oid: str, new_oid: str, patch: pygit2.Patch | None,
            buffers: tuple[bytes | None, bytes | None] | None = None) -> FileChange:
    binary = bool(patch is not None and patch.delta.is_binary)
    _, additions, deletions = patch.line_stats if patch is not None and not binary else (0, 0, 0)
    return FileChange(status=status, similarity=similarity, old_path=old_path, new_path=new_path,
                      old_mode=old_mode, new_mode=new_mode, old_oid=old_oid, new_oid=new_oid, binary=binary,
                      additions=additions, deletions=deletions,
                      mode_change=mode_change(old_mode, new_mode, old_oid, new_oid), patch=patch,
                      buffers=buffers)
