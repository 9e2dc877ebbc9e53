"""Batch indexing on a Dask cluster: each job indexed on a worker, moved back as a signed bundle.

A task runs on a worker: it opens the repository the job names (a path the worker can read,
or a URL it clones into its own folder), indexes the rev into the worker's own store (content
addressed, so a worker reuses the blob facts it already has), exports the snapshot as a
bundle and signs it with the key the driver passed with the task. The driver checks the
signature of every bundle as it arrives and imports it into the central store, one
transaction a bundle; the snapshot and its fingerprint are those a local batch writes.

The contract is the local batch's (`indexer.fleet.batch`): the same job specs, one
`JobResult` per job in job order, jobs whose snapshot the central store holds skipped before
any work is sent, a failed job never stopping the others. A job whose worker died is
retried by the scheduler (`retries` times), then fails with `worker_lost`.
"""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from indexer.contract.errors import BadInput, RennetError
from indexer.fleet.batch import BatchReport, JobError, JobResult, JobSpec, failed_result

if TYPE_CHECKING:
    import pygit2

    from indexer.store.database import Store

DEFAULT_RETRIES = 2
_URL_PREFIXES = ("http://", "https://", "ssh://", "git://", "file://", "git@")


class EngineUnavailable(RennetError):
    def __init__(self, message: str) -> None:
        super().__init__(message, code="engine_unavailable")


class RepositoryUnreachable(RennetError):
    def __init__(self, message: str) -> None:
        super().__init__(message, code="repository_unreachable")


@dataclass(frozen=True)
class Shipped:
    """What a task sends back: the bundle, signed with the run's key, and the counts of the
    worker's index."""

    oid: str
    bundle: bytes
    parsed_blobs: int
    reused_blobs: int
    seconds: float


@dataclass(frozen=True)
class TaskFailure:
    code: str
    message: str
    oid: str | None


def require_distributed() -> None:
    """`distributed` is the `dask` extra; without it the engine is a typed error naming the extra."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise EngineUnavailable("--engine dask needs the dask extra: pip install 'rennet-context[dask]'") from None


def parse_scheduler(text: str) -> tuple[str, int | None]:
    """`local` or `local:N` -> ("local", N or None); anything else is a scheduler address."""
    text = text.strip()
    if not text:
        raise BadInput("--scheduler is empty: give ADDRESS (tcp://host:8786) or local[:N]")
    if text == "local" or text.startswith("local:"):
        _, _, count = text.partition(":")
        if not count:
            return "local", None
        if not count.isdigit() or not 1 <= int(count) <= 64:
            raise BadInput(f"--scheduler {text}: N in local:N must be a number of worker processes, 1 to 64")
        return "local", int(count)
    return text, None


# --- worker side ---------------------------------------------------------------------------

def _worker_home() -> Path:
    """The worker's own store home: inside the Dask worker's local folder, so workers on one
    machine never share a writer, and a worker that indexes again reuses its blob facts."""
    try:
        from distributed import get_worker

        base = Path(get_worker().local_directory)
    except (ImportError, ValueError):  # run outside a worker (tests of the task itself)
        base = Path(tempfile.gettempdir())
    return base / "rennet-store"


def _open_repository(repo: str, home: Path) -> str:
    """A local path to the job's repository: the path itself, or a clone of the URL in the
    worker's folder (fetched again when it exists, so a later rev is found)."""
    import pygit2

    if not repo.startswith(_URL_PREFIXES):
        if not os.path.exists(repo):
            raise RepositoryUnreachable(f"{repo} does not exist on worker {_worker_name()}; give workers the "
                                        f"same path (shared storage) or a URL they can clone")
        return repo
    folder = home.parent / "clones" / secrets_free_name(repo)
    try:
        if folder.exists():
            remote = pygit2.Repository(str(folder)).remotes["origin"]
            remote.fetch()
        else:
            pygit2.clone_repository(repo, str(folder), bare=True)
    except (pygit2.GitError, KeyError, OSError) as exc:
        raise RepositoryUnreachable(f"worker {_worker_name()} cannot clone {repo}: {exc}") from None
    return str(folder)


def secrets_free_name(url: str) -> str:
    """A folder name for a clone of `url`: a digest, so no part of the URL (a token in it
    included) lands in a path."""
    import hashlib

    return hashlib.sha256(url.encode()).hexdigest()[:32]


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().name
    except (ImportError, ValueError):
        return "local"


