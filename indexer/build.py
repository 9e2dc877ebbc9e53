"""Indexing one rev: the driver of the pipeline (indexer/pipeline/), plan -> extract ->
assemble -> commit, parsing only blobs never seen.

Extraction runs in worker processes; everything written to the store goes through this
process, in transactions that leave the store complete at every instant: facts with their
name-index rows, then the snapshot record last (indexer/store/commit.py).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, ContextManager, Sequence

import pygit2

from indexer.contract.errors import MissingObjects
from indexer.git import read as gitread
from indexer.lang.registry import name_language
from indexer.model import BlobFacts, Skipped, SnapshotRecord
from indexer.pipeline.assemble import Assembled, assemble, assemble_plan, file_entries
from indexer.pipeline.blob_bytes import check_read_bytes, read_bytes
from indexer.pipeline.collector import collector_paused
from indexer.pipeline.commit import commit
from indexer.pipeline.extract import MISSING_OBJECT, ParseProgress, extract, extract_facts
from indexer.pipeline.plan import NOT_BLOBS, BlobJob, existing_head, plan
from indexer.rank.arcs import load_rank_arcs
from indexer.store.commit import Pin, pin_snapshot
from indexer.store.database import Store, WriteLock
from indexer.store.facts_table import FactsTable
from indexer.store.records import (
    LazyHead,
    SnapshotHead,
    core_reader,
    facts_key,
    load_facts,
    name_index,
)
from indexer.store.versions import snapshot_version

if TYPE_CHECKING:
    from indexer.store.records import NameIndex


def extractor_version() -> str:
    """The snapshot version this code writes (indexer.store.versions)."""
    return snapshot_version()


@dataclass
class IndexReport:
    repo: str
    rev: str
    oid: str
    fingerprint: str
    files: int
    symbols: int
    edges: int
    languages: dict[str, int]
    parsed_blobs: int
    reused_blobs: int
    skipped: list[Skipped] = field(default_factory=list)
    seconds: float = 0.0
    snapshot_reused: bool = False
    # how many files `skipped` lists in all: an agent's reply lists the first of them only
    skipped_total: int = 0


def index(repo_path: str, rev: str = "HEAD", store: Store | None = None, workers: int | None = None,
          progress: Callable[[str, int, int], None] | None = None, require_complete: bool = False) -> IndexReport:
    """Index `rev` of the repository at `repo_path` into `store` (reusing every blob seen before).
    A blob the object database lacks (a partial clone's) is listed as skipped (`missing_object`)
    and the rest indexed; `require_complete` refuses such a commit (`missing_objects`) instead."""
    started = time.perf_counter()
    repo = gitread.open_repo(repo_path)
    oid = gitread.resolve_rev(repo, rev)
    pin = Pin(gitread.repo_identity(repo), rev, gitread.repo_display_path(repo))
    own_store = store is None
    store = store or Store.open()
    try:
        version = extractor_version()
        refill: list[bool] = []  # the stored snapshot is partial and its missing blobs are at hand

        def reused() -> IndexReport | None:
            # A stored snapshot is complete: pinning the rev to it needs no indexer's lock. One a
            # gc dropped since it was read is not pinned, and is built again under the lock.
            existing = existing_head(store, oid, version, repo)
            if existing is None:
                return None
            if not complete_enough(repo, existing, require_complete):
                refill.append(True)
                return None
            if not pin_snapshot(store, pin, oid, version, existing.indexed_at):
                return None
            return _report(repo, rev, existing, parsed=0, seconds=time.perf_counter() - started,
                           reused_snapshot=True)

        found = reused()
        if found is not None:
            return found
        with WriteLock(store.home) as lock:
            found = reused()  # another indexer may have written it while this one waited
            if found is not None:
                return found
            with collector_paused():
                assembled, parsed = _build(store, repo, oid, version, workers, progress, lock,
                                           require_complete=require_complete)
                head = commit(store, assembled, pin, replace=bool(refill))
                return _report(repo, rev, head, parsed=parsed, seconds=time.perf_counter() - started)
    finally:
        if own_store:
            store.close()


def index_tree(repo_path: str, tree_oid: str, rev: str, earlier: Sequence[str] = (), store: Store | None = None,
               workers: int | None = None, progress: Callable[[str, int, int], None] | None = None,
               skipped: Sequence[Skipped] = ()) -> IndexReport:
    """Index a tree that no commit holds (a checkout's working tree, as `git write-tree` would
    write it) as a snapshot whose identity is the tree OID, and pin `rev` to it. The build
    starts from the first stored snapshot of `earlier` (the previous working-tree snapshot,
    the base commit's), so only what differs from it is parsed and re-assembled. `skipped`:
    files the tree leaves out because they could not be read, added to the report's."""
    started = time.perf_counter()
    repo = gitread.open_repo(repo_path)
    pin = Pin(gitread.repo_identity(repo), rev, gitread.repo_display_path(repo))
    own_store = store is None
    store = store or Store.open()
    try:
        version = extractor_version()

        def reused() -> IndexReport | None:
            existing = existing_head(store, tree_oid, version, repo)
            if existing is None or not pin_snapshot(store, pin, tree_oid, version, existing.indexed_at):
                return None
            return _report(repo, rev, existing, parsed=0, seconds=time.perf_counter() - started,
                           reused_snapshot=True)

        report = reused()
        if report is None:
            with WriteLock(store.home) as lock:
                report = reused()
                if report is None:
                    with collector_paused():
                        assembled, parsed = _build(store, repo, tree_oid, version, workers, progress, lock,
                                                   earlier=list(earlier))
                        head = commit(store, assembled, pin)
                        report = _report(repo, rev, head, parsed=parsed, seconds=time.perf_counter() - started)
        report.skipped = sorted([*report.skipped, *skipped], key=lambda s: s.path)
        report.skipped_total = len(report.skipped)
        return report
    finally:
        if own_store:
            store.close()


def _build(store: Store, repo: pygit2.Repository, oid: str, version: str, workers: int | None,
           progress: Callable[[str, int, int], None] | None, lock: WriteLock,
           earlier: Sequence[str] | None = None, require_complete: bool = False) -> tuple[Assembled, int]:
    """The snapshot at `oid`, assembled, and how many blobs were parsed for it. Runs with the
    collector paused (pipeline/collector.py); extraction workers have it on. `earlier`: the
    snapshots to start from (see `plan`)."""
    workers = workers or os.cpu_count() or 1
    # A partial clone starts from no earlier snapshot: one carries its files as read, and the
    # clone may lack their blobs, which assembly then reads (each file is looked at afresh).
    # Read once: the config is parsed anew at each ask.
    partial = gitread.partial_clone(repo)
    start = plan(store, repo, oid, version, [] if partial else earlier)
    extracted = extract(store, repo, start, workers, lock, ParseProgress(progress), require_complete,
                        partial=partial)
    try:
        if progress:
            progress("assemble", 0, 1)
        prior = start.prior(load_facts(store, start.earlier_keys(), symbols=False))
        earlier_arcs = load_rank_arcs(store, start.earlier.oid, version) if start.earlier is not None else None

        def names() -> ContextManager[NameIndex]:
            # the parsed blobs' rows from memory: their writer goes on meanwhile
            return name_index(store, extracted.names)

        with core_reader(store) as read_core:
            facts = FactsTable(extracted.summaries, start.keys, extracted.facts, read_core)
            assembled = assemble_plan(repo, oid, start, extracted.summaries, facts, prior=prior,
                                      earlier_arcs=earlier_arcs,
                                      names=names if start.earlier is not None else None)  # kept only then
    finally:
        extracted.stored()  # before the snapshot that needs them is written, or an error leaves
    return assembled, extracted.parsed


def complete_enough(repo: pygit2.Repository, head: SnapshotHead | LazyHead, require_complete: bool) -> bool:
    """Whether a stored snapshot serves as it is: one listing missing blobs (`missing_object`)
    is built again once any of them is in the object database, and refused with
    `require_complete` while they are not."""
    missing = [blob for blob, why in zip(head.blobs, head.skipped) if why == MISSING_OBJECT]
    if not missing:
        return True
    odb = repo.odb
    if any(blob in odb for blob in missing):
        return False
    if require_complete:
        raise MissingObjects(f"{len(missing)} blob(s) of {head.oid[:12]} are missing from the object database; "
                             f"without --require-complete they are listed as skipped")
    return True


def _report(repo: pygit2.Repository, rev: str, head: SnapshotHead | LazyHead, parsed: int, seconds: float,
            reused_snapshot: bool = False) -> IndexReport:
    skipped = [Skipped(path, why) for path, why in zip(head.paths, head.skipped) if why]
    return IndexReport(
        repo=gitread.repo_display_path(repo), rev=rev, oid=head.oid, fingerprint=head.fingerprint,
        files=len(head.paths), symbols=head.symbols,
        edges=head.edges, languages=dict(sorted(Counter(head.languages).items())), parsed_blobs=parsed,
        reused_blobs=head.blob_facts - parsed, skipped=skipped, seconds=round(seconds, 3),
        snapshot_reused=reused_snapshot, skipped_total=len(skipped),
    )


def derive(repo: pygit2.Repository, oid: str, missing: frozenset[str] = frozenset(),
           ) -> tuple[SnapshotRecord, dict[bytes, BlobFacts]]:
    """The snapshot record of commit `oid` and each of its blobs' facts (by facts key), made
    from the repository alone: no store is read or written. What a bundle's claims are held
    against when its repository is at hand. The blobs `missing` names (a partial snapshot's)
    are listed as skipped (`missing_object`) whether or not the repository has them; any
    other the repository lacks cannot be made again (`missing_objects`)."""
    from indexer.pipeline.extract import missing_facts

    version = extractor_version()
    tree_oid, tree = gitread.walk_tree(repo, oid)
    jobs: dict[bytes, BlobJob] = {}
    keys: dict[str, bytes] = {}
    for e in tree:
        if e.mode in NOT_BLOBS or e.oid in missing:
            continue
        language = name_language(e.path)
        key = keys[e.path] = facts_key(e.oid, language, version)
        jobs.setdefault(key, BlobJob(e.oid, e.path, language, version))
    # a bundle names the commit: the blobs its tree reads are held to the limit an index holds them to
    check_read_bytes(sum(read_bytes(gitread.blob_size(repo, job.blob)) for job in jobs.values()), partial=False)
    by_key = {key: extract_facts(job, repo) for key, job in jobs.items()}
    by_path: dict[str, BlobFacts] = {}
    for e in tree:
        if e.mode not in NOT_BLOBS:
            by_path[e.path] = missing_facts() if e.oid in missing else by_key[keys[e.path]]
    assembled = assemble(repo, oid, tree_oid, file_entries(repo, tree, by_path), by_path, version)
    assembled.record.blob_facts = len(by_key)
    return assembled.record, by_key
