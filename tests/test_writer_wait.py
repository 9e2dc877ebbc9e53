"""Waiting for the indexer that holds a store's write lock (indexer/store/writer_wait.py),
against a real lock (`WriteLock`, an flock that another open file of this process meets as
another process's): how long a wait lasts, how often it says so, and what it ends in."""

from __future__ import annotations

import fcntl
import os
import re
import threading
import time
from pathlib import Path

import pytest

from indexer.contract.errors import Busy, StoreLocked
from indexer.store import writer_wait
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


def test_a_wait_says_so_at_once_then_once_each_tick_and_ends_when_the_writer_does(tmp_path, monkeypatch):
    """The writer lets go as the wait looks at the lock a seventh time: what is checked is the
    order of the wait's looks, its ticks and the release, which no load on the machine moves,
    not how long each took."""
    writer = WriteLock(tmp_path).__enter__()
    looks: list[bool] = []  # each look of the wait at the lock: was a writer at work
    ticks: list[tuple[float, int]] = []  # each time told, and how many looks had been taken then
    real = writer_wait.writer_active

    def looking(home: Path) -> bool:
        if len(looks) == 6:
            writer.__exit__(None, None, None)
        looks.append(real(home))
        return looks[-1]

    monkeypatch.setattr(writer_wait, "writer_active", looking)
    assert wait_for_writer(tmp_path, 30, lambda waited: ticks.append((waited, len(looks))))
    assert looks == [True] * 6 + [False]  # it ended at its first look after the writer let go
    assert ticks and ticks[0][1] <= 2, ticks  # told at once: before it slept a first time
    told = [waited for waited, _ in ticks]  # and again only a tick after the last, if at all
    assert all(later - earlier >= TICK_SECONDS for earlier, later in zip(told, told[1:])), ticks


def test_a_wait_says_so_again_each_tick_while_the_writer_works(tmp_path, monkeypatch):
    """An MCP client resets its request timeout on each progress notification: a wait longer
    than a tick says so at each, not only at once. The tick is set lower here, read as the
    wait runs; the test above keeps the shipped one."""
    monkeypatch.setattr(writer_wait, "TICK_SECONDS", 0.2)
    thread = held_for(tmp_path, 1.0)
    ticks: list[float] = []
    assert wait_for_writer(tmp_path, 30, ticks.append)
    thread.join()
    assert len(ticks) >= 3 and ticks[0] < 0.2, ticks  # at once, then again, each a tick after the last
    assert all(later - earlier >= 0.2 for earlier, later in zip(ticks, ticks[1:])), ticks


def test_a_wait_ends_false_at_its_bound_and_waiting_is_busy(tmp_path):
    thread = held_for(tmp_path, 30)
    try:
        started = time.monotonic()
        assert not wait_for_writer(tmp_path, 0.3)
        # its bound, not the writer's 30 s: the writer is still at work
        assert time.monotonic() - started >= 0.3 and writer_active(tmp_path)

        tries: list[float] = []

        def attempt() -> str:
            tries.append(time.monotonic())
            raise StoreLocked("held")

        started = time.monotonic()
        with pytest.raises(Exception) as raised:
            waiting(tmp_path, attempt, "reading", seconds=0.4)
        assert getattr(raised.value, "code", None) == "busy" and "retry" in str(raised.value)
        assert time.monotonic() - started >= 0.4 and writer_active(tmp_path) and len(tries) == 1
    finally:
        thread.release()


