"""The results of a worker pool, watched: a pool that can no longer deliver them is an error,
never a wait without end.

multiprocessing's Pool loses the task of a worker that dies (a C library ending it, a
signal, the kernel's OOM killer): it starts another in its place, and the result never
comes. An exception in one of its own threads (a MemoryError unpickling a result, under a
`ulimit -v`) ends that thread, printing its traceback, and no result comes either. While
waiting, the pool is looked at every `LOOK_SECONDS`: a worker gone from its first set is
`worker_lost`; a thread of the pool that ended is what ended it, typed (`out_of_memory` for
memory), its traceback kept off the terminal.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from indexer.contract.errors import RennetError

if TYPE_CHECKING:
    from multiprocessing.pool import IMapIterator, Pool

T = TypeVar("T")
LOOK_SECONDS = 0.5

# The threads of the pools being watched, the exception that ended any of them, the pools broken.
_BROKEN: weakref.WeakSet[Pool] = weakref.WeakSet()
_THREADS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_ENDED: weakref.WeakKeyDictionary[threading.Thread, BaseException] = weakref.WeakKeyDictionary()
_hooked = False


class WorkerLost(RennetError):
    code = "worker_lost"


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
        _hook()
        _THREADS.update(_threads(pool))

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


def _workers(pool: Pool) -> dict[int, Any]:
    return {p.pid: p for p in pool._pool if p.pid is not None}  # type: ignore[attr-defined]


def _threads(pool: Pool) -> tuple[threading.Thread, ...]:
    return pool._result_handler, pool._task_handler, pool._worker_handler  # type: ignore[attr-defined]


def _look(pool: Pool, first: dict[int, Any]) -> None:
    from indexer.contract.memory_limit import address_space_limit, memory_fault

    broken: RennetError | None = None
    ended = [t for t in _threads(pool) if not t.is_alive()]
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
    if broken is not None:
        _BROKEN.add(pool)
        raise broken


def broken(pool: Pool) -> bool:
    """Did watching `pool` find it broken? Its terminate would wait for good then: a worker
    blocked on the results pipe no one reads, or killed, holds its lock."""
    return pool in _BROKEN


def abandon(pool: Pool) -> None:
    """End a broken pool's workers and leave its threads (daemons, blocked) behind: its own
    terminate, now or at exit, is called off."""
    import os
    import signal
    from multiprocessing.pool import TERMINATE

    pool._worker_handler._state = TERMINATE  # type: ignore[attr-defined]  # it starts no worker again
    for process in list(pool._pool):  # type: ignore[attr-defined]
        if process.pid is not None and process.exitcode is None:
            try:
                os.kill(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.join(timeout=5)
    pool._terminate.cancel()  # type: ignore[attr-defined]


def _hook() -> None:
    """Keep the exception that ends a watched pool's thread for `_look`, off the terminal;
    any other thread's goes where it went."""
    global _hooked
    if _hooked:
        return
    _hooked = True
    previous = threading.excepthook

    def hook(args: Any) -> None:
        if args.thread is not None and args.thread in _THREADS and args.exc_value is not None:
            _ENDED[args.thread] = args.exc_value
            return
        previous(args)

    threading.excepthook = hook
