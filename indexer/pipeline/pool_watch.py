"""The results of a worker pool, watched: a pool that can no longer deliver them is an error,
never a wait without end.

multiprocessing's Pool loses the task of a worker that dies (a C library ending it, a
signal, the kernel's OOM killer): it starts another in its place, and the result never
comes. An exception in one of its own threads (a MemoryError unpickling a result, under a
`ulimit -v`) ends that thread, printing its traceback, and no result comes either. While
waiting, the pool is looked at every `LOOK_SECONDS`: a worker gone from its first set is
`worker_lost`; a thread of the pool that ended is what ended it, typed (`out_of_memory` for
memory), its traceback kept off the terminal. A pool is ended by `abandon`, never by its own
terminate, which can wait for good.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from indexer.contract.errors import RennetError
from indexer.contract.memory_limit import let_go

if TYPE_CHECKING:
    from multiprocessing.pool import IMapIterator, Pool
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
LOOK_SECONDS = 0.5

# The threads of the pools being watched, and the exception that ended any of them.
_THREADS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_ENDED: weakref.WeakKeyDictionary[threading.Thread, BaseException] = weakref.WeakKeyDictionary()
_hooked = False


class WorkerLost(RennetError):
    code = "worker_lost"


class NoReplacement(Exception):
    """What ends a pool's worker handler where it would replace a dead worker (`fork_pool`)."""


def short_of_workers(pool: Pool) -> bool:
    """Whether a worker of `pool` died: none replaces it (`fork_pool`)."""
    return sum(p.exitcode is None for p in pool._pool) < pool._processes  # type: ignore[attr-defined]


def hold_unwinder() -> None:
    """Under an address-space limit, load the unwinder glibc needs to end a thread at the
    interpreter's exit (libgcc_s), while there is room: loaded then, when a pool's thread is
    ended so, the load failed and aborted the process (`libgcc_s.so.1 must be installed`)."""
    from indexer.contract.memory_limit import address_space_limit

    if address_space_limit() is None:
        return
    import ctypes

    try:
        _UNWINDER.append(ctypes.CDLL("libgcc_s.so.1"))
    except OSError:  # another C library, or none to find: nothing to hold
        pass


_UNWINDER: list[object] = []


class Watched(Generic[T]):
    """`results` as they come (iterated, or by `next` as an IMapIterator's), until the pool
    breaks."""

    def __init__(self, pool: Pool, results: IMapIterator[T]) -> None:
        self._pool = pool
        self._results = results
        self._first = _workers(pool)
        adopt(pool)

    def __iter__(self) -> Watched[T]:
        return self

    def __next__(self) -> T:
        return self.next()

    def next(self, timeout: float | None = None) -> T:
        """The next result; with `timeout`, multiprocessing's TimeoutError when none came in
        that many seconds. StopIteration after the last."""
        from multiprocessing import TimeoutError as NotYet

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = LOOK_SECONDS if deadline is None else max(0.0, min(LOOK_SECONDS, deadline - time.monotonic()))
            try:
                return self._results.next(timeout=wait)
            except NotYet:
                _look(self._pool, self._first)
                if deadline is not None and time.monotonic() >= deadline:
                    raise
            except Exception as exc:  # a worker's, raised again here
                # IMapIterator.next raises it from a local of its own frame, which the exception's
                # traceback holds: a cycle that kept the failed index's frames, and all they held,
                # until the cyclic collector's next full pass. That frame, ended, is cleared.
                let_go(exc)
                raise


def _workers(pool: Pool) -> dict[int, BaseProcess]:
    return {p.pid: p for p in pool._pool if p.pid is not None}  # type: ignore[attr-defined]


def _threads(pool: Pool) -> tuple[threading.Thread, ...]:
    return pool._result_handler, pool._task_handler, pool._worker_handler  # type: ignore[attr-defined]


def adopt(pool: Pool) -> None:
    """What ends any of `pool`'s threads is kept for `_look`, off the terminal, from now on."""
    _hook()
    _THREADS.update(_threads(pool))


def adopt_this_thread() -> None:
    """The same for the thread that calls this: a pool's thread before its pool was adopted."""
    _hook()
    _THREADS.add(threading.current_thread())


