"""Indexing: the tree at a commit -> blob facts (parsing only blobs never seen) -> a snapshot.

Extraction runs in worker processes; everything written to the store goes through this
process, in transactions that leave the store complete at every instant: facts with their
name-index rows, then the snapshot record last.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import (
    TYPE_CHECKING,
    Callable,
    Container,
    ContextManager,
    Generic,
    Iterable,
    Iterator,
    Mapping,
    NamedTuple,
    Sequence,
    TypeVar,
)

import msgspec
import pygit2

from indexer.contract.errors import RennetError
from indexer.extract.child_process import die_with_parent
from indexer.git import read as gitread
from indexer.lang.registry import name_language
from indexer.model import BlobFacts, FileEntry, Skipped, SnapshotRecord
from indexer.rank.arcs import load_rank_arcs
from indexer.rank.arcs import pack as pack_arcs
from indexer.store import canonical
from indexer.store.database import Store, WriteLock, unpack
from indexer.store.facts_table import FactsTable, Summary, load_summaries, summaries_of
from indexer.store.facts_writer import FactsWriter
from indexer.store.records import (
    EXTRACTOR_VERSION,
    NO_FACTS,
    LazyHead,
    PendingNames,
    PriorRecord,
    SnapshotHead,
    StoredFacts,
    core_reader,
    decode_core,
    encode,
    entry_facts_key,
    facts_key,
    head_of,
    load_facts,
    load_stored_record,
    name_index,
    pack_record,
    pack_tail,
    pin_key,
    put_rank_arcs,
    repo_key,
    snapshot_key,
    stored_facts,
)

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

    from indexer.rank.arcs import RankArcs
    from indexer.store.records import NameIndex

SIZE_CAP = 1 << 20


def extractor_version() -> str:
    return EXTRACTOR_VERSION


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


@dataclass(frozen=True)
class _Job:
    blob: str
    path: str
    language: str


# --- worker side ------------------------------------------------------------------------

_worker_repo: pygit2.Repository | None = None


def fork_pool(workers: int, lock: WriteLock, repo_path: str | None = None):
    """Extraction workers forked from the indexer. A worker must not outlive a killed indexer,
    nor keep its write lock alive; with `repo_path` each opens that repository once."""
    inherited = (lock.fd,) if lock.fd is not None else ()
    return multiprocessing.get_context("fork").Pool(workers, initializer=_worker_init,
                                                    initargs=(repo_path, inherited))


def _worker_init(repo_path: str | None, inherited_fds: tuple[int, ...]) -> None:
    global _worker_repo
    die_with_parent()
    for fd in inherited_fds:
        try:
            os.close(fd)
        except OSError:
            pass
    # The indexer may fork with its collector off and a large heap: what came from it is never
    # garbage here (freezing keeps collections off those pages), what extraction makes may be.
    gc.freeze()
    gc.enable()
    if repo_path is not None:
        _worker_repo = pygit2.Repository(repo_path)


def _extract_job(job: _Job, repo: pygit2.Repository | None = None) -> StoredFacts:
    """Parse one blob into its facts, encoded for the store. Keyed by `job.language`, what
    the name says; where that leaves the language to the content, it is detected here."""
    from indexer.extract.blob import extract_blob
    from indexer.lang.registry import CONTENT_DECIDES, detect_language
    repo = repo or _worker_repo
    data = gitread.read_blob(repo, job.blob)
    language = detect_language(job.path, data[:8192]) if job.language in CONTENT_DECIDES else job.language
    facts = extract_blob(data, job.path, language, SIZE_CAP, sites=False)
    facts.size = len(data)
    return stored_facts(facts_key(job.blob, job.language, EXTRACTOR_VERSION), facts)


def _extract_chunk(jobs: list[_Job]) -> list[StoredFacts]:
    return [_extract_job(job) for job in jobs]


# --- main side ---------------------------------------------------------------------------

def _chunk_size(jobs: int, workers: int) -> int:
    """Blobs per chunk: half a worker's share, from 64 to 256. A language's blobs then come in
    as few chunks as keep the workers even (each worker meeting a language sets its grammar
    up: ~20-120 ms), and the last chunk ends within about 0.1 s of the others."""
    return max(64, min(256, -(-jobs // (2 * workers))))


def _chunks(jobs: list[_Job], size: int) -> list[list[_Job]]:
    """Chunks of one language each, largest first. A worker sets a grammar up (its tags query
    compiled: up to ~120 ms) the first time it meets the language; chunks of one language keep
    a small re-index from paying that in every worker for a handful of blobs."""
    by_language: dict[str, list[_Job]] = {}
    for job in jobs:
        by_language.setdefault(job.language, []).append(job)
    chunks = [same[i:i + size] for _, same in sorted(by_language.items()) for i in range(0, len(same), size)]
    chunks.sort(key=len, reverse=True)  # stable: languages stay in name order among equals
    return chunks


T = TypeVar("T")


class Extracted(NamedTuple, Generic[T]):
    facts: dict[bytes, BlobFacts]  # the parsed blobs' core facts, by facts key
    meanwhile: T  # what the caller's `meanwhile` returned
    stored: Callable[[], None]  # returns once the parsed facts are in the store
    names: PendingNames  # their name-index rows, to read before `stored` returns (kept when asked for)


def _extract_missing(store: Store, repo: pygit2.Repository, jobs: list[_Job], pool: Pool | None, workers: int,
                     progress: Callable[[int], None], meanwhile: Callable[[], T],
                     keep_names: bool = False) -> Extracted[T]:
    """Parse and store the blobs never seen, in the `pool`'s `workers` (without one, here);
    returns their core facts by facts key, and what `meanwhile` returned: it runs here while
    the workers parse (the store's facts of every other blob are loaded in that time rather
    than after). The last writes may still be under way: the caller waits on `stored` before
    it reads them from the store, or reads their name-index rows from `names` (`keep_names`:
    only a rank update reads them; a cold index's would be some 4 kB per blob held for nothing)."""
    new: dict[bytes, BlobFacts] = {}
    names = PendingNames()

    def flushed(stored: list[StoredFacts]) -> None:
        new.update((x.key, decode_core(unpack(x.packed_core))) for x in stored)
        if keep_names:
            names.add(stored)

    writer = FactsWriter(store, flushed, background=True)

    def drain(chunks: Iterable[list[StoredFacts]]) -> None:
        try:
            for chunk in chunks:
                writer.add(chunk)
                progress(len(chunk))
            writer.flush()
        except BaseException:
            writer.wait()  # no write left running behind an error
            raise

    if pool is None or not jobs:
        chunks = _chunks(jobs, 64)
        drain([_extract_job(job, repo) for job in chunk] for chunk in chunks)
        return Extracted(new, meanwhile(), writer.wait, names)
    results = pool.imap_unordered(_extract_chunk, _chunks(jobs, _chunk_size(len(jobs), workers)))
    done = meanwhile()
    drain(results)
    return Extracted(new, done, writer.wait, names)


@contextmanager
def _early_pool(workers: int, lock: WriteLock, repo_path: str) -> Iterator[Pool | None]:
    """The extraction workers, forked before the plan while the heap is still small. Forked
    after it, the larger page tables were copied, and then every page the main side wrote
    while they lived (~0.1 s of a 100,000-file re-index). None for a single worker."""
    if workers <= 1:
        yield None
        return
    import indexer.extract.blob as extract  # noqa: F401  (imported once here, inherited by every worker)

    with fork_pool(workers, lock, repo_path) as pool:
        yield pool


def _file_entries(repo: pygit2.Repository, tree: list[gitread.TreeEntry],
                  facts: Mapping[str, Summary]) -> list[FileEntry]:
    files: list[FileEntry] = []
    for e in tree:
        if e.mode == gitread.MODE_COMMIT:
            files.append(FileEntry(e.path, "", e.mode, 0, -1, "submodule", skipped="submodule", target=e.oid))
        elif e.mode == gitread.MODE_LINK:
            target = gitread.read_blob(repo, e.oid).decode("utf-8", "replace")
            files.append(FileEntry(e.path, e.oid, e.mode, len(target), -1, "symlink", skipped="symlink",
                                   target=target))
        else:
            f = facts.get(e.path)
            if f is None:
                raise RennetError(f"facts for {e.path} missing after extraction", code="store_error")
            # the facts' language: detected from the content where the name left it open,
            # "binary" for binary content whatever the name says
            files.append(FileEntry(e.path, e.oid, e.mode, f.size, f.lines if f.skipped != "binary" else -1,
                                   f.language, skipped=f.skipped))
    return files


def assemble(repo: pygit2.Repository, oid: str, tree_oid: str, files: list[FileEntry],
             facts: dict[str, BlobFacts], version: str, prior=None, earlier_arcs: RankArcs | None = None,
             names: Callable[[], ContextManager[NameIndex]] | None = None
             ) -> tuple[SnapshotRecord, RankArcs, bytes]:
    """Cross-file facts: marks, import edges, manifests, entry points, fan-in and rank, and the
    fingerprint of it all; the rank's arcs, to keep beside the record; and the record's
    packed tail (records.pack_tail). `prior` (a resolve.Prior of an earlier snapshot) lets
    marking and import resolution redo only what changed; with that snapshot's
    `earlier_arcs` and the store's name index (`names` opens it), only the arcs a change
    reaches are computed again."""
    from indexer.git import attributes as marks
    from indexer.manifests import entrypoints
    from indexer.manifests import read as manifests
    from indexer.rank import arcs as rank_arcs
    from indexer.rank import graph
    from indexer.resolve import imports as resolve

    with collector_paused():
        blobs = {f.path: f.blob for f in files if f.language not in ("submodule", "symlink")}

        def read(path: str) -> bytes:
            blob = blobs.get(path)
            if blob is None:
                raise KeyError(path)
            return gitread.read_blob(repo, blob)

        file_marks = marks.mark_files(files, facts, read, prior.files if prior is not None else None)
        files = [msgspec.structs.replace(f, mark=file_marks[f.path][0], mark_rule=file_marks[f.path][1])
                 if f.path in file_marks else f for f in files]
        found = manifests.parse_manifests(files, read)
        bad = {p.path: p.reason for p in found.problems}
        if bad:
            # A manifest that does not parse stays in the map, listed as skipped with why.
            files = [msgspec.structs.replace(f, skipped=bad[f.path]) if f.path in bad else f for f in files]
        tree = resolve.tree_of(files)
        edges, unresolved, redone = resolve.resolve_since(files, facts, read, prior, tree)
        pairs = graph.import_pairs(edges)
        nodes = sorted(f.path for f in files)  # a tree's paths: distinct
        arcs = None
        if prior is not None and earlier_arcs is not None and names is not None:
            earlier = rank_arcs.EarlierArcs(prior.files, lambda: graph.import_pairs(prior.edges), earlier_arcs,
                                            prior.facts)
            with names() as index:
                arcs = rank_arcs.update(nodes, files, facts, pairs, earlier, index, redone)
        if arcs is None:
            arcs = rank_arcs.from_weights(nodes, graph.rank_weights(files, facts, edges, pairs))
        rank = graph.rounded(nodes, graph.pagerank(arcs, graph.teleport_to(nodes, None))) if nodes else {}
        record = SnapshotRecord(
            oid=oid, tree=tree_oid, extractor_version=version, files=files, edges=edges, unresolved=unresolved,
            packages=found.packages, dependencies=found.dependencies,
            entry_points=entrypoints.find_entry_points(files, facts, read, tree, found),
            fan_in=graph.fan_in(files, edges, pairs), rank=rank,
            symbols=sum(f.symbol_total for f in summaries_of(facts).values()),
        )
        with ThreadPoolExecutor(1, thread_name_prefix="rennet-tail") as side:
            # zlib lets go of the interpreter lock: the stored tail is packed beside the fingerprint
            tail = side.submit(pack_tail, record)
            record.fingerprint = canonical.fingerprint(record, facts)
        return record, arcs, tail.result()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Indexing makes many small acyclic records (tree entries, decoded facts, the earlier and
    the new snapshot record): the cyclic collector's repeated passes over them would cost a
    good share of a re-index. Survivors then go to the oldest generation unscanned, rather
    than into one first young collection over all of them."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def index(repo_path: str, rev: str = "HEAD", store: Store | None = None, workers: int | None = None,
          progress: Callable[[str, int, int], None] | None = None) -> IndexReport:
    """Index `rev` of the repository at `repo_path` into `store` (reusing every blob seen before)."""
    started = time.perf_counter()
    repo = gitread.open_repo(repo_path)
    oid = gitread.resolve_rev(repo, rev)
    repo_id = gitread.repo_identity(repo)
    own_store = store is None
    store = store or Store.open()
    try:
        version = extractor_version()

        def reused() -> IndexReport | None:
            # A stored snapshot is complete: pinning the rev to it is one small transaction,
            # which LMDB orders among any indexer's own, so it needs no indexer's lock.
            existing = _existing_head(store, oid, version)
            if existing is None:
                return None
            _pin(store, repo_id, oid, rev, existing.indexed_at)
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
                record, arcs, tail, parsed = _build(store, repo, oid, version, workers, progress, lock)
                head = _commit_snapshot(store, repo_id, oid, rev, record, arcs, tail)
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
    repo_id = gitread.repo_identity(repo)
    own_store = store is None
    store = store or Store.open()
    try:
        version = extractor_version()

        def reused() -> IndexReport | None:
            existing = _existing_head(store, tree_oid, version)
            if existing is None:
                return None
            _pin(store, repo_id, tree_oid, rev, existing.indexed_at)
            return _report(repo, rev, existing, parsed=0, seconds=time.perf_counter() - started,
                           reused_snapshot=True)

        report = reused()
        if report is None:
            with WriteLock(store.home) as lock:
                report = reused()
                if report is None:
                    with collector_paused():
                        record, arcs, tail, parsed = _build(store, repo, tree_oid, version, workers, progress,
                                                            lock, earlier=list(earlier))
                        head = _commit_snapshot(store, repo_id, tree_oid, rev, record, arcs, tail)
                        report = _report(repo, rev, head, parsed=parsed, seconds=time.perf_counter() - started)
        report.skipped = sorted([*report.skipped, *skipped], key=lambda s: s.path)
        return report
    finally:
        if own_store:
            store.close()


