"""A worker pool that failed leaves nothing running: not its threads, not its workers. Each
case runs in an interpreter of its own (the limit it sets, the workers it kills are its own),
with the real pool an index parses in (`indexer.pipeline.extract.fork_pool`)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from indexer.worker_start import PREPARE_ENV
from tests.test_context_world import ROOT, cli_env

_LOOK = """
import os, resource, signal, threading, time
from pathlib import Path

def mapped():
    return int(Path("/proc/self/status").read_text().split("VmSize:")[1].split()[0]) << 10

def children():
    found = []
    for task in Path("/proc/self/task").glob("*"):
        try:
            found += (task / "children").read_text().split()
        except FileNotFoundError:  # a thread that ended since the listing
            pass
    return found

def settled(threads=1):
    # A killed worker is reaped and a thread told to end ends a moment later, later still on a
    # loaded machine: wait for the counts sought, and give what is left after a generous bound.
    deadline = time.monotonic() + 15
    while True:
        now = threading.active_count(), len(children())
        if now == (threads, 0) or time.monotonic() > deadline:
            return now
        time.sleep(0.02)
"""


def _run(script: str) -> str:
    # A forkserver's preload sets up one language, not every one: no case here parses a blob,
    # and each would otherwise wait for every grammar's query to compile before its pool starts.
    done = subprocess.run([sys.executable, "-c", _LOOK + textwrap.dedent(script)], cwd=ROOT,
                          env={**cli_env(None), PREPARE_ENV: "python"}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout.strip()


def test_a_pool_whose_start_finds_no_room_for_a_thread_leaves_no_thread_nor_worker():
    """Under a `ulimit -v` leaving room for one thread's stack, the pool is refused before it
    starts anything (room for its three threads is asked first); and, that room taken after it
    was asked (the check passed over here, as when another thread took the room meanwhile), its
    start fails at its second thread. Either way the error is raised, and nothing the start
    began is left running (was: its first thread, the worker handler, kept its two workers
    alive for good, replacing any that died; each index that ran short so left a thread and two
    processes behind)."""
    said = _run("""
        from indexer.pipeline import extract
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        for taken_after_the_check in (False, True):
            if taken_after_the_check:
                extract.room_for_thread = lambda count=1: None
            resource.setrlimit(resource.RLIMIT_AS, (mapped() + (12 << 20), hard))  # one 8 MiB stack, and a little
            try:
                extract.fork_pool(2, None)
                said = "started"
            except RuntimeError as exc:
                said = str(exc)
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
            print(said, *settled())
    """)
    assert said.splitlines() == ["can't start new thread 1 0"] * 2


def test_a_worker_handler_ended_by_a_closed_handle_at_a_failed_start_says_nothing():
    """The worker handler back at its wait as the failed start closes the results' pipe under it
    (made certain here by a pause before its wait) dies of "handle is closed": that is kept off
    stderr (was: its traceback, met at times when the start failed under a `ulimit -v`), and
    nothing is left running."""
    said = _run("""
        import multiprocessing.pool as mp
        from indexer.pipeline.extract import fork_pool

        wait = mp.Pool._wait_for_updates

        def late(sentinels, change_notifier, timeout=None):
            time.sleep(0.5)
            return wait(sentinels, change_notifier, timeout)

        mp.Pool._wait_for_updates = staticmethod(late)
        start = threading.Thread.start
        started = []

        def second_refused(thread):
            started.append(thread)
            if len(started) == 2:  # the task handler, after the worker handler
                raise RuntimeError("can't start new thread")
            return start(thread)

        threading.Thread.start = second_refused
        try:
            fork_pool(2, None)
            said = "started"
        except RuntimeError as exc:
            said = str(exc)
        threading.Thread.start = start
        print(said, *settled())
    """)
    assert said == "can't start new thread 1 0"


def test_a_broken_pool_abandoned_leaves_no_thread_behind():
    """A pool whose first workers were killed mid-task, its task handler blocked writing the
    next task (1 MiB) to a pipe no worker reads any more: the index's `worker_lost`, and then
    not one of the pool's threads nor workers left (was: the task handler and the result
    handler blocked for good, under a `ulimit -v` taking room each index that ran short). Nor,
    when the pool is collected, a BufferError on stderr (was, on Python 3.13: the BytesIO of
    the task the handler failed to send was closed while its view in the frames of the kept
    exception was still on it)."""
    said = _run("""
        from indexer.pipeline.extract import fork_pool
        from indexer.pipeline.pool_watch import Watched

        def slow(data):
            time.sleep(60)
            return len(data)

        pool = fork_pool(2, None)
        results = Watched(pool, pool.imap(slow, [b"x" * (1 << 20)] * 16))
        for worker in list(pool._pool):
            os.kill(worker.pid, signal.SIGKILL)
        try:
            with pool:
                for _ in results:
                    pass
            said = "ended"
        except Exception as exc:
            said = exc.code
        print(said, *settled())
        import gc
        del results, pool
        gc.collect()  # a long-lived host collects the broken pool while it runs on: no word on stderr
    """)
    assert said == "worker_lost 1 0"


def test_a_forked_worker_holds_no_copy_of_the_write_lock():
    """A forked worker closes its copy of the indexer's write-lock descriptor at its start: a
    worker outliving a killed indexer would otherwise keep the store locked. (A worker from a
    forkserver never had it.)"""
    out = _run("""
        import json, tempfile
        from pathlib import Path
        from indexer import worker_start
        from indexer.pipeline.extract import fork_pool
        from indexer.store.database import WriteLock

        def lock_fds(name):
            found = []
            for fd in os.listdir("/proc/self/fd"):
                try:
                    if os.readlink(f"/proc/self/fd/{fd}") == name:
                        found.append(int(fd))
                except OSError:
                    pass
            return found

        home = Path(tempfile.mkdtemp())
        assert worker_start.method() == "fork"
        with WriteLock(home) as lock:
            name = str(home / "write.lock")
            with fork_pool(2, lock, None) as pool:
                print(json.dumps([lock_fds(name), pool.map(lock_fds, [name, name])]))
    """)
    here, workers = json.loads(out)
    assert len(here) == 1 and workers == [[], []], out


_POISONED = """
    import json
    from indexer.pipeline.extract import fork_pool
    from indexer.pipeline.pool_watch import Watched

    {limit}

    def explode():
        raise {error}("a result that does not unpickle")

    class Poisoned:
        def __reduce__(self):
            return explode, ()

    def give(n):
        return Poisoned()

    before = threading.active_count()
    with fork_pool(2, None, None) as pool:
        try:
            next(Watched(pool, pool.imap_unordered(give, [1, 2])))
        except Exception as exc:
            caught = exc
    print(json.dumps([getattr(caught, "code", type(caught).__name__), str(caught), settled(before) == (before, 0)]))