def _look(pool: Pool, first: dict[int, BaseProcess]) -> None:
    from indexer.contract.memory_limit import address_space_limit, memory_fault

    broken: RennetError | None = None
    # the worker handler that ended rather than replace a dead worker: that worker is the news
    ended = [t for t in _threads(pool) if not t.is_alive() and not isinstance(_ENDED.get(t), NoReplacement)]
    gone = [p for pid, p in first.items() if pid not in _workers(pool) or p.exitcode is not None]
    if ended:
        exc = _ENDED.get(ended[0])
        broken = (memory_fault(exc, "receiving the workers' results") if exc is not None else None) or WorkerLost(
            f"the worker pool's own thread ended ({type(exc).__name__ if exc else 'unknown'}): its results can "
            f"no longer come; nothing stored was lost")
    elif gone:
        code = gone[0].exitcode
        how = f"killed by signal {-code}" if isinstance(code, int) and code < 0 else f"exit status {code}"
        limit = address_space_limit()
        hint = "" if limit is None else f"; this process's address-space limit (`ulimit -v` is {limit >> 20} MiB) " \
                                         f"may be too small: raise it and retry"
        broken = WorkerLost(f"a worker process died mid-task ({how}); nothing stored was lost{hint}")
    elif len(first) < pool._processes:  # type: ignore[attr-defined]
        # one died, and was reaped, before these results were asked for: none replaces it
        broken = WorkerLost("a worker process died before this work began; nothing stored was lost")
    if broken is not None:
        raise broken


def abandon(pool: Pool) -> None:
    """End a pool's workers, then its threads, however it ended: its own terminate, now or at
    exit, is called off. That one waits for good on a lock a killed worker held (an idle
    worker holds the tasks' pipe's as it waits, one mid-write the results' pipe's); and, of a
    broken pool, the task handler stayed blocked writing tasks to a pipe no worker reads, so an
    index that ran short under a `ulimit -v` left a thread behind each time, taking the room
    the next one needed."""
    from multiprocessing.pool import TERMINATE

    pool._state = TERMINATE  # type: ignore[attr-defined]  # it takes no more work, and warns of nothing at exit
    pool._terminate.cancel()  # type: ignore[attr-defined]
    _end(pool)


def unwind_start(pool: Pool) -> None:
    """End what a pool whose start failed had started: its workers are killed, and its threads
    (under a `ulimit -v`, the one refused its stack comes after others) told to end and waited
    for. Left, the pool's worker handler kept its workers alive, replacing any that died, and
    each index that ran short left a thread and workers behind. Its own terminate, if the
    start got as far as to arm it, is called off as `abandon` calls it off."""
    terminate = getattr(pool, "_terminate", None)
    if terminate is not None:
        terminate.cancel()
    _end(pool)


class _Parts:
    """What ending a pool reads of it, held without the pool, so that holding it keeps no pool
    alive. Each is multiprocessing's own, which typeshed does not spell; a thread is None
    where the pool's start failed before making it."""

    def __init__(self, pool: Pool) -> None:
        self._pool: list[Any] = pool._pool  # type: ignore[attr-defined]
        self._inqueue: Any = pool._inqueue  # type: ignore[attr-defined]
        self._outqueue: Any = pool._outqueue  # type: ignore[attr-defined]
        self._taskqueue: Any = pool._taskqueue  # type: ignore[attr-defined]
        self._change_notifier: Any = pool._change_notifier  # type: ignore[attr-defined]
        self._cache: dict[int, Any] = pool._cache  # type: ignore[attr-defined]
        self._worker_handler: threading.Thread | None = getattr(pool, "_worker_handler", None)
        self._task_handler: threading.Thread | None = getattr(pool, "_task_handler", None)
        self._result_handler: threading.Thread | None = getattr(pool, "_result_handler", None)


def end_when_dropped(pool: Pool) -> None:
    """Have `pool`, if it is dropped without being ended (an interrupt between its start and
    the block that ends it; the interpreter's exit), ended as `abandon` ends it once it is
    collected or at exit. multiprocessing's own finalizer is its terminate, which waits for
    good on a lock a killed worker held: a command stopped by a signal to its group as its
    pool started was left waiting there, its threads already gone."""
    from multiprocessing.util import Finalize

    pool._terminate.cancel()  # type: ignore[attr-defined]
    pool._terminate = Finalize(pool, _end_parts, args=(_Parts(pool),), exitpriority=15)  # type: ignore[attr-defined]


def _end(pool: Pool) -> None:
    """The pool's workers killed, then its threads ended."""
    _end_parts(_Parts(pool))


def _end_parts(pool: _Parts) -> None:
    _free_results_lock(pool)
    _kill_workers(pool)
    _end_threads(pool)
    _kill_workers(pool)  # any the worker handler started as the first were killed, before it ended
    _let_go_of_failed_sends(pool)
    # A result never taken whole (a failed index's) holds its pool, whose cache holds it: a cycle
    # keeping the results that came (their facts) until the cyclic collector's next full pass.
    # A result handler that outlived `_end_threads` finds its job gone, as a finished one's.
    pool._cache.clear()


