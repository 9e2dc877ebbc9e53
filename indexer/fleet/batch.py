"""Batch indexing: many (repository, rev) jobs in one process that holds the store's write lock.

Jobs run in waves. For each wave:

1. resolve every job's rev and plan it as `index` does (`pipeline.plan`: its tree, and the
   nearest stored snapshot up its first-parent line to start from; jobs whose snapshot
   exists are done: `skipped_existing`);
2. gather the blobs no snapshot has parsed yet across the whole wave, each distinct
   (blob, language) once, and extract them in the worker pool; facts and their
   name-index rows are written by this process, in batches;
3. assemble the wave's snapshots in the worker pool, in parallel (each from its earlier
   snapshot where it has one, as `index` does), and commit each one in its own transaction
   (`store.commit`, as every writer does) as it comes back, in job order.

So a blob shared by twenty commits of a range is parsed once, extraction and assembly use
every worker even when each commit changes little, and the store still sees one writer.
A killed batch leaves complete snapshots and complete facts only; run again, the jobs
whose snapshots exist are skipped and the facts already written are not parsed again.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Literal

from indexer.contract.errors import BadInput, RennetError, StoreError, TooLarge
from indexer.contract.limits import limits
from indexer.contract.memory_limit import memory_fault
from indexer.git import read as gitread
from indexer.store.commit import Pin
from indexer.store.records import missing_in

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

    import pygit2

    from indexer.pipeline.plan import Plan
    from indexer.store.commit import PackedSnapshot
    from indexer.store.database import WriteLock

Status = Literal["indexed", "skipped_existing", "failed"]
_CHUNK = 32  # blobs per extraction task
# A job file is read whole: one past this many bytes is refused, so a device or a file that
# never ends (`--from /dev/zero`) is not read into memory without bound.
JOB_FILE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class JobSpec:
    repo: str
    rev: str
    pin: bool = True  # False (`--no-pin`): the job links its repository to the snapshot, and pins nothing

    @property
    def pinned_rev(self) -> str | None:
        """The rev the job pins to its snapshot: its own (a range's job, its commit's OID), none
        when it pins nothing. Either engine pins so, whether it builds the snapshot or finds it
        stored."""
        return self.rev if self.pin else None


@dataclass
class JobError:
    code: str
    message: str


@dataclass
class JobResult:
    repo: str
    rev: str
    oid: str | None
    ok: bool
    status: Status
    fingerprint: str | None
    error: JobError | None
    seconds: float
    parsed_blobs: int
    reused_blobs: int
    # blobs the object database lacks (a partial clone's), listed as skipped (`missing_object`):
    # the snapshot is partial, as `rennet index` makes it
    missing_objects: int = 0


@dataclass
class BatchReport:
    jobs: list[JobResult]
    seconds: float

    @property
    def failed(self) -> int:
        return sum(1 for j in self.jobs if not j.ok)

    def count(self, status: Status) -> int:
        return sum(1 for j in self.jobs if j.status == status)


# --- job lists -----------------------------------------------------------------------------

def parse_pair(text: str) -> JobSpec:
    """`REPO[@REV]`. A path may itself hold '@': the shortest prefix that exists as a path is the
    repository, and the rest the rev; a whole argument that exists is a repository at HEAD."""
    text = text.strip()
    if not text:
        raise BadInput("empty job")
    if os.path.exists(text) or "@" not in text:
        return JobSpec(text, "HEAD")
    at = [i for i, c in enumerate(text) if c == "@"]
    for i in at:
        if i > 0 and os.path.exists(text[:i]):
            return JobSpec(text[:i], text[i + 1:] or "HEAD")
    head, _, rev = text.partition("@")
    if not head:  # was read as a repository named `@main` that "does not exist"
        raise BadInput(f"job {text[:200]!r} names no repository before '@': write REPO@REV (.@REV for the "
                       f"current folder)")
    return JobSpec(head, rev or "HEAD")


def read_pairs(path: str) -> list[JobSpec]:
    """One job per line, `REPO[@REV]` or `REPO REV`; blank lines and `#` comments are skipped."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(JOB_FILE_BYTES + 1)  # characters: at least as many bytes
    except FileNotFoundError:
        raise BadInput(f"no job file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read job file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if len(text) > JOB_FILE_BYTES:
        raise BadInput(f"job file {path} is over {JOB_FILE_BYTES // (1024 * 1024)} MiB; split it")
    lines = text.splitlines()
    jobs = []
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") else line.strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) == 2 and not os.path.exists(line):
            jobs.append(JobSpec(parts[0], parts[1]))
        else:
            try:
                jobs.append(parse_pair(line))
            except BadInput as exc:  # the line to fix, in a file of many
                raise BadInput(f"{path}:{number}: {exc.message}") from None
    return jobs


def range_jobs(repo_path: str, spec: str, pin: bool = True) -> list[JobSpec]:
    """Every commit of `A..B` (reachable from B, not from A), oldest first, as `git rev-list --reverse
    A..B`; an empty side means HEAD. A single rev `B` means its whole history. Each job names its
    commit by OID and, with `pin`, pins it so (as `rennet index --rev SHA` does): a batch's
    snapshots are kept by `store gc` like any index's."""
    import pygit2

    if spec.count("..") > 1 or "..." in spec or not spec.strip("."):
        raise BadInput(f"range {spec!r} must be A..B (A.. and ..B mean up to and from HEAD) or one rev")
    repo = gitread.open_repo(repo_path)
    left, sep, right = spec.partition("..")
    head = gitread.resolve_rev(repo, (right if sep else left) or "HEAD")
    gitread.check_history(repo)
    hidden = gitread.resolve_rev(repo, left or "HEAD") if sep else None
    cap = limits()
    with gitread.history_read(repo):
        # newest first, so the walk stops one past the cap, never listing the rest first
        walker = repo.walk(pygit2.Oid(hex=head), pygit2.enums.SortMode.TOPOLOGICAL)
        if hidden is not None:
            walker.hide(pygit2.Oid(hex=hidden))
        oids = [str(c.id) for c in itertools.islice(walker, cap.range_commits + 1)]
    if len(oids) > cap.range_commits:
        raise TooLarge(f"range {spec!r} holds more than {cap.range_commits:,} commits, each a snapshot to index "
                       f"({cap.raise_hint('range_commits')}); nothing indexed")
    return [JobSpec(repo_path, oid, pin=pin) for oid in reversed(oids)]


# --- worker side ---------------------------------------------------------------------------

_repos: dict[str, object] = {}


def _repo(path: str):
    repo = _repos.get(path)
    if repo is None:
        import pygit2

        repo = _repos[path] = pygit2.Repository(path)
    return repo


def _extract(task: tuple[str, list]) -> tuple[list, list[tuple[bytes, str, str]]]:
    """Extract a chunk of blobs of one repository: (results, failures as (key, code, message))."""
    from indexer.pipeline.extract import extract_job
    from indexer.store.records import facts_key

    repo_path, jobs = task
    repo = _repo(repo_path)
    done, failed = [], []
    for job in jobs:
        try:
            done.append(extract_job(job, repo))
        except Exception as exc:  # one blob that cannot be read fails the jobs needing it, not the batch
            if (short := memory_fault(exc, f"parsing {job.path}")) is not None:
                failed.append((facts_key(job.blob, job.language, job.version), short.code, short.message))
                continue
            # a typed error's own message (its code is said once, beside it); another's class names it
            code, why = (exc.code, exc.message) if isinstance(exc, RennetError) else \
                ("extract_error", f"{type(exc).__name__}: {exc}")
            failed.append((facts_key(job.blob, job.language, job.version), code, f"{job.path}: {why}"))
    return done, failed


@dataclass
class _AssembleTask:
    index: int
    repo_path: str
    oid: str
    plan: Plan
    packed: dict[bytes, bytes]  # facts key -> packed facts, as the store holds them
    earlier_packed: dict[str, bytes]  # path -> the earlier snapshot's packed facts, at plan.earlier_keys()
    absent: frozenset[str] = frozenset()  # paths whose blob the object database lacks: `missing_object`


def _assemble(task: _AssembleTask) -> tuple[int, PackedSnapshot | None, str, str, float]:
    """(job index, the packed snapshot or None, fingerprint or error code, error message,
    seconds)."""
    from indexer.pipeline.assemble import assemble_plan
    from indexer.pipeline.commit import packed
    from indexer.pipeline.extract import missing_facts
    from indexer.store.database import unpack
    from indexer.store.records import decode_core

    started = time.perf_counter()
    try:
        repo = _repo(task.repo_path)
        plan = task.plan
        decoded = {k: decode_core(unpack(v)) for k, v in task.packed.items()}
        facts = {path: decoded[key] for path, key in plan.keys.items() if key in decoded}
        facts.update((path, missing_facts()) for path in task.absent)  # as `rennet index` lists them
        prior = plan.prior({path: decode_core(unpack(v)) for path, v in task.earlier_packed.items()})
        # no store in a worker: the rank's arcs are computed whole, and kept for the next re-index
        assembled = assemble_plan(repo, task.oid, plan, facts, facts, prior=prior)
        return (task.index, packed(assembled)[1], assembled.record.fingerprint, "",
                time.perf_counter() - started)
    except RennetError as exc:
        return task.index, None, exc.code, exc.message, time.perf_counter() - started
    except Exception as exc:  # an assembly bug fails this job, not the batch
        if (short := memory_fault(exc, "assembling the snapshot")) is not None:
            return task.index, None, short.code, short.message, time.perf_counter() - started
        return task.index, None, "internal_error", f"{type(exc).__name__}: {exc}", time.perf_counter() - started


# --- main side -----------------------------------------------------------------------------

@dataclass
class _Pending:
    index: int
    spec: JobSpec
    repo_path: str  # the git directory, for workers
    display: str
    repo_id: str
    oid: str
    plan: Plan | None = None  # once walked
    seconds: float = 0.0
    parsed: int = 0
    repo: pygit2.Repository | None = None  # asked which blobs it lacks, and how large the others are
    refused: RennetError | None = None  # its blobs to parse hold over the `blob_bytes` limit: none is parsed
    absent: dict[str, bytes] = field(default_factory=dict)  # path -> facts key of each blob it lacks
    replace: bool = False  # a stored partial snapshot of its commit, built again now its blobs are at hand
    # made with the job, so a rev too long to pin fails its own job before any work, not the batch
    pin: Pin = field(init=False)

    def __post_init__(self) -> None:
        self.pin = Pin(self.repo_id, self.spec.pinned_rev, self.display)

    @property
    def planned(self) -> Plan:
        """Its plan: every job a wave goes on with (`pending`) was walked."""
        assert self.plan is not None, "a job not walked yet"
        return self.plan


class _LazyPool:
    """Worker processes, forked on first use only (a batch of skipped jobs forks nothing)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Pool | None = None
        self.lock: WriteLock | None = None  # the batch's write lock, which forked workers must not keep alive

    def map(self, fn, items, ordered: bool, enough: bool):
        if self.workers <= 1 or not enough:
            return map(fn, items)
        from indexer.pipeline.pool_watch import short_of_workers

        if self._pool is not None and short_of_workers(self._pool):
            self.close()  # a worker died between uses (nothing of it was lost): fresh workers, forked from here
        if self._pool is None:
            from indexer.pipeline.extract import fork_pool

            self._pool = fork_pool(self.workers, self.lock)
        from indexer.pipeline.pool_watch import Watched

        return Watched(self._pool, self._pool.imap(fn, items) if ordered else self._pool.imap_unordered(fn, items))

    def prepare(self, languages: Iterable[str]) -> None:
        """Set the languages' extraction up here before the workers are forked: each then
        starts with their queries compiled instead of compiling every language it meets, and
        a process that runs batch after batch compiles each language once."""
        from indexer import worker_start

        if self.workers > 1 and self._pool is None and worker_start.method() == "fork":  # a forkserver's have them
            from indexer.extract.blob import prepare
            from indexer.lang.registry import GRAMMAR_LANGUAGES

            prepare(sorted(GRAMMAR_LANGUAGES.intersection(languages)))

    def close(self) -> None:
        """End the workers, at once, as the pool's own exit does (`fork_pool`)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool = None


class Emitter:
    """Hands results to the caller in job order, each as soon as every earlier one is out."""

    def __init__(self, total: int, on_result: Callable[[JobResult], None] | None,
                 progress: Callable[[str, int, int], None] | None) -> None:
        self.results: list[JobResult | None] = [None] * total
        self.next = 0
        self.on_result = on_result
        self.progress = progress
        self.done = 0

    def put(self, index: int, result: JobResult) -> None:
        self.results[index] = result
        self.done += 1
        if self.progress:
            self.progress("jobs", self.done, len(self.results))
        while self.next < len(self.results) and (ready := self.results[self.next]) is not None:
            if self.on_result:
                self.on_result(ready)
            self.next += 1


def failed_result(spec: JobSpec, display: str, oid: str | None, exc: RennetError | JobError, seconds: float) -> JobResult:
    return JobResult(repo=display, rev=spec.rev, oid=oid, ok=False, status="failed", fingerprint=None,
                     error=JobError(exc.code, exc.message), seconds=round(seconds, 3), parsed_blobs=0,
                     reused_blobs=0)


def run(store, specs: Iterable[JobSpec], workers: int | None = None,
        on_result: Callable[[JobResult], None] | None = None,
        progress: Callable[[str, int, int], None] | None = None, wave: int | None = None,
        require_complete: bool = False) -> BatchReport:
    """Index every job into `store`; a failed job never stops the others. A blob the object
    database lacks (a partial clone's) is listed as skipped (`missing_object`) and the rest
    indexed, as `rennet index` does; `require_complete` fails such a job (`missing_objects`)."""
    from indexer.build import extractor_version
    from indexer.store.database import WriteLock

    started = time.perf_counter()
    specs = list(specs)
    workers = max(1, workers or os.cpu_count() or 1)
    wave = wave or max(8, min(64, 16 * workers))
    emitter = Emitter(len(specs), on_result, progress)
    version = extractor_version()
    # Import the assembly modules now, so forked workers share them instead of importing each.
    import indexer.resolve.imports as resolve  # noqa: F401

    pool = _LazyPool(workers)
    try:
        with WriteLock(store.home) as lock:
            pool.lock = lock
            for start in range(0, len(specs), wave):
                _run_wave(store, specs, range(start, min(start + wave, len(specs))), version, pool, emitter,
                          progress, require_complete)
    finally:
        pool.close()
    return BatchReport([r for r in emitter.results if r is not None], round(time.perf_counter() - started, 3))


def _run_wave(store, specs: list[JobSpec], indexes: range, version: str, pool, emitter: Emitter,
              progress: Callable[[str, int, int], None] | None, require_complete: bool = False) -> None:
    from indexer.build import complete_enough
    from indexer.pipeline.plan import existing_head, plan

    pending: list[_Pending] = []
    building: dict[str, _Pending] = {}  # commit OID -> the job of this wave that builds it
    duplicates: list[tuple[_Pending, _Pending]] = []
    repos: dict[str, pygit2.Repository] = {}
    for i in indexes:
        spec = specs[i]
        t0 = time.perf_counter()
        display = spec.repo
        oid = None
        try:
            repo = repos.get(spec.repo)
            if repo is None:
                repo = repos[spec.repo] = gitread.open_repo(spec.repo)
            display = gitread.repo_display_path(repo)
            oid = gitread.resolve_rev(repo, spec.rev)
            job = _Pending(i, spec, repo.path, display, gitread.repo_identity(repo), oid, repo=repo)
            existing = existing_head(store, oid, version, repo)
            if existing is not None and not complete_enough(repo, existing, require_complete):
                job.replace = True  # partial, and some of its missing blobs are at hand now
                existing = None
            if existing is not None:
                _pin(store, job, version, existing.indexed_at)
                emitter.put(i, _skipped(job, existing.fingerprint, existing.blob_facts,
                                        time.perf_counter() - t0, missing_in(existing)))
                continue
            if oid in building:
                duplicates.append((job, building[oid]))
                continue
            job.plan = plan(store, repo, oid, version)
            job.seconds = time.perf_counter() - t0
            building[oid] = job
            pending.append(job)
        except RennetError as exc:
            emitter.put(i, failed_result(spec, display, oid, exc, time.perf_counter() - t0))
        except Exception as exc:  # a repository pygit2 cannot read fails its job, not the batch
            error = memory_fault(exc, "planning the job") or JobError("internal_error", f"{type(exc).__name__}: {exc}")
            emitter.put(i, failed_result(spec, display, oid, error, time.perf_counter() - t0))
    broken = _extract_missing(store, pending, version, pool, progress)
    for job in list(pending):
        if job.refused is not None:
            emitter.put(job.index, failed_result(job.spec, job.display, job.oid, job.refused, job.seconds))
            pending.remove(job)
    if require_complete:  # the job whose commit has blobs its object database lacks fails, alone
        for job in [j for j in pending if j.absent]:
            error = JobError("missing_objects", f"{len(job.absent)} blob(s) are missing from the object database "
                             f"(first: {min(job.absent)}); without --require-complete they are listed as skipped")
            emitter.put(job.index, failed_result(job.spec, job.display, job.oid, error, job.seconds))
            pending.remove(job)
    _assemble_all(store, pending, broken, pool, emitter)
    for job, original in duplicates:  # the same commit twice in a wave: built once, the second skips
        existing = existing_head(store, job.oid, version)
        if existing is not None:
            _pin(store, job, version, existing.indexed_at)
            emitter.put(job.index, _skipped(job, existing.fingerprint, existing.blob_facts, 0.0, missing_in(existing)))
        else:
            first = emitter.results[original.index]
            error = first.error if first is not None and first.error else JobError("internal_error", "job lost")
            emitter.put(job.index, failed_result(job.spec, job.display, job.oid, error, 0.0))


def _skipped(job: _Pending, fingerprint: str, reused: int, seconds: float, missing: int = 0) -> JobResult:
    return JobResult(repo=job.display, rev=job.spec.rev, oid=job.oid, ok=True, status="skipped_existing",
                     fingerprint=fingerprint, error=None, seconds=round(seconds, 3), parsed_blobs=0,
                     reused_blobs=reused, missing_objects=missing)


def _pin(store, job: _Pending, version: str, indexed_at: str) -> None:
    """Link the job's repository to the stored snapshot of its commit, and pin its rev. The batch
    holds the write lock, so no gc can have dropped the snapshot since it was found."""
    from indexer.store.commit import pin_snapshot

    if not pin_snapshot(store, job.pin, job.oid, version, indexed_at):
        raise StoreError(f"the snapshot of {job.oid} left the store while the batch held its write lock")


def _extract_missing(store, pending: list[_Pending], version: str, pool,
                     progress: Callable[[str, int, int], None] | None) -> dict[bytes, JobError]:
    """Parse each blob of the wave that no snapshot has parsed yet, once. Returns the facts keys
    whose blobs could not be extracted, with why."""
    from indexer.git.loose import any_loose
    from indexer.pipeline.blob_bytes import check_read_bytes, read_bytes
    from indexer.pipeline.plan import BlobJob
    from indexer.store.facts_writer import FactsWriter

    missing: dict[bytes, tuple[str, BlobJob]] = {}
    with store.env.begin(db=store.facts) as txn:
        for job in pending:
            # every blob looked up: a job finding facts lost later would fail on every run
            mine: list[bytes] = []
            total = 0
            loose = job.repo is not None and any_loose(job.repo)
            for key, blob_job in job.planned.missing(txn.cursor().set_key, missing, trust_carried=False):
                size = gitread.present_size(job.repo, blob_job.blob, loose) if job.repo is not None else 0
                if size is None:
                    job.absent[blob_job.path] = key  # listed as `missing_object`, as `rennet index` does
                    continue
                missing[key] = (job.repo_path, blob_job)
                mine.append(key)
                total += read_bytes(size)
            if job.repo is not None and gitread.partial_clone(job.repo):
                # the blobs whose facts are stored, or another job parses, the clone may lack all the same
                checked = set(mine) | set(job.absent.values())
                others = job.planned.blobs_besides(checked)
                for blob_job, size in zip(others, gitread.present_sizes(job.repo, (j.blob for j in others))):
                    if size is None:
                        job.absent[blob_job.path] = job.planned.keys[blob_job.path]
            try:
                check_read_bytes(total, partial=True)
            except RennetError as exc:  # this job fails alone, before any of its blobs is parsed
                job.refused = exc
                for key in mine:
                    del missing[key]
                continue
            job.parsed += len(mine)  # the first job needing a blob is the one that parsed it
    by_repo: dict[str, list] = {}
    for key in sorted(missing):
        repo_path, j = missing[key]
        by_repo.setdefault(repo_path, []).append(j)
    tasks = [(repo_path, jobs[i:i + _CHUNK]) for repo_path, jobs in sorted(by_repo.items())
             for i in range(0, len(jobs), _CHUNK)]
    broken: dict[bytes, JobError] = {}
    done = 0
    writer = FactsWriter(store)
    if len(tasks) > 1:
        pool.prepare({j.language for _, j in missing.values()})
    results = pool.map(_extract, tasks, ordered=False, enough=len(tasks) > 1)
    for ok, failed in results:
        writer.add(ok)
        for key, code, message in failed:
            broken[key] = JobError(code, message)
        done += len(ok) + len(failed)
        if progress:
            progress("parse", done, len(missing))
    writer.flush()
    return broken


def _assemble_all(store, pending: list[_Pending], broken: dict[bytes, JobError], pool, emitter: Emitter) -> None:
    ready: list[_Pending] = []
    for job in pending:
        bad = next((broken[k] for k in job.planned.keys.values() if k in broken), None)
        if bad is not None:
            emitter.put(job.index, failed_result(job.spec, job.display, job.oid, bad, job.seconds))
        else:
            ready.append(job)
    by_index = {job.index: job for job in ready}

    def tasks():
        # Consumed lazily (by the pool's feeder thread), so a wave's facts are never all in memory.
        for job in ready:
            packed, earlier_packed = {}, {}
            with store.env.begin(db=store.facts) as txn:
                for key in set(job.planned.keys.values()):
                    raw = txn.get(key)
                    if raw is not None:
                        packed[key] = bytes(raw)
                for path, key in job.planned.earlier_keys().items():
                    raw = txn.get(key)
                    if raw is not None:
                        earlier_packed[path] = bytes(raw)
            yield _AssembleTask(job.index, job.repo_path, job.oid, job.planned, packed, earlier_packed,
                                frozenset(job.absent))

    results = pool.map(_assemble, tasks(), ordered=True, enough=len(ready) > 1)
    from indexer.store.commit import commit_snapshot

    for index, packed, fingerprint_or_code, message, seconds in results:
        job = by_index[index]
        t0 = time.perf_counter()
        if packed is None:
            emitter.put(index, failed_result(job.spec, job.display, job.oid, JobError(fingerprint_or_code, message),
                                       job.seconds + seconds))
            continue
        commit_snapshot(store, packed, job.pin, replace=job.replace)
        emitter.put(index, JobResult(
            repo=job.display, rev=job.spec.rev, oid=job.oid, ok=True, status="indexed",
            fingerprint=fingerprint_or_code, error=None,
            seconds=round(job.seconds + seconds + time.perf_counter() - t0, 3),
            parsed_blobs=job.parsed, reused_blobs=job.planned.facts_count - job.parsed - len(job.absent),
            missing_objects=len(job.absent)))


def result_line(result: JobResult) -> dict:
    """The JSON object of one job on `rennet batch --json`."""
    return {
        "repo": result.repo, "rev": result.rev, "oid": result.oid, "ok": result.ok, "status": result.status,
        "fingerprint": result.fingerprint,
        "error": {"code": result.error.code, "message": result.error.message} if result.error else None,
        "seconds": result.seconds, "parsed_blobs": result.parsed_blobs, "reused_blobs": result.reused_blobs,
        **({"missing_objects": result.missing_objects} if result.missing_objects else {}),
    }


__all__ = ["BatchReport", "JobResult", "JobSpec", "parse_pair", "range_jobs", "read_pairs", "result_line", "run"]
