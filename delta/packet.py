"""The Delta packet: what a lens drafter is told about a change. An inventory, not the diff.

`build_delta_packet(repo, base, head, ...)` resolves the range (merge-base..head),
inventories the files, indexes the hunks, pre-classifies noise, pairs counterparts,
reads fan-in from the base snapshot, diffs elements, optionally accounts for the
previous patchset and carries a dossier, then writes `packet.json` and
`noise-offer.json` to the output folder. Hunk bodies never enter the packet.

Bounds: the diff text captured is capped (2 MB); files are listed up to `max_files` and
hunks up to `max_hunks`. Past a bound, whole files or a file's whole hunk list are
dropped, signal before noise is kept (the files the base holds before those the range
brings), and every drop is listed with its reason. Totals
always count everything, but the lines of a file the inventory did not diff (a blob over
`BIG_BLOB`, or past `DIFF_BYTES` or `DIFF_WORK`: `delta.inventory`), which is dropped as such.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pygit2
from msgspec import Struct

from delta import blast, folders, noise, untrusted
from delta.attributes import TreeAttributes
from delta.counterparts import Counterpart, CounterpartIndex
from delta.elements import FileElements, diff_elements
from delta.hunks import FileSides, HunkRecord, index_hunks, same_change
from delta.inventory import (
    MODE_LINK,
    MODE_SUBMODULE,
    DiffBudget,
    FileChange,
    ModeChange,
    inventory_of,
    mode_text,
    not_diffed_reason,
    read_bounded,
)
from delta.noise import NoiseMark
from delta.range import RangeIdentity, check_paths_named, normalize_paths, open_repository, resolve_range
from delta.regions import NoiseOffer, RegionMap, offered_region, write_json_atomic, write_offer
from delta.successor import CURRENT_UNREAD, SuccessorAccount, Unread, account
from delta.syntax import Parses
from indexer.contract.encode import encode_json
from indexer.contract.parse_errors import FileParseErrors, file_parse_errors
from indexer.contract.result import Listed, Unknown, not_applicable, not_assessed
from indexer.git.read import walk_tree

if TYPE_CHECKING:
    from indexer.store.database import Store
    from indexer.store.snapshot import Snapshot

SCHEMA = "rennet.delta/1"
CAPTURE_CAP = 2 * 1024 * 1024
MAX_FILES = 1000
MAX_HUNKS = 5000
NOISE_PATHS_SHOWN = 20


class NotRequested(Struct, frozen=True):
    """A seam nobody asked to fill: typed, so it is never mistaken for "nothing there"."""

    unknown: str = "not_requested"
    reason: str = ""


class ElementsOut(Struct, frozen=True, omit_defaults=True):
    """The element differ's answer as `{items, unknown}`: `unknown` (an Unknown, or NotRequested
    with --no-elements) says why `items` is empty when the differ did not run; absent when it ran."""

    items: list[FileElements]
    unknown: Unknown | NotRequested | None = None


class PacketHunk(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A field that does not apply (no function context, no noise class) is absent, not blank."""

    id: str
    header: str
    section: str = ""  # function context: the header text after the second "@@"; absent when git gives none
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    additions: int
    deletions: int
    size: int  # bytes of the hunk's diff text
    noise: str | None = None  # the hunk's noise class


class PacketFile(Struct, kw_only=True, omit_defaults=True):
    """A field that does not apply to the file's change is absent, not null."""

    path: str
    status: str  # added deleted modified renamed copied type_changed
    similarity: int | None = None  # renamed / copied only
    old_path: str | None = None  # absent for an added file
    new_path: str | None = None  # absent for a deleted file
    old_mode: str  # "100644", "000000" when absent (as in `git diff --raw`)
    new_mode: str
    old_oid: str
    new_oid: str
    mode_change: ModeChange | None = None
    binary: bool
    additions: int | Unknown
    deletions: int | Unknown
    noise: NoiseMark | None = None  # absent for a signal file
    noise_cleared: list[NoiseMark]  # classes a `linguist-*=false` attribute, or the base side, took back
    fan_in: int | Unknown
    counterparts: Listed[Counterpart]  # {items, unknown}: unknown when no convention applies to the file
    hunk_count: int
    hunks: list[PacketHunk]
    # why this file's hunks are not listed ("capture_cap", "hunk_cap"; "big_blob", "diff_cap", "diff_work": not diffed)
    hunks_dropped: str | None = None
    # the head side's parse had errors (read from the head's snapshot, which the element differ
    # reads: not assessed with --no-elements): where, and that its element changes may be misread
    parse_errors: FileParseErrors | None = None


