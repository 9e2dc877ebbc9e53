"""The indexer's public face for the rest of Rennet Context."""

from __future__ import annotations

import os

from .build import IndexReport, index as _index
from .snapshot import Snapshot, load
from .store import Store


def open_store(home: str | os.PathLike[str] | None = None) -> Store:
    return Store.open(home)


def index(repo_path: str, rev: str = "HEAD", store: Store | None = None, workers: int | None = None,
          progress=None) -> IndexReport:
    return _index(repo_path, rev, store=store, workers=workers, progress=progress)


def snapshot(repo_path: str, rev: str = "HEAD", store: Store | None = None, index_if_absent: bool = True,
             workers: int | None = None) -> Snapshot:
    return load(store or Store.open(), repo_path, rev, index_if_absent=index_if_absent, workers=workers)


__all__ = ["IndexReport", "Snapshot", "Store", "index", "open_store", "snapshot"]
