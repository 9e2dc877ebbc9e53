"""Reader processes: the MCP server's read calls answered on every core.

The server's calls run in threads of its one process, so their Python (decoding, the
handler, encoding the reply) takes turns under the GIL however many cores there are. A small
pool of reader processes, each with its own executor on the same store home (LMDB serves
readers in any number of processes), answers read tools; the server's process keeps the
protocol, the write tools and every call of a `--worktree` server (those write working-tree
snapshots). A reader sends back the reply already encoded, so the server's process only
decodes it once for `structuredContent` and passes the text on as it came.

The HTTP face, which holds many sessions, has one reader a core by default; stdio, which
serves one client, has none (`rennet mcp --readers N` either way; see `reader_count` for
why). The pool starts on the first read call, in the background, so `initialize` and the first
answers pay nothing for it: until a reader is up, read calls run in threads as before. The
answer cache's byte budget is shared out, one part to the server's process and one to each
reader. A reader exits when the server goes (its end of the pipe closes); one that dies is
not replaced, and its calls go back to threads.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator

# loaded at start: a fault of memory leaves no room to load them
from indexer.contract.memory_limit import memory_fault, start_thread

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


MAX_READERS = 16


def reader_count(explicit: int | None = None, many_sessions: bool = False) -> int:
    """`rennet mcp --readers N`, else `$RENNET_MCP_READERS`, else, for a face that holds many
    sessions (HTTP), one a core, and none for stdio's one client. Readers move each read's
    handler out of the server's process, so many sessions' reads use every core, at the
    price of more CPU a call in all and a slower single session (the MCP results page in
    benchmarks/results has the figures)."""
    from indexer.contract.errors import BadInput

    if explicit is not None:
        value, source = str(explicit), "--readers"
    else:
        default = str(min(os.cpu_count() or 1, MAX_READERS)) if many_sessions else "0"
        value, source = os.environ.get("RENNET_MCP_READERS", default) or default, "$RENNET_MCP_READERS"
    if not value.isdigit() or int(value) > MAX_READERS:
        raise BadInput(f"{source} {value!r}: give a number of reader processes from 0 to {MAX_READERS}")
    return int(value)


@dataclass(frozen=True)
class Settings:
    """What a reader's executor is built from (picklable: it crosses to a spawned process)."""

    store: str | None
    ceiling: int | None
    roots: tuple[str, ...] | None
    cache_bytes: int


class _HandedBack(BaseException):
    """A read that met another indexer at work, given back to the server: a BaseException, so
    the executor neither answers it nor writes its receipt."""


@contextmanager
def _hand_back() -> Iterator[None]:
    """A reader's wait for another indexer: none. The server runs the read in a thread of its own
    instead, whose slot is free while it waits (`mcp._Slot`); waiting here held the reader, and a
    few such waits left every read to come, one refused for its arguments too, waiting behind them."""
    raise _HandedBack
    yield


def serve_reads(conn: Connection, settings: Settings) -> None:
    """A reader's loop: (command id, input, client roots) in, (ok, encoded reply) out, until
    the server closes the pipe; None out for a read that must wait for another indexer."""
    from indexer.contract.memory_limit import load_git, one_malloc_arena

    one_malloc_arena()  # a spawned process: the server's limit is inherited, its malloc setting is not
    load_git()  # before its reads take the room
    from context_tools.faces.dispatch import Executor, encode_wire
    from context_tools.faces.registry import registry
    from context_tools.faces.roots import Roots
    from indexer.store.writer_wait import setting_aside

    registry()  # loaded before "ready": the first call pays no import
    roots = Roots(settings.roots) if settings.roots is not None else None
    executor = Executor("mcp", store=settings.store, ceiling=settings.ceiling, roots=roots,
                        cache_bytes=settings.cache_bytes, settle="later", named=True)
    try:
        conn.send(b"ready")
    except OSError:  # the server went while this reader started
        return
    while True:
        try:
            command_id, raw, declared = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            with setting_aside(_hand_back):
                reply = executor.run(command_id, raw, client_roots=declared)
            answer: tuple[bool, bytes] | None = (reply.ok, encode_wire(reply.wire))
        except _HandedBack:
            answer = None
        try:
            conn.send(answer)
        except (BrokenPipeError, OSError):
            return


class ReaderPool:
    """Up to `size` reader processes, started on first use; `acquire` hands out an idle one."""

    def __init__(self, size: int, settings: Settings) -> None:
        self.size = size
        self.settings = settings
        self._idle: list[Connection] = []
        self._ready = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._started = False
        self.alive = 0

    def start(self) -> None:
        """Spawn the readers in the background (once)."""
        with self._lock:
            if self._started or self.size <= 0:
                return
            self._started = True
        try:
            start_thread(threading.Thread(target=self._spawn, name="rennet-readers", daemon=True))
        except RuntimeError:  # no room for its stack (a `ulimit -v`): reads run in threads, and a later one tries again
            with self._lock:
                self._started = False

    def _spawn(self) -> None:
        import multiprocessing
        import signal

        from indexer.extract.child_process import HELD

        # The readers (and the resource tracker, should this start it) are born with a Ctrl-C,
        # SIGTERM and SIGHUP blocked, the mask being this thread's: sent to the server's whole
        # group, they are the server's to act on. A reader ends when the server goes; one that
        # took them died, or printed its traceback mid-call.
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
        ctx = multiprocessing.get_context("spawn")  # a fork of a threaded server is not safe
        try:
            for _ in range(self.size):
                parent, child = ctx.Pipe()
                process = ctx.Process(target=serve_reads, args=(child, self.settings), daemon=True,
                                      name="rennet-reader")
                try:
                    process.start()
                    child.close()
                    if parent.recv() != b"ready":
                        continue
                except (EOFError, OSError):
                    continue
                except BaseException:
                    parent.close()  # a reader already started ends as its pipe closes
                    child.close()
                    raise
                with self._lock:
                    self.alive += 1
                self.release(parent)
        except Exception as exc:
            # Short of memory under a `ulimit -v` (an index beside it took the room): the readers
            # up serve, and with none up reads run in threads and a later one tries again, as
            # when this thread found no room for its stack; a thread's traceback would be all
            # the server's stderr says of it.
            if memory_fault(exc) is None:
                raise
            with self._lock:
                self._started = self.alive > 0

    def acquire(self, wait: bool) -> Connection | None:
        """An idle reader; with `wait`, blocks until one is idle (None once none is alive)."""
        while True:
            if not self._ready.acquire(blocking=wait, timeout=1 if wait else None):
                if not wait or self.alive == 0:
                    return None
                continue
            with self._lock:
                return self._idle.pop()

    def release(self, conn: Connection) -> None:
        with self._lock:
            self._idle.append(conn)
        self._ready.release()

    def call(self, conn: Connection, command_id: str, raw: object, declared: Iterable[str]) -> tuple[bool, bytes] | None:
        """Run one call on `conn`'s reader: (ok, encoded reply), or None when the reader gave
        the call back (it must wait for another indexer) or is gone (then dropped, not handed
        out again): the server runs the call itself."""
        try:
            conn.send((command_id, raw, list(declared)))
            answer = conn.recv()
        except (EOFError, OSError):
            with self._lock:
                self.alive -= 1
            conn.close()
            return None
        self.release(conn)
        return answer