def _let_go_of_failed_sends(pool: _Parts) -> None:
    """The frames of each exception the pool keeps as a task's result, cleared. A task the task
    handler could not send (the workers' pipe closed under it) fails with the exception of the
    write, whose frames hold the view of the BytesIO the task was pickled into; the pool's
    results and that exception make a cycle, and the collector closed the BytesIO before the
    view let go of it: Python 3.13 printed a BufferError on stderr each time. Cleared here,
    the view goes first, and the BytesIO with it."""
    import traceback

    for result in list(pool._cache.values()):
        # an imap's results are (success, value) pairs, in order or not yet; an apply's or a
        # map's failure is its value
        kept = [getattr(result, "_value", None), *getattr(result, "_items", ()),
                *getattr(result, "_unsorted", {}).values()]
        for item in kept:
            exc = item[1] if isinstance(item, tuple) and len(item) == 2 and item[0] is False else item
            if isinstance(exc, BaseException) and exc.__traceback__ is not None:
                traceback.clear_frames(exc.__traceback__)


# How long ending a pool's threads waits for them, in all.
END_SECONDS = 2.0


def _free_results_lock(pool: _Parts) -> None:
    """The lock of the results' pipe, as this process takes it, made one of its own: a worker
    killed while it wrote a result holds the shared one for good, and the task handler's last
    word to the result handler (its only use of it here) would wait on it. Done before the
    workers are killed, while the task handler cannot yet be at that last word."""
    import threading

    outqueue = pool._outqueue
    if getattr(outqueue, "_wlock", None) is not None:
        outqueue._wlock = threading.Lock()


def _kill_workers(pool: _Parts) -> None:
    import os
    import signal
    from multiprocessing.pool import TERMINATE

    handler = getattr(pool, "_worker_handler", None)
    if handler is not None:
        handler._state = TERMINATE  # it starts no worker again
    for process in list(pool._pool):
        if process.pid is not None and process.exitcode is None:
            try:
                os.kill(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.join(timeout=5)


def _end_threads(pool: _Parts) -> None:
    """Each started thread of `pool`, its workers dead, told to end and unblocked. The worker
    handler, woken, ends; the task handler is told to end here, not only by it, and if blocked
    writing to the workers' pipe (or to the results' pipe, once the result handler ended) finds
    it closed; the result handler, which may wait on what a killed worker half wrote, finds the
    pipe's writing end closed once the task handler is gone."""
    import contextlib
    import threading
    from multiprocessing.pool import TERMINATE
    from multiprocessing.reduction import ForkingPickler

    handlers = [getattr(pool, name, None) for name in ("_worker_handler", "_task_handler", "_result_handler")]
    # A pool dropped unended is ended by whatever thread the collector runs on, one of its own
    # handlers too: that one is told to end as the others, never joined by itself.
    here = threading.current_thread()
    started = [t for t in handlers if t is not None and t.ident is not None]
    joined = [t for t in started if t is not here]
    if not started:
        return
    # Ended from here, a thread may die of a handle closed under it (the worker handler, back at
    # its wait before it saw its state): what ends it is kept off the terminal, as for a watched
    # pool; a pool whose start failed was never watched.
    _hook()
    _THREADS.update(started)
    for thread in started:
        thread._state = TERMINATE
    outqueue = pool._outqueue
    with contextlib.suppress(OSError):
        # written whole (one write, under the pipe's atomic size) without the queue's lock,
        # which the thread stopped by a Ctrl-C may hold
        pool._change_notifier._writer.send_bytes(ForkingPickler.dumps(None))
    with contextlib.suppress(OSError):
        pool._inqueue._reader.close()  # a write to the workers fails now
    results = getattr(pool, "_result_handler", None)
    if results is None or not results.is_alive():
        with contextlib.suppress(OSError):
            outqueue._reader.close()  # no one reads the results' pipe: the task handler's last word fails too
    # The task handler ends on the worker handler's None; but a worker handler that waits on
    # the results' pipe among its sentinels, closed just above, dies of it without a word.
    pool._taskqueue.put(None)
    deadline = time.monotonic() + END_SECONDS
    tasks = getattr(pool, "_task_handler", None)
    if tasks is not None and tasks.ident is not None and tasks is not here:
        tasks.join(timeout=max(0.0, deadline - time.monotonic()))
        if not tasks.is_alive():
            with contextlib.suppress(OSError):
                outqueue._writer.close()  # the result handler reads to the pipe's end
    for thread in joined:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    from indexer import worker_start

    # A joined thread stays in the kernel's count a moment longer, as it unwinds: the next pool,
    # started at once (a batch's short of a worker), counts threads to choose how it starts.
    worker_start.wait_gone([t.native_id for t in joined if not t.is_alive() and t.native_id is not None],
                           deadline)


def _hook() -> None:
    """Keep the exception that ends a watched pool's thread for `_look`, off the terminal;
    any other thread's goes where it went."""
    global _hooked
    if _hooked:
        return
    _hooked = True
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.thread is not None and args.thread in _THREADS and args.exc_value is not None:
            _ENDED[args.thread] = args.exc_value
            return
        previous(args)

    threading.excepthook = hook
