"""Stored facts written in large transactions, large batches in a process of their own.

Each commit syncs to disk and copies every B-tree page it touches, the name index's above
all, so a few large transactions write less than many small ones. Facts are committed all the
same once the oldest of those buffered has waited SECONDS: an index stopped (a Ctrl-C, a
signal, its server's end) keeps the parse work of all but its last few seconds, which the
next index reuses, rather than none of it when it held fewer blobs than a batch. A commit
costs more the larger the store, so SECONDS is long enough that a cold index pays a share of
its time too small to tell, and short enough that little work is lost to a stop.

An indexer's batches go to a writer process while it goes on. Written from a thread of the
indexer instead, each put let go of the interpreter lock and then waited to take it back from
assembly, so the puts took many times longer beside assembly than alone, and slowed it. A
batch of up to a few hundred blobs (a small re-index's) is not worth a process: starting an
interpreter that imports the store costs more than writing them here, and is written in
passing.

The process (`serve`) reads frames from its standard input and writes frames to its standard
output; a frame is an 8-byte big-endian length and that many bytes. Its first frame says it
started (READY); each batch it then reads (pickled) is answered by a pickle of None once
committed, or of the exception that stopped it, which the indexer raises as its own.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Callable

from indexer.contract.errors import RennetError, StoreError
from indexer.contract.memory_limit import one_malloc_arena, start_thread
from indexer.extract.child_process import start_as_child
from indexer.store.database import Store
from indexer.store.records import StoredFacts, put_stored_many


class FactsWriter:
    """Stored facts buffered and written a large transaction at a time, and once the oldest
    buffered has waited SECONDS (by `clock`), told as facts are added. In the `background`,
    batches larger than IN_PASSING go to a writer process, started on the first; the caller
    goes on meanwhile and calls `wait` before anything that must see the facts in the store."""

    BLOBS = 8192
    BYTES = 32 << 20
    SECONDS = 5.0  # the longest the oldest buffered facts wait for a commit, told as more come in
    IN_PASSING = 256  # blobs a batch may hold and be written here all the same (see the module's docstring)

    def __init__(self, store: Store, flushed: Callable[[list[StoredFacts]], None] | None = None,
                 background: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._flushed = flushed
        self._pending: list[StoredFacts] = []
        self._bytes = 0
        self._clock = clock
        self._oldest = 0.0  # when the oldest of the buffered facts came
        self._background = background
        self._process: WriterProcess | None = None

    def add(self, stored: list[StoredFacts]) -> None:
        now = self._clock()
        if not self._pending:
            self._oldest = now
        self._pending.extend(stored)
        self._bytes += sum(len(x.packed_core) + len(x.packed_occurrences) for x in stored)
        if (len(self._pending) >= self.BLOBS or self._bytes >= self.BYTES
                or now - self._oldest >= self.SECONDS):
            self.flush()

    def flush(self) -> None:
        """Write what is buffered (to the writer process: start writing it); `flushed` sees
        it first."""
        pending, self._pending, self._bytes = self._pending, [], 0
        if not pending:
            return
        if self._flushed is not None:
            self._flushed(pending)
        if self._process is None and (not self._background or len(pending) <= self.IN_PASSING):
            write_facts(self._store, pending)
            return
        if self._process is None:
            try:
                self._process = WriterProcess(self._store)
            except OSError:  # no interpreter to start (an embedded one): written here after all
                write_facts(self._store, pending)
                return
        self._process.send(pending)

    def wait(self) -> None:
        """Return once every flushed batch is in the store; raises what a write raised. The
        writer process ends here."""
        process, self._process = self._process, None
        if process is not None:
            process.finish()


def write_facts(store: Store, pending: list[StoredFacts]) -> None:
    with store.env.begin(write=True) as txn:
        put_stored_many(txn, store, pending)


class WriterProcess:
    """A writer process for the store. Batches are handed to it from a thread of ours (a pipe
    write lets go of the interpreter lock), in the order given. Should the process not start
    (no interpreter that imports this package: a frozen or an embedded one), that thread
    writes them here instead.

    The thread is joined, not an executor's: short of memory (a `ulimit -v`), a worker thread
    can end before it sets a future's outcome, and that future is waited for without end. Each
    batch's outcome is a slot the thread sets without allocating; a slot left unset when the
    thread has ended is a thread that ran out of memory saying it."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._batches: queue.SimpleQueue[tuple[list[StoredFacts], list[bool | BaseException | None]] | None] = \
            queue.SimpleQueue()
        self._handed: list[list[bool | BaseException | None]] = []  # each batch's outcome slot, in order
        self._started: bool | None = None  # known once the process says it started, or ends
        # The thread first: refused where its start would not fit (never a start waited on for
        # good), it leaves no process to end.
        self._sender = threading.Thread(target=self._send_all, name="rennet-facts", daemon=True)
        start_thread(self._sender)
        root = str(Path(__file__).resolve().parent.parent)  # where this package is imported from
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[2]); "
                 "from indexer.store.facts_writer import serve; serve(sys.argv[1])", str(store.home), root],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except BaseException:
            self._batches.put(None)  # the thread ends
            raise
        assert self._process.stdin is not None and self._process.stdout is not None  # both pipes
        self._stdin, self._stdout = self._process.stdin, self._process.stdout

    def send(self, pending: list[StoredFacts]) -> None:
        slot: list[bool | BaseException | None] = [None]
        self._handed.append(slot)
        self._batches.put((pending, slot))

    def _send_all(self) -> None:
        """On the sender thread: each batch handed over in turn, its outcome set in its slot."""
        while (batch := self._batches.get()) is not None:
            pending, slot = batch
            try:
                slot[0] = self._hand_over(pending)
            except BaseException as exc:  # raised by `finish`, in its batch's turn
                slot[0] = exc

    def _hand_over(self, pending: list[StoredFacts]) -> bool:
        """On the sender thread: True once the batch is handed to the process, False when it
        was written here (the process never started)."""
        if self._started is None:
            self._started = _read_frame(self._stdout) == READY
        if not self._started:
            write_facts(self._store, pending)
            return False
        try:
            _write_frame(self._stdin, pickle.dumps(pending, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            pass  # the process is gone: its missing answer tells
        return True

    def finish(self) -> None:
        """Return once every batch sent is written; raises the first error. The process then
        ends (it is killed should it not)."""
        try:
            self._batches.put(None)
            self._sender.join()
            handed = 0
            for (outcome,) in self._handed:
                if isinstance(outcome, BaseException):  # what a write here raised
                    raise outcome
                if outcome is None:
                    raise MemoryError("facts not handed to the writer process: its thread ended short of memory")
                handed += outcome
            for _ in range(handed):
                answer = _read_frame(self._stdout)
                if answer is None:
                    self._end()
                    raise StoreError(f"the facts writer process ended before writing every batch "
                                     f"(exit status {self._process.returncode})")
                error = pickle.loads(answer)
                if error is not None:
                    raise error
        finally:
            self._end()

    def _end(self) -> None:
        if self._process.returncode is not None:
            return
        try:
            self._stdin.close()
        except OSError:
            pass
        try:
            self._process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._stdout.close()


READY = b"ready"  # the writer process's first frame, once it imported what it needs


def _write_frame(pipe: IO[bytes], data: bytes) -> None:
    pipe.write(len(data).to_bytes(8, "big"))
    pipe.write(data)
    pipe.flush()


def _read_frame(pipe: IO[bytes]) -> bytes | None:
    """The next frame's bytes; None at the end of the stream (or within a frame)."""
    head = pipe.read(8)
    if len(head) < 8:
        return None
    data = pipe.read(int.from_bytes(head, "big"))
    return data if len(data) == int.from_bytes(head, "big") else None


def serve(home: str) -> None:
    """The writer process: write each batch read, answer each (see the module's docstring),
    until the input ends."""
    start_as_child()
    one_malloc_arena()  # before LMDB's or any thread's allocations, under the indexer's `ulimit -v`
    source, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed may land among the answers
    try:
        store: Store | RennetError = Store.open(home)
    except RennetError as exc:
        store = exc  # told in answer to every batch, as the indexer would meet it
    _write_frame(answers, READY)
    while (frame := _read_frame(source)) is not None:
        _write_frame(answers, _answer(store, frame))
    os._exit(0)  # every commit is synced: nothing to tear down that the indexer should wait for


def _answer(store: Store | RennetError, frame: bytes) -> bytes:
    try:
        if isinstance(store, RennetError):
            raise store
        write_facts(store, pickle.loads(frame))
        return pickle.dumps(None)
    except Exception as exc:
        try:
            return pickle.dumps(exc)
        except Exception:
            return pickle.dumps(StoreError(f"facts not written: {type(exc).__name__}: {exc}"))
