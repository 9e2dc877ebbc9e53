"""The indexer's public face for the rest of Rennet Context.

Imports stay lazy: answering a query from a stored snapshot must not pay for the
extraction machinery (tree-sitter, multiprocessing) that only indexing needs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .store import Store

if TYPE_CHECKING:
    from .build import IndexReport
    from .snapshot import Snapshot


def open_store(home: str | os.PathLike[str] | None = None) -> Store:
    return Store.open(home)


def index(repo_path: str, rev: str = "HEAD", store: Store | None = None, workers: int | None = None,
          progress=None) -> "IndexReport":
    from .build import index as _index
    return _index(repo_path, rev, store=store, workers=workers, progress=progress)


def snapshot(repo_path: str, rev: str = "HEAD", store: Store | None = None, index_if_absent: bool = True,
             workers: int | None = None) -> "Snapshot":
    from .snapshot import load
    return load(store or Store.open(), repo_path, rev, index_if_absent=index_if_absent, workers=workers)


def __getattr__(name: str):
    if name == "IndexReport":
        from .build import IndexReport
        return IndexReport
    if name == "Snapshot":
        from .snapshot import Snapshot
        return Snapshot
    raise AttributeError(name)


__all__ = ["IndexReport", "Snapshot", "Store", "index", "open_store", "snapshot"]