def index_task(repo: str, rev: str, key: bytes, held: bytes = b"") -> Shipped | TaskFailure:
    """Index `repo` at `rev` in this worker's store and return the snapshot as a signed
    bundle, partial: without the facts whose keys `held` lists (one a line), which the
    driver's store holds."""
    from indexer.api import index, snapshot
    from indexer.fleet.bundle import TRANSPORT_LEVEL, make
    from indexer.store.database import Store

    started = time.perf_counter()
    home = _worker_home()
    try:
        path = _open_repository(repo, home)
        store = Store.open(home, durable=False)  # a cache in the worker's scratch folder, gone with it
        report = index(path, rev, store=store, workers=1)
        snap = snapshot(path, report.oid, store=store, index_if_absent=False)
        chunks, _ = make(snap, key, frozenset(held.split(b"\n")) if held else frozenset(), TRANSPORT_LEVEL)
        return Shipped(report.oid, b"".join(chunks), report.parsed_blobs, report.reused_blobs,
                       time.perf_counter() - started)
    except RennetError as exc:
        return TaskFailure(exc.code, exc.message, None)


# --- driver side ---------------------------------------------------------------------------

@dataclass
class _Job:
    index: int
    spec: JobSpec
    display: str
    local: str | None  # the repository as the driver reaches it, for the pin and the skip check
    oid: str | None
    attempts: int = 0  # runs lost with their worker so far


_QUIET = {"distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "1s",
          "distributed.worker.memory.monitor-interval": "1s", "distributed.worker.profile.enabled": False}


def _client(scheduler: str):
    """A Dask client on an existing scheduler, or on a LocalCluster of N processes on loopback."""
    import dask
    from distributed import Client, LocalCluster

    address, count = parse_scheduler(scheduler)
    if address == "local":
        # Every worker death reaches the driver at once, which then counts its own retries; on an
        # existing cluster the scheduler's own `allowed-failures` applies first. The cluster's
        # diagnostics (the blocked-loop tick, the statistical profiler, the system and memory
        # monitors) wake every process many times a second, working or not, on the cores the
        # jobs need: here they wake at most once a second, and the profiler is off.
        with dask.config.set({"distributed.scheduler.allowed-failures": 0, **_QUIET}):
            cluster = LocalCluster(n_workers=count or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout="10s"), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise EngineUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def _locate(spec: JobSpec, index: int, store: Store, repos: dict[str, pygit2.Repository]) -> tuple[_Job, str | None]:
    """The job as the driver sees it; the fingerprint of its snapshot when the central store has
    it. `repos`: the repositories opened so far, by path (a range's jobs share one)."""
    from indexer.git import read as gitread
    from indexer.store.records import decode_head, load_stored_record

    if spec.repo.startswith(_URL_PREFIXES) or not os.path.exists(spec.repo):
        return _Job(index, spec, spec.repo, None, None), None
    try:
        repo = repos.get(spec.repo)
        if repo is None:
            repo = repos[spec.repo] = gitread.open_repo(spec.repo)
        oid = gitread.resolve_rev(repo, spec.rev)
    except RennetError:
        return _Job(index, spec, spec.repo, None, None), None  # the worker reports it, typed
    job = _Job(index, spec, gitread.repo_display_path(repo), spec.repo, oid)
    stored = load_stored_record(store, oid)
    return job, decode_head(stored.head).fingerprint if stored is not None else None


class _Held:
    """The facts keys a job's bundle may leave out, because the central store holds them: those
    of the snapshot nearest the job's commit up its first-parent line, when the driver reads
    the repository, else those of the last snapshot of the same repository imported in this
    run. Computed as the job is sent, so a range's later commits find the earlier ones in."""

    def __init__(self, store: Store) -> None:
        from indexer.build import extractor_version

        self.store = store
        self.version = extractor_version()
        self.last: dict[str, str] = {}  # the job's repository as named -> OID of its last import
        self.repos: dict[str, pygit2.Repository] = {}  # by path, shared with `_locate`

    def of(self, job: _Job) -> bytes:
        from indexer.git import read as gitread
        from indexer.pipeline.plan import earlier_record
        from indexer.store.records import NO_FACTS, entry_facts_key, load_stored_record

        earlier = None
        if job.local is not None and job.oid is not None:
            try:
                repo = self.repos.get(job.local)
                if repo is None:
                    repo = self.repos[job.local] = gitread.open_repo(job.local)
                earlier = earlier_record(self.store, repo, job.oid, self.version)
            except RennetError:
                pass  # gone since the job was located: the worker reports it, and nothing is held
        if earlier is None and (last := self.last.get(job.spec.repo)) is not None:
            stored = load_stored_record(self.store, last, self.version)
            earlier = stored.prior() if stored is not None else None
        if earlier is None:
            return b""
        return b"\n".join(sorted({entry_facts_key(f, self.version) for f in earlier.files
                                  if f.language not in NO_FACTS}))


