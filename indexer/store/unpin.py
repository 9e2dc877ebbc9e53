"""Letting go of a repository's holds on its snapshots: its rev pins and its list of working-tree
snapshots (`rennet store unpin`).

A pin is written by every index of a rev and replaced by the next index of that rev, so a rev
pinned once (a tag, a commit a batch's range named by its OID, a branch since deleted) holds
its snapshot until something lets it go. Unpinning deletes holders only: the snapshots they held
stay until `store gc` finds nothing else holds them (another repository's pin, a workspace
member). One write transaction, so an unpin killed at any point leaves every pin or none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from indexer.contract.errors import NotFound
from indexer.store import worktrees
from indexer.store.database import Store
from indexer.store.records import PIN_PREFIX, pin_parts, pinned_in


@dataclass
class Unpinned:
    """What an unpin let go (or, dry, would)."""

    repo_ids: list[str]
    revs: list[tuple[str, str]] = field(default_factory=list)  # (rev, OID), in key order
    worktree_snapshots: int = 0  # working-tree snapshots the repository's list held


def repo_ids_at(store: Store, path: str) -> list[str]:
    """The store's identities of the repository at `path`: the one git opens there, else those
    the store last indexed from that folder (a folder since deleted or replaced). Empty when
    neither names one."""
    from indexer.contract.errors import NotARepository
    from indexer.git import read as gitread
    from indexer.store.inventory import recorded_paths

    try:
        return [gitread.repo_identity(gitread.open_repo(path))]
    except NotARepository:
        pass
    wanted = os.path.realpath(path).rstrip("/")
    with store.env.begin() as txn:
        return sorted(i for i, p in recorded_paths(store, txn).items() if p == wanted)


def unpin(store: Store, repo_ids: list[str], revs: list[str], every: bool, dry_run: bool = False) -> Unpinned:
    """Delete the pins of `revs` of the repositories `repo_ids` (with `every`, all their pins and
    their working-tree lists). A rev named that no pin holds is `not_found`, naming the revs
    that are pinned, before anything is deleted: a mistyped rev lets go of nothing."""
    out = Unpinned(sorted(repo_ids))
    with store.env.begin(write=not dry_run) as txn:
        pinned: dict[str, list[tuple[bytes, str, str]]] = {}
        for repo_id in out.repo_ids:
            cursor = txn.cursor(db=store.repos)
            prefix = PIN_PREFIX + repo_id.encode() + b"|"
            if cursor.set_range(prefix):
                for key, value in cursor:
                    key = bytes(key)
                    if not key.startswith(prefix):
                        break
                    rev = pin_parts(key)[1]
                    pinned.setdefault(rev, []).append((key, rev, pinned_in(bytes(value), key, store.home)))
        if not every:
            lacking = [r for r in revs if r not in pinned]
            if lacking:
                have = ", ".join(sorted(pinned)[:10]) + (", ..." if len(pinned) > 10 else "")
                raise NotFound(f"no pin of {', '.join(lacking)} for this repository; "
                               + (f"its pinned revs: {have}" if pinned else "it has no rev pinned"))
        wanted = set(revs)  # a range's revs by the thousand: each pin looked up, not compared with each
        chosen = sorted(k for rev, rows in pinned.items() if every or rev in wanted for k in rows)
        out.revs = [(rev, oid) for _, rev, oid in chosen]
        lists = []
        if every:
            for repo_id in out.repo_ids:
                list_key = worktrees.LIST_PREFIX + repo_id.encode()
                row = txn.get(list_key, db=store.repos)
                if row is not None:
                    lists.append(list_key)
                    out.worktree_snapshots += len(worktrees.listed(list_key, bytes(row), store.home)[1])
        if not dry_run:
            for key, _, _ in chosen:
                txn.delete(key, db=store.repos)
            for key in lists:
                txn.delete(key, db=store.repos)
    return out

