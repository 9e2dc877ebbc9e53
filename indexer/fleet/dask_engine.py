"""Batch indexing on a Dask cluster: jobs indexed on workers, moved back as signed bundles.

The jobs go out as streams (`split_streams`): runs of consecutive jobs of one repository,
each placed on one worker as a preference Dask's work stealing may override, and cut in
tasks of a few jobs. A task runs on a worker: it opens the repository its jobs name (a path
the worker can read, or a URL it clones into its own folder), indexes the revs in turn with
the local engine's batch into the worker's own store (content addressed, so each commit
reuses the blob facts of the one before it), exports each snapshot as a bundle and signs it
with the key the driver passed with the task. The driver checks the signature of every
bundle and imports a stream's bundles in order, those that have come in one transaction;
the snapshots and their fingerprints are those a local batch writes.

The contract is the local batch's (`indexer.fleet.batch`): the same job specs, one
`JobResult` per job in job order, jobs whose snapshot the central store holds skipped before
any work is sent (but for a partial one whose missing blobs are at hand now: built again, and
imported in its place, as the local engine does), a failed job never stopping the others. The jobs of a task whose worker
died are retried one by one (`retries` times each), then fail with `worker_lost`; so do the
jobs still out once the cluster has had no worker for `patience` seconds.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import signal
import tempfile
import threading
import time
from collections import OrderedDict
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, NoReturn

from indexer.contract.errors import BadInput, RennetError
from indexer.contract.limits import DEFAULT, Limits, in_force, limits
from indexer.contract.memory_limit import room_for_thread
from indexer.extract.child_process import HELD
from indexer.fleet.batch import BatchReport, JobError, JobResult, JobSpec, failed_result
from indexer.store.records import missing_in

if TYPE_CHECKING:
    import pygit2
    from distributed import LocalCluster

    from indexer.store.database import Store
    from indexer.store.records import SnapshotHead

DEFAULT_RETRIES = 2
# How long a run waits while the cluster has no worker at all (every one lost and none back,
# or none ever joined) before the jobs still out fail: a dead cluster must not hold it forever.
NO_WORKER_PATIENCE = 120.0
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
    machine never share a writer, and a worker that indexes again reuses its blob facts. One
    home a setting of the limits in force: a snapshot the worker stored under other limits is
    no verdict under these, and shipped from there it was refused by the driver's import."""
    try:
        from distributed import get_worker

        base = Path(get_worker().local_directory)
    except (ImportError, ValueError):  # run outside a worker (tests of the task itself)
        base = Path(tempfile.gettempdir())
    chosen = limits()
    if chosen == DEFAULT:
        return base / "rennet-store"
    return base / f"rennet-store-{hashlib.sha256(repr(chosen).encode()).hexdigest()[:16]}"


def _open_repository(repo: str, home: Path) -> str:
    """A local path to the job's repository: the path itself, or a clone of the URL in the
    worker's folder (fetched again when it exists, so a later rev is found)."""
    import pygit2

    if not repo.startswith(_URL_PREFIXES):
        if not os.path.exists(repo):
            raise RepositoryUnreachable(f"{repo} does not exist on worker {_worker_name()}; give workers the "
                                        f"same path (shared storage) or a URL they can clone")
        return repo
    from indexer.git.read import Repository, out_of_cycle

    folder = home.parent / "clones" / secrets_free_name(repo)
    try:
        # a worker lives for many jobs: pygit2's own repository would stay, packs and object
        # cache with it, until a full collection, held by a cycle of its views
        if folder.exists():
            Repository(str(folder)).remotes["origin"].fetch()
        else:
            out_of_cycle(pygit2.clone_repository(repo, str(folder), bare=True))
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


# The keys of the blob facts in the last bundle a worker process shipped for each stream of a
# run: the next job of the stream leaves them out too, since the driver imports a stream's
# bundles in order. Keyed by a digest of the run's key (never the key) and bounded: a worker
# serves many runs.
_SHIPPED: OrderedDict[tuple[bytes, int], tuple[int, frozenset[bytes]]] = OrderedDict()
_SHIPPED_MAX = 256


