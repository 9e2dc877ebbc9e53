"""The console script's standard streams: those it was started without, opened on the null
device; and standard output's failures typed.

A process started with a standard descriptor closed (`rennet index >&-`, a service manager, a
careless parent) has no stream there: Python sets `sys.stdout` (or stdin, stderr) to None, so
the first answer written failed as an internal error. Worse, the next file opened takes the
lowest free descriptor: the store's lock or data file became descriptor 1 or 2, where
anything writing to the standard stream at the C level, or a child inheriting it, would write
into the store. As git does at its start, each closed one is opened on the null device first,
so no file of ours ever lands there, and what would be written to it is dropped.

Standard output that fails (a full device, a quota, an I/O error) is `output_error`, one line
on stderr, rather than an internal error: the user chose where the answer goes. One a parent
left non-blocking is waited on (`Waiting`), as the MCP face's stdio is.

A Ctrl-C is one line on stderr and exit status 130 (`interrupted`), never a traceback; what
was stored stays, every write being a whole transaction or none. SIGTERM and SIGHUP (a
`kill`, a service manager, a terminal closed) stop a command the same way, their line naming
the signal and the status 128 + its number (`stop_on_signals`).
"""

from __future__ import annotations

import io
import os
import select
import signal
import sys
from typing import TYPE_CHECKING, Callable, NoReturn

from context_tools.faces.errors import OutputFailed
from context_tools.faces.quick_exit import temp_folder_removed

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer, WriteableBuffer


_STREAMS = ((0, "stdin", os.O_RDONLY, "r"), (1, "stdout", os.O_WRONLY, "w"), (2, "stderr", os.O_WRONLY, "w"))


def reopen_closed() -> None:
    """Open each of descriptors 0, 1 and 2 that is closed on the null device, and give Python
    a stream on it. In order: the null device opened for 0 lands on 0, and so on."""
    for fd, name, flags, mode in _STREAMS:
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, flags)
        if null != fd:  # a lower one was free after all (closed since): put it where it belongs
            os.dup2(null, fd)
            os.close(null)
        errors = "backslashreplace" if fd == 2 else "strict"
        setattr(sys, name, open(fd, mode, encoding="utf-8", errors=errors, closefd=False))


class Waiting(io.RawIOBase):
    """Descriptor `fd` read and written as a blocking one, whatever flags another process left
    on it (some runtimes leave their pipes non-blocking, and a child shares them): a read or
    write that would block waits until the descriptor is ready, rather than failing or
    ending the stream early. Closes `fd` when it is `owned`."""

    def __init__(self, fd: int, owned: bool = False) -> None:
        super().__init__()
        self._fd = fd
        self._owned = owned

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def readinto(self, buffer: WriteableBuffer) -> int:
        while True:
            try:
                return os.readv(self._fd, [buffer])
            except BlockingIOError:
                select.select([self._fd], [], [])

    def write(self, data: ReadableBuffer) -> int:
        while True:
            try:
                return os.write(self._fd, data)
            except BlockingIOError:
                select.select([], [self._fd], [])

    def close(self) -> None:
        if not self.closed and self._owned:
            os.close(self._fd)
        super().close()


class _Output(Waiting):
    """Standard output, each write's failure raised as OutputFailed once; after it, what is
    written is dropped, so the streams' last flush at exit does not fail again."""

    def __init__(self, fd: int) -> None:
        super().__init__(fd)
        self._failed = False

    def write(self, data: ReadableBuffer) -> int:
        if self._failed:
            return len(memoryview(data))
        try:
            return super().write(data)
        except BrokenPipeError:
            raise  # a reader that stopped reading: the CLI ends quietly
        except OSError as exc:
            self._failed = True
            raise OutputFailed(f"the answer could not be written to standard output: {exc.strerror or exc}") from None


def typed_output() -> None:
    """Standard output written through `_Output`, with the encoding and line buffering Python
    gave it. A character that encoding lacks is written as its escape (`\\xfc`), as stderr's
    are: the commit under review names its files and symbols, the user's locale or
    `PYTHONIOENCODING` picks the encoding, and neither should make an answer fail."""
    old = sys.stdout
    if old is None or not isinstance(old, io.TextIOWrapper):
        return
    old.flush()
    # `strict`, and the C locale's `surrogateescape` (which mends only undecoded bytes), would
    # fail on the first name that encoding lacks; an error handler the user chose stays
    errors = "backslashreplace" if old.errors in ("strict", "surrogateescape") else old.errors
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Output(old.fileno())), encoding=old.encoding,
                                  errors=errors, line_buffering=old.line_buffering)