class Drop(Struct, frozen=True):
    path: str
    what: str  # "file" (the whole entry) | "hunks" (its hunk list)
    reason: str  # capture_cap | file_cap | hunk_cap | big_blob | diff_cap | diff_work (the last three: not diffed)
    hunks: int
    bytes: int


class Totals(Struct, frozen=True, omit_defaults=True):
    files: int
    files_listed: int
    hunks: int
    hunks_listed: int
    additions: int
    deletions: int
    binary_files: int
    diff_bytes: int
    diff_bytes_captured: int
    capture_cap: int
    noise_files: int
    noise_hunks: int
    files_not_diffed: int = 0  # files whose lines and hunks are not counted (big_blob, diff_cap, diff_work); absent when 0


class NoiseClassSummary(Struct, frozen=True, rename={"cls": "class"}):
    cls: str
    files: int
    hunks: int
    additions: int
    deletions: int
    paths: list[str]  # the first NOISE_PATHS_SHOWN, by path
    paths_total: int


class DeltaPacket(Struct, omit_defaults=True):
    schema: str
    # which of the packet's text the change under review and its repository wrote, for the
    # reviewer (often a model) it is handed to: `delta.untrusted.PACKET`, always written
    untrusted: str
    range: RangeIdentity
    totals: Totals
    truncated: bool
    files: list[PacketFile]  # signal first, then noise; the base's files first in each, then by path
    drops: list[Drop]
    noise: list[NoiseClassSummary]
    blast: blast.BlastSource | Unknown
    elements: ElementsOut  # {items, unknown}, one shape whether the differ ran or not
    successor: SuccessorAccount | NotRequested
    dossier: Any  # the dossier builder's record, or NotRequested
    offer: str | None = None  # path of noise-offer.json; absent when not written
    # not_assessed when no inexact rename or copy was looked for (a bound: `renames.pairing`);
    # absent when they were
    renames: Unknown | None = None


@dataclass
class DeltaBuild:
    """A built packet plus what stays in the process: the region -> hunk id map."""

    packet: DeltaPacket
    regions: RegionMap
    folder: Path | None
    offer_path: Path | None
    packet_path: Path | None
    hunk_records: list[HunkRecord] = field(default_factory=list)

    def resolve_region(self, path: str, side: str, start: int, end: int | None = None) -> str | None:
        return self.regions.resolve(path, side, start, end)


@dataclass
class _Work:
    change: FileChange
    mark: noise.Classification
    hunks: list[HunkRecord]
    dropped: str | None = None


def _home(store: Store | None, home: str | os.PathLike[str] | None) -> Path:
    if store is not None:
        return Path(store.home)
    from indexer.store.database import default_home

    return Path(home).expanduser() if home else default_home()


def _content_reader(repo: pygit2.Repository, change: FileChange, base: bool = False) -> Callable[[], bytes | None]:
    """The bytes of the file's side the noise rules read (head, or base for a deletion), read
    once when first asked; with `base`, of its base side."""
    on_base = base or change.status == "deleted"
    side_mode = change.old_mode if on_base else change.new_mode
    oid = change.old_oid if on_base else change.new_oid
    cache: list[bytes | None] = []

    def read() -> bytes | None:
        if not cache:
            unread = side_mode in (MODE_LINK, MODE_SUBMODULE) or change.binary or change.not_diffed
            cache.append(None if unread else read_bounded(repo, oid))
        return cache[0]
    return read