def _build(store: Store, repo: pygit2.Repository, oid: str, version: str, workers: int | None,
           progress: Callable[[str, int, int], None] | None,
           lock: WriteLock, earlier: Sequence[str] | None = None) -> tuple[SnapshotRecord, RankArcs, bytes, int]:
    """The snapshot record at `oid`, its rank arcs, its packed tail, and how many blobs were
    parsed. Runs with the collector paused (see collector_paused); extraction workers have it
    on. `earlier`: the snapshots to start from (see `plan`)."""
    workers = workers or os.cpu_count() or 1
    parsing = _ParseProgress(progress)
    with _early_pool(workers, lock, repo.path) as pool:
        start = plan(store, repo, oid, version, earlier)
        extracted, jobs = _extract_planned(store, repo, start, pool, workers, parsing)

    try:
        new, summaries = extracted.facts, extracted.meanwhile
        # Blobs the earlier snapshot had at the same path were not looked up (Plan.carried): should
        # the store have lost the facts of one all the same, it is parsed now rather than failed.
        lost_paths = start.carried - summaries.keys()  # a set difference: no loop over the tree unless needed
        lost = {start.keys[e.path]: _Job(e.oid, e.path, start.languages[e.path])
                for e in start.tree if e.path in lost_paths and start.keys[e.path] not in new} if lost_paths else {}
        if lost:
            jobs += sorted(lost.values(), key=lambda j: j.blob)
            parsing.total = len(jobs)
            extracted.stored()  # one writer at a time
            again = _extract_missing(store, repo, list(lost.values()), None, 1, parsing.step, lambda: None)
            again.stored()
            new.update(again.facts)
        summaries = {path: new[key] if key in new else summaries[path]  # in tree order
                     for path, key in start.keys.items() if key in new or path in summaries}
        files = _file_entries(repo, start.tree, summaries)
        if progress:
            progress("assemble", 0, 1)
        prior = start.prior(load_facts(store, start.earlier_keys(), symbols=False))
        earlier_arcs = load_rank_arcs(store, start.earlier.oid, version) if start.earlier is not None else None

        def names() -> ContextManager[NameIndex]:
            # the parsed blobs' rows from memory: their writer goes on meanwhile
            return name_index(store, extracted.names)

        with core_reader(store) as read_core:
            facts = FactsTable(summaries, start.keys, new, read_core)
            record, arcs, tail = assemble(repo, oid, start.tree_oid, files, facts, version, prior=prior,
                                          earlier_arcs=earlier_arcs,
                                          names=names if start.earlier is not None else None)  # kept only then
    finally:
        extracted.stored()  # before the snapshot that needs them is written, or an error leaves
    record.indexed_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    record.blob_facts = start.facts_count
    return record, arcs, tail, len(jobs)