"""


def test_a_pool_thread_ended_by_a_result_that_does_not_unpickle_is_worker_lost_and_quiet():
    """The pool's thread that receives results ends when one does not unpickle: the wait for
    results ends as `worker_lost` naming what ended it, not a wait without end; its traceback
    is kept off stderr, and the pool leaves no thread nor worker."""
    out = _run(_POISONED.format(limit="", error="ValueError"))
    code, message, clean = json.loads(out)
    assert code == "worker_lost" and "the worker pool's own thread ended (ValueError)" in message, out
    assert clean, out


def test_a_pool_thread_ended_by_memory_under_a_limit_is_out_of_memory():
    """The same thread ended by a MemoryError, under an address-space limit: `out_of_memory`
    saying what was being done, not `worker_lost`."""
    limit = "resource.setrlimit(resource.RLIMIT_AS, (16 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))"
    out = _run(_POISONED.format(limit=limit, error="MemoryError"))
    code, message, clean = json.loads(out)
    assert code == "out_of_memory" and "receiving the workers' results" in message, out
    assert clean, out


@pytest.mark.parametrize("during_start", [False, True])
def test_a_worker_handler_that_cannot_replace_a_worker_before_the_pool_is_watched_says_nothing(during_start):
    """Workers from a forkserver (the MCP server's), the workers ended and the forkserver
    refusing more before any result is waited for (a SIGTERM to the server's group as its index
    starts its pool), once the pool has started or while it is still starting its threads: the
    worker handler, which replaced the workers and was refused, ends without asking. Nothing of
    it reaches stderr (was: its traceback, `ConnectionRefusedError`, printed by a server that
    was only told to stop), the wait for results is `worker_lost` naming the workers' end, and
    nothing is left."""
    out = _run("""
        import json
        from multiprocessing import forkserver, resource_tracker
        from indexer import worker_start
        from indexer.pipeline.extract import fork_pool
        from indexer.pipeline.pool_watch import Watched

        def refused(fds):  # the forkserver, ended with the group, no longer listens
            raise ConnectionRefusedError(111, "Connection refused")

        def end_workers(workers, handler):
            forkserver.connect_to_new_process = refused
            for worker in workers:
                os.kill(worker.pid, signal.SIGKILL)
            deadline = time.monotonic() + 15
            while handler.is_alive() and time.monotonic() < deadline:
                time.sleep(0.02)
            return not handler.is_alive()

        worker_start.from_forkserver()
        ended = []
        if DURING_START:  # as the pool starts its first thread, the worker handler, before its others
            import multiprocessing.pool as mp
            start = threading.Thread.start
            made = []

            def start_then_end(thread):
                start(thread)
                if not ended:
                    ended.append(end_workers(list(made[0]), thread))

            threading.Thread.start = start_then_end
            build = mp.Pool._repopulate_pool

            def kept(self):
                made.append(self._pool)
                return build(self)

            mp.Pool._repopulate_pool = kept
        pool = fork_pool(2, None, None)
        if DURING_START:
            threading.Thread.start = start
        else:
            ended.append(end_workers(pool._pool, pool._worker_handler))
        try:
            with pool:
                for _ in Watched(pool, pool.imap(time.sleep, [60] * 4)):
                    pass
            said = ["ended", ""]
        except Exception as exc:
            said = [exc.code, str(exc)]
        kept = {resource_tracker._resource_tracker._pid, forkserver._forkserver._forkserver_pid}  # the host's, for good
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            left = threading.active_count(), [c for c in children() if int(c) not in kept]
            if left == (1, []):
                break
            time.sleep(0.02)
        print(json.dumps([ended, *said, *left]))
    """.replace("DURING_START", repr(during_start)))
    ended, code, message, threads, left = json.loads(out)
    assert ended == [True] and code == "worker_lost", out
    assert message.startswith("worker_lost: a worker process died"), out
    assert (threads, left) == (1, []), out


@pytest.mark.parametrize("started_by", ["start_soon", "fork_pool"])
def test_a_forkserver_is_born_with_the_stop_signals_held(started_by):
    """The forkserver starts (from `start_soon`'s thread, or from a pool's start) with SIGINT,
    SIGTERM and SIGHUP blocked, as its host held them: multiprocessing's resource tracker, whose
    start comes first, unblocks SIGINT and SIGTERM in the starting thread as it ends, so the
    forkserver was born with them open, and a Ctrl-C to the group while it imported its preload
    printed its KeyboardInterrupt traceback on the host's stderr (met once in CI, a stdio
    server stopped with a call waiting). The tracker is started first now, the signals held
    again after it. The forkserver's mask is read from the kernel."""
    out = _run("""
        import json
        from multiprocessing import forkserver
        from indexer import worker_start
        from indexer.pipeline.extract import fork_pool

        worker_start.from_forkserver()
        if STARTED_BY == "start_soon":
            worker_start.start_soon()
            deadline = time.monotonic() + 60
            while forkserver._forkserver._forkserver_pid is None and time.monotonic() < deadline:
                time.sleep(0.01)
        else:
            fork_pool(2, None, None).terminate()
        status = Path(f"/proc/{forkserver._forkserver._forkserver_pid}/status").read_text()
        blocked = int(status.split("SigBlk:")[1].split()[0], 16)
        print(json.dumps(sorted(s.name for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
                                if blocked & (1 << (s - 1)))))
    """.replace("STARTED_BY", repr(started_by)))
    assert json.loads(out) == ["SIGHUP", "SIGINT", "SIGTERM"]


