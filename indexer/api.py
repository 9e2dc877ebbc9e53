"""The indexer's public face for the rest of Rennet Context.

Imports stay lazy: answering a query from a stored snapshot must not pay for the
extraction machinery (tree-sitter, multiprocessing) that only indexing needs.
"""

from __future__ import annotations

import os
import time
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from typing import TYPE_CHECKING, Callable, Protocol

from indexer.contract.scoped import scoped
from indexer.store.database import Store

if TYPE_CHECKING:
    import pygit2

    from indexer.build import IndexReport
    from indexer.git.worktree import Worktree
    from indexer.store.snapshot import Snapshot


def open_store(home: str | os.PathLike[str] | None = None) -> Store:
    return Store.open(home)


def index(repo_path: str, rev: str = "HEAD", store: Store | str | os.PathLike[str] | None = None,
          workers: int | None = None, progress=None, require_complete: bool = False) -> "IndexReport":
    """Index `rev` (indexer.build.index); every face indexes a rev through here. `store`: an
    open store, or the folder of one, opened for this call and closed after it."""
    from indexer.pipeline.collector import collector_paused

    if store is not None and not isinstance(store, Store):
        with Store.open(store) as opened:
            return index(repo_path, rev, opened, workers, progress, require_complete)

    with collector_paused():  # the build's modules are imported for good: nothing to collect
        from indexer.build import index as _index
    with (nullcontext(progress) if progress is not None else reported()) as told:
        return _index(repo_path, rev, store=store, workers=workers, progress=told,
                      require_complete=require_complete)


def snapshot(repo_path: str, rev: str = "HEAD", store: Store | str | os.PathLike[str] | None = None,
             index_if_absent: bool = True, workers: int | None = None, require_complete: bool = False) -> "Snapshot":
    """The pinned snapshot of `rev`. With `index_if_absent`, a rev with no snapshot is indexed
    first: the OID its pin names, or the rev itself (which pins it). This is the one place a
    read asks for a build; `indexer.store.snapshot.load` never does. `store`: an open store,
    or the folder of one (opened for as long as the snapshot is read; the default store's too)."""
    from indexer.contract.errors import NotIndexed, UnknownRev
    from indexer.store import writer_wait
    from indexer.store.snapshot import load

    store = store if isinstance(store, Store) else Store.open(store)
    try:
        return load(store, repo_path, rev)
    except NotIndexed:
        if not index_if_absent:
            # Another indexer may be writing this very revision: wait for it, then look again.
            began = time.monotonic()
            if not writer_wait.wait_for_writer(store.home, tick=waited()):
                raise writer_wait.busy(store.home, f"{rev} of {repo_path}", began) from None
            return load(store, repo_path, rev)
    from indexer.git import read as gitread
    from indexer.store.snapshot import pinned_oid

    def attempt() -> "Snapshot":
        try:
            return load(store, repo_path, rev)  # the indexer we waited for may have written it
        except NotIndexed:
            pass
        repo = gitread.open_repo(repo_path)
        pinned = pinned_oid(store, repo, rev)
        if pinned is not None and pinned not in repo:  # else "unknown revision <an OID never typed>"
            raise UnknownRev(f"{rev} of {gitread.repo_display_path(repo)} is pinned to commit {pinned[:12]}, whose "
                             f"snapshot is not in the store and which the repository does not hold (history "
                             f"rewritten, or a damaged store): `rennet index --rev {rev}` pins it anew")
        # the repository's folder, not the subfolder a caller named: that is what gets indexed
        with announced(gitread.repo_display_path(repo), rev) as progress:
            index(repo_path, pinned or rev, store=store, workers=workers, progress=progress,
                  require_complete=require_complete)
        return load(store, repo_path, rev)

    return writer_wait.waiting(store.home, attempt, f"{rev} of {repo_path}", tick=waited())


# What a face shows while a read indexes on the way: given (repository, rev), a context whose
# value is the build's progress callback (or None). A face that talks to a person sets it.
Progress = Callable[[str, int, int], None]
_on_the_way: Callable[[str, str], AbstractContextManager[Progress | None]] | None = None
# What a face shows while a command waits for another indexer of the store (seconds so far)
_on_wait: Callable[[float], None] | None = None


