"""Stored facts written by the facts writer: a few blobs in passing, larger batches by the
writer process, whose errors are raised in the indexer as they were raised there."""

from __future__ import annotations

import sys
import threading
import time

import lmdb
import pytest

from indexer.contract.errors import SchemaMismatch, StoreError
from indexer.extract.blob import extract_blob
from indexer.store.database import Store
from indexer.store.facts_writer import FactsWriter
from indexer.store.records import facts_key, full_facts, name_index, stored_facts


def _stored(n: int):
    data = f"def alpha{n}():\n    return beta()\n".encode()
    return stored_facts(facts_key(f"{n:040x}", "python", "t"), extract_blob(data, f"m{n}.py", "python"))


def _in_store(store: Store, n: int) -> bool:
    with store.env.begin() as txn:
        return full_facts(txn, store, facts_key(f"{n:040x}", "python", "t")) is not None


def test_batches_the_writer_process_writes_are_in_the_store_with_their_names(tmp_path, monkeypatch):
    monkeypatch.setattr(FactsWriter, "BLOBS", 3)  # batches of three: the process takes several
    seen: list[int] = []
    with Store.open(tmp_path / "store") as store:
        writer = FactsWriter(store, lambda batch: seen.append(len(batch)), background=True)
        writer.add([_stored(n) for n in range(7)])  # one batch over BLOBS, under IN_PASSING: written here
        assert seen == [7] and writer._process is None
        writer.wait()
        assert all(_in_store(store, n) for n in range(7))
        # a batch over IN_PASSING goes to the process; the store sees it after `wait`
        monkeypatch.setattr(FactsWriter, "IN_PASSING", 2)
        for n in range(10, 19):
            writer.add([_stored(n)])
        writer.flush()  # nothing left: three batches went
        writer.wait()
        assert seen == [7, 3, 3, 3]
        assert all(_in_store(store, n) for n in range(10, 19))
        with name_index(store) as index:
            assert bytes.fromhex(f"{12:040x}") in list(index.defining("alpha12"))
            assert len(list(index.using("beta"))) == 16


def test_buffered_facts_are_committed_once_the_oldest_has_waited_seconds(tmp_path):
    """Facts fewer than a batch are committed once the oldest of those buffered has waited
    SECONDS, as later facts come in, so that an index stopped keeps all but its last few
    seconds of parse; the wait counts from the oldest, and starts again after a commit."""
    now = [0.0]
    seen: list[list[int]] = []
    with Store.open(tmp_path / "store") as store:
        writer = FactsWriter(store, lambda batch: seen.append([int(x.key[:40], 16) for x in batch]),
                             clock=lambda: now[0])
        wait = FactsWriter.SECONDS
        for n, at in enumerate([0.0, wait / 2, wait * 0.99]):  # the first waited less than SECONDS
            now[0] = at
            writer.add([_stored(n)])
        assert seen == [] and not _in_store(store, 0)
        now[0] = wait
        writer.add([_stored(3)])  # the first has waited SECONDS: all four committed
        assert seen == [[0, 1, 2, 3]] and all(_in_store(store, n) for n in range(4))
        now[0] = wait * 1.5
        writer.add([_stored(4)])  # the oldest buffered now came just now
        now[0] = wait * 2.49
        writer.add([])
        assert seen == [[0, 1, 2, 3]] and not _in_store(store, 4)
        now[0] = wait * 2.5
        writer.add([_stored(5)])
        assert seen == [[0, 1, 2, 3], [4, 5]] and _in_store(store, 5)
        now[0] = wait * 10  # nothing buffered waited: a long pause alone commits nothing
        writer.add([_stored(6)])
        assert seen == [[0, 1, 2, 3], [4, 5]]
        writer.flush()
        assert seen[-1] == [6]


def test_a_write_that_fails_in_the_process_raises_its_own_error_and_writes_nothing_of_its_batch(tmp_path, monkeypatch):
    monkeypatch.setattr(FactsWriter, "IN_PASSING", 0)
    with Store.open(tmp_path / "store") as store:
        writer = FactsWriter(store, background=True)
        good, bad = _stored(1), _stored(2)._replace(key=b"")  # LMDB takes no empty key
        writer.add([good, bad])
        writer.flush()
        with pytest.raises(lmdb.BadValsizeError):
            writer.wait()
        assert not _in_store(store, 1)  # one transaction per batch: none of it committed
        writer.add([good])  # the writer goes on with a process of its own
        writer.flush()
        writer.wait()
        assert _in_store(store, 1)


