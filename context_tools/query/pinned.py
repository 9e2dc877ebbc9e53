"""Opening the pinned snapshot a context tool reads, and the freshness that travels with it.

The snapshot a rev was last indexed at is served even when the rev has moved since;
the freshness then says `stale` and why. Snapshots stay open in the face's store
handle between calls (a warm call re-reads the rev's pin and checks that the snapshot is
still stored and the repository's folder the same, `_still_serves`), so an in-process or
MCP caller pays the open once.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TypeVar

import msgspec
from msgspec import Struct

from indexer.contract.result import Freshness, current_or_gone, not_recorded
from indexer.contract.standing import Advice, standing

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from indexer.contract.errors import NotIndexed
    from indexer.store.snapshot import Snapshot


def tree_path(path: str) -> str:
    """A path as a snapshot names it: relative to the repository root, without the leading
    `./` or the slashes a shell completion leaves (`./src/app.py` -> `src/app.py`, `src/` -> `src`)."""
    while path.startswith("./"):
        path = path[2:].lstrip("/")
    return path.strip("/")


def snapshot_path(snap: Snapshot, path: str) -> str:
    """`tree_path`, and an absolute path inside the snapshot's checkout, as an agent's own file
    tools name it (`/src/repo/app/main.py`), taken relative to its top folder (`app/main.py`).
    The folders above the file are resolved as the checkout's own top folder is (a `/tmp` that
    is a link); the file's own name is kept, a link in the tree being a file of its own."""
    top = snap.repo.workdir
    if top and os.path.isabs(path):
        folder, name = os.path.split(os.path.normpath(path))
        rel = os.path.relpath(os.path.join(os.path.realpath(folder), name), os.path.realpath(top))
        if rel != ".." and not rel.startswith("../"):
            return tree_path(rel)
    return tree_path(path)


Filtered = TypeVar("Filtered", bound=Struct)


def path_filter_in(snap: Snapshot, input: Filtered) -> Filtered:
    """`input` with its `path` filter taken as `snapshot_path` reads an absolute path inside the
    checkout (as the agent's own file tools name it); any other filter is left as written."""
    path = getattr(input, "path", None)
    if path and os.path.isabs(path):
        return msgspec.structs.replace(input, path=snapshot_path(snap, path))
    return input


def open_pinned(ctx: CallContext, repo: str, rev: str) -> tuple[Snapshot, Freshness]:
    """The snapshot `rev` of `repo` is pinned to and its freshness; `WORKTREE` names the
    checkout's working tree (see `context_tools/query/worktree.py`)."""
    from indexer import api
    from indexer.git.worktree import WORKTREE

    if rev == WORKTREE:
        from context_tools.query.worktree import open_worktree

        return open_worktree(ctx, repo)

    key = ("snapshot", os.path.realpath(repo), rev)
    memo = ctx.handle.memo
    snap = memo.get(key)
    if snap is not None and not _still_serves(ctx, snap):
        snap = None
    if snap is None:
        from indexer.contract.errors import NotIndexed

        store = ctx.store  # a store that is not there says so itself, not as a rev to index
        try:
            snap = api.snapshot(repo, rev, store=store, index_if_absent=ctx.may_index)
        except NotIndexed:
            raise not_indexed(ctx, repo, [rev]) from None
        memo[key] = snap
    return snap, freshness_of(snap, answer_advice(snap.rev, ctx))


def not_indexed(ctx: CallContext, repo: str, revs: list[str]) -> NotIndexed:
    """The `not_indexed` of `revs` (one, or a comparison's two) of `repo`, naming the
    `repo_index` call each needs, so that an agent indexes them all before it asks again."""
    from indexer.contract.errors import NotIndexed
    from indexer.git import read as gitread

    # a `--worktree` server's tools do index, the working tree only: "never indexes" would be untrue there
    does = ("this tool indexes the working tree, never a commit" if ctx.may_snapshot_worktree else
            "this tool only reads and never indexes")
    shown = gitread.repo_display_path(gitread.open_repo(repo))
    if len(revs) == 1:
        return NotIndexed(f"{revs[0]} of {shown} is not indexed; {does}: index it first with the `repo_index` "
                          f"tool (repo {repo!r}, rev {revs[0]!r}), then ask again")
    calls = " and ".join(f"rev {rev!r}" for rev in revs)
    return NotIndexed(f"{' and '.join(revs)} of {shown} are not indexed; {does}: index each first with the "
                      f"`repo_index` tool (repo {repo!r}, {calls}), then ask again")