def _sides(repo: pygit2.Repository, change: FileChange) -> Callable[[], tuple[bytes | None, bytes | None]]:
    """The file's base and head sides' bytes as the noise rules read them (None where a side
    is absent, or not read)."""
    base = None if change.status == "added" else _content_reader(repo, change, base=True)
    head = None if change.status == "deleted" else _content_reader(repo, change)
    return lambda: (base() if base else None, head() if head else None)


def _rank(w: _Work) -> tuple[bool, bool, str, str]:
    """Signal before noise; in each, the files the base holds before those the range brings
    (added, copied), then by path. The file cap, the capture cap and the hunk cap keep the first:
    in path order alone, a change could add files named to sort first (`a/0001.py`, ...) and
    push its edit of `src/auth.py` past the caps, its hunks or its entry left out."""
    return (w.mark.noise is not None, w.change.status in noise.NEW_FILE, w.change.path, w.change.old_path or "")


def _built_how(selected: list[str] | None, previous: RangeIdentity | None, *, elements: bool,
               dossier: object, caps: tuple[int, int, int]) -> list[str]:
    """How a packet holds other than what the default build of its range holds, a line each
    (`folders.default_folder`). Not `index`: it says how snapshots are found, not what a
    packet of them holds."""
    how = [f"path {p}" for p in selected or ()]
    if previous is not None:
        how.append(f"previous {previous.merge_base_oid}..{previous.head_oid}")
    how += [line for line, differs in (("no elements", not elements),
                                       ("dossier", dossier is not None and dossier is not False),
                                       (f"caps {caps}", caps != (CAPTURE_CAP, MAX_FILES, MAX_HUNKS))) if differs]
    return how


