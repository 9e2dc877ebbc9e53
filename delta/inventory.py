"""The file inventory of a range: libgit2's tree diff with rename and copy detection,
one entry per changed file with status, similarity, paths, modes, typed mode-change
evidence, the binary flag and line counts.

It agrees with `git diff --raw -M -C <merge-base> <head>` on status, paths, modes and
similarity: libgit2 gives the plain tree diff, `indexer.git.renames` pairs renames and copies
with git's rules and score. Type changes are one `type_changed` entry (git's `T`), not
split in two. Patches of pairs and type changes are made from the two sides' contents.
Whether a file is binary is the merge base's to say (`BinaryRule`), not the checkout's
`.gitattributes` nor a NUL the range put into a file the base holds as text.

A file's patch holds both sides' bytes and every line: the inventory keeps only its counts
(lines, hunks, bytes of patch text) and makes the patch again for the files whose hunks are
read (`FileChange.patch`), so what it holds grows with the number of changed files, not with
their contents.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Iterable

import pygit2
from msgspec import Struct
from pygit2.enums import AttrCheck, DeltaStatus, DiffOption

from delta.attributes import check_attribute_files
from delta.range import RangeIdentity, selection
from indexer.git import renames
from indexer.git.read import blob_object, blob_size, check_diff_reads, read_blob, text_path
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
# shows the drafter. Type changes stay one entry, as git's `T`. Every patch made is text: whether
# a file is binary is decided before (`BinaryRule`), and a binary file's patch is never made.
DIFF_FLAGS = DiffOption.INCLUDE_TYPECHANGE | DiffOption.INDENT_HEURISTIC | DiffOption.FORCE_TEXT


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


@dataclass(frozen=True)
class Made:
    """A libgit2 patch and the two sides' bytes it was made from, when made from buffers:
    libgit2 points into them rather than copying, so they must live as long as the patch, or
    its lines read freed memory (and hunk ids stop being a function of the content)."""

    patch: pygit2.Patch
    buffers: tuple[pygit2.Blob | bytes | None, pygit2.Blob | bytes | None] | None = None


@dataclass
class FileChange:
    """One changed file with its patch's counts; `patch()` makes the patch again when its
    hunks are read (never serialized)."""

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
    hunk_count: int = 0  # 0 for a binary file
    size: int = 0  # bytes of the patch text (as `git diff` prints it); 0 for a binary file
    # one of NOT_DIFFED when no patch was made: counts, hunks and binary unknown
    not_diffed: str | None = None
    remake: Callable[[], Made] | None = field(default=None, repr=False, compare=False)

    def patch(self) -> Made | None:
        """The file's patch, made again: hold the answer only while its hunks are read. None for a
        file not diffed, or binary (every patch is made as text)."""
        return self.remake() if self.remake is not None and self.not_diffed is None and not self.binary else None

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


# git's test of a binary side: a NUL among its first bytes (`buffer_is_binary`, FIRST_FEW_BYTES)
NUL_SCAN = 8000
# The attribute files `get_attr` reads: a check mode of 3 names neither the working tree nor the
# index (libgit2's attr.c `attr_decide_sources`), so with INCLUDE_COMMIT the `.gitattributes` read
# are the commit's alone, beside the user's own (`info/attributes`, `core.attributesFile`).
_COMMIT_ONLY = 3 | AttrCheck.INCLUDE_COMMIT


class BinaryRule:
    """Whether a file's lines are hidden as binary, decided by its range's merge base: its base
    side decides where that is a regular file (else its head side), binary by its bytes (a NUL
    among the first 8,000, git's test) or by the `diff` attribute its path has in the merge base's
    tree and the user's own attribute files (`-diff`, `binary`, a driver configured binary).

    libgit2 picks a driver from the working tree's `.gitattributes`: in a checkout of the head,
    the change under review's. So a rule or a NUL the range put in would hide the lines of a
    file the base holds as text (`src/auth.py -diff`), and the packet would differ with what is
    checked out."""

    def __init__(self, repo: pygit2.Repository, commit: str, paths: Iterable[str]) -> None:
        """`paths`: those whose attribute may be asked, their `.gitattributes` checked first."""
        self._repo, self._commit = repo, commit
        self._by_path: dict[str, bool] = {}
        check_attribute_files(repo, commit, [p for p in paths if _spellable(p)])

    def by_attribute(self, path: str) -> bool:
        found = self._by_path.get(path)
        if found is None:
            # a name that is not UTF-8 (surrogate escapes) has no `.gitattributes` checked on its
            # way: libgit2 would read a damaged one without end, so its bytes alone decide
            value = self._attribute(path) if _spellable(path) else None
            found = self._by_path[path] = value is False or (isinstance(value, str) and self._binary_driver(value))
        return found

    def _attribute(self, path: str) -> bool | str | None:
        try:
            return self._repo.get_attr(path, "diff", flags=_COMMIT_ONLY, commit=self._commit)
        except (KeyError, ValueError, pygit2.GitError):  # a `.gitattributes` that is a folder or a gitlink
            return None

    def _binary_driver(self, name: str) -> bool:
        try:
            return self._repo.config.get_bool(f"diff.{name}.binary")
        except (KeyError, ValueError, pygit2.GitError):
            return False

    def deciding(self, old_path: str, new_path: str, old_mode: int, new_mode: int) -> tuple[bool, bool]:
        """(the base side decides, its path's attribute makes it binary)."""
        old_decides = _regular(old_mode)
        path, mode = (old_path, old_mode) if old_decides else (new_path, new_mode)
        return old_decides, _regular(mode) and self.by_attribute(path)


def _trees(repo: pygit2.Repository, old: str, new: str) -> tuple[pygit2.Tree, pygit2.Tree]:
    return repo[old].peel(pygit2.Tree), repo[new].peel(pygit2.Tree)


def tree_diff(repo: pygit2.Repository, old: str, new: str) -> pygit2.Diff:
    """The plain tree diff (no rename detection: `indexer.git.renames` pairs the way git does)."""
    check_diff_reads(repo, old, new)
    a, b = _trees(repo, old, new)
    return a.diff_to_tree(b, flags=DIFF_FLAGS, context_lines=3, interhunk_lines=0)


def _regular(mode: int) -> bool:
    return mode in (MODE_FILE, MODE_EXEC)


def _side_content(repo: pygit2.Repository, mode: int, oid: str) -> bytes | None:
    if mode == MODE_ABSENT:
        return None
    if mode == MODE_SUBMODULE:
        return f"Subproject commit {oid}\n".encode()  # what git prints for a gitlink side
    return read_blob(repo, oid)


def _blob_patch(repo: pygit2.Repository, old_path: str | None, old_mode: int, old_oid: str,
                new_path: str | None, new_mode: int, new_oid: str) -> Made:
    """A patch of two sides given by mode and OID, for pairs libgit2's tree diff does not
    hand over as one entry (type changes, renames and copies paired here), with the blobs or
    buffers it was made from.

    Git picks a regular file's diff driver (its function context; whether it is binary is
    `BinaryRule`'s, and every patch made is text) by its path's `diff` attribute, and gives a
    link or a gitlink none. libgit2 picks one by path for each
    side only once a side is handed over as a blob, and pygit2 hands over only the old side
    so: a regular old side is a blob; with only the new side regular, the two are handed over
    swapped and libgit2 swaps them back (`REVERSE`); with neither, both are buffers."""
    old_as, new_as = old_path or new_path or "", new_path or old_path or ""
    old: pygit2.Blob | bytes | None
    new: pygit2.Blob | bytes | None
    if _regular(new_mode) and not _regular(old_mode):
        new, old = blob_object(repo, new_oid), _side_content(repo, old_mode, old_oid)
        patch = pygit2.Patch.create_from(new, old, old_as_path=new_as, new_as_path=old_as,
                                         flag=DiffOption.INDENT_HEURISTIC | DiffOption.FORCE_TEXT | DiffOption.REVERSE,
                                         context_lines=3, interhunk_lines=0)
        return Made(patch, (old, new))
    old = blob_object(repo, old_oid) if _regular(old_mode) else _side_content(repo, old_mode, old_oid)
    new = blob_object(repo, new_oid) if _regular(old_mode) and _regular(new_mode) else \
        _side_content(repo, new_mode, new_oid)
    patch = pygit2.Patch.create_from(old, new, old_as_path=old_as, new_as_path=new_as,
                                     flag=DiffOption.INDENT_HEURISTIC | DiffOption.FORCE_TEXT, context_lines=3,
                                     interhunk_lines=0)
    return Made(patch, (old, new))


# A blob over BIG_BLOB is not diffed (nor read by the packet's other readers), and no more than
# DIFF_BYTES of blobs are read to be diffed for one packet, whatever inventories it builds
# (`DiffBudget`): a small repository can hold a blob of millions of lines (libgit2 keeps a
# record a line), and many such. Past either, the file's counts are not known, and said so
# (`FileChange.not_diffed`).
BIG_BLOB = 4 * 1024 * 1024
DIFF_BYTES = 64 * 1024 * 1024
# The diff's work is not linear in its bytes: libgit2's Myers diff (git's xdiff) searches, for
# each split of the lines it matches, up to max(256, the square root of their number) edits
# before it settles for a good enough one, so many short lines that the other side holds too
# cost far more than their bytes. Each file's work is counted before it is diffed
# (`diff_work`), and no more than DIFF_WORK of it is spent for one packet.
DIFF_WORK = 2 * 1024 ** 3
BIG_BLOB_REASON = "big_blob"
DIFF_CAP_REASON = "diff_cap"
DIFF_WORK_REASON = "diff_work"
NOT_DIFFED = (BIG_BLOB_REASON, DIFF_CAP_REASON, DIFF_WORK_REASON)
_LEAST_COST = 256  # the edits xdiff searches at least before settling (XDL_MAX_COST_MIN)


@dataclass(frozen=True)
class _Counts:
    """What the packet tells of a patch it may not read: made once, kept without the patch."""

    binary: bool
    additions: int
    deletions: int
    hunks: int
    size: int
    not_diffed: str | None = None  # one of NOT_DIFFED: no patch was made


def not_diffed_reason(kind: str) -> str:
    if kind == BIG_BLOB_REASON:
        return f"a side is over {BIG_BLOB} bytes: the file was not diffed"
    if kind == DIFF_WORK_REASON:
        return (f"diffing it would take the work one packet spends diffing past {DIFF_WORK} (a file's: "
                "n * max(256, sqrt(n)), n the lines its two sides could match): the file was not diffed")
    return f"the {DIFF_BYTES} bytes of blobs one packet diffs were spent: the file was not diffed"


def _lines(data: bytes) -> list[bytes]:
    """The lines of a side as xdiff compares them: a last line without its line end is not the
    same line as one with it."""
    lines = data.split(b"\n")
    if lines[-1]:
        lines[-1] += b"\0"
    else:
        lines.pop()
    return lines


def diff_work(old: bytes, new: bytes) -> int:
    """The work of diffing two sides, counted before it is done: n * max(256, sqrt(n)), where n
    is the lines the diff matches, those of each side the other side holds too once the lines
    both share at the start and at the end are set aside (xdiff sets the others aside first).
    xdiff searches at most about max(256, sqrt(n)) edits at each split of those lines before it
    settles, and what the costliest shapes cost grows as this count does, whatever their bytes."""
    if old == new:
        return 0
    a, b = _lines(old), _lines(new)
    short = min(len(a), len(b))
    head = 0
    while head < short and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < short - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    in_a, in_b = set(a), set(b)
    n = sum(map(in_b.__contains__, a[head:len(a) - tail])) + sum(map(in_a.__contains__, b[head:len(b) - tail]))
    return n * max(_LEAST_COST, math.isqrt(n))


def read_bounded(repo: pygit2.Repository, oid: str) -> bytes | None:
    """A blob's bytes, or None for one over BIG_BLOB: the packet reads no blob it would not diff."""
    return None if blob_size(repo, oid) > BIG_BLOB else read_blob(repo, oid)


def _side_size(repo: pygit2.Repository, mode: int, oid: str) -> int:
    return blob_size(repo, oid) if mode not in (MODE_ABSENT, MODE_SUBMODULE) else 0


def _counts(made: Made) -> _Counts:
    patch = made.patch
    if patch.delta.is_binary:
        return _Counts(True, 0, 0, 0, 0)
    _, additions, deletions = patch.line_stats
    return _Counts(False, additions, deletions, len(patch.hunks), len(patch.data))


# One-line sides for `_path_bytes`: a patch of these is all paths but for a fixed body.
_ONE, _OTHER = b"x\n", b"y\n"


def _one_line_patch(old_path: str, new_path: str, old: bool, new: bool, same: bool) -> bytes:
    """The text of a one-line patch between these paths, of a shape (which sides exist, whether
    they are equal): all of it but a fixed body is what libgit2 spells of the paths (quoted,
    escaped)."""
    patch = pygit2.Patch.create_from(_ONE if old else None, (_ONE if same else _OTHER) if new else None,
                                     old_as_path=old_path, new_as_path=new_path,
                                     flag=DiffOption.INDENT_HEURISTIC, context_lines=3, interhunk_lines=0)
    return patch.data


def _path_bytes(old_path: str, new_path: str, old: bool, new: bool, same: bool) -> int:
    """Bytes of the text of a one-line patch between these paths, of the same shape as a patch
    whose counts are known: two patches of one shape and content differ in text by what
    libgit2 spells of their paths."""
    return len(_one_line_patch(old_path, new_path, old, new, same))


def _pair_lines(verb: str, similarity: int | None, old_path: str, new_path: str, old_mode: int, new_mode: int,
                empty: bool) -> int:
    """Bytes `git diff` prints of a renamed or copied file beyond the patch of its two blobs:
    its mode lines, `similarity index`, `rename from` and `rename to` (or `copy ...`), and,
    where the blobs are the same (an empty patch), its `diff --git` line; less the `index`
    line's mode, which git leaves out where the modes differ. The paths are spelled
    as libgit2 spells them in the patch's `---` and `+++` lines (quoted and escaped alike),
    without their `a/` and `b/`."""
    lines = _one_line_patch(old_path, new_path, True, True, False).split(b"\n")
    head, old, new = lines[0], _unprefixed(lines[2][4:]), _unprefixed(lines[3][4:])
    size = len(head) + 1 if empty else 0
    if old_mode != new_mode:
        size += len(f"old mode {old_mode:o}\nnew mode {new_mode:o}\n")
        if not empty:  # git writes the `index` line's mode only where the two agree; the blobs' patch always does
            size -= len(" 100644")
    if similarity is not None:
        size += len(f"similarity index {similarity}%\n")
    return size + len(f"{verb} from \n{verb} to \n") + len(old) + len(new)


def _unprefixed(spelled: bytes) -> bytes:
    """`a/x` as `x`, and `"a/\\303x"` as `"\\303x"`."""
    return b'"' + spelled[3:] if spelled.startswith(b'"') else spelled[2:]


def _spellable(path: str) -> bool:
    try:
        path.encode()
    except UnicodeEncodeError:
        return False
    return True


_BUFFERS = object()  # the driver of a patch with no regular file's side (`_blob_patch`): none, whatever the paths


class DiffBudget:
    """What one packet spends diffing, however many inventories it builds: the bytes of blobs
    read to be diffed (against DIFF_BYTES), the diff work (against DIFF_WORK) and what pairing
    renames reads and compares (`renames.PairingSpent`), spent in the order the inventories are
    built and each in its own order, so which files are not diffed is a function of the ranges
    alone. A packet with a previous patchset builds the current one's
    inventory first: a second range must not double what a packet may spend.

    Counts of patches are made once a pair of sides, for every inventory drawing on it. Git
    stores a blob once however many paths hold it, so one change can be presented at thousands
    of paths, and a force-pushed patchset mostly repeats the previous one's: its patch is made
    for the first, and the others take its counts, their text's size moved by what their paths
    spell. libgit2's tree diff picks a diff driver (binary or not, function context) by the
    path's `diff` attribute: a path of the tree diff takes the counts only of a path with the
    same."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self._repo = repo
        # (modes, OIDs, diff driver, binary by the attribute) -> counts, and the patch text's bytes less
        # what its paths spell
        self._known: dict[tuple[int, int, str, str, object, bool], tuple[_Counts, int]] = {}
        self.diffed = 0  # bytes of blobs read to be diffed so far, against DIFF_BYTES
        self.work = 0  # `diff_work` of the patches made so far, against DIFF_WORK
        self.pairing = renames.PairingSpent()  # what pairing renames and copies read and compared

    def _attr(self, path: str) -> object:
        return self._repo.get_attr(path, "diff")

    def counts(self, tree: bool, old_path: str, new_path: str, old_mode: int, new_mode: int, old_oid: str,
               new_oid: str, remake: Callable[[], Made], rule: BinaryRule) -> _Counts:
        """`tree`: the patch is libgit2's tree diff's (`_nth`), else made from the two blobs.
        `rule`: whether the file is binary, by its range's merge base."""
        old_decides, by_attribute = rule.deciding(old_path, new_path, old_mode, new_mode)
        if (tree and old_oid == new_oid) or not (_spellable(old_path) and _spellable(new_path)):
            # a mode change alone: its text differs from no other's; a name that is not UTF-8
            # (surrogate escapes) libgit2 is not handed as text, so it is not spelled out here
            return self._made(old_mode, new_mode, old_oid, new_oid, remake, old_decides, by_attribute)
        # the diff driver libgit2 picks by each side's path's `diff` attribute (one path in a tree
        # diff) gives the function context, which the patch's text holds
        driver = self._attr(new_path) if tree else (self._attr(old_path), self._attr(new_path)) \
            if _regular(old_mode) or _regular(new_mode) else _BUFFERS
        key = (old_mode, new_mode, old_oid, new_oid, driver, by_attribute)
        shape = (old_mode != MODE_ABSENT, new_mode != MODE_ABSENT, old_oid == new_oid)
        found = self._known.get(key)
        if found is None:
            counts = self._made(old_mode, new_mode, old_oid, new_oid, remake, old_decides, by_attribute)
            self._known[key] = (counts, counts.size - _path_bytes(old_path, new_path, *shape))
            return counts
        counts, body = found
        if counts.not_diffed is not None or counts.binary:
            return counts
        return replace(counts, size=body + _path_bytes(old_path, new_path, *shape))

    def _made(self, old_mode: int, new_mode: int, old_oid: str, new_oid: str, remake: Callable[[], Made],
              old_decides: bool, by_attribute: bool) -> _Counts:
        """The counts of a patch made now, unless a side is over BIG_BLOB, DIFF_BYTES are spent, or
        its work would take those of the patches made past DIFF_WORK. A file whose work is
        counted spends its bytes, diffed or not: counting reads it. A binary file (`BinaryRule`:
        the attribute, or a NUL in the side that decides) has no patch made."""
        sizes = (_side_size(self._repo, old_mode, old_oid), _side_size(self._repo, new_mode, new_oid))
        if max(sizes) > BIG_BLOB:
            return _Counts(False, 0, 0, 0, 0, BIG_BLOB_REASON)
        if self.diffed + sum(sizes) > DIFF_BYTES:
            return _Counts(False, 0, 0, 0, 0, DIFF_CAP_REASON)
        self.diffed += sum(sizes)
        old = _side_content(self._repo, old_mode, old_oid)
        new = _side_content(self._repo, new_mode, new_oid)
        work = diff_work(old or b"", new or b"")
        if self.work + work > DIFF_WORK:
            return _Counts(False, 0, 0, 0, 0, DIFF_WORK_REASON)
        self.work += work
        deciding = old if old_decides else new
        if by_attribute or b"\0" in (deciding or b"")[:NUL_SCAN]:
            return _Counts(True, 0, 0, 0, 0)
        return _counts(remake())


@dataclass
class _Raw:
    """One entry of the plain tree diff (added, deleted, modified, type_changed)."""

    status: str
    path: str
    old_mode: int
    new_mode: int
    old_oid: str
    new_oid: str
    remake: Callable[[], Made]
    git_path: str  # the path as libgit2 spells it in the patch (`path` is made fit for JSON)
    tree: bool  # the patch is libgit2's tree diff's (`_nth`), else made by `_blob_patch`


def _nth(diff: pygit2.Diff, n: int) -> Callable[[], Made]:
    def made() -> Made:
        patch = diff[n]
        assert patch is not None  # libgit2 makes a patch for every entry of a tree diff
        return Made(patch)
    return made


def _pair_patch(repo: pygit2.Repository, old_path: str | None, old_mode: int, old_oid: str,
                new_path: str | None, new_mode: int, new_oid: str) -> Callable[[], Made]:
    return lambda: _blob_patch(repo, old_path, old_mode, old_oid, new_path, new_mode, new_oid)


def _raw_entries(repo: pygit2.Repository, rng: RangeIdentity) -> list[_Raw]:
    """The tree diff's entries, read from its deltas: no patch is made here."""
    out = []
    diff = tree_diff(repo, rng.merge_base_oid, rng.head_oid)
    for n, delta in enumerate(diff.deltas):
        status = STATUS.get(delta.status)
        if status is None:
            continue
        old_oid = str(delta.old_file.id) if delta.old_file.mode else ZERO_OID
        new_oid = str(delta.new_file.id) if delta.new_file.mode else ZERO_OID
        # libgit2's tree diff gives a link or a gitlink the diff driver of its path, git none
        # (a `*.bin binary` link is text to git): a change with no regular file's side is
        # made from buffers, as type changes are
        tree = status != "type_changed" and (_regular(delta.old_file.mode) or _regular(delta.new_file.mode))
        remake = _nth(diff, n) if tree else _pair_patch(repo, text_path(delta.old_file.path), delta.old_file.mode,
                                                          old_oid, text_path(delta.new_file.path),
                                                          delta.new_file.mode, new_oid)
        git_path = delta.new_file.path if status != "deleted" else delta.old_file.path
        out.append(_Raw(status, text_path(git_path), delta.old_file.mode, delta.new_file.mode, old_oid, new_oid,
                        remake, git_path, tree))
    return out


@dataclass
class Inventory:
    changes: list[FileChange]
    renames_skipped: str | None = None  # why no inexact rename or copy was looked for (`renames.pairing`)


def inventory(repo: pygit2.Repository, rng: RangeIdentity, paths: list[str] | None = None) -> list[FileChange]:
    """Every file changed over merge-base..head, sorted by path (then base-side path)."""
    return inventory_of(repo, rng, paths).changes


def inventory_of(repo: pygit2.Repository, rng: RangeIdentity, paths: list[str] | None = None,
                 budget: DiffBudget | None = None) -> Inventory:
    """`inventory`, and whether renames and copies were looked for in full. `budget`: what the
    packet has spent diffing so far, drawn on here (a budget of its own when None)."""
    if rng.empty:
        return Inventory([])
    raw = _raw_entries(repo, rng)
    counter = budget if budget is not None else DiffBudget(repo)
    rule = BinaryRule(repo, rng.merge_base_oid, [r.path for r in raw])
    sources = [Candidate(r.path, r.old_mode, r.old_oid, stays=r.status != "deleted")
               for r in raw if r.status in ("deleted", "modified", "type_changed")]
    dests = [Candidate(r.path, r.new_mode, r.new_oid) for r in raw if r.status == "added"]
    found = renames.pairing(sources, dests, read=lambda oid: read_blob(repo, oid),
                            size=lambda oid: blob_size(repo, oid), spent=counter.pairing)
    pairs = found.pairs
    paired_dests = {p.dest.path for p in pairs}
    consumed = {p.source.path for p in pairs if not p.source.stays}

    spelled = {r.path: r.git_path for r in raw}  # as libgit2 spelled each in a patch
    # Each file's counts are made in the order the budget is spent: the files the base holds
    # (renames, and the tree diff's modified, deleted and type-changed files) before those the
    # range brings (copies, added files), each in path order. In path order alone, a change
    # could add files named to sort first, filling the 64 MiB and the diff work so that its edit
    # of a file the base holds went undiffed (`diff_cap`, `diff_work`).
    pending: list[tuple[tuple[bool, str, str], Callable[[], FileChange]]] = []
    chosen = selection(paths)
    for p in pairs:
        if chosen(p.source.path) or chosen(p.dest.path):
            pending.append(((not p.renamed, p.dest.path, p.source.path),
                            partial(_paired_change, repo, p, spelled, counter, rule)))
    for r in raw:
        if (r.status == "added" and r.path in paired_dests) or (r.status == "deleted" and r.path in consumed):
            continue
        if chosen(r.path):
            pending.append(((r.status == "added", r.path, ""), partial(_raw_change, r, counter, rule)))
    pending.sort(key=lambda item: item[0])
    changes = [make() for _, make in pending]
    changes.sort(key=lambda c: (c.path, c.old_path or ""))
    return Inventory(changes, found.skipped)


def _paired_change(repo: pygit2.Repository, p: renames.Pair, spelled: dict[str, str], counter: DiffBudget,
                   rule: BinaryRule) -> FileChange:
    src, dst = p.source, p.dest
    remake = _pair_patch(repo, src.path, src.mode, src.oid, dst.path, dst.mode, dst.oid)
    counts = counter.counts(False, src.path, dst.path, src.mode, dst.mode, src.oid, dst.oid, remake, rule)
    old_as, new_as = spelled[src.path], spelled[dst.path]
    # the patch of two blobs knows nothing of the pairing: what git prints of it is added
    # (not for a name that is not UTF-8, which libgit2 is not handed as text: as `DiffBudget`)
    if not counts.binary and counts.not_diffed is None and _spellable(old_as) and _spellable(new_as):
        extra = _pair_lines("rename" if p.renamed else "copy", p.similarity, old_as, new_as, src.mode,
                            dst.mode, counts.size == 0)
        counts = replace(counts, size=counts.size + extra)
    return _change("renamed" if p.renamed else "copied", p.similarity, src.path, dst.path,
                   src.mode, dst.mode, src.oid, dst.oid, counts, remake)


def _raw_change(r: _Raw, counter: DiffBudget, rule: BinaryRule) -> FileChange:
    return _change(r.status, None, None if r.status == "added" else r.path, None if r.status == "deleted" else r.path,
                   r.old_mode, r.new_mode, r.old_oid, r.new_oid,
                   counter.counts(r.tree, r.git_path, r.git_path, r.old_mode, r.new_mode, r.old_oid, r.new_oid,
                                  r.remake, rule), r.remake)


def _change(status: str, similarity: int | None, old_path: str | None, new_path: str | None, old_mode: int,
            new_mode: int, old_oid: str, new_oid: str, counts: _Counts, remake: Callable[[], Made]) -> FileChange:
    return FileChange(status=status, similarity=similarity, old_path=old_path, new_path=new_path,
                      old_mode=old_mode, new_mode=new_mode, old_oid=old_oid, new_oid=new_oid, binary=counts.binary,
                      additions=counts.additions, deletions=counts.deletions,
                      mode_change=mode_change(old_mode, new_mode, old_oid, new_oid), hunk_count=counts.hunks,
                      size=counts.size, not_diffed=counts.not_diffed, remake=remake)