class _ParseProgress:
    """The "parse" step's count of blobs parsed out of `total`, told to `progress`."""

    def __init__(self, progress: Callable[[str, int, int], None] | None) -> None:
        self._progress = progress
        self.done = 0
        self.total = 0

    def step(self, n: int) -> None:
        self.done += n
        if self._progress:
            self._progress("parse", self.done, self.total)


def _extract_planned(store: Store, repo: pygit2.Repository, start: Plan, pool: Pool | None, workers: int,
                     parsing: _ParseProgress) -> tuple[Extracted[dict[str, Summary]], list[_Job]]:
    """Extract the blobs of the plan's tree that the store lacks, loading the summaries of
    the others meanwhile; returns that and the jobs."""
    with store.env.begin(db=store.facts) as txn:
        present = txn.cursor().set_key  # asks without copying the value out
        missing: dict[bytes, _Job] = {}
        for key, job in start.fresh(present, missing):
            missing[key] = job
    jobs = sorted(missing.values(), key=lambda j: j.blob)
    parsing.total = len(jobs)

    def load_the_rest() -> dict[str, Summary]:
        # assembly's modules, imported meanwhile too (numpy for the rank above all)
        import numpy  # noqa: F401

        import indexer.resolve.imports as resolve  # noqa: F401
        # the whole tree keyed now (Plan.fresh left it), while the workers parse
        return load_summaries(store, {path: key for path, key in start.keys.items() if key not in missing})

    return _extract_missing(store, repo, jobs, pool, workers, parsing.step, load_the_rest,
                            keep_names=start.earlier is not None), jobs