def build_delta_packet(repo: str | os.PathLike[str], base: str, head: str, *,
                       previous_base: str | None = None, previous_head: str | None = None,
                       paths: list[str] | None = None, out: str | os.PathLike[str] | None = None,
                       store: Store | None = None, home: str | os.PathLike[str] | None = None, index: bool = True,
                       elements: bool = True, dossier: object = None, write: bool = True,
                       capture_cap: int = CAPTURE_CAP, max_files: int = MAX_FILES,
                       max_hunks: int = MAX_HUNKS) -> DeltaBuild:
    """Build the Delta packet of base..head (reviewed as merge-base..head).

    `dossier`: True builds it with `delta.dossier.build_dossier` (same store); a built
    dossier is carried as given; a callable `(repo, base, head) -> dossier` is called;
    None leaves the typed `not_requested` mark. `index=False` reads existing snapshots
    only (fan-in and elements become `not_assessed` when absent). `write=False` skips the
    output folder."""
    git = open_repository(repo)
    selected = normalize_paths(git, paths)
    rng = resolve_range(git, base, head)
    check_paths_named(git, rng, selected)
    if (previous_base is None) != (previous_head is None):
        from indexer.contract.errors import BadInput

        raise BadInput("`previous_base` and `previous_head` (--previous-base, --previous-head) go together")
    prev_rng = resolve_range(git, previous_base, previous_head) if previous_base and previous_head else None
    if rng.worktree_base_oid is not None and dossier is not None and dossier is not False:
        from indexer.contract.errors import BadInput

        raise BadInput("the dossier is of a range of commits: it is not with a head of WORKTREE (--worktree)")

    # one budget for the packet's diffing, spent on the current patchset first, then on the previous
    budget = DiffBudget(git)
    found = inventory_of(git, rng, selected, budget)
    changes = found.changes
    head_attrs = TreeAttributes(git, rng.head_oid, [p for p in (c.new_path for c in changes) if p])
    # the base's attributes of the files it held (a deletion's, and a file's the range may not
    # make noise), and of the paths of the files the range brings (no rule of its own may make them noise)
    base_attrs = TreeAttributes(git, rng.merge_base_oid, [
        p for p in (c.old_path if c.status == "deleted" or c.status in noise.SAME_FILE else c.new_path
                    for c in changes) if p])

    # Pre-classify before capturing, so the capture budget goes to signal before noise.
    work: list[_Work] = []
    readings = noise.BlobReadings()
    for change in changes:
        attrs = base_attrs if change.status == "deleted" else head_attrs
        pre = noise.classify(change, attrs, _content_reader(git, change), _content_reader(git, change, base=True),
                             readings, base_attrs)
        work.append(_Work(change, pre, []))
    work.sort(key=_rank)

    drops: list[Drop] = []
    captured = 0
    listed_hunks = 0
    for n, w in enumerate(work):
        if n >= max_files:
            w.dropped = "file_cap"
            drops.append(Drop(w.change.path, "file", "file_cap", w.change.hunk_count, w.change.size))
            continue
        if w.change.not_diffed:
            w.dropped = w.change.not_diffed
            drops.append(Drop(w.change.path, "hunks", w.dropped, 0, 0))
            continue
        if w.change.hunk_count == 0:
            continue
        if captured + w.change.size > capture_cap:
            w.dropped = "capture_cap"
        elif listed_hunks + w.change.hunk_count > max_hunks:
            w.dropped = "hunk_cap"
        if w.dropped:
            drops.append(Drop(w.change.path, "hunks", w.dropped, w.change.hunk_count, w.change.size))
            continue
        captured += w.change.size
        same = readings.found_same(w.change.old_oid, w.change.new_oid, w.change.path)
        w.hunks = index_hunks(w.change, _sides(git, w.change), readings.parses, readings.hunks, same)
        listed_hunks += len(w.hunks)
        w.mark = noise.with_hunks(w.mark, w.hunks)
    work.sort(key=_rank)
    listed = [w for w in work if w.dropped != "file_cap"]

    head_blobs = {e.path: e.oid for e in walk_tree(git, rng.head_oid)[1]} if changes else {}
    changed_paths = {p for c in changes for p in (c.old_path, c.new_path) if p}
    deleted = [c.old_path for c in changes if c.status == "deleted" and c.old_path]

    # the counterparts read a changed file's head side as the noise rules do, only where the
    # inventory diffed it: a file the budget left undiffed is not read past it either, nor keeps
    # or takes what its blob held read at another path (one diffed there may hold its tests)
    not_diffed = {c.path for c in changes if c.not_diffed}

    def read_head(path: str) -> bytes | None:
        blob = head_blobs.get(path)
        return read_bounded(git, blob) if blob is not None and path not in not_diffed else None

    def blob_of(path: str) -> str | None:
        return None if path in not_diffed else head_blobs[path]

    pairs = CounterpartIndex(head_blobs, changed_paths, deleted, read_head, blob_of)

    own_store: list[Store] = []
    try:
        base_snap, head_snap, blast_absent, elements_out = _snapshots(
            repo, rng, [w.change for w in listed], store, home, index, elements, own_store, readings)
        files = [_packet_file(w, pairs, base_snap, blast_absent, head_snap) for w in listed]
    finally:
        for s in own_store:
            s.close()

    regions = RegionMap()
    offered = []
    records: list[HunkRecord] = []
    for w in listed:
        for h in w.hunks:
            regions.add(h)
            records.append(h)
            region = offered_region(h, w.mark.hunks.get(h.id))
            if region:
                offered.append(region)

    successor: SuccessorAccount | NotRequested = NotRequested(reason="no previous patchset was given") \
        if prev_rng is None else _successor(git, prev_rng, records, {d.path for d in drops}, selected, capture_cap,
                                            budget, readings, {w.change.path: w.change for w in listed})

    packet = DeltaPacket(
        schema=SCHEMA, untrusted=untrusted.PACKET, range=rng,
        totals=_totals(work, captured, capture_cap, listed_hunks),
        truncated=bool(drops), files=files,
        renames=not_assessed(found.renames_skipped) if found.renames_skipped else None,
        drops=drops, noise=_noise_summary(work),
        blast=blast.source_of(base_snap) if base_snap is not None else (
            blast_absent or not_applicable("no changed files to assess")),
        elements=elements_out, successor=successor,
        dossier=_dossier(dossier, repo, base, head, store))

    folder = offer_path = packet_path = None
    if write:
        folder = Path(out).expanduser().absolute() if out else \
            folders.default_folder(_home(store, home), rng.merge_base_oid, rng.head_oid,
                                   _built_how(selected, prev_rng, elements=elements, dossier=dossier,
                                              caps=(capture_cap, max_files, max_hunks)))
        try:
            offer_path = write_offer(folder, NoiseOffer(
                "rennet.noise-offer/1", rng.base_oid, rng.head_oid, rng.merge_base_oid, len(offered), offered))
            packet.offer = str(offer_path)
            packet_path = folder / "packet.json"
            write_json_atomic(packet_path, encode_json(packet) + b"\n")
        except OSError as exc:  # --out names a file, a folder we may not write, a full disk
            from indexer.contract.errors import BadInput, StoreError

            reason = exc.strerror or type(exc).__name__
            if out:
                raise BadInput(f"cannot write the packet folder {out}: {reason}") from None
            raise StoreError(f"cannot write the packet under {folder}: {reason}") from None
        if not out:
            folders.sweep(folder.parent.parent)
    return DeltaBuild(packet, regions, folder, offer_path, packet_path, records)