def _remember(tag: bytes, stream: int, position: int, keys: frozenset[bytes]) -> None:
    _SHIPPED[(tag, stream)] = (position, keys)
    _SHIPPED.move_to_end((tag, stream))
    while len(_SHIPPED) > _SHIPPED_MAX:
        _SHIPPED.popitem(last=False)


def index_task(repo: str, revs: list[str], key: bytes, held: bytes = b"",
               chain: tuple[int, int] | None = None, limits: Limits = DEFAULT) -> list[Shipped | TaskFailure]:
    """Index `repo` at each of `revs` in turn in this worker's store (consecutive commits reuse
    each other's blob facts there) and return each snapshot as a signed bundle, or the job's
    typed failure, one per rev. Bundles are partial: the first leaves out the facts whose keys
    `held` lists (one a line), which the driver's store holds, and each later one the facts of
    the bundle before it, which the driver imports first. `chain` is (stream, position of the
    first rev in it): when this process shipped the stream's previous job, the first bundle
    leaves that one's facts out as well. `limits`: the driver's, held whatever this worker's
    environment says, so a job gets the verdict it would get on the driver."""
    with in_force(limits):
        return _index_task(repo, revs, key, held, chain)


def _index_task(repo: str, revs: list[str], key: bytes, held: bytes,
                chain: tuple[int, int] | None) -> list[Shipped | TaskFailure]:
    from indexer.api import snapshot
    from indexer.fleet import batch
    from indexer.fleet.bundle import TRANSPORT_LEVEL, facts_keys, make
    from indexer.store.database import Store

    home = _worker_home()
    tag = hashlib.sha256(key).digest()[:16]
    leave_out = frozenset(held.split(b"\n")) if held else frozenset()
    if chain is not None and (last := _SHIPPED.get((tag, chain[0]))) is not None and last[0] == chain[1] - 1:
        leave_out |= last[1]
    try:
        path = _open_repository(repo, home)
        store = Store.open(home, durable=False)  # a cache in the worker's scratch folder, gone with it
    except RennetError as exc:
        return [TaskFailure(exc.code, exc.message, None) for _ in revs]
    # The local engine's batch, in this process: the same snapshots, each blob parsed once
    # across the task's commits, each commit assembled from the one before it.
    report = batch.run(store, [batch.JobSpec(path, rev) for rev in revs], workers=1)
    shipped: list[Shipped | TaskFailure] = []
    for n, job in enumerate(report.jobs):
        if not job.ok or job.oid is None:
            error = job.error or batch.JobError("internal_error", "the job left no snapshot")
            shipped.append(TaskFailure(error.code, error.message, job.oid))
            continue
        started = time.perf_counter()
        try:
            snap = snapshot(path, job.oid, store=store, index_if_absent=False)
            keys = facts_keys(snap.record)
            chunks, _ = make(snap, key, leave_out, TRANSPORT_LEVEL, keys)
        except RennetError as exc:
            shipped.append(TaskFailure(exc.code, exc.message, job.oid))
            continue
        shipped.append(Shipped(job.oid, b"".join(chunks), job.parsed_blobs, job.reused_blobs,
                               job.seconds + time.perf_counter() - started))
        leave_out = keys
        if chain is not None:
            _remember(tag, chain[0], chain[1] + n, leave_out)
    return shipped


# --- driver side ---------------------------------------------------------------------------

@dataclass
class _Job:
    index: int
    spec: JobSpec
    display: str
    local: str | None  # the repository as the driver reaches it, for the pin and the skip check
    oid: str | None
    attempts: int = 0  # runs lost with their worker so far
    asked_again: bool = False  # sent once more, alone, after its bundle left out facts the store lacked
    stream: int = 0  # the run of consecutive jobs it belongs to, and its place there
    position: int = 0
    repo_id: str | None = None  # the identity of `local`, where the driver reads it
    replace: bool = False  # a stored partial snapshot of its commit, built again now its blobs are at hand


@dataclass
class _Task:
    jobs: list[_Job]  # consecutive jobs of one stream
    chain: bool  # the worker may leave out the facts of the stream's job before the first


