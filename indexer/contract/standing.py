"""The standing of a snapshot pinned at a commit: what it is to the repository now.

One rule decides it for every reader that tells it: each answer's freshness
(`context_tools/query/pinned.py`), each rev `repo.snapshots` lists and each member of a
workspace (`indexer/fleet/workspace.py`: `workspace.status`, the workspace's overview and
answers). Readers differ only in what their reasons tell the reader to do (`Advice`).
"""

from __future__ import annotations

from typing import Callable, Iterable, Literal, NamedTuple, get_args

from indexer.contract.result import FreshnessStatus, WorktreeState, not_assessed

# The statuses of a snapshot pinned at a commit (a working-tree snapshot's own is `worktree`),
# in the order a count of them lists them.
PinnedStatus = Literal["current", "stale", "unknown", "dirty", "partial"]
PINNED_STATUSES: tuple[PinnedStatus, ...] = get_args(PinnedStatus)

# Which status speaks when more than one could, worst first: `standing` asks in this order, and a
# workspace's answer takes its worst member's (`worst`). What cannot be told at all comes before
# what moved: a moved pin still names the commit it moved to, a gone one names nothing.
PRECEDENCE: tuple[PinnedStatus, ...] = ("unknown", "stale", "dirty", "partial", "current")


class Advice(NamedTuple):
    """What a reason tells its reader to do, by status: each clause ends that status's reason,
    and an empty one adds nothing."""

    moved: str  # `stale`: how the pin follows the rev again
    dirty: str  # `dirty`: how to read what the working tree holds
    partial: str  # `partial`: how to get a complete snapshot
    gone: str = ""  # `unknown`: how to find a rev that still resolves


class Standing(NamedTuple):
    status: PinnedStatus
    reason: str
    worktree: WorktreeState | None  # the checkout's state when `dirty`, else None


# Why a pinned commit can be missing from its repository: the store knows a repository by its
# folder's path, and cannot tell these apart.
_NOT_THERE = ("(its history was rewritten and pruned since it was indexed, or the folder now holds another "
              "repository)")


def standing(rev: str, oid: str, current: str | None, changed: Callable[[], int], missing: Callable[[], int],
             advice: Advice, present: Callable[[], bool] | None = None,
             underway: Callable[[], str] | None = None,
             lazy: Callable[[], bool] | None = None) -> Standing:
    """What the snapshot of commit `oid` pinned for `rev` is to the repository now, given what
    `rev` resolves to now (`current`, None when nothing), in this order of precedence:
    `unknown` when it no longer resolves, `stale` when it moved, `dirty` when the checkout is on
    that commit and `changed()` paths of its working tree differ, `partial` when `missing()` of
    its blobs were missing from the object database as it was indexed (a partial clone's), else
    `current` (PRECEDENCE). `changed` and `missing` are asked only of a rev that still resolves
    to the commit; `present()`, whether the repository holds the pinned commit, only of one that
    does not: a reason never says a rev moved from a commit the repository does not hold;
    `underway`, of a `dirty` one: the operation git has in progress in the checkout
    (`a rebase`; "" for none), which explains its working tree and is what its user finishes
    before committing (`indexer.git.worktree.in_progress`); `lazy`, of a `current` one: is the
    repository a partial clone (`indexer.git.read.partial_clone`)? Its snapshot may then be whole
    (indexed from another clone of the commit) while this one lacks blobs: the reason says a
    file's lines are read only where git fetched them, claiming no more than the index knows."""
    if current is None:
        if present is not None and not present():
            return Standing("unknown", f"{rev} no longer resolves in the repository, which does not hold the pinned "
                                       f"commit {oid[:12]} either {_NOT_THERE}; served from the pinned snapshot"
                            + _then(advice.gone), None)
        return Standing("unknown", f"{rev} no longer resolves in the repository; served from the pinned snapshot"
                        + _then(advice.gone), None)
    if current != oid:
        if present is not None and not present():
            return Standing("stale", f"{rev} names {current[:12]} now, and the repository does not hold the pinned "
                                     f"commit {oid[:12]} {_NOT_THERE}; served from the pinned snapshot, of files the "
                                     f"repository may never have held" + (f" ({advice.moved})" if advice.moved else ""),
                            None)
        return Standing("stale", f"{rev} moved from {oid[:12]} to {current[:12]} since it was pinned; served from "
                                 f"the pinned snapshot" + (f" ({advice.moved})" if advice.moved else ""), None)
    paths = changed()
    if paths:
        # the advice is the reason's, beside it in the same block: said once
        state = WorktreeState("dirty", oid, not_assessed("the working tree was not read"), paths)
        doing = underway() if underway is not None else ""
        return Standing("dirty", f"{rev} still resolves to the pinned commit, but the checkout's working tree "
                                 f"differs from it ({paths} path{'' if paths == 1 else 's'})"
                                 + (f", with {doing} in progress" if doing else "") + _then(advice.dirty), state)
    lacking = missing()
    if lacking:
        return Standing("partial", f"{rev} still resolves to the pinned commit, but {lacking} of its blobs were "
                                   f"missing from the object database when it was indexed (a partial clone's): they "
                                   f"are listed as skipped, `missing_object`" + _then(advice.partial), None)
    if lazy is not None and lazy():
        return Standing("current", f"{rev} still resolves to the pinned commit, whose files the snapshot indexes "
                                   f"whole; the repository is a partial clone (`git clone --filter`), so a file's "
                                   f"lines are read only where git fetched its blob (`missing_objects` names the "
                                   f"command that fetches one)", None)
    return Standing("current", f"{rev} still resolves to the pinned commit", None)


def _then(clause: str) -> str:
    return f"; {clause}" if clause else ""


def worst(statuses: Iterable[FreshnessStatus]) -> PinnedStatus:
    """The status of several pinned snapshots read as one (a workspace's members): the first of
    PRECEDENCE any of them has; `unknown` when there are none, as there is nothing to tell by.
    `worktree` is never a pinned snapshot's, and ranks nowhere."""
    present = set(statuses)
    return next((s for s in PRECEDENCE if s in present), "unknown")