def _snapshots(repo: str | os.PathLike[str], rng: RangeIdentity, changes: list[FileChange], store: Store | None,
               home: str | os.PathLike[str] | None, index: bool, want_elements: bool, own: list[Store],
               readings: noise.BlobReadings) -> tuple[Snapshot | None, Snapshot | None, Unknown | None, ElementsOut]:
    """(base snapshot for fan-in, head snapshot when the element differ read it, the base's
    absence mark, element changes). A store opened here is
    appended to `own` for the caller to close. The element differ parses within what the noise
    classes left of the packet's parse budget (`readings.parses`), after them."""
    if not changes:
        return None, None, None, ElementsOut([])

    def loader(oid: str) -> Snapshot:
        from indexer.api import open_store, snapshot, worktree_snapshot

        if store is None and not own:
            own.append(open_store(home))
        opened = store if store is not None else own[0]
        if rng.worktree_base_oid is not None and oid == rng.head_oid:
            return _worktree_head(repo, rng, rng.worktree_base_oid, opened, index, worktree_snapshot)
        return snapshot(str(repo), oid, store=opened, index_if_absent=index)

    base_snap, absent = blast.load_snapshot(loader, rng.base_oid, "base")
    elements_out: ElementsOut
    head_snap = None
    if not want_elements:
        elements_out = ElementsOut([], NotRequested(reason="the element differ was not requested"))
    else:
        mb_snap, mb_absent = (base_snap, absent) if rng.merge_base_oid == rng.base_oid else \
            blast.load_snapshot(loader, rng.merge_base_oid, "merge-base")
        head_snap, head_absent = blast.load_snapshot(loader, rng.head_oid, "head")
        if mb_snap is not None and head_snap is not None:
            elements_out = ElementsOut(diff_elements(changes, mb_snap, head_snap, readings.parses,
                                                     readings.found_same_trees))
        else:  # a snapshot is absent exactly when its mark says why
            elements_out = ElementsOut([], mb_absent or head_absent
                                       or not_assessed("the merge-base or head snapshot was not read"))
    return base_snap, head_snap, absent, elements_out


def _worktree_head(repo: str | os.PathLike[str], rng: RangeIdentity, base_oid: str, store: Store, index: bool,
                   worktree_snapshot: Callable[..., Snapshot]) -> Snapshot:
    """The working-tree snapshot a head of WORKTREE reads (its tree: `rng.head_oid`; its base:
    `rng.worktree_base_oid`, given as `base_oid`)."""
    from indexer.git.read import open_repo
    from indexer.git.worktree import WORKTREE, Worktree
    from indexer.store.snapshot import open_at

    found = open_at(store, str(repo), rng.head_oid, WORKTREE)
    if found is not None or not index:
        if found is None:
            from indexer.contract.errors import NotIndexed

            raise NotIndexed(f"the working tree {rng.head_oid[:12]} is not indexed")
        return found
    return worktree_snapshot(open_repo(repo), Worktree(base_oid, rng.head_oid, [], []), store=store)