class Plan:
    """What indexing a commit starts from: its tree, each blob's facts key (by what its name
    says of its language), and the nearest earlier snapshot of its first-parent line (built
    by this extractor version), whose word on a (path, blob) still holds: facts are looked
    up, marks set and imports resolved again only where something changed.

    The keys of the whole tree are made when first asked for: a re-index sends the blobs the
    diff names (`changed`) to be parsed first, and keys the rest while they are."""

    def __init__(self, tree_oid: str, tree: list[gitread.TreeEntry], earlier: PriorRecord | None, version: str,
                 changed: list[gitread.TreeEntry] | None = None) -> None:
        self.tree_oid = tree_oid
        self.tree = tree
        self.earlier = earlier
        self.version = version
        self.changed = changed  # the entries that differ from the earlier snapshot's; None: not known

    @cached_property
    def _keyed(self) -> tuple[dict[str, str], dict[str, bytes], frozenset[str]]:
        version = self.version
        languages: dict[str, str] = {}
        keys: dict[str, bytes] = {}
        for e in self.tree:  # one pass: at 100,000 files each one costs
            if e.mode in _NOT_BLOBS:
                continue
            path = e.path
            language = languages[path] = name_language(path)
            keys[path] = facts_key(e.oid, language, version)
        if self.earlier is None:
            return languages, keys, frozenset()
        if self.changed is not None:
            # every entry the diff does not name is the earlier one (a blob changing only its
            # mode is named: not carried, so looked up, as a new path would be)
            return languages, keys, frozenset(languages.keys() - {e.path for e in self.changed})
        before = {f.path: f.blob for f in self.earlier.files if f.mode not in _NOT_BLOBS}
        return languages, keys, frozenset(e.path for e in self.tree
                                          if e.path in languages and before.get(e.path) == e.oid)

    @property
    def languages(self) -> dict[str, str]:
        """path -> what its name says (languages.name_language), for every blob."""
        return self._keyed[0]

    @property
    def keys(self) -> dict[str, bytes]:
        """path -> facts key, for every blob."""
        return self._keyed[1]

    @property
    def carried(self) -> frozenset[str]:
        """The paths whose blob the earlier snapshot had there: their facts are stored."""
        return self._keyed[2]

    @property
    def facts_count(self) -> int:
        """How many distinct blob facts the tree needs (SnapshotRecord.blob_facts)."""
        return len(set(self.keys.values()))

    def prior(self, earlier_facts: Mapping[str, BlobFacts]):
        """The earlier snapshot for assembly to start from (a resolve.Prior), given its facts
        at `earlier_keys`; None without one."""
        if self.earlier is None:
            return None
        from indexer.resolve.imports import Prior
        return Prior(self.earlier.files, self.earlier.edges, self.earlier.unresolved, earlier_facts.get)

    def missing(self, present: Callable[[bytes], bool], known: Container[bytes],
                trust_carried: bool = True) -> Iterator[tuple[bytes, _Job]]:
        """(facts key, job) for each blob of the tree whose facts are neither stored (`present`)
        nor in `known`, which the caller fills as it goes: each key comes once. With
        `trust_carried`, blobs the earlier snapshot had at the same path are taken as stored
        without asking (the caller then parses any it finds lost, as `index` does)."""
        carried = self.carried if trust_carried else frozenset()
        for e in self.tree:
            key = self.keys.get(e.path)
            if key is not None and e.path not in carried and key not in known and not present(key):
                yield key, _Job(e.oid, e.path, self.languages[e.path])

    def fresh(self, present: Callable[[bytes], bool], known: Container[bytes]) -> Iterator[tuple[bytes, _Job]]:
        """`missing`, trusting carried blobs, from the entries the diff names when the plan has
        them: the rest of the tree is not keyed for it."""
        if self.changed is None:
            yield from self.missing(present, known)
            return
        for e in self.changed:
            if e.mode in _NOT_BLOBS:
                continue
            language = name_language(e.path)
            key = facts_key(e.oid, language, self.version)
            if key not in known and not present(key):
                yield key, _Job(e.oid, e.path, language)

    def earlier_keys(self) -> dict[str, bytes]:
        """path -> the earlier snapshot's facts key, for the paths whose facts changed since:
        all that import resolution asks of the earlier facts."""
        if self.earlier is None:
            return {}
        out = {}
        for f in self.earlier.files:
            # a carried path has the same blob and name, so the same key: not computed again
            if f.language not in NO_FACTS and f.path not in self.carried:
                key = entry_facts_key(f, self.version)
                if self.keys.get(f.path) != key:
                    out[f.path] = key
        return out