class ProgressSink(Protocol):
    """Where one call's indexing reports its progress (an MCP client that asked for it): each
    index the call runs is one `run`, whose value is the build's progress callback."""

    def run(self) -> AbstractContextManager[Progress]: ...

    def waiting(self, seconds: float) -> None:
        """The call waits for another indexer of the store to finish, `seconds` so far."""


# The sink of the call this thread serves; calls run side by side, each in a thread of its own.
_sink: ContextVar[ProgressSink | None] = ContextVar("rennet_progress_sink", default=None)


def reporting_to(sink: ProgressSink | None) -> AbstractContextManager[None]:
    """Every index run within (in this thread) reports to `sink`."""
    return scoped(_sink, sink)


def reported() -> AbstractContextManager[Progress | None]:
    """The progress callback of an index run, from the call's sink (None when it has none)."""
    sink = _sink.get()
    return sink.run() if sink is not None else nullcontext()


def waited() -> Callable[[float], None] | None:
    """What a wait for another indexer tells: the call's sink when it has one, else the face's
    own (None when no face set it)."""
    sink = _sink.get()
    return sink.waiting if sink is not None else _on_wait


def announced(repo_path: str, rev: str) -> AbstractContextManager[Progress | None]:
    """What the face shows while a command indexes `rev` on the way: the call's sink when it
    has one, else the face's own (nothing when no face set it)."""
    if _sink.get() is not None:
        return reported()
    return _on_the_way(repo_path, rev) if _on_the_way is not None else nullcontext()


def show_indexing(factory: Callable[[str, str], AbstractContextManager[Progress | None]] | None,
                  waiting: Callable[[float], None] | None = None) -> None:
    """Set what `snapshot` shows while it indexes a rev that has no snapshot yet, and while a
    command waits for another indexer of the store."""
    global _on_the_way, _on_wait
    _on_the_way, _on_wait = factory, waiting


def worktree_snapshot(repo: "pygit2.Repository", tree: "Worktree", store: Store | None = None,
                      workers: int | None = None) -> "Snapshot":
    """The working-tree snapshot of `tree` (read by `indexer.git.worktree.read_worktree`),
    indexed first when absent: from the checkout's previous working-tree snapshot or its base
    commit's, whichever is stored, so an edit costs what it changed. Pins `WORKTREE` to it."""
    from indexer.build import extractor_version, index_tree
    from indexer.git import read as gitread
    from indexer.git.worktree import WORKTREE
    from indexer.store import writer_wait
    from indexer.store.records import load_stored_record
    from indexer.store.snapshot import open_at, pinned_oid
    from indexer.store.worktrees import remember

    store = store or Store.open()
    path = gitread.repo_display_path(repo)

    def attempt() -> "Snapshot":
        previous = pinned_oid(store, repo, WORKTREE)
        if previous == tree.tree_oid:  # the indexer waited for may have written this very tree
            snap = open_at(store, path, tree.tree_oid, WORKTREE)
            if snap is not None:
                return snap
        earlier = [oid for oid in (previous, tree.base_oid) if oid]
        few = workers
        if few is None and any(load_stored_record(store, oid) is not None for oid in earlier):
            # a few edits from a stored snapshot: forking extraction workers would cost more than it saves
            few = 1 if len(tree.changed) <= _FEW_CHANGES else None
        with announced(path, WORKTREE) as progress:
            index_tree(path, tree.tree_oid, WORKTREE, earlier=earlier, store=store, workers=few,
                       skipped=tree.skipped, progress=progress)
        remember(store, gitread.repo_identity(repo), tree.tree_oid, extractor_version())
        snap = open_at(store, path, tree.tree_oid, WORKTREE)
        if snap is None:
            from indexer.contract.errors import StoreError

            raise StoreError(f"the working-tree snapshot {tree.tree_oid[:12]} was indexed but does not read back")
        return snap

    return writer_wait.waiting(store.home, attempt, f"{WORKTREE} of {path}", tick=waited())


_FEW_CHANGES = 64


def __getattr__(name: str):
    if name == "IndexReport":
        from indexer.build import IndexReport
        return IndexReport
    if name == "Snapshot":
        from indexer.store.snapshot import Snapshot
        return Snapshot
    raise AttributeError(name)


__all__ = ["IndexReport", "Snapshot", "Store", "index", "open_store", "show_indexing", "snapshot", "worktree_snapshot"]