def test_a_dead_worker_is_not_replaced_from_the_pools_thread():
    """Workers killed while the pool waits for work: the pool's worker handler forked their
    replacements, from a thread, while the pool's other threads ran (a child can inherit a lock
    one of them held; Python 3.12 warns of it). None is forked now: work asked of the pool
    after is `worker_lost`, never a wait without end; and a batch's pool short of a worker is
    forked afresh, from the batch's own thread, for the next work."""
    said = _run("""
        import warnings
        warnings.simplefilter("always", DeprecationWarning)
        from indexer.fleet.batch import _LazyPool
        from indexer.pipeline.extract import fork_pool
        from indexer.pipeline.pool_watch import Watched

        def kill_all(pool):
            workers = list(pool._pool)
            for worker in workers:
                os.kill(worker.pid, signal.SIGKILL)
            while any(worker.exitcode is None for worker in workers):
                time.sleep(0.02)
            return {worker.pid for worker in workers}

        pool = fork_pool(2, None)
        killed = kill_all(pool)
        try:
            with pool:
                said = sorted(Watched(pool, pool.imap(abs, [-1, -2, -3])))
        except Exception as exc:
            said = exc.code
        forked = {p.pid for p in pool._pool} - killed
        print(said, len(forked), *settled())

        lazy = _LazyPool(2)
        first = list(lazy.map(abs, [-1, -2], ordered=True, enough=True))
        killed = kill_all(lazy._pool)
        again = list(lazy.map(abs, [-3, -4], ordered=True, enough=True))
        fresh = {p.pid for p in lazy._pool._pool}
        lazy.close()
        print(first, again, len(fresh - killed), *settled())
    """)
    assert said.splitlines() == ["worker_lost 0 1 0", "[1, 2] [3, 4] 2 1 0"]