_NOT_BLOBS = (gitread.MODE_COMMIT, gitread.MODE_LINK)


def plan(store: Store, repo: pygit2.Repository, oid: str, version: str,
         earlier_oids: Sequence[str] | None = None) -> Plan:
    """Walk the tree at `oid` (from the earlier snapshot's, when there is one) and key each
    blob's facts by what its name says of its language: no blob is read here. The earlier
    snapshot is the first stored of `earlier_oids`, or without them the nearest up the
    commit's first-parent line."""
    earlier = _earlier_record(store, repo, oid, version) if earlier_oids is None else \
        _first_stored(store, earlier_oids, version)
    if earlier is None:
        return Plan(*gitread.walk_tree(repo, oid), None, version)
    since = gitread.tree_since(repo, oid, earlier.tree, [
        gitread.TreeEntry(f.path, f.mode, f.target if f.mode == gitread.MODE_COMMIT else f.blob)
        for f in earlier.files])
    return Plan(since.tree_oid, since.entries, earlier, version, since.changed)


def _earlier_record(store: Store, repo: pygit2.Repository, oid: str, version: str) -> PriorRecord | None:
    """The nearest snapshot up the first-parent line built by this extractor version."""
    try:
        commit = repo[oid]
        for _ in range(16):
            if not commit.parent_ids:
                return None
            stored = load_stored_record(store, str(commit.parent_ids[0]), version)
            if stored is not None:
                return stored.prior()
            commit = repo[commit.parent_ids[0]]
    except (KeyError, ValueError, pygit2.GitError):
        pass  # a shallow history ends the search, nothing else
    return None