def _still_serves(ctx: CallContext, snap: Snapshot) -> bool:
    """Is a snapshot kept from an earlier call still what opening (repo, rev) afresh gives? The
    repository and the store may have changed under a long-lived face meanwhile: the folder
    moved, deleted or replaced (a fresh open says `not_a_repository`, or reads the repository
    now there), the rev indexed again (its pin moved), the snapshot dropped by a `rennet store
    gc` (a rev written as an OID holds no pin), or a partial snapshot given way to the
    complete one of the same commit, the one record the store ever replaces."""
    from indexer.store.records import load_stored_record
    from indexer.store.snapshot import folder_stamp, pinned_oid
    from indexer.store.worktrees import stored

    if snap.folder is None or folder_stamp(snap.repo.path) != snap.folder:
        return False
    pin = pinned_oid(ctx.store, snap.repo, snap.rev)
    if pin is not None and pin != snap.oid:
        return False
    if not snap.missing_objects:
        return stored(ctx.store, snap.oid, snap.extractor_version)
    now = load_stored_record(ctx.store, snap.oid, snap.extractor_version)
    return now is not None and now.lazy_head().fingerprint == snap.fingerprint


def answer_advice(rev: str, ctx: CallContext | None = None) -> Advice:
    """What an answer's reason tells its reader to do when `rev` is not `current`. An agent
    (`ctx` of an agent face) has tools, not the CLI's commands and flags: it refreshes a moved
    rev with `repo_index`, and reads the working tree only where its server was started with
    `--worktree` (its read tools otherwise refuse `worktree`, `forbidden`)."""
    if ctx is not None and ctx.roots is not None:
        return Advice(moved=f"{refresh_call(rev, ctx)} to refresh",
                      dirty=("pass `worktree: true` to answer from the working tree" if ctx.worktree else
                             "this server answers from commits; one started with `rennet mcp --worktree` "
                             "answers from the working tree"),
                      partial="fetch them and index again for a complete snapshot",
                      gone="ask with a rev that resolves: the `repo_snapshots` tool lists the revs indexed")
    return Advice(moved=f"{refresh_call(rev, ctx)} to refresh",
                  dirty="pass --worktree to answer from the working tree",
                  partial="fetch them and index again for a complete snapshot",
                  gone="ask with a rev that resolves: `rennet snapshots` lists the revs indexed")


def refresh_call(rev: str, ctx: CallContext | None = None) -> str:
    """How the reader of an answer indexes `rev` again, in the words of its face: an agent
    calls its `repo_index` tool, the machine's user runs `rennet index`."""
    if ctx is not None and ctx.roots is not None:
        return f"call the `repo_index` tool with rev {rev!r}"
    return f"run `rennet index --rev {rev}`"


def freshness_of(snap: Snapshot, advice: Advice | None = None) -> Freshness:
    """The freshness of an answer read from `snap`, by the one rule of standing
    (`indexer.contract.standing`); `advice` (by default `answer_advice`) ends its reason."""
    from indexer.git.read import partial_clone
    from indexer.git.worktree import changed_on, in_progress

    current = snap.current_oid()
    missing = getattr(snap, "missing_objects", 0)
    status, reason, worktree = standing(snap.rev, snap.oid, current, lambda: changed_on(snap.repo, snap.oid),
                                        lambda: missing, advice or answer_advice(snap.rev),
                                        lambda: snap.oid in snap.repo,
                                        underway=lambda: in_progress(snap.repo),
                                        lazy=lambda: partial_clone(snap.repo))
    return Freshness(repo=snap.repo_path, rev=snap.rev, pinned_oid=snap.oid, current_oid=current_or_gone(current, snap.rev),
                     status=status, reason=reason,
                     indexed_at=snap.indexed_at or not_recorded("the store holds no index time"),
                     fingerprint=snap.fingerprint, worktree=worktree, missing_objects=missing)