def _packet_file(w: _Work, pairs: CounterpartIndex, base_snap: Snapshot | None, absent: Unknown | None,
                 head_snap: Snapshot | None) -> PacketFile:
    c = w.change
    binary_mark = not_applicable("binary file: git counts no lines") if not c.not_diffed else \
        not_assessed(not_diffed_reason(c.not_diffed))
    return PacketFile(
        path=c.path, status=c.status, similarity=c.similarity, old_path=c.old_path, new_path=c.new_path,
        old_mode=mode_text(c.old_mode), new_mode=mode_text(c.new_mode), old_oid=c.old_oid, new_oid=c.new_oid,
        mode_change=c.mode_change, binary=c.binary,
        additions=binary_mark if c.binary or c.not_diffed else c.additions,
        deletions=binary_mark if c.binary or c.not_diffed else c.deletions,
        noise=w.mark.noise, noise_cleared=w.mark.cleared,
        fan_in=blast.fan_in(c, base_snap, absent),
        counterparts=_listed(pairs.counterparts(c.path)),
        hunk_count=w.change.hunk_count,
        hunks=[PacketHunk(id=h.id, header=h.header, section=h.section, old_start=h.old_start,
                          old_lines=h.old_lines, new_start=h.new_start, new_lines=h.new_lines, additions=h.additions,
                          deletions=h.deletions, size=h.size, noise=w.mark.hunks.get(h.id)) for h in w.hunks],
        hunks_dropped=w.dropped,
        parse_errors=_head_parse_errors(c, head_snap),
    )


def _head_parse_errors(c: FileChange, head_snap: Snapshot | None) -> FileParseErrors | None:
    """Where the head side of the change failed to parse, read from the head's facts (the
    snapshot lists its files with parse errors: a clean one reads none)."""
    if head_snap is None or c.new_path is None or c.new_path not in head_snap.parse_errors:
        return None
    return file_parse_errors(head_snap.core_facts(c.new_path, keep=False), "the head side",
                             "its element changes")


def _totals(work: list[_Work], captured: int, cap: int, listed_hunks: int) -> Totals:
    return Totals(
        files=len(work), files_listed=sum(w.dropped != "file_cap" for w in work),
        hunks=sum(w.change.hunk_count for w in work), hunks_listed=listed_hunks,
        additions=sum(w.change.additions for w in work), deletions=sum(w.change.deletions for w in work),
        binary_files=sum(w.change.binary for w in work),
        diff_bytes=sum(w.change.size for w in work), diff_bytes_captured=captured, capture_cap=cap,
        noise_files=sum(w.mark.noise is not None for w in work),
        noise_hunks=sum(1 for w in work for cls in w.mark.hunks.values() if cls),
        files_not_diffed=sum(w.change.not_diffed is not None for w in work),
    )


def _noise_summary(work: list[_Work]) -> list[NoiseClassSummary]:
    by_class: dict[str, list[_Work]] = {}
    hunks_by_class: dict[str, int] = {}
    for w in work:
        if w.mark.noise is not None:
            cls = w.mark.noise.cls
            by_class.setdefault(cls, []).append(w)
            # every hunk of a noise file is of its class, listed or dropped by a cap
            hunks_by_class[cls] = hunks_by_class.get(cls, 0) + w.change.hunk_count
            continue
        for hunk_cls in w.mark.hunks.values():  # a whitespace-only hunk inside a real change
            if hunk_cls:
                hunks_by_class[hunk_cls] = hunks_by_class.get(hunk_cls, 0) + 1
    out = []
    for cls in sorted(set(by_class) | set(hunks_by_class)):
        ws = sorted(by_class.get(cls, []), key=lambda w: w.change.path)
        out.append(NoiseClassSummary(
            cls, len(ws), hunks_by_class.get(cls, 0),
            sum(w.change.additions for w in ws), sum(w.change.deletions for w in ws),
            [w.change.path for w in ws[:NOISE_PATHS_SHOWN]], len(ws)))
    return out


