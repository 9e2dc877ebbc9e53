"""The working tree an agent is editing, as the snapshot a context tool reads.

`open_worktree` reads the checkout as `git add -A && git write-tree` would commit it
(indexer/git/worktree.py), opens the working-tree snapshot of that tree OID (indexing what
changed first) and says so in the freshness: `worktree`, with the base commit, the tree OID
and how many paths differ. An answer read from the commit the checkout is on, while its
working tree differs, says `dirty` instead (`indexer.contract.standing`).

The checkout's repository stays open in the face's store handle between calls, so git's status
reads the index again only when it changed, and a warm caller pays the open once.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

from indexer.contract.result import Freshness, WorktreeState, not_recorded

if TYPE_CHECKING:
    import pygit2

    from context_tools.faces.context import CallContext
    from indexer.git.worktree import Worktree
    from indexer.store.snapshot import Snapshot

SKIPPED_SHOWN = 20
UNPARSED_SHOWN = 5


def _checkout(ctx: CallContext, repo: str) -> pygit2.Repository:
    from indexer.git.read import open_repo
    from indexer.store.snapshot import folder_stamp

    key = ("checkout", os.path.realpath(repo))
    memo = ctx.handle.memo
    kept = memo.get(key)
    # a checkout moved, deleted or replaced since is opened afresh, as a first call opens it
    if kept is not None and kept[1] is not None and folder_stamp(kept[0].path) == kept[1]:
        return kept[0]
    found = open_repo(repo)
    memo[key] = (found, folder_stamp(found.path))
    return found


def open_worktree(ctx: CallContext, repo: str) -> tuple[Snapshot, Freshness]:
    """The working-tree snapshot of the checkout at `repo` and its `worktree` freshness."""
    from indexer import api
    from indexer.git.worktree import read_worktree
    from indexer.store.worktrees import stored

    if not ctx.may_snapshot_worktree:
        from context_tools.faces.errors import Forbidden

        raise Forbidden("an answer from the working tree indexes it into the store, and this server's read "
                        "tools write nothing: start it with `rennet mcp --worktree` to allow working-tree answers")
    from context_tools.faces.context import WORKTREE_READ

    ctx.extras[WORKTREE_READ] = True  # a cursor of another snapshot then says the working tree moved on
    where = os.path.realpath(repo)
    with _held(_lock_of(where), api.waited()):  # one reader of a checkout's repository object at a time
        checkout = _checkout(ctx, repo)
        tree = read_worktree(checkout)
        key = ("worktree", where, tree.tree_oid)
        memo = ctx.handle.memo
        snap = memo.get(key)
        if snap is not None and not stored(ctx.store, snap.oid, snap.extractor_version):
            snap = None  # swept since (indexer/store/worktrees.py): its tail is no longer there to read
        if snap is None:
            snap = api.worktree_snapshot(checkout, tree, store=ctx.store)
            memo[key] = snap
    return snap, worktree_freshness(snap, tree)


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@contextmanager
def _held(lock: threading.Lock, tick: Callable[[float], None] | None) -> Iterator[None]:
    """`lock` held; while another call holds it (its index of the same checkout on the way),
    `tick` is told how long this one has waited, as a wait for another indexer is told, and a
    server's call answers `busy` at its bound (`writer_wait.answering_within`), as that wait does,
    telling the time waited as it does (`waited_since`)."""
    from indexer.store.writer_wait import TICK_SECONDS, call_bound, retry_hint, shown, waited_since

    if not lock.acquire(blocking=False):
        start = time.monotonic()
        bound = call_bound()
        if tick is not None:
            tick(0.0)
        while not lock.acquire(timeout=TICK_SECONDS if bound is None else
                               max(min(TICK_SECONDS, bound.until - time.monotonic()), 0.0)):
            if bound is not None and time.monotonic() >= bound.until:
                from indexer.contract.errors import Busy

                raise Busy(f"another call of this server is indexing the working tree of this checkout, still at "
                           f"work after {shown(waited_since(start))} s of waiting; {retry_hint()}")
            if tick is not None:
                tick(time.monotonic() - start)
    try:
        yield
    finally:
        lock.release()


def _lock_of(where: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(where, threading.Lock())


def worktree_freshness(snap: Snapshot, tree: Worktree) -> Freshness:
    from indexer.git.worktree import WORKTREE, in_progress

    state = WorktreeState("snapshot", tree.base_oid, tree.tree_oid, len(tree.changed),
                          [s.path for s in tree.skipped[:SKIPPED_SHOWN]], len(tree.skipped))
    count = len(tree.changed)
    reason = (f"read from the working tree as it is now: {count} path{'' if count == 1 else 's'} differ"
              f"{'s' if count == 1 else ''} from HEAD ({tree.base_oid[:12]})" if count else
              f"read from the working tree as it is now: clean, the same files as HEAD ({tree.base_oid[:12]}); "
              f"an answer asked with rev HEAD reads that commit")
    doing = in_progress(snap.repo)
    if doing:  # HEAD is then a step of it, and the working tree holds its conflicts
        reason += f"; {doing} is in progress in the checkout"
    if tree.skipped:
        many = len(tree.skipped)
        reason += f"; {many} file{'' if many == 1 else 's'} left out of it (listed in worktree.skipped)"
    unparsed = _unparsed(snap, tree.changed)
    if unparsed:
        shown = ", ".join(f"{path} ({why})" for path, why in unparsed[:UNPARSED_SHOWN])
        one = len(unparsed) == 1
        reason += (f"; {len(unparsed)} of the changed files {'was' if one else 'were'} not parsed, so no answer "
                   f"finds {'its' if one else 'their'} names: {shown}"
                   + (", ..." if len(unparsed) > UNPARSED_SHOWN else ""))
    broken = _with_parse_errors(snap, tree.changed)
    if broken:
        shown = ", ".join(f"{path} at {where}" for path, where in broken[:UNPARSED_SHOWN])
        one = len(broken) == 1
        reason += (f"; {len(broken)} of the changed files do{'es' if one else ''} not parse cleanly, so an answer may "
                   f"miss or misread what is defined in or after them: {shown}"
                   + (", ..." if len(broken) > UNPARSED_SHOWN else ""))
    return Freshness(repo=snap.repo_path, rev=WORKTREE, pinned_oid=tree.tree_oid, current_oid=tree.tree_oid,
                     status="worktree", reason=reason,
                     indexed_at=snap.indexed_at or not_recorded("the store holds no index time"),
                     fingerprint=snap.fingerprint, worktree=state)


def _with_parse_errors(snap: Snapshot, changed: list[str]) -> list[tuple[str, str]]:
    """The changed files whose parse had errors, with where (`lines 6-9`; the first
    UNPARSED_SHOWN read for it): a file mid-edit is parsed, but what follows its error may be
    missing from every answer."""
    from indexer.contract.parse_errors import regions_text

    errors = frozenset(snap.parse_errors)
    found: list[tuple[str, str]] = []
    for path in (p for p in changed if p in errors) if errors else ():
        facts = snap.core_facts(path, keep=False) if len(found) < UNPARSED_SHOWN else None
        found.append((path, regions_text(facts.parse_errors, facts.parse_error_total)
                      if facts is not None and facts.parse_error_total else "lines not read"))
    return found


def _unparsed(snap: Snapshot, changed: list[str]) -> list[tuple[str, str]]:
    """The changed files the index did not parse, with why (too_large, minified, unparseable, ...):
    an agent that just wrote one would otherwise read a miss of its names as their absence. A
    binary file is left out: nobody looks in one for a name."""
    found = []
    for path in changed:
        entry = snap.file(path)
        if entry is not None and entry.skipped and entry.skipped != "binary":
            found.append((path, entry.skipped))
    return found