# The end of a case's script: `main` of the repository under `root` indexed in a thread the
# script waits on for 30 s at most; it prints how the index ended ("still waiting" if it never
# did) and how many threads are left.
_INDEXED_IN_A_THREAD = """
        ended = []

        def index():
            try:
                with api.open_store(root / "store") as store:
                    api.index(str(root / "repo"), "main", store=store, workers=1)
                ended.append("indexed")
            except MemoryError:
                ended.append("MemoryError")

        indexing = threading.Thread(target=index, daemon=True)
        indexing.start()
        indexing.join(30)
        print(ended[0] if ended else "still waiting", threading.active_count())
"""


def test_a_snapshots_tail_packed_short_of_memory_fails_the_index_and_never_hangs():
    """The snapshot's tail, packed in a thread beside the fingerprint, runs short of memory, and
    so does the code that would tell the index so (a future's `set_exception`, as under a
    `ulimit -v` with no room left): the index raises the MemoryError (`out_of_memory` to the
    faces) and nothing is left waiting (was: the executor's future left running, the index
    waited for it without end; `rennet mcp --http` under 800 MiB, a 3,500-file repository,
    never answered the call)."""
    said = _run("""
        import concurrent.futures, tempfile
        from corpora.gitbuild import RepoBuilder
        from indexer import api
        import indexer.pipeline.assemble as assemble

        def short(*args, **kwargs):
            raise MemoryError

        assemble.pack_tail = short
        concurrent.futures.Future.set_exception = short
        root = Path(tempfile.mkdtemp())
        RepoBuilder(root / "repo").commit({"a.py": "def first():\\n    return 1\\n"}, "one")
    """ + _INDEXED_IN_A_THREAD)
    assert said == "MemoryError 1"


def test_an_earlier_snapshot_unpacked_short_of_memory_fails_the_re_index_and_never_hangs():
    """A re-index unpacks the earlier snapshot's import resolution in a thread of its own; that
    thread ends by a MemoryError before it sets anything (as under a `ulimit -v` with no room
    left): the re-index raises a MemoryError (`out_of_memory` to the faces) and nothing is left
    waiting (was: an executor's future never set, the re-index waited for it without end)."""
    said = _run("""
        import tempfile
        from corpora.gitbuild import RepoBuilder
        from indexer import api

        root = Path(tempfile.mkdtemp())
        builder = RepoBuilder(root / "repo")
        builder.commit({"a.py": "def first():\\n    return 1\\n"}, "one")
        builder.commit({"b.py": "def second():\\n    return first()\\n"}, "two")
        with api.open_store(root / "store") as store:
            api.index(str(root / "repo"), "main~1", store=store, workers=1)
        real_run = threading.Thread.run

        def run(thread):
            if thread.name.startswith("rennet-unpack"):
                raise MemoryError
            real_run(thread)

        threading.Thread.run = run
        threading.excepthook = lambda args: None
    """ + _INDEXED_IN_A_THREAD)
    assert said == "MemoryError 1"


@pytest.mark.parametrize("dropped", ["collected", "at exit"])
def test_a_pool_dropped_unended_after_its_workers_died_holding_its_lock_ends_at_once(dropped):
    """A pool no block ended (a signal to the group as the pool's start returned, before the
    `with` that ends it; a caller that never ends it), its idle workers killed as they held the
    lock of its task queue: collected, or left to the interpreter's exit, it is ended as an
    abandoned pool is, at once (was: multiprocessing's own finalizer, its terminate, waited for
    that lock for good: a `rennet index` stopped by SIGTERM to its group stayed, its threads
    gone, 1 stop in some hundreds)."""
    said = _run(f"""
        import gc
        from indexer.pipeline.extract import fork_pool
        pool = fork_pool(2, None)
        assert pool.apply(os.getpid) > 0  # the workers are up, and now idle, each waiting under the lock
        for process in pool._pool:
            os.kill(process.pid, signal.SIGTERM)
            process.join()
        if {dropped == "collected"}:
            del pool
            gc.collect()
            print("collected", settled())
        else:
            print("leaving")
    """)
    assert said == ("collected (1, 0)" if dropped == "collected" else "leaving")


def test_a_pool_ended_from_one_of_its_own_threads_ends_without_joining_that_thread():
    """A pool dropped unended is ended by whatever thread the cyclic collector runs on, one of
    the pool's own handlers too (seen: the result handler, under load). That thread is told to
    end as the others and is not joined by itself (was: `cannot join current thread`, printed
    from the finalizer, and the pool's other threads never joined). Here a result's callback,
    which runs on the result handler, ends the pool."""
    said = _run("""
        from indexer.pipeline import pool_watch
        from indexer.pipeline.extract import fork_pool
        pool = fork_pool(2, None)
        ended = threading.Event()
        def end(_):
            pool_watch._end(pool)
            ended.set()
        pool.apply_async(os.getpid, callback=end)
        assert ended.wait(30)
        del pool
        print("ended", settled())
    """)
    assert said == "ended (1, 0)"
