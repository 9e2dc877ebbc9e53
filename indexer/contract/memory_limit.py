"""An address-space limit (`ulimit -v`, RLIMIT_AS) too small for a command, told as what it is.

Under such a limit a library fails to load (the dynamic loader cannot map its segments), an
allocation raises MemoryError, a thread cannot get its stack: each is the limit the user set,
`out_of_memory` naming it, never `internal_error`. Only so when a limit is set and the
failure is one of memory: a module missing, or any other failure, is left as it was.

Some libraries end the process themselves when an allocation fails (numpy's OpenBLAS, as it
maps its buffer on import): `room_for` asks the kernel for the room first, so its lack is
raised here, typed, rather than met there. pygit2's import does work through OpenSSL that,
refused memory, leaves OpenSSL's words behind for the next failure: `load_git` does it as a
process starts.
"""

from __future__ import annotations

import errno
import mmap
import resource
import sys
import threading
from typing import Callable, Generic, TypeVar

from indexer.contract.errors import OutOfMemory

T = TypeVar("T")

# The dynamic loader's words for a segment it could not map: an ImportError of a library that
# did not fit (dlopen gives no errno).
_MAP_FAILED = "failed to map segment from shared object"
_NO_THREAD = "can't start new thread"
_LOST_ERROR = "error return without exception set"
# OpenSSL's words for an allocation it was refused, as libgit2 passes them on (a GitError)
_MALLOC_FAILED = "malloc failure"
# How libgit2 begins the message of a failure it reports with OpenSSL's oldest queued error, and
# the parts of OpenSSL whose errors a load of certificates refused memory leaves queued
_OPENSSL_SAID = "OpenSSL error: "
_LEFT_BY_SHORTAGE = ("asn1 encoding routines", "PEM routines", "x509 certificate routines")
# pyo3's words (pydantic-core's Rust binding) where the interpreter made no object it expects one
# to: under a limit, an allocation refused. It says so as a panic, a BaseException.
_NO_OBJECT = "PyObject pointer is null"
_DEFAULT_STACK = 8 << 20  # a thread's stack when RLIMIT_STACK sets none
# Beside its stack, what a thread takes as it starts (its frames' first chunk, and an allocator
# arena of its own where malloc gives one), with some to spare.
_THREAD_START = 1 << 20
_M_ARENA_MAX = -8  # glibc's mallopt parameter: how many arenas malloc may make