MIN_STREAM = 4  # a repository's jobs are split across workers only into runs at least this long
MAX_TASK = 16  # jobs a task runs at most: a task's results come back together


def split_streams(jobs: list[_Job], slots: int) -> list[list[_Job]]:
    """The jobs in streams, each of consecutive jobs of one repository in job order, indexed in
    turn by one worker thread so that its store holds the previous commit's blob facts: one
    stream a repository, and while there are fewer streams than `slots` (the cluster's worker
    threads), the repository with the longest streams split into one more, contiguous, as long
    as each stays MIN_STREAM jobs long (a stream's first commit is parsed whole on its
    worker)."""
    by_repo: dict[str, list[_Job]] = {}
    for job in jobs:
        by_repo.setdefault(job.spec.repo, []).append(job)
    parts = dict.fromkeys(by_repo, 1)
    while by_repo and sum(parts.values()) < slots:
        repo = max(by_repo, key=lambda r: len(by_repo[r]) / parts[r])
        if len(by_repo[repo]) < MIN_STREAM * (parts[repo] + 1):
            break
        parts[repo] += 1
    streams = []
    for repo, group in by_repo.items():
        n, k = len(group), parts[repo]
        streams += [group[n * i // k:n * (i + 1) // k] for i in range(k)]
    for s, stream in enumerate(streams):
        for position, job in enumerate(stream):
            job.stream, job.position = s, position
    return streams


def split_tasks(stream: list[_Job]) -> list[list[_Job]]:
    """A stream in tasks of consecutive jobs: at least four where it is long enough, so the
    driver imports one task's bundles while the worker indexes the next, and at most MAX_TASK
    jobs each."""
    size = max(1, min(MAX_TASK, -(-len(stream) // 4)))
    return [stream[i:i + size] for i in range(0, len(stream), size)]


def place_streams(streams: list[list[_Job]], nthreads: dict[str, int]) -> list[str | None]:
    """A worker for each stream: the longest streams first, each to the worker with the fewest
    jobs a thread so far. Given to Dask as a preference (`allow_other_workers`): its own work
    stealing still moves a task to a worker left idle, and a lost worker's tasks go elsewhere."""
    if not nthreads:
        return [None] * len(streams)
    load = dict.fromkeys(sorted(nthreads), 0)
    placed: list[str | None] = [None] * len(streams)
    for s in sorted(range(len(streams)), key=lambda s: (-len(streams[s]), s)):
        worker = min(load, key=lambda w: (load[w] / nthreads[w], w))
        placed[s] = worker
        load[worker] += len(streams[s])
    return placed


_QUIET = {"distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "1s",
          "distributed.worker.memory.monitor-interval": "1s", "distributed.worker.profile.enabled": False}


# The threads a Dask client starts in this process as it connects (its event loop's), and those
# a LocalCluster starts for each worker process it spawns (the queue feeding the process, and
# the watches of its messages and its end); more start as the run goes, each as one is needed.
CLIENT_THREADS, THREADS_A_WORKER = 1, 3


def _client(scheduler: str):
    """A Dask client on an existing scheduler, or on a LocalCluster of N processes on loopback."""
    import dask
    from distributed import Client

    address, count = parse_scheduler(scheduler)
    if address == "local":
        # Every worker death reaches the driver at once, which then counts its own retries; on an
        # existing cluster the scheduler's own `allowed-failures` applies first. The cluster's
        # diagnostics (the blocked-loop tick, the statistical profiler, the system and memory
        # monitors) wake every process many times a second, working or not, on the cores the
        # jobs need: here they wake at most once a second, and the profiler is off.
        with dask.config.set({"distributed.scheduler.allowed-failures": 0, **_QUIET}):
            cluster = _local_cluster(count or os.cpu_count() or 1)
        try:
            return Client(cluster), cluster
        except BaseException:  # a Ctrl-C before the caller holds the cluster: closed here, not at exit
            with _hushed():
                cluster.close()
            raise
    room_for_thread(CLIENT_THREADS)
    try:
        return Client(address, timeout="10s"), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise EngineUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def _local_cluster(workers: int) -> LocalCluster:
    """A LocalCluster of `workers` processes of one thread each, on loopback, each of which
    runs `dask_setup` as it starts."""
    from distributed import LocalCluster

    # Under a `ulimit -v` leaving room for a thread's stack but not its start, `Thread.start`
    # waits for good, here with the signals that would end the command held: the threads the
    # cluster starts in this process are asked room for first, refused as one with no room is.
    room_for_thread(CLIENT_THREADS + THREADS_A_WORKER * workers)
    # A Ctrl-C while the cluster starts would leave it half built, to be torn down noisily at
    # exit: it is held until the cluster is up, which is then closed. Only the main thread may
    # set a handler; a caller's other thread gets no Ctrl-C anyway.
    # SIGTERM and SIGHUP too, which the CLI takes as a Ctrl-C (`HELD`)
    held: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, lambda signum, frame: held.append(signum)) for sig in HELD} if main else {}
    # A worker process is a new interpreter: a Ctrl-C reaching it before its preload ignores it
    # (in its imports, a second or more) printed its traceback. Blocked in this thread while the
    # cluster starts, it is blocked in every thread the cluster starts, so in every worker
    # process they spawn, now or to replace a lost one: the mask outlives exec, the handler
    # does not. A Ctrl-C meanwhile waits, and is `held` as the mask is restored. The resource
    # tracker starts first, here: starting it unblocks SIGINT in the thread that does, which
    # would be the cluster's event loop, the one that spawns the workers.
    from multiprocessing import resource_tracker

    from indexer import worker_start

    worker_start.quiet_tracker()
    # the tracker ignores SIGINT and SIGTERM, not SIGHUP: born with it blocked, a SIGHUP to the
    # group does not end it (its relaunch printed a traceback for each semaphore it lost)
    hup = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_SETMASK, hup)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        try:
            # The cluster's warnings (a task cancelled, a worker killed on close) are not the
            # user's to read: the jobs' results say what failed, typed.
            # No dashboard; the scheduler's own HTTP server (health routes) on a free loopback
            # port, where by default it takes 8787 and warns on stderr when something holds it
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                   silence_logs=logging.ERROR, preload=[__name__])
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    except Exception:
        if held:  # the Ctrl-C reached a worker still starting, which failed its start
            _raise_held(held[0])
        raise
    if held:
        with _hushed():
            cluster.close()
        _raise_held(held[0])
    return cluster


def _raise_held(sig: int) -> NoReturn:
    """Raise the signal held while the cluster started, to the handler it was held from (a
    Ctrl-C's KeyboardInterrupt, the CLI's `Stopped` for SIGTERM and SIGHUP)."""
    signal.raise_signal(sig)
    raise KeyboardInterrupt  # a handler that did not raise: stopped all the same


@contextmanager
def _hushed() -> Iterator[None]:
    """No logger's record reaches a handler meanwhile: while an interrupted run's cluster is
    torn down, its scheduler logs each task a killed worker took with it, and its comms
    their closing, on stderr (its loop runs on until the cluster is closed, after the
    cluster's own silencing of them has ended). None of it is the user's to read after a
    Ctrl-C: its one line says it."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


def dask_setup(worker: object) -> None:
    """Run in each worker process of a LocalCluster this engine starts (its preload). A Ctrl-C
    reaches every process of the terminal's group: the driver alone takes it and closes the
    cluster, where each worker would print its traceback. The worker starts with it blocked
    (`_local_cluster`); ignored from here, it stays without effect should anything in the
    worker unblock it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _locate(spec: JobSpec, index: int, store: Store, repos: dict[str, pygit2.Repository]
            ) -> tuple[_Job, SnapshotHead | None]:
    """The job as the driver sees it; the head of its snapshot when the central store has it and
    it serves as it is (`complete_enough`, the local engine's rule: a partial snapshot some of
    whose missing blobs are at hand now is built again, and the job marked to replace it).
    `repos`: the repositories opened so far, by path (a range's jobs share one)."""
    from indexer.build import complete_enough
    from indexer.git import read as gitread
    from indexer.store.records import load_stored_record

    if spec.repo.startswith(_URL_PREFIXES) or not os.path.exists(spec.repo):
        return _Job(index, spec, spec.repo, None, None), None
    try:
        repo = repos.get(spec.repo)
        if repo is None:
            repo = repos[spec.repo] = gitread.open_repo(spec.repo)
        oid = gitread.resolve_rev(repo, spec.rev)
    except RennetError:
        return _Job(index, spec, spec.repo, None, None), None  # the worker reports it, typed
    job = _Job(index, spec, gitread.repo_display_path(repo), spec.repo, oid, repo_id=gitread.repo_identity(repo))
    stored = load_stored_record(store, oid)
    if stored is None:
        return job, None
    head = stored.full_head()
    if not complete_enough(repo, head, require_complete=False):
        job.replace = True
        return job, None
    return job, head


class _Held:
    """The facts keys a job's bundle may leave out, because the central store holds them: those
    of the snapshot nearest the job's commit up its first-parent line, when the driver reads
    the repository, else those of the last snapshot of the same repository imported in this
    run. Computed as a task is sent, for its first job (its worker chains the others)."""

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


def run(store: Store, specs: Iterable[JobSpec], scheduler: str, retries: int = DEFAULT_RETRIES,
        on_result: Callable[[JobResult], None] | None = None,
        progress: Callable[[str, int, int], None] | None = None,
        task: Callable[..., list[Shipped | TaskFailure]] = index_task,
        patience: float = NO_WORKER_PATIENCE) -> BatchReport:
    """Index every job on the cluster and import each into `store` as it arrives."""
    from indexer.fleet.batch import Emitter
    from indexer.store.commit import Pin, pin_snapshot

    require_distributed()
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    started = time.perf_counter()
    specs = list(specs)
    emitter = Emitter(len(specs), on_result, progress)
    key = secrets.token_bytes(32)  # this run's: a bundle signed with it came from a task of this run
    chosen = limits()  # the driver's, held by every task
    tasks: dict[object, _Task] = {}
    held = _Held(store)
    client, cluster = _client(scheduler)
    queue = as_completed()
    interrupted = False

    def send(jobs: list[_Job], chain: bool, worker: str | None = None) -> None:
        future = client.submit(task, jobs[0].spec.repo, [j.spec.rev for j in jobs], key, held.of(jobs[0]),
                               (jobs[0].stream, jobs[0].position) if chain else None, chosen, pure=False,
                               key=f"rennet-index-{jobs[0].index}-{secrets.token_hex(8)}",
                               **({"workers": [worker], "allow_other_workers": True} if worker else {}))
        tasks[future] = _Task(jobs, chain)
        queue.add(future)

    awaited = _restarts_awaited(patience) if cluster is not None else nullcontext()
    try:
        pending: list[_Job] = []
        for i, spec in enumerate(specs):
            job, head = _locate(spec, i, store, held.repos)
            if head is not None and job.repo_id is not None and job.oid is not None:
                # stored already: pinning it is the whole job, as in the local engine
                try:
                    pin = Pin(job.repo_id, spec.pinned_rev, job.display)
                except RennetError as exc:  # a rev too long to pin fails its own job
                    emitter.put(i, failed_result(spec, job.display, job.oid, exc, 0.0))
                    continue
                if pin_snapshot(store, pin, job.oid, held.version, head.indexed_at):
                    emitter.put(i, JobResult(job.display, spec.rev, job.oid, True, "skipped_existing",
                                             head.fingerprint, None, 0.0, 0, head.blob_facts, missing_in(head)))
                    continue
                # a gc dropped it since it was found: indexed again, as one never stored
            pending.append(job)
        nthreads = client.nthreads()
        streams = split_streams(pending, sum(nthreads.values()))
        workers = place_streams(streams, nthreads)
        runs = [split_tasks(stream) for stream in streams]
        # Every task goes out now, each stream's in order (Dask runs a worker's tasks in the order
        # they were sent): a worker indexes its streams' commits in turn, one after another.
        for r in range(max((len(x) for x in runs), default=0)):
            for s, stream_tasks in enumerate(runs):
                if r < len(stream_tasks):
                    send(stream_tasks[r], chain=True, worker=workers[s])
        arrived: dict[int, Shipped | TaskFailure | JobResult] = {}
        cursor = [0] * len(streams)
        again: set[int] = set()  # jobs asked again after their stream went past them: imported on arrival

        def drain(s: int) -> None:
            """Import the stream's bundles that have come, in the stream's order (each may leave out
            the facts of the one before it), up to the first still out, in one transaction."""
            stream, ready = streams[s], []
            while cursor[s] < len(stream) and (got := arrived.pop(stream[cursor[s]].index, None)) is not None:
                ready.append((stream[cursor[s]], got))
                cursor[s] += 1
            settle(ready)

        def settle(ready: list[tuple[_Job, Shipped | TaskFailure | JobResult]]) -> None:
            for (job, _), result in zip(ready, _accept(store, ready, key)):
                if result is None:  # it left out facts its worker wrongly believed imported: ask again
                    job.asked_again = True
                    again.add(job.index)
                    send([job], chain=False)
                    continue
                if result.ok and result.oid is not None:
                    held.last[job.spec.repo] = result.oid
                emitter.put(job.index, result)

        for future in _arrivals(queue, client, patience):
            sent = tasks.pop(future)
            try:
                shipped = future.result()
            except (KilledWorker, FutureCancelledError) as exc:
                for job in sent.jobs:
                    if job.attempts < retries:
                        job.attempts += 1
                        send([job], chain=sent.chain)  # alone: a job that kills its worker takes no other along
                        continue
                    lost = failed_result(job.spec, job.display, job.oid, JobError(
                        "worker_lost", f"the worker running it was lost {job.attempts + 1} times "
                        f"({type(exc).__name__})"), 0.0)
                    if job.index in again:
                        again.discard(job.index)
                        settle([(job, lost)])
                    else:
                        arrived[job.index] = lost
                drain(sent.jobs[0].stream)
                continue
            if not isinstance(shipped, list) or len(shipped) != len(sent.jobs):
                shipped = [TaskFailure("bad_bundle", f"a worker returned {type(shipped).__name__}, not "
                                       f"{len(sent.jobs)} bundles; nothing imported", None)] * len(sent.jobs)
            if sent.jobs[0].index in again:
                again.discard(sent.jobs[0].index)
                settle(list(zip(sent.jobs, shipped)))
                continue
            for job, one in zip(sent.jobs, shipped):
                arrived[job.index] = one
            drain(sent.jobs[0].stream)
        if tasks:  # the cluster has had no worker for `patience` seconds: what is still out fails
            queue.clear()
            client.cancel(list(tasks))
            streams_out = set()
            for sent in tasks.values():
                for job in sent.jobs:
                    lost = failed_result(job.spec, job.display, job.oid, JobError(
                        "worker_lost", f"the cluster had no worker for {patience:g} s"), 0.0)
                    if job.index in again:
                        again.discard(job.index)
                        settle([(job, lost)])
                    else:
                        arrived[job.index] = lost
                        streams_out.add(job.stream)
            tasks.clear()
            for s in sorted(streams_out):
                drain(s)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        with awaited, _hushed() if interrupted else nullcontext():
            if interrupted and cluster is not None:
                _drop_workers(cluster)
            client.close()
            if cluster is not None:
                cluster.close()
    return BatchReport([r for r in emitter.results if r is not None], round(time.perf_counter() - started, 3))


def _restarts_awaited(patience: float) -> AbstractContextManager[object]:
    """The cluster this engine started keeps a worker whose process died, however long its
    restart takes, for as long as the run waits for a worker (`patience`): a LocalCluster
    closes for good the nanny of a worker not back on the scheduler within
    `distributed.deploy.lost-worker-timeout` (15 s), read as each worker is removed, and on a
    loaded host a job that killed its worker left the run with one worker fewer, or none, whose
    remaining jobs then failed `worker_lost`. Held until the cluster is closed."""
    import dask

    return dask.config.set({"distributed.deploy.lost-worker-timeout": patience})


def _drop_workers(cluster: LocalCluster) -> None:
    """Kill the worker processes of a LocalCluster this engine started, for an interrupted run:
    nothing they do now is wanted, and what was imported is stored. Closed gracefully, a busy
    worker finished its task first, seconds on, and meanwhile logged its failed heartbeat to
    the closed scheduler on the terminal: a worker process's logs are its own, out of
    `_hushed`'s reach. Each nanny is told first not to start its worker again."""
    for nanny in list(cluster.workers.values()):
        close_gracefully = getattr(nanny, "close_gracefully", None)
        if close_gracefully is None:  # not a nanny: a worker in this process
            continue
        close_gracefully(reason="rennet-interrupted")
        pid = nanny.pid
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _arrivals(queue, client, patience: float) -> Iterator:
    """The futures of `queue` as each completes; it stops early, leaving the others in it, once
    the cluster has had no worker for `patience` seconds."""
    idle_since: float | None = None
    asked = float("-inf")
    while not queue.is_empty():
        if queue.has_ready():
            idle_since = None
            yield next(queue)
            continue
        now = time.monotonic()
        if now - asked >= min(1.0, patience / 4):  # the scheduler asked at most once a second
            asked = now
            try:
                workers = bool(client.nthreads())
            except (OSError, TimeoutError):  # the scheduler itself out of reach: no worker either
                workers = False
            if workers:
                idle_since = None
            elif idle_since is None:
                idle_since = now
            elif now - idle_since >= patience:
                return
        time.sleep(0.05)


def _accept(store: Store, arrived: list[tuple[_Job, Shipped | TaskFailure | JobResult]],
            key: bytes) -> list[JobResult | None]:
    """Verify the bundles of consecutive jobs and import them in one transaction (each may need
    facts the one before it carries); any failure is its job's, typed. None for a job whose
    bundle left out facts the store does not hold and that was not asked again yet: it is worth
    one more try, alone."""
    from indexer.fleet.bundle import LackingFacts, import_signed

    results: list[JobResult | None] = []
    bundles: list[tuple[bytes, str | None, str | None]] = []
    replace: set[int] = set()  # the bundles that take the place of a stored partial snapshot
    unchecked: set[int] = set()  # the bundles of a URL: the driver read no object of their commit
    at: list[int] = []  # the results the imports fill
    for job, got in arrived:
        if isinstance(got, JobResult):
            results.append(got)
        elif isinstance(got, TaskFailure):
            results.append(failed_result(job.spec, job.display, got.oid or job.oid, JobError(got.code, got.message),
                                         0.0))
        elif not isinstance(got, Shipped) or not isinstance(got.bundle, bytes):
            results.append(failed_result(job.spec, job.display, job.oid, JobError(
                "bad_bundle", f"a worker returned {type(got).__name__}, not a bundle; nothing imported"), 0.0))
        else:
            at.append(len(results))
            results.append(None)
            # The run's key proves the bundle is the one a task of this run signed, made by this
            # code at this version: its facts of a key held here are these, and are not compared;
            # the facts it leaves out must be held here, and the fingerprint is recomputed over them.
            if job.replace:
                replace.add(len(bundles))
            if job.local is None:
                unchecked.add(len(bundles))
            bundles.append((got.bundle, job.local, job.spec.pinned_rev))
    t0 = time.perf_counter()
    reports = import_signed(store, bundles, key, replace, unchecked) if bundles else []
    each = (time.perf_counter() - t0) / max(1, len(bundles))
    for i, report in zip(at, reports):
        job, shipped = arrived[i]
        assert isinstance(shipped, Shipped)
        if isinstance(report, LackingFacts) and not job.asked_again:
            continue  # None: ask again
        if isinstance(report, RennetError):
            results[i] = failed_result(job.spec, job.display, shipped.oid, report, 0.0)
        else:
            results[i] = JobResult(job.display, job.spec.rev, shipped.oid, True,
                                   "indexed" if report.snapshot_new else "skipped_existing", report.fingerprint,
                                   None, round(shipped.seconds + each, 3), shipped.parsed_blobs,
                                   shipped.reused_blobs, report.missing_objects)
    return results


__all__ = ["DEFAULT_RETRIES", "EngineUnavailable", "RepositoryUnreachable", "index_task", "parse_scheduler",
           "require_distributed", "run"]
