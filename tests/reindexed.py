"""A history indexed commit by commit into one store, each commit checked against a cold index
of it: what the re-index tests of several modules assert before their own questions."""

from __future__ import annotations

from pathlib import Path

from indexer import api
from indexer.build import IndexReport
from indexer.store.database import Store


def reindexed_as_cold(repo: str, commits: list[str], home: Path, workers: int = 1) -> list[IndexReport]:
    """Index `commits` in turn into the store at `home` (each after the first starts from its
    parent's snapshot), asserting that each gives the fingerprint and the canonical bytes a
    cold index of the same commit gives, in a fresh store of its own; returns the re-indexes'
    reports. The store at `home` is left holding every snapshot, for the caller's questions."""
    reports = []
    incremental = Store.open(home)
    try:
        for i, oid in enumerate(commits):
            warm = api.index(repo, oid, store=incremental, workers=workers)
            cold_store = Store.open(home.parent / f"{home.name}-cold{i}")
            try:
                cold = api.index(repo, oid, store=cold_store, workers=workers)
                assert warm.fingerprint == cold.fingerprint, oid
                assert (b"".join(api.snapshot(repo, oid, store=incremental).canonical_lines())
                        == b"".join(api.snapshot(repo, oid, store=cold_store).canonical_lines())), oid
            finally:
                cold_store.close()
            reports.append(warm)
    finally:
        incremental.close()
    return reports