def address_space_limit() -> int | None:
    """This process's address-space limit in bytes (`ulimit -v`), or None when there is none."""
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def mapped_bytes() -> int | None:
    """The address space this process maps now (what the limit counts), or None where the
    system does not say."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        pass
    return None


def has_room(nbytes: int) -> bool:
    """Would `nbytes` more of address space fit under the limit now? A mapping of that size,
    never touched (no memory behind it), is asked for and given back."""
    try:
        probe = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=getattr(mmap, "PROT_NONE", 0))
    except OSError as exc:
        if exc.errno == errno.ENOMEM:
            return False
        raise
    probe.close()
    return True


def room_for(nbytes: int, doing: str) -> None:
    """Raise `out_of_memory` when the limit leaves less than `nbytes` of address space for
    `doing`; nothing without a limit."""
    limit = address_space_limit()
    if limit is not None and not has_room(nbytes):
        raise _error(limit, doing, f"it needs about {nbytes >> 20} MiB more")


def memory_fault(exc: BaseException, doing: str = "this command") -> OutOfMemory | None:
    """`out_of_memory` when `exc` (or an exception it was raised from) is a failure of memory
    under a set address-space limit: a MemoryError, an OSError ENOMEM, a library the loader
    could not map, a thread that got no stack (confirmed by asking for one's room now), or a
    group of such failures; else None."""
    limit = address_space_limit()
    if limit is None:
        return None
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen and len(seen) < 16:
        seen.add(id(link))
        if isinstance(link, BaseExceptionGroup):  # a task group's: of memory when all it holds are
            held = [memory_fault(each, doing) for each in link.exceptions]
            if held and all(held):
                return held[0]
        if _of_memory(link):
            name = "RuntimeError" if isinstance(link, NoRoomForThreads) else type(link).__name__  # as the interpreter's
            return _error(limit, doing, f"{name}: {_first_line(link)}".rstrip(": "))
        if _left_by_openssls_shortage(link):
            _clear_openssl_errors()
            return _error(limit, doing, f"{type(link).__name__}: {_first_line(link)}; OpenSSL ran short of memory "
                                        "earlier in this process")
        link = link.__cause__ or link.__context__
    return None


def lack_of_memory(exc: BaseException) -> bool:
    """Is `exc` a lack of memory (a MemoryError, `out_of_memory`, or a failure `memory_fault`
    types so), a fact of this moment and never of the input that met it?"""
    return isinstance(exc, (MemoryError, OutOfMemory)) or memory_fault(exc) is not None


def _of_memory(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, ImportError):
        return _MAP_FAILED in str(exc)
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOMEM
    if isinstance(exc, NoRoomForThreads):  # its room was lacking when refused, whatever was freed since
        return True
    if isinstance(exc, RuntimeError) and str(exc) == _NO_THREAD:  # also a process-count limit: asked
        return not has_room(_thread_stack() + _THREAD_START)
    if isinstance(exc, SystemError):  # C code whose allocation failed and lost its MemoryError
        return str(exc).startswith(_LOST_ERROR)
    if rust_panic(exc):
        return str(exc) == _NO_OBJECT
    if _MALLOC_FAILED not in _first_line(exc):
        return False
    _openssl_short()
    return True


def work_short_of_memory(exc: BaseException, doing: str) -> OutOfMemory | None:
    """`memory_fault` of a failure of the work itself: an Exception, or a Rust library's panic
    (a BaseException pyo3 raises). Never of a cancel, an interrupt or an exit, which may have
    been raised while a lack of memory was being handled and must go on as it is."""
    if not isinstance(exc, Exception) and not rust_panic(exc):
        return None
    return memory_fault(exc, doing)


def rust_panic(exc: BaseException) -> bool:
    """Is `exc` a panic of a library's Rust code, which pyo3 raises as a BaseException (so that
    `except Exception` lets it through) and which may be a lack of memory (`memory_fault`)?"""
    return type(exc).__name__ == "PanicException" and type(exc).__module__ == "pyo3_runtime"


class NoRoomForThreads(RuntimeError):
    """A thread refused here as the interpreter refuses one with no room for its stack, and with
    its words: callers that put a start off catch it as that RuntimeError. Unlike the
    interpreter's, it is of memory whatever room there is when it is typed: the threads of a
    pool whose start it stopped, ended meanwhile, may have given back room for one."""

    def __init__(self) -> None:
        super().__init__(_NO_THREAD)


def start_thread(thread: threading.Thread) -> None:
    """`thread.start()`, refused as the interpreter refuses a thread it has no room for (a
    RuntimeError, `out_of_memory` to `memory_fault`) when, under a limit, its stack and its
    start would not fit. Where the stack fits but not what the new thread takes as it starts,
    the thread dies before it says it has started, and `start` waits for that without end."""
    room_for_thread()
    thread.start()


def room_for_thread(count: int = 1) -> None:
    """Raise as `start_thread` refuses, before code that starts threads it cannot guard itself
    (a library's: a pool's `count` threads, an executor's worker started on its first
    submit), when under a limit `count` stacks and starts would not fit; nothing without a
    limit."""
    if address_space_limit() is not None and not has_room(count * (_thread_stack() + _THREAD_START)):
        raise NoRoomForThreads


class Beside(Generic[T]):
    """`work()` run on a thread of its own, started through `start_thread`, its outcome read
    once the thread is joined (`outcome`). A joined thread, not an executor's future: short of
    memory, the code that sets a future's outcome can itself fail, and a future left unset is
    waited for without end. The outcome is a slot set without allocating; a thread that ended
    with none set ran out of memory saying it (`unset` says what was not done)."""

    def __init__(self, work: Callable[[], T], name: str, unset: str) -> None:
        self._slot: list[T | BaseException | None] = [None]
        self._unset = unset

        def run() -> None:
            try:
                self._slot[0] = work()
            except BaseException as exc:  # raised where the outcome is read
                self._slot[0] = exc

        self._thread = threading.Thread(target=run, name=name, daemon=True)
        start_thread(self._thread)  # refused where its start would not fit, never a start waited on for good

    def join(self) -> None:
        self._thread.join()

    def outcome(self) -> T:
        """What `work()` returned, once it has; raises what it raised."""
        self._thread.join()
        got = self._slot[0]
        if isinstance(got, BaseException):
            raise got
        if got is None:
            raise MemoryError(f"{self._unset}: its thread ended short of memory")
        return got


# Code whose frame may outlive an exception that passed through it, suspended: clearing such a
# frame would close its generator or coroutine (`inspect`'s CO_GENERATOR, CO_COROUTINE,
# CO_ITERABLE_COROUTINE and CO_ASYNC_GENERATOR, named here without loading that module)
_SUSPENDABLE = 0x20 | 0x80 | 0x100 | 0x200


def let_go(exc: BaseException) -> None:
    """Clear the frames of `exc`'s traceback, and of the exceptions it was raised from or
    beside (its cause, its context, a group's members): their locals hold what the failed
    call had built (a half-built index's facts), for as long as anything holds the exception
    (a reply's error, a thread's outcome slot). Frames still running (the caller's own) and
    those of generators and coroutines are left as they are."""
    try:
        seen: set[int] = set()
        todo: list[BaseException | None] = [exc]
        while todo and len(seen) < 64:
            link = todo.pop()
            if link is None or id(link) in seen:
                continue
            seen.add(id(link))
            tb = link.__traceback__
            while tb is not None:
                if not tb.tb_frame.f_code.co_flags & _SUSPENDABLE:
                    try:
                        tb.tb_frame.clear()
                    except RuntimeError:  # a frame still running
                        pass
                tb = tb.tb_next
            todo += [link.__cause__, link.__context__]
            if isinstance(link, BaseExceptionGroup):
                todo += link.exceptions
    except MemoryError:  # no room to go on: the rest is left to `give_back`'s collection
        pass


def give_back() -> None:
    """Under an address-space limit, after a call ran short of memory: what it built and no
    longer holds is collected, and the heap's free top returned to the system (glibc's
    `malloc_trim`), so that the room a later call asks for is there. An index runs with the
    cyclic collector paused and hands what it made to the oldest generation unscanned
    (`pipeline/collector.py`): what a failed call left in cycles (a library's own, a frame
    that holds the exception raised through it) was otherwise held until that generation's
    rare pass, which an idle server never came to, and every later call met the limit. Called
    once the caller holds the failure no more; nothing without a limit."""
    if address_space_limit() is None:
        return
    try:
        import gc

        gc.collect()
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (ImportError, MemoryError, OSError, AttributeError):  # no room left to load it, or no glibc
        pass


def one_malloc_arena() -> None:
    """Under an address-space limit, have glibc's malloc serve every thread from one arena. It
    otherwise gives each thread that allocates an arena of its own, each reserving 64 MiB of
    address space that the limit counts, so that a few threads met a limit the work itself
    fits in, and a higher limit, with room for more arenas, failed where a lower one passed.
    Called as a process of ours starts, before its threads; a process forked later keeps the
    setting (it is the allocator's memory). Nothing without a limit or without glibc."""
    if address_space_limit() is None:
        return
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, 1)
    except (ImportError, MemoryError, OSError, AttributeError):  # no room to load ctypes, or no glibc
        pass


# Set once OpenSSL, through libgit2, was refused memory in this process: a later failure in
# libgit2's OpenSSL on a thread whose error queue was not emptied is reported in the words
# that shortage left there
_openssl_ran_short = False


def load_git() -> None:
    """Under an address-space limit, import pygit2 now, as a process of ours that reads git
    starts, while it has the most room. Its import has libgit2 load the system's CA
    certificates through OpenSSL, hundreds of allocations: left to the first call that reads
    git, it ran in the room that call had left, and refused there, the import failed and each
    later call tried it again, each failure reported with an error the first had left in
    OpenSSL's queue (`nested asn1 error`), words that do not say memory. A failure here is left
    to the import that comes next, this thread's OpenSSL errors emptied. Nothing without a
    limit."""
    if address_space_limit() is None:
        return
    try:
        import pygit2  # noqa: F401
    except Exception as exc:  # raised again where pygit2 is next imported
        if _MALLOC_FAILED in _first_line(exc):
            _openssl_short()
        else:
            _clear_openssl_errors()


def _left_by_openssls_shortage(exc: BaseException) -> bool:
    """Does `exc` report, from libgit2's OpenSSL, an error of the kind a shortage leaves queued,
    in a process where OpenSSL ran short? The words of a thread whose queue was not emptied."""
    line = _first_line(exc)
    return _openssl_ran_short and line.startswith(_OPENSSL_SAID) and any(part in line for part in _LEFT_BY_SHORTAGE)


def _openssl_short() -> None:
    """Note that OpenSSL ran short in this process, and empty this thread's OpenSSL errors, so
    that what fails next here is reported in its own words."""
    global _openssl_ran_short
    _openssl_ran_short = True
    _clear_openssl_errors()


def _clear_openssl_errors() -> None:
    """Empty this thread's error queue of the OpenSSL libgit2 links (not the interpreter's own
    `ssl`'s). libgit2 reports a failure with the oldest error queued and takes only that one:
    the rest of a failure's errors stayed, and the next failure on this thread, whatever its
    cause, was reported in their words. Nothing when libgit2 is not loaded, or when there is
    no room to reach it."""
    libgit2 = sys.modules.get("pygit2._libgit2")
    path = getattr(libgit2, "__file__", None)
    if path is None:
        return
    try:
        import ctypes

        ctypes.CDLL(path).ERR_clear_error()  # found among the libraries that module loaded
    except (ImportError, MemoryError, OSError, AttributeError):
        pass


def _thread_stack() -> int:
    soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    return _DEFAULT_STACK if soft == resource.RLIM_INFINITY or soft <= 0 else soft


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else ""


def too_small(doing: str = "this command") -> OutOfMemory | None:
    """`out_of_memory` saying this process's limit is too small for `doing`, with no cause
    named; None without a limit. Made ahead by a face that may have no room left to make it
    when it is needed."""
    limit = address_space_limit()
    return None if limit is None else _error(limit, doing)


def _error(limit: int, doing: str, why: str | None = None) -> OutOfMemory:
    cause = f" ({why})" if why else ""
    return OutOfMemory(f"this process's address-space limit (`ulimit -v` is {limit >> 20} MiB) is too small for "
                       f"{doing}{cause}; nothing stored was lost: raise the limit and retry")