# What stops a command as a Ctrl-C does: `kill`'s default, and a terminal (or ssh session) closed
STOPS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where a Ctrl-C raises KeyboardInterrupt: every path that ends a
    command on a Ctrl-C (its pools stopped, its transactions left whole, its one line) ends it
    on these too."""

    def __init__(self, sig: int) -> None:
        super().__init__(sig)
        self.signal = sig


def stop_on_signals() -> None:
    """From now on SIGTERM and SIGHUP raise `Stopped` in the main thread (without a handler
    they ended the process at once, with no line and no status of ours). A second one, the
    command still unwinding from the first, leaves at once."""
    for sig in STOPS:
        signal.signal(sig, _stop)


def _stop(sig: int, frame: object) -> None:
    for other in STOPS:
        signal.signal(other, _leave)
    raise Stopped(sig)


def _leave(sig: int, frame: object) -> None:
    leave_now(sig)


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or `Stopped`) that `exc` was raised while handling, if any: what fails as a
    command unwinds from one (a cluster's close, a library's import cut halfway) fails because
    of it, and the command ends as the Ctrl-C ends it, not as a fault of its own."""
    seen: set[int] = set()
    link = exc.__cause__ or exc.__context__
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return None


def stopped_by(exc: BaseException) -> int:
    """The signal a KeyboardInterrupt stands for: `Stopped`'s own, else a Ctrl-C's SIGINT."""
    return exc.signal if isinstance(exc, Stopped) else signal.SIGINT


def leave_now(sig: int = signal.SIGINT) -> NoReturn:
    """End the process at once with `sig`'s line and status (`interrupted`). The MCP server's
    calls run in threads the interpreter would wait for at exit (an index); what was stored
    stays, every write being a whole transaction or none."""
    leave(interrupted(sig))


def leave_server(sig: int) -> NoReturn:
    """End an MCP server at once on `sig`, as `leave_now`, but without a line for SIGTERM:
    that is how a client ends its stdio server (after closing its stdin, by the MCP spec), or
    a service manager its HTTP one, the ordinary end of its work; the client shows the
    server's stderr to its user."""
    if sig == signal.SIGTERM:
        leave(128 + sig)
    leave_now(sig)


def leave_after(seconds: float, leaving: Callable[[], object]) -> None:
    """`leaving()` once `seconds` have passed, whatever the process is doing then: a server's
    bound on how long its calls may still take once it is told to end. On a timer thread, which
    runs even while the event loop's thread is held in C code (a call's index); under a
    `ulimit -v` leaving no room for its stack or its start (`start_thread` refuses it), on the
    kernel's timer (SIGALRM) instead, set from the main thread."""
    import threading

    from indexer.contract.memory_limit import start_thread

    timer = threading.Timer(seconds, leaving)
    timer.daemon = True
    try:
        start_thread(timer)
    except RuntimeError:
        signal.signal(signal.SIGALRM, lambda alarm, frame: leaving())
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-6))  # 0 would disarm it


def leave(code: int) -> NoReturn:
    """End the process at once with status `code`, its exit handlers and threads left, but not
    multiprocessing's temporary folder (`quick_exit.temp_folder_removed`): a server stopped so
    left one behind each time."""
    temp_folder_removed()
    os._exit(code)


def interrupted(sig: int = signal.SIGINT) -> int:
    """Say that a Ctrl-C (`rennet: interrupted`), or another signal (`rennet: interrupted:
    stopped by SIGTERM`), stopped the command; the exit status to end with, 128 + the
    signal's number as a shell reports a process it stopped."""
    said = "rennet: interrupted" if sig == signal.SIGINT else f"rennet: interrupted: stopped by {_name(sig)}"
    try:
        print(said, file=sys.stderr, flush=True)
    except (OSError, ValueError, RuntimeError):  # stderr gone (or mid-write, for a signal's handler): the status says it
        pass
    return 128 + sig


def _name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
