"""The successor account: how the hunks of the previous patchset relate to the current one.

Matching never looks at dates. First exact ids (`carried`: same path, function
context and normalized body); then the same normalized body at another place
(`moved`: other file or function context); then, range-diff style, the remaining
pairs by cost: similarity of the normalized +/- lines (difflib ratio), less a
penalty for a different file, matched greedily best-first with ties broken by
order, above a threshold (`changed`). What is left is `dropped` (previous only)
or `new` (current only).
"""

from __future__ import annotations

import difflib

from msgspec import Struct

from delta.hunks import HunkRecord
from delta.range import RangeIdentity
from indexer.contract.result import Unknown

CHANGED_THRESHOLD = 0.5
OTHER_FILE_PENALTY = 0.15
MAX_PAIRS = 250_000  # above this many candidate pairs, only same-file pairs are scored


class HunkRef(Struct, frozen=True):
    id: str
    path: str


class Succession(Struct, frozen=True, omit_defaults=True):
    previous: HunkRef
    current: HunkRef
    similarity: float | None = None  # for `changed`: the matched score, rounded


class Unread(Struct, frozen=True):
    """A previous patchset's file whose hunks were not read (over the capture cap): its hunks
    are in none of the lists, and current hunks they would have matched count as new."""

    path: str
    reason: str  # capture_cap
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
    # not_assessed when no inexact rename or copy was looked for in the previous patchset (a
    # bound: `renames.pairing`), its renamed files then read as added and deleted; absent when they were
    renames: Unknown | None = None


def _ref(h: HunkRecord) -> HunkRef:
    return HunkRef(h.id, h.path)


def account(previous_range: RangeIdentity, previous: list[HunkRecord], current: list[HunkRecord],
            unread: list[Unread] | None = None, renames: Unknown | None = None) -> SuccessorAccount:
    prev_left = list(range(len(previous)))
    cur_left = list(range(len(current)))

    carried: list[HunkRef] = []
    cur_by_id = {h.id: i for i, h in enumerate(current)}
    taken_cur: set[int] = set()
    taken_prev: set[int] = set()
    for i in prev_left:
        j = cur_by_id.get(previous[i].id)
        if j is not None and j not in taken_cur:
            carried.append(_ref(current[j]))
            taken_cur.add(j)
            taken_prev.add(i)

    moved: list[Succession] = []
    cur_by_body: dict[str, list[int]] = {}
    for j in cur_left:
        if j not in taken_cur:
            cur_by_body.setdefault(current[j].body_key, []).append(j)
    for i in prev_left:
        if i in taken_prev:
            continue
        candidates = [j for j in cur_by_body.get(previous[i].body_key, []) if j not in taken_cur]
        if candidates:
            # prefer the same file, then the first in order
            j = min(candidates, key=lambda j: (current[j].path != previous[i].path, j))
            moved.append(Succession(_ref(previous[i]), _ref(current[j])))
            taken_cur.add(j)
            taken_prev.add(i)

    changed = _cost_match(previous, current, taken_prev, taken_cur)
    dropped = [_ref(previous[i]) for i in prev_left if i not in taken_prev]
    new = [_ref(current[j]) for j in cur_left if j not in taken_cur]
    counts = {"carried": len(carried), "moved": len(moved), "changed": len(changed),
              "dropped": len(dropped), "new": len(new)}
    return SuccessorAccount(previous_range, counts, carried, moved, changed, dropped, new, unread or [], renames)


def _cost_match(previous: list[HunkRecord], current: list[HunkRecord], taken_prev: set[int],
                taken_cur: set[int]) -> list[Succession]:
    prev = [i for i in range(len(previous)) if i not in taken_prev]
    cur = [j for j in range(len(current)) if j not in taken_cur]
    same_file_only = len(prev) * len(cur) > MAX_PAIRS
    scored: list[tuple[float, int, int]] = []
    for i in prev:
        a = previous[i]
        for j in cur:
            b = current[j]
            other_file = a.path != b.path
            if other_file and same_file_only:
                continue
            sm = difflib.SequenceMatcher(None, a.body, b.body, autojunk=False)
            if sm.real_quick_ratio() - OTHER_FILE_PENALTY * other_file < CHANGED_THRESHOLD:
                continue
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
        out.append((i, Succession(_ref(previous[i]), _ref(current[j]), round(score, 3))))
    return [s for _, s in sorted(out, key=lambda t: t[0])]