def _first_stored(store: Store, oids: Sequence[str], version: str) -> PriorRecord | None:
    for oid in oids:
        stored = load_stored_record(store, oid, version)
        if stored is not None:
            return stored.prior()
    return None


def _existing_head(store: Store, oid: str, version: str) -> LazyHead | None:
    """The head of the snapshot already stored at `oid`: all that reporting it needs (of its
    columns, the paths, languages and skips)."""
    stored = load_stored_record(store, oid, version)
    return LazyHead(stored.head) if stored is not None else None


def _commit_snapshot(store: Store, repo_id: str, oid: str, rev: str, record: SnapshotRecord,
                     arcs: RankArcs, tail: bytes) -> SnapshotHead:
    """Write the snapshot (`tail`: its packed tail); returns the head written."""
    head = head_of(record)
    with store.env.begin(write=True) as txn:
        txn.put(snapshot_key(oid, record.extractor_version), pack_record(record, head, tail), db=store.snapshots)
        put_rank_arcs(txn, store, oid, record.extractor_version, pack_arcs(arcs))
        txn.put(repo_key(repo_id, oid), encode({"indexed_at": record.indexed_at}), db=store.repos)
        txn.put(pin_key(repo_id, rev), oid.encode(), db=store.repos)
    return head


def _pin(store: Store, repo_id: str, oid: str, rev: str, indexed_at: str) -> None:
    with store.env.begin(write=True) as txn:
        if txn.get(repo_key(repo_id, oid), db=store.repos) is None:
            txn.put(repo_key(repo_id, oid), encode({"indexed_at": indexed_at}), db=store.repos)
        txn.put(pin_key(repo_id, rev), oid.encode(), db=store.repos)


def _report(repo: pygit2.Repository, rev: str, head: SnapshotHead | LazyHead, parsed: int, seconds: float,
            reused_snapshot: bool = False) -> IndexReport:
    skipped = [Skipped(path, why) for path, why in zip(head.paths, head.skipped) if why]
    return IndexReport(
        repo=gitread.repo_display_path(repo), rev=rev, oid=head.oid, fingerprint=head.fingerprint,
        files=len(head.paths), symbols=head.symbols,
        edges=head.edges, languages=dict(sorted(Counter(head.languages).items())), parsed_blobs=parsed,
        reused_blobs=head.blob_facts - parsed, skipped=skipped, seconds=round(seconds, 3),
        snapshot_reused=reused_snapshot,
    )
