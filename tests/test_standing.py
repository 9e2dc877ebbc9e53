"""The one freshness rule (`indexer.contract.standing`): a pinned snapshot's standing, and the
standing of several read as one (a workspace), by the same precedence."""

from __future__ import annotations

import itertools

import pytest

from indexer.contract.result import Unknown
from indexer.contract.standing import PINNED_STATUSES, PRECEDENCE, Advice, standing, worst

PIN = "a" * 40
MOVED = "b" * 40
ADVICE = Advice(moved="re-pin it", dirty="read the working tree", partial="fetch them")
NONE = Advice("", "", "")


def never() -> int:
    raise AssertionError("asked of a rev that does not resolve to the pinned commit")


def test_a_rev_gone_is_unknown_and_its_checkout_is_not_asked():
    now = standing("main", PIN, None, never, never, ADVICE)
    assert (now.status, now.worktree) == ("unknown", None)
    assert now.reason == "main no longer resolves in the repository; served from the pinned snapshot"
    told = standing("main", PIN, None, never, never, ADVICE._replace(gone="list the revs"))
    assert told.reason == "main no longer resolves in the repository; served from the pinned snapshot; list the revs"


def test_a_rev_moved_is_stale_and_says_from_where_to_where():
    now = standing("main", PIN, MOVED, never, never, ADVICE)
    assert (now.status, now.worktree) == ("stale", None)
    assert f"moved from {PIN[:12]} to {MOVED[:12]}" in now.reason and now.reason.endswith("(re-pin it)")
    assert standing("main", PIN, MOVED, never, never, NONE).reason.endswith("served from the pinned snapshot")


def test_a_differing_checkout_is_dirty_before_missing_blobs_are_partial():
    now = standing("main", PIN, PIN, lambda: 3, never, ADVICE)
    assert now.status == "dirty" and "(3 paths)" in now.reason and now.reason.endswith("; read the working tree")
    assert now.worktree is not None and (now.worktree.state, now.worktree.base_oid, now.worktree.changed) == (
        "dirty", PIN, 3)
    # the advice is told once, in the reason beside it (was: again in the tree's unknown)
    assert isinstance(now.worktree.tree_oid, Unknown) and now.worktree.tree_oid.reason == (
        "the working tree was not read")
    assert standing("main", PIN, PIN, lambda: 3, lambda: 2, ADVICE).status == worst(["dirty", "partial"]) == "dirty"
    assert standing("main", PIN, PIN, lambda: 1, never, ADVICE).status == "dirty"  # one path is enough


def test_missing_blobs_are_partial_and_a_whole_clean_snapshot_current():
    now = standing("main", PIN, PIN, lambda: 0, lambda: 2, ADVICE)
    assert (now.status, now.worktree) == ("partial", None)
    assert "2 of its blobs were missing" in now.reason and now.reason.endswith("; fetch them")
    assert standing("main", PIN, PIN, lambda: 0, lambda: 2, NONE).reason.endswith("`missing_object`")
    assert standing("main", PIN, PIN, lambda: 0, lambda: 1, ADVICE).status == "partial"  # one blob is enough
    current = standing("main", PIN, PIN, lambda: 0, lambda: 0, ADVICE)
    assert (current.status, current.reason, current.worktree) == ("current", "main still resolves to the pinned commit",
                                                                  None)


def test_the_precedence_ranks_every_pinned_status_once():
    assert sorted(PRECEDENCE) == sorted(PINNED_STATUSES)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_several_read_as_one_take_the_worst_by_the_precedence(size):
    """Every mix of statuses: the worst is the one first in PRECEDENCE, whatever the order."""
    for mix in itertools.product(PINNED_STATUSES, repeat=size):
        assert worst(mix) == min(mix, key=PRECEDENCE.index), mix
    assert worst(["stale", "unknown"]) == worst(["unknown", "stale"]) == "unknown"


def test_nothing_to_tell_by_is_unknown():
    assert worst([]) == "unknown"


def test_a_pinned_commit_the_repository_does_not_hold_is_never_said_to_have_moved():
    """Where the repository does not hold the pinned commit (a folder now holding another
    repository, or a history rewritten and pruned), the reason says so, not that the rev moved
    from it; the status is the rule's as before. Whether it holds it is asked only of a rev that
    does not resolve to the pinned commit."""
    gone = standing("main", PIN, MOVED, never, never, ADVICE, lambda: False)
    assert gone.status == "stale" and "moved from" not in gone.reason
    assert gone.reason.startswith(f"main names {MOVED[:12]} now, and the repository does not hold the pinned commit "
                                  f"{PIN[:12]} (its history was rewritten and pruned since it was indexed, or the "
                                  f"folder now holds another repository)") and gone.reason.endswith("(re-pin it)")
    lost = standing("v1", PIN, None, never, never, ADVICE._replace(gone="list the revs"), lambda: False)
    assert lost.status == "unknown" and "does not hold the pinned commit" in lost.reason
    assert lost.reason.endswith("; list the revs")
    held = standing("main", PIN, MOVED, never, never, ADVICE, lambda: True)
    assert held.reason.startswith(f"main moved from {PIN[:12]} to {MOVED[:12]}")
    here = standing("main", PIN, PIN, lambda: 0, lambda: 0, ADVICE, lambda: never() == 0)
    assert here.status == "current"