def test_waiting_is_bounded_in_all_not_for_each_writer(tmp_path, monkeypatch):
    """A writer that finishes, and another that starts before the read tries again: the second
    wait has what is left of the bound, not a bound of its own, and `busy` comes then."""
    holders = [held_for(tmp_path, 0.3)]
    tries: list[float] = []
    given: list[float] = []
    real = writer_wait.wait_for_writer

    def spied(home: Path, seconds: float | None = None, tick=None) -> bool:
        given.append(seconds if seconds is not None else writer_wait.WAIT_SECONDS)
        return real(home, seconds, tick)

    def attempt() -> str:
        if len(holders) == 1 and tries:
            holders[0].join()
            holders.append(held_for(tmp_path, 30))
        tries.append(time.monotonic())  # this try is over: only its raise is left
        raise StoreLocked("held")

    monkeypatch.setattr(writer_wait, "wait_for_writer", spied)
    try:
        with pytest.raises(Busy):
            waiting(tmp_path, attempt, "reading", seconds=1.5)
    finally:
        holders[-1].release()
    assert len(given) == len(tries) == 2 and len(holders) == 2, (given, tries)
    # The bound began before the first try ended and the second wait after the second try
    # ended: a bound of its own would have been given 1.5 s again.
    assert given[1] <= max(1.5 - (tries[1] - tries[0]), 0.0), (given, tries)


def test_busy_tells_the_time_since_the_read_began_to_wait_not_the_waits_alone(tmp_path):
    """A writer that finishes after 0.3 s, and another that starts as the read tries again, a
    try that takes 0.5 s, and outlasts the bound: `busy` says the read waited at least the
    bound's 1 s, which it did, the try between the waits counted (was: the waits alone, at most
    what the bound left after the try's 0.5 s)."""
    holders = [held_for(tmp_path, 0.3)]
    tries: list[float] = []

    def attempt() -> str:
        tries.append(time.monotonic())
        if len(tries) == 2:  # the first writer is done: another takes the lock
            holders.append(held_for(tmp_path, 30))
            time.sleep(0.5)
        raise StoreLocked("held")

    before = time.monotonic()
    try:
        with pytest.raises(Busy) as raised:
            waiting(tmp_path, attempt, "reading", seconds=1.0)
        after = time.monotonic()
    finally:
        holders[-1].release()
    assert len(tries) == 2 and len(holders) == 2
    waited = re.search(r"still at work after ([0-9.]+) s of waiting", raised.value.message)
    assert waited is not None, raised.value
    # `busy` comes no sooner than the bound; the message gives a tenth, rounded
    assert 1.0 <= float(waited.group(1)) <= after - before + 0.05, (raised.value, after - before)


@pytest.mark.parametrize("wait", ["store", "checkout"])
def test_busy_in_a_servers_call_tells_the_time_since_the_call_came(tmp_path, wait):
    """A server's call came 5 s before its wait began (other waits of the call, its turn for a
    slot) and has a bound of 5.5 s: `busy` says the caller waited at least those 5.5 s, which the
    bound counts and the client has waited, whichever wait met it: the store's writer
    (`waiting`) or another call's index of the same checkout (`query.worktree._held`, was: its
    own wait alone, 0.5 s; the read path had told the call's time as little)."""
    from context_tools.query.worktree import _held
    from indexer.store.writer_wait import answering_within

    came = time.monotonic() - 5.0
    lock = threading.Lock()
    lock.acquire()  # another call's index of the checkout, which outlasts the bound
    writer = held_for(tmp_path, 30)
    try:
        with answering_within(5.5, came), pytest.raises(Busy) as raised:
            if wait == "store":
                waiting(tmp_path, _locked, "reading")
            else:
                with _held(lock, None):
                    pass
        seen = time.monotonic() - came
    finally:
        writer.release()
    told = re.search(r"still at work after ([0-9.]+) s of waiting", raised.value.message)
    assert told is not None, raised.value
    # no sooner than the bound, and no more than the time since the call came; a tenth, rounded
    assert 5.5 <= float(told.group(1)) <= seen + 0.05, (raised.value, seen)


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