class _Window:
    """How many tasks to keep sent: twice the cluster's worker threads, asked of the scheduler
    at most once a second (an adaptive cluster grows with the work it sees waiting), so a job
    is sent late enough to find its neighbours' facts in the central store."""

    def __init__(self, client) -> None:
        self.client = client
        self.size = 2
        self.asked = float("-inf")

    def __call__(self) -> int:
        now = time.monotonic()
        if now - self.asked >= 1.0:
            self.asked = now
            self.size = max(2, 2 * sum(self.client.nthreads().values()))
        return self.size


def run(store: Store, specs: Iterable[JobSpec], scheduler: str, retries: int = DEFAULT_RETRIES,
        on_result: Callable[[JobResult], None] | None = None,
        progress: Callable[[str, int, int], None] | None = None,
        task: Callable[[str, str, bytes, bytes], Shipped | TaskFailure] = index_task) -> BatchReport:
    """Index every job on the cluster and import each into `store` as it arrives."""
    from collections import deque

    from indexer.fleet.batch import Emitter

    require_distributed()
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    started = time.perf_counter()
    specs = list(specs)
    emitter = Emitter(len(specs), on_result, progress)
    key = secrets.token_bytes(32)  # this run's: a bundle signed with it came from a task of this run
    jobs: dict[object, _Job] = {}
    waiting: deque[_Job] = deque()
    held = _Held(store)
    client, cluster = _client(scheduler)
    window = _Window(client)

    def submit(job: _Job) -> None:
        future = client.submit(task, job.spec.repo, job.spec.rev, key, held.of(job), pure=False,
                               key=f"rennet-index-{job.index}-{secrets.token_hex(8)}")
        jobs[future] = job
        queue.add(future)

    def fill() -> None:
        while waiting and len(jobs) < window():
            submit(waiting.popleft())

    try:
        queue = as_completed()
        for i, spec in enumerate(specs):
            job, fingerprint = _locate(spec, i, store, held.repos)
            if fingerprint is not None:
                emitter.put(i, JobResult(job.display, spec.rev, job.oid, True, "skipped_existing", fingerprint,
                                         None, 0.0, 0, 0))
                continue
            waiting.append(job)
        fill()
        for future in queue:
            job = jobs.pop(future)
            try:
                shipped = future.result()
            except (KilledWorker, FutureCancelledError) as exc:
                if job.attempts < retries:
                    job.attempts += 1
                    submit(job)
                    continue
                emitter.put(job.index, failed_result(job.spec, job.display, job.oid, JobError(
                    "worker_lost", f"the worker running it was lost {job.attempts + 1} times ({type(exc).__name__})"),
                    0.0))
                fill()
                continue
            result = _accept(store, job, shipped, key)
            if result.ok and result.oid is not None:
                held.last[job.spec.repo] = result.oid
            emitter.put(job.index, result)
            # Sent after the import, so the next job finds this one's facts held; the window keeps a
            # task queued on each worker meanwhile.
            fill()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return BatchReport([r for r in emitter.results if r is not None], round(time.perf_counter() - started, 3))


def _accept(store: Store, job: _Job, shipped: Shipped | TaskFailure, key: bytes) -> JobResult:
    """Verify a task's bundle and import it; any failure is this job's, typed."""
    from indexer.fleet.bundle import import_data

    if isinstance(shipped, TaskFailure):
        return failed_result(job.spec, job.display, shipped.oid or job.oid, JobError(shipped.code, shipped.message),
                             0.0)
    if not isinstance(shipped, Shipped):
        return failed_result(job.spec, job.display, job.oid, JobError(
            "bad_bundle", f"a worker returned {type(shipped).__name__}, not a bundle; nothing imported"), 0.0)
    t0 = time.perf_counter()
    try:
        # The run's key proves the bundle is the one a task of this run signed, made by this
        # code at this version: its facts of a key held here are these, and are not compared;
        # the facts it leaves out must be held here, and the fingerprint is recomputed over them.
        report = import_data(store, shipped.bundle, repo_path=job.local,
                             rev=job.spec.rev if job.spec.pin and job.local else None, key=key,
                             compare_held=False, partial=True)
    except RennetError as exc:
        return failed_result(job.spec, job.display, shipped.oid, exc, 0.0)
    return JobResult(job.display, job.spec.rev, shipped.oid, True, "indexed" if report.snapshot_new
                     else "skipped_existing", report.fingerprint, None,
                     round(shipped.seconds + time.perf_counter() - t0, 3), shipped.parsed_blobs, shipped.reused_blobs)


__all__ = ["DEFAULT_RETRIES", "EngineUnavailable", "RepositoryUnreachable", "index_task", "parse_scheduler",
           "require_distributed", "run"]