def test_a_writer_process_that_dies_is_a_store_error(tmp_path, monkeypatch):
    monkeypatch.setattr(FactsWriter, "IN_PASSING", 0)
    with Store.open(tmp_path / "store") as store:
        writer = FactsWriter(store, background=True)
        writer.add([_stored(1)])
        writer.flush()
        handed = writer._process._handed[0]  # batch 1's outcome, set once it is handed to the process
        deadline = time.monotonic() + 60
        while handed[0] is None:
            assert time.monotonic() < deadline, "batch 1 was never handed to the writer process"
            time.sleep(0.01)
        assert handed[0] is True
        process = writer._process._process
        process.kill()  # as the kernel would, out of memory: batch 1 answered or not, batch 2 never
        process.wait()
        writer.add([_stored(2)])
        writer.flush()
        with pytest.raises(StoreError) as raised:
            writer.wait()
        assert raised.value.code == "store_error" and "exit status -9" in raised.value.message


def test_a_sender_thread_that_ends_short_of_memory_fails_the_wait_and_never_hangs(tmp_path, monkeypatch):
    """The thread that hands batches to the writer process ended by a MemoryError before it
    handed any (as under a `ulimit -v` with no room left): `wait` raises a MemoryError
    (`out_of_memory` to the faces) and the process is ended (was: an executor's worker, whose
    future was never set, waited for without end: `rennet index --workers 2` of 1,000 files
    under `ulimit -v` 356 MiB hung)."""
    real_run = threading.Thread.run

    def run(thread: threading.Thread) -> None:
        if thread.name.startswith("rennet-facts"):
            raise MemoryError
        real_run(thread)

    monkeypatch.setattr(threading.Thread, "run", run)
    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the thread's end, said nowhere
    monkeypatch.setattr(FactsWriter, "IN_PASSING", 0)
    raised: list[BaseException] = []

    def wait(writer: FactsWriter) -> None:
        try:
            writer.wait()
        except BaseException as exc:
            raised.append(exc)

    with Store.open(tmp_path / "store") as store:
        writer = FactsWriter(store, background=True)
        writer.add([_stored(1)])
        writer.flush()
        process = writer._process._process
        waiting = threading.Thread(target=wait, args=(writer,), daemon=True)
        waiting.start()
        waiting.join(60)
        assert not waiting.is_alive(), "the wait for a sender thread that ended never returned"
        assert [type(exc) for exc in raised] == [MemoryError] and process.poll() is not None
        assert not _in_store(store, 1)


def test_batches_are_written_here_when_the_process_does_not_start(tmp_path, monkeypatch):
    """An interpreter that cannot run the writer (a frozen application's, say) ends without
    saying it started: the batches are written here, nothing fails."""
    monkeypatch.setattr(FactsWriter, "IN_PASSING", 0)
    monkeypatch.setattr(sys, "executable", "/bin/true")
    with Store.open(tmp_path / "store") as store:
        writer = FactsWriter(store, background=True)
        for n in range(3):
            writer.add([_stored(n)])
            writer.flush()
        writer.wait()
        assert all(_in_store(store, n) for n in range(3))


def test_a_store_the_process_cannot_open_fails_the_write_with_the_store_s_error(tmp_path, monkeypatch):
    monkeypatch.setattr(FactsWriter, "IN_PASSING", 0)
    with Store.open(tmp_path / "store") as store:
        writer = FactsWriter(store, background=True)
        with store.env.begin(db=store.meta, write=True) as txn:  # another rennet took it over since
            txn.put(b"schema", b"999")
        writer.add([_stored(1)])
        writer.flush()
        with pytest.raises(SchemaMismatch) as raised:
            writer.wait()
        assert raised.value.code == "schema_mismatch" and "999" in raised.value.message


def test_a_frame_cut_short_is_the_end_of_the_stream():
    """A writer process killed while it answers leaves a frame cut short: read as the end of
    its answers (the indexer's `store_error` saying the process ended), never as the bytes of
    an answer to unpickle."""
    import io
    import pickle

    from indexer.store.facts_writer import _read_frame, _write_frame

    out = io.BytesIO()
    _write_frame(out, pickle.dumps(None))
    _write_frame(out, pickle.dumps(StoreError("late")))
    whole = out.getvalue()
    stream = io.BytesIO(whole)
    assert pickle.loads(_read_frame(stream)) is None
    assert pickle.loads(_read_frame(stream)).message == "late"
    assert _read_frame(stream) is None
    for cut in (len(whole) - 1, len(whole) - 5, len(whole) - len(pickle.dumps(StoreError("late"))) - 3):
        stream = io.BytesIO(whole[:cut])
        assert _read_frame(stream) is not None and _read_frame(stream) is None