def test_a_calls_bound_ends_its_waits_together_counted_from_the_call(tmp_path):
    """A server's call (`answering_within`, from when the request came): a wait of the default
    bound, `WAIT_SECONDS`, ends at the call's bound instead, what the call spent before its wait
    counted, and `busy` says to retry now, a retry waiting up to the call's bound again: true,
    since the retry is itself the wait. Two waits of one call share the bound, as `waiting`'s
    writers do. Outside the call, the default bound stands."""
    from indexer.store.writer_wait import answering_within, call_bound

    thread = held_for(tmp_path, 30)
    try:
        came = time.monotonic() - 2.6  # the call came 2.6 s ago
        with answering_within(3.0, came):
            assert writer_wait.deadline() == came + 3.0  # was: 3 s from the wait, past what was left
            assert not wait_for_writer(tmp_path)
            # what was left of its 3 s, the writer still at work; was: 120 s, which outlasts the
            # writer's 30 s
            assert time.monotonic() >= came + 3.0 and writer_active(tmp_path)
            assert not wait_for_writer(tmp_path, 30)  # nothing is left for a second wait
            with pytest.raises(Exception) as raised:
                waiting(tmp_path, _locked, "reading")
        assert getattr(raised.value, "code", None) == "busy", raised.value
        assert str(raised.value).endswith("retry now: the retry waits up to 3 s for it to finish"), raised.value
        assert call_bound() is None
        with pytest.raises(Exception) as raised:
            waiting(tmp_path, _locked, "reading", seconds=0.2)
        assert str(raised.value).endswith("retry now: the retry waits up to 0.2 s for it to finish"), raised.value
    finally:
        thread.release()


def test_a_call_that_raises_leaves_no_bound_on_its_thread():
    """A server's thread serves one call after another: a call that ends in an error leaves its
    bound behind no more than one that answers, or the next call's waits would end at once."""
    from indexer.store.writer_wait import answering_within, call_bound

    with pytest.raises(Busy), answering_within(0.0, time.monotonic()):
        raise Busy("the call's own error")
    assert call_bound() is None


def test_a_command_waits_up_to_two_minutes_as_docs_agents_md_states():
    assert writer_wait.WAIT_SECONDS == 120.0
    assert "waits up to 2 minutes" in (Path(__file__).parents[1] / "docs" / "agents.md").read_text()


def _locked() -> str:
    raise StoreLocked("held")


def test_a_wait_for_index_calls_of_the_server_ends_at_the_calls_bound():
    """A read waiting for index calls of its server still on their way (`index_calls.wait_for`)
    ends at the call's bound, not after `WAIT_SECONDS`."""
    from context_tools.faces.index_calls import IndexCalls, wait_for
    from indexer.store.writer_wait import answering_within

    calls = IndexCalls()
    calls.begin("/r")  # never ends

    def tick(waited: float) -> None:
        # a wait told at a tick is still waiting: past the call's bound, it did not end there
        assert waited < 0.5, f"told at {waited} s of waiting, past the call's bound (was: on to 120 s)"

    started = time.monotonic()
    with answering_within(0.5, started):
        assert not wait_for(calls.in_flight("/r"), tick)
    assert time.monotonic() - started >= 0.5  # and not before it


def test_a_call_waiting_for_another_call_on_its_checkout_is_busy_at_its_bound():
    """A `--worktree` server's calls on one checkout take turns (`query.worktree._held`): one that
    waits for another's index of the checkout answers `busy` at its bound, told as it waits,
    where it waited for as long as the other took. Outside a server's call it waits on."""
    from context_tools.query.worktree import _held
    from indexer.contract.errors import Busy
    from indexer.store.writer_wait import answering_within

    lock = threading.Lock()
    lock.acquire()  # another call's index of the checkout, on its way; it ends after 10 s
    other = threading.Timer(10, lock.release)
    other.start()
    ticks: list[float] = []
    started = time.monotonic()
    with answering_within(0.5, started), pytest.raises(Busy) as raised:
        with _held(lock, ticks.append):
            pass
    assert lock.locked() and ticks[0] == 0.0  # busy while the other still works; was: after its 10 s
    assert raised.value.message.endswith("retry now: the retry waits up to 0.5 s for it to finish")
    other.cancel()
    threading.Timer(0.3, lock.release).start()
    with _held(lock, None):  # no call's bound: it waits for the other to finish
        pass
