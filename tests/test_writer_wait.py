"""Waiting for the indexer that holds a store's write lock (indexer/store/writer_wait.py),
against a real lock (`WriteLock`, an flock that another open file of this process meets as
another process's): how long a wait lasts, how often it says so, and what it ends in."""

from __future__ import annotations

import fcntl
import os
import threading
import time

import pytest

from indexer.contract.errors import StoreLocked
from indexer.store.database import WriteLock
from indexer.store.writer_wait import TICK_SECONDS, wait_for_writer, waiting, writer_active


class held_for(threading.Thread):
    """The store's write lock taken now and let go after `seconds` (or at `release`), on a thread."""

    def __init__(self, home, seconds: float) -> None:
        super().__init__()
        self.lock = WriteLock(home).__enter__()
        self.seconds = seconds
        self.done = threading.Event()
        self.start()

    def run(self) -> None:
        self.done.wait(self.seconds)
        self.lock.__exit__(None, None, None)

    def release(self) -> None:
        self.done.set()
        self.join()


def test_no_writer_is_no_wait_and_the_lock_is_not_taken(tmp_path):
    assert not writer_active(tmp_path)  # no lock file yet
    with WriteLock(tmp_path):
        assert writer_active(tmp_path)
        assert writer_active(tmp_path)  # asking takes no lock of its own
    assert not writer_active(tmp_path)
    ticks: list[float] = []
    assert wait_for_writer(tmp_path, 5, ticks.append) and ticks == []
    with WriteLock(tmp_path):  # a writer may start the moment after a wait ended
        pass


def test_a_wait_says_so_at_once_then_once_each_tick_and_ends_when_the_writer_does(tmp_path):
    thread = held_for(tmp_path, 0.6)
    ticks: list[float] = []
    started = time.monotonic()
    assert wait_for_writer(tmp_path, 30, ticks.append)
    thread.join()
    assert 0.5 <= time.monotonic() - started < 0.6 + TICK_SECONDS
    assert len(ticks) == 1 and ticks[0] < 0.5  # at once, and not again before TICK_SECONDS


def test_a_wait_ends_false_at_its_bound_and_waiting_is_busy(tmp_path):
    thread = held_for(tmp_path, 30)
    try:
        started = time.monotonic()
        assert not wait_for_writer(tmp_path, 0.3)
        assert 0.3 <= time.monotonic() - started < 1.8  # its bound, not the writer's 30 s

        tries: list[float] = []

        def attempt() -> str:
            tries.append(time.monotonic())
            raise StoreLocked("held")

        started = time.monotonic()
        with pytest.raises(Exception) as raised:
            waiting(tmp_path, attempt, "reading", seconds=0.4)
        assert getattr(raised.value, "code", None) == "busy" and "retry" in str(raised.value)
        assert 0.4 <= time.monotonic() - started < 1.9 and len(tries) == 1
    finally:
        thread.release()


def test_waiting_is_bounded_in_all_not_for_each_writer(tmp_path):
    """A writer that finishes, and another that starts before the read tries again: the second
    wait has what is left of the bound, not a bound of its own."""
    holders = [held_for(tmp_path, 1.5)]

    def attempt() -> str:
        if len(holders) == 1:
            holders[0].join()
            holders.append(held_for(tmp_path, 30))
        raise StoreLocked("held")

    started = time.monotonic()
    try:
        with pytest.raises(Exception) as raised:
            waiting(tmp_path, attempt, "reading", seconds=1.5)
        took = time.monotonic() - started
    finally:
        holders[-1].release()
    assert getattr(raised.value, "code", None) == "busy"
    # Margins wide enough for a loaded machine: a bound of its own would end at 1.5 + 1.5
    assert 1.5 <= took < 2.7, took


def test_waiting_tries_again_once_the_writer_finished_within_one_bound_in_all(tmp_path):
    thread = held_for(tmp_path, 0.5)
    tries: list[float] = []

    def attempt() -> str:
        tries.append(time.monotonic())
        if len(tries) == 1:
            raise StoreLocked("held")
        return "read"

    assert waiting(tmp_path, attempt, "reading", seconds=10) == "read"
    thread.join()
    assert len(tries) == 2 and tries[1] - tries[0] >= 0.4


def test_a_second_writer_is_told_the_holders_pid_and_the_lock_leaves_nothing_open(tmp_path):
    """The lock file names the pid holding it (over a longer pid a killed writer left), a second
    writer is `store_locked` naming it, and letting go empties the file and closes it."""
    (tmp_path / "write.lock").write_text("4194304999")  # a killed writer's
    open_before = len(os.listdir("/proc/self/fd"))
    with WriteLock(tmp_path):
        assert (tmp_path / "write.lock").read_text() == str(os.getpid())
        with pytest.raises(StoreLocked) as raised:
            WriteLock(tmp_path).__enter__()
        assert f"being written by pid {os.getpid()};" in raised.value.message
    assert (tmp_path / "write.lock").read_text() == ""
    assert len(os.listdir("/proc/self/fd")) == open_before


@pytest.mark.parametrize("held", [b"", b"\n", b"\xff\xfe", b"12ab", b"\xd9\xa0\xd9\xa1"])
def test_a_lock_file_naming_no_pid_tells_another_process(tmp_path, held):
    """A holder that has not written its pid yet (the file empty), or a file holding bytes that
    are no pid (not ASCII, not all digits; Arabic-Indic digits are no pid): the second writer is
    told the store is being written by another process (was: "by pid another process" for an
    empty file, "by pid \ufffd\ufffd" or "by pid 12ab" for the others)."""
    lock = tmp_path / "write.lock"
    lock.write_bytes(held)
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another open file: as another process holds it
        with pytest.raises(StoreLocked) as raised:
            WriteLock(tmp_path).__enter__()
    finally:
        os.close(fd)
    assert raised.value.code == "store_locked"
    assert raised.value.message == (f"store {tmp_path} is being written by another process; "
                                    "retry when it finishes"), raised.value.message
    assert lock.read_bytes() == held  # the holder's file is left as it is

