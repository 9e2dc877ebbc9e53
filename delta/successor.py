"""The successor account: how the hunks of the previous patchset relate to the current one.

Matching never looks at dates. First exact ids (`carried`: same path, function
context and normalized body, and the same lines byte for byte); then the same lines at
another place (`moved`: other file or function context); then, range-diff style, the remaining
pairs by cost: similarity of the normalized +/- lines (difflib ratio), less a
penalty for a different file, matched greedily best-first with ties broken by
order, above a threshold (`changed`). What is left is `dropped` (previous only)
or `new` (current only). A previous file whose hunks were not read (`unread`: not diffed, past
a cap, or its current file not read) is compared with nothing: the current hunks at its path
are `uncompared`, in none of the lists.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from typing import Callable, Iterator

from msgspec import Struct

from delta.hunks import HunkRecord
from delta.range import RangeIdentity
from indexer.contract.result import Unknown, not_assessed

CHANGED_THRESHOLD = 0.5
OTHER_FILE_PENALTY = 0.15
# Above this many candidate pairs only same-file pairs are scored; above it among a file's too,
# each previous hunk is scored against the current hunks of its file nearest its place, as many
# as keep the pairs within it. A previous patchset is bounded by its diff text only, so one file's
# tens of thousands of small hunks against the current's thousands made every pair of them.
MAX_PAIRS = 250_000
# The pairs of lines alike that the scored pairs may hold, with their lines: difflib's ratio
# reads, for each line of one body, every place the other holds that line, so two hunks of one
# line repeated thousands of times cost their product. Past it no more pairs are scored, and
# the account says how many were not (`unscored`).
MATCH_CELLS = 20_000_000


class HunkRef(Struct, frozen=True):
    id: str
    path: str


class Succession(Struct, frozen=True, omit_defaults=True):
    previous: HunkRef
    current: HunkRef
    similarity: float | None = None  # for `changed`: the matched score, rounded


# An `Unread` reason: the current patchset's file at the path was not read (the packet's drops
# say why), so the previous one's hunks there would be compared with none of theirs.
CURRENT_UNREAD = "current_unread"


class Unread(Struct, frozen=True):
    """A previous patchset's file whose hunks were not read: its hunks are in none of the lists,
    nor are the current hunks at its path (`uncompared`). A current hunk elsewhere they would
    have matched counts as new."""

    path: str
    # capture_cap; big_blob, diff_cap, diff_work (not diffed: hunks and bytes 0); current_unread
    reason: str
    hunks: int
    bytes: int


class SuccessorAccount(Struct, omit_defaults=True):
    previous: RangeIdentity
    counts: dict[str, int]  # carried moved changed dropped new
    carried: list[HunkRef]
    moved: list[Succession]
    changed: list[Succession]
    dropped: list[HunkRef]
    new: list[HunkRef]
    unread: list[Unread]  # always given, empty or not
    # current hunks at the path of an `unread` file, compared with nothing: in none of the five
    # lists, since the previous patchset's hunks there are not known (always given)
    uncompared: list[HunkRef]
    # not_assessed when no inexact rename or copy was looked for in the previous patchset (a
    # bound: `renames.pairing`), its renamed files then read as added and deleted; absent when they were
    renames: Unknown | None = None
    # not_assessed when pairs of hunks were left unscored past a bound (MATCH_CELLS): a dropped and
    # a new hunk among them may be one changed; absent when every pair was scored
    unscored: Unknown | None = None


def _ref(h: HunkRecord) -> HunkRef:
    return HunkRef(h.id, h.path)


# Whether a previous and a current hunk whose lines are the same but for whitespace make the same
# change but for layout, by the rule the packet classes a hunk by (`delta.hunks.same_change`)
SameChange = Callable[[HunkRecord, HunkRecord], bool]
# A `changed` pair whose lines are the same but for whitespace that is data (a space put into a
# string, a line re-indented out of its block) scores this much below its 1.0: 1.0 says layout alone
LAYOUT_ONLY_MARGIN = 0.001


def account(previous_range: RangeIdentity, previous: list[HunkRecord], current: list[HunkRecord],
            unread: list[Unread] | None = None, renames: Unknown | None = None,
            same_change: SameChange | None = None) -> SuccessorAccount:
    """`unread`: the previous patchset's files whose hunks are not in `previous`; the current
    hunks at their paths are set aside as `uncompared`, where they would have been new, or
    moved from a hunk whose own file's hunks say otherwise. `same_change` tells a `changed`
    pair whose lines differ in whitespace alone whether that whitespace is layout (similarity
    1.0) or data (just below); without it, none is known to be layout."""
    unread_paths = {u.path for u in unread or ()}
    uncompared = [_ref(h) for h in current if h.path in unread_paths]
    if uncompared:
        current = [h for h in current if h.path not in unread_paths]
    prev_left = list(range(len(previous)))
    cur_left = list(range(len(current)))

    carried: list[HunkRef] = []
    cur_by_id = {h.id: i for i, h in enumerate(current)}
    taken_cur: set[int] = set()
    taken_prev: set[int] = set()
    for i in prev_left:
        j = cur_by_id.get(previous[i].id)
        # the id drops whitespace: one the change made (a line re-indented out of its block, a
        # space put in a string) is no carry, and goes on to be scored as changed
        if j is not None and j not in taken_cur and current[j].body_key == previous[i].body_key:
            carried.append(_ref(current[j]))
            taken_cur.add(j)
            taken_prev.add(i)

    moved: list[Succession] = []
    # the current hunks not taken, by body and by body and file, each in order: the first one not
    # taken since is the candidate (the same file's first, else the first of any), found past the
    # taken ones once for all, where listing every candidate again for each previous hunk of a
    # body many share cost the product of their counts
    by_body: dict[str, _Queue] = {}
    by_file: dict[tuple[str, str], _Queue] = {}
    for j in cur_left:
        if j not in taken_cur:
            h = current[j]
            by_body.setdefault(h.body_key, _Queue()).items.append(j)
            by_file.setdefault((h.body_key, h.path), _Queue()).items.append(j)
    for i in prev_left:
        if i in taken_prev:
            continue
        a = previous[i]
        same = by_file.get((a.body_key, a.path))
        found = same.first(taken_cur) if same is not None else None
        if found is None and a.body_key in by_body:
            found = by_body[a.body_key].first(taken_cur)
        if found is not None:
            moved.append(Succession(_ref(a), _ref(current[found])))
            taken_cur.add(found)
            taken_prev.add(i)

    changed, unscored = _cost_match(previous, current, taken_prev, taken_cur, same_change)
    dropped = [_ref(previous[i]) for i in prev_left if i not in taken_prev]
    new = [_ref(current[j]) for j in cur_left if j not in taken_cur]
    counts = {"carried": len(carried), "moved": len(moved), "changed": len(changed),
              "dropped": len(dropped), "new": len(new)}
    return SuccessorAccount(previous_range, counts, carried, moved, changed, dropped, new, unread or [], uncompared,
                            renames,
                            not_assessed(f"{unscored} of the pairs of a previous and a current hunk were not scored, past "
                                         f"{MATCH_CELLS:,} lines alike (`MATCH_CELLS`): a dropped and a new hunk "
                                         "among them may be one changed") if unscored else None)


class _Queue:
    """Indices in order, and the place before which every one is taken."""

    def __init__(self) -> None:
        self.items: list[int] = []
        self._at = 0

    def first(self, taken: set[int]) -> int | None:
        while self._at < len(self.items) and self.items[self._at] in taken:
            self._at += 1
        return self.items[self._at] if self._at < len(self.items) else None


def _pairs(previous: list[HunkRecord], current: list[HunkRecord], prev: list[int], cur: list[int]
           ) -> Iterator[tuple[int, int]]:
    """The pairs the cost match scores, previous hunk by previous hunk, each one's in the current's
    order: every pair within MAX_PAIRS; past it, those of one file; past it among a file's too,
    the current hunks of its file nearest the previous one's place (by first line at head), as
    many for each as keep them within MAX_PAIRS."""
    if len(prev) * len(cur) <= MAX_PAIRS:
        for i in prev:
            for j in cur:
                yield i, j
        return
    by_path: dict[str, list[int]] = {}
    for j in cur:
        by_path.setdefault(current[j].path, []).append(j)
    pairs = sum(len(by_path.get(previous[i].path, ())) for i in prev)
    near = max(1, MAX_PAIRS // len(prev)) if pairs > MAX_PAIRS else 0
    starts = {path: [current[j].new_start for j in js] for path, js in by_path.items()} if near else {}
    for i in prev:
        a = previous[i]
        js = by_path.get(a.path, [])
        if near and len(js) > near:
            # hunks are listed in the order of their lines, so their first lines are sorted
            at = min(max(0, bisect_left(starts[a.path], a.new_start) - near // 2), len(js) - near)
            js = js[at:at + near]
        for j in js:
            yield i, j


def _cost_match(previous: list[HunkRecord], current: list[HunkRecord], taken_prev: set[int],
                taken_cur: set[int], same_change: SameChange | None = None) -> tuple[list[Succession], int]:
    """The `changed` successions, and how many pairs `_pairs` gave were left unscored past
    MATCH_CELLS. A pair chosen whose lines are the same but for whitespace scores 1.0 only
    where `same_change` finds that whitespace layout: it is read only of the pairs chosen."""
    prev = [i for i in range(len(previous)) if i not in taken_prev]
    cur = [j for j in range(len(current)) if j not in taken_cur]
    # a current hunk's body read once as difflib's second side, and how often it holds each line
    matchers: dict[int, tuple[difflib.SequenceMatcher[bytes], Counter[bytes]]] = {}
    scored: list[tuple[float, int, int]] = []
    spent = unscored = 0
    for i, j in _pairs(previous, current, prev, cur):
        a, b = previous[i], current[j]
        other_file = a.path != b.path
        shorter, longer = sorted((len(a.body), len(b.body)))
        # real_quick_ratio, from the lengths alone
        if (2.0 * shorter / (shorter + longer) if longer else 1.0) - OTHER_FILE_PENALTY * other_file \
                < CHANGED_THRESHOLD:
            continue
        if unscored:
            unscored += 1
            continue
        read = matchers.get(j)
        if read is None:
            read = matchers[j] = (difflib.SequenceMatcher(None, (), b.body, autojunk=False), Counter(b.body))
        sm, held = read
        spent += shorter + longer + sum(held[line] for line in a.body)
        if spent > MATCH_CELLS:
            unscored += 1
            continue
        sm.set_seq1(a.body)
        score = sm.ratio() - OTHER_FILE_PENALTY * other_file
        if score >= CHANGED_THRESHOLD:
            scored.append((score, i, j))
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    out: list[tuple[int, Succession]] = []
    for score, i, j in scored:
        if i in taken_prev or j in taken_cur:
            continue
        taken_prev.add(i)
        taken_cur.add(j)
        a, b = previous[i], current[j]
        if a.body == b.body and (same_change is None or not same_change(a, b)):
            score -= LAYOUT_ONLY_MARGIN  # the same lines but for whitespace that is data
        out.append((i, Succession(_ref(a), _ref(b), round(score, 3))))
    return [s for _, s in sorted(out, key=lambda t: t[0])], unscored