def _successor(git: pygit2.Repository, prev: RangeIdentity, current: list[HunkRecord], current_unread: set[str],
               selected: list[str] | None, cap: int, budget: DiffBudget, readings: noise.BlobReadings,
               current_files: dict[str, FileChange]) -> SuccessorAccount:
    """The account of the previous patchset, its inventory drawing on what the current one left
    of the packet's `budget`. A previous file whose hunks are not read is `unread` with the
    reason: not diffed, over the capture cap, or else at a path whose current hunks the packet
    did not read (`current_unread`: its drops), where they would be compared with none.
    Its hunks are classed by the current patchset's rule, and a pair whose lines differ in
    whitespace alone judged by it (`delta.hunks.same_change`), within what the packet left of
    its parse bounds (`readings.parses`)."""
    previous: list[HunkRecord] = []
    previous_files: dict[str, FileChange] = {}
    unread: list[Unread] = []
    captured = 0
    found = inventory_of(git, prev, selected, budget)
    for change in found.changes:
        size = change.size
        if change.not_diffed:
            unread.append(Unread(change.path, change.not_diffed, 0, 0))
            continue
        if captured + size > cap:
            unread.append(Unread(change.path, "capture_cap", change.hunk_count, size))
            continue
        if change.path in current_unread:
            unread.append(Unread(change.path, CURRENT_UNREAD, change.hunk_count, size))
            continue
        captured += size
        previous.extend(index_hunks(change, _sides(git, change), readings.parses, readings.hunks))
        previous_files[change.path] = change
    return account(prev, previous, current, unread,
                   not_assessed(found.renames_skipped) if found.renames_skipped else None,
                   _SameChange(git, previous_files, current_files, readings.parses))


# The bytes of files' sides the successor account reads to tell a pair's whitespace layout from
# data: pairs of hunks of many files, each pair in others, would read the same blobs again and
# again; past it a pair is not found layout (its similarity below 1.0)
SAME_CHANGE_BYTES = 64 << 20


class _SameChange:
    """`delta.hunks.same_change` of a previous and a current hunk, their files' sides read and
    parsed once while they are the last asked of, within `SAME_CHANGE_BYTES` read."""

    KEEP = 4

    def __init__(self, git: pygit2.Repository, previous: dict[str, FileChange], current: dict[str, FileChange],
                 parses: Parses) -> None:
        self.git, self.previous, self.current, self.parses = git, previous, current, parses
        self._files: dict[tuple[str, str, str], FileSides] = {}  # least recent first
        self.left = SAME_CHANGE_BYTES

    def _sides(self, change: FileChange) -> FileSides:
        key = (change.path, change.old_oid, change.new_oid)
        found = self._files.pop(key, None)
        if found is None:
            if len(self._files) >= self.KEEP:
                del self._files[next(iter(self._files))]
            found = FileSides(change.path, self._counted(_sides(self.git, change)), self.parses)
        self._files[key] = found
        return found

    def _counted(self, sides: Callable[[], tuple[bytes | None, bytes | None]]
                 ) -> Callable[[], tuple[bytes | None, bytes | None]]:
        def read() -> tuple[bytes | None, bytes | None]:
            old, new = sides()
            self.left -= len(old or b"") + len(new or b"")
            return old, new
        return read

    def __call__(self, previous: HunkRecord, current: HunkRecord) -> bool:
        was, now = self.previous.get(previous.path), self.current.get(current.path)
        if was is None or now is None or self.left <= 0:
            return False
        return same_change(previous, self._sides(was), current, self._sides(now))


def _dossier(dossier: object, repo: str | os.PathLike[str], base: str, head: str, store: Store | None) -> object:
    if dossier is None or dossier is False:
        return NotRequested(reason="no dossier was asked for this packet")
    if dossier is True:
        from delta.dossier import build_dossier

        return build_dossier(repo, base, head, store=store)
    if callable(dossier):
        return dossier(repo, base, head)
    return dossier


def _listed(found: list[Counterpart] | Unknown) -> Listed[Counterpart]:
    return Listed(found) if isinstance(found, list) else Listed([], found)
