"""Processes a test started, looked at through /proc: their children and the CPU they spent,
to act at a state of theirs (workers forked, workers into their work) rather than after a
fixed sleep, which a loaded machine stretches or cuts short; and held there (stopped) while
a test signals them, so that state is the one the signal meets."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def children(pid: int) -> list[int]:
    """The process's children, whichever of its threads started them."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:  # the thread ended meanwhile
            pass
    return found


def wait_for_children(p: subprocess.Popen, count: int) -> None:
    """Until `p` has `count` children (its workers forked), or it ended."""
    deadline = time.monotonic() + 60
    while len(children(p.pid)) < count and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)


def cpu_seconds(pid: int) -> float:
    """The CPU time the process has spent so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


# CPU the workers of an index spend between them before a test signals it "into their work":
# past their start (a tick of the clock each at most), with most of the parse still ahead.
INTO = 0.1
# How long a process's threads all sleep, none of them run, before it is taken to wait for
# what it waits on (its workers' results) rather than between two steps of its own.
QUIET = 0.02


def into_their_work(p: subprocess.Popen, workers: list[int]) -> None:
    """Until `workers` have spent INTO of CPU between them (into their tasks, however the tasks
    fall to them), or `p` ended, or a worker did."""
    deadline = time.monotonic() + 60
    while (workers and sum(map(cpu_seconds, workers)) < INTO and all(map(_running, workers))
           and p.poll() is None and time.monotonic() < deadline):
        time.sleep(0.001)


@contextmanager
def held_in_their_work(p: subprocess.Popen, workers: list[int]) -> Iterator[None]:
    """`p` and its `workers` held (`held`) once the workers are into their work and `p` waits
    for their results: `into_their_work`, then the workers stopped at once, in the middle of
    their tasks or with tasks still to take, so `p` cannot end; it runs on until it waits for
    those results (`_waiting`), and is stopped there too. Only the first wait races the
    command's end, and that end is most of its parse away however the tasks fall to the
    workers."""
    with workers_held(p, workers), held(p, workers):
        yield


@contextmanager
def workers_held(p: subprocess.Popen, workers: list[int]) -> Iterator[None]:
    """`workers` stopped once into their work (`into_their_work`) and held so for the block,
    which begins once `p` waits for their results (`_waiting`); `p` itself runs on, but cannot
    reach what comes after those results, however long the block lasts."""
    into_their_work(p, workers)
    for worker in workers:
        _signal(worker, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 10
        while p.poll() is None and not _waiting(p.pid) and time.monotonic() < deadline:
            pass
        yield
    finally:
        for worker in workers:
            _signal(worker, signal.SIGCONT)


def _waiting(pid: int) -> bool:
    """Every thread of the process asleep, and none of them run, for QUIET seconds: it waits on
    something outside it."""
    def threads() -> list[tuple[str, str]]:
        found = []
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                try:  # its time on a CPU, in nanoseconds where the kernel keeps them
                    ran = (task / "schedstat").read_text().split()[0]
                except FileNotFoundError:
                    ran = f"{fields[11]} {fields[12]}"
            except OSError:  # the thread ended meanwhile
                continue
            found.append((fields[0], ran))
        return found

    before = threads()
    time.sleep(QUIET)
    return all(state == "S" for state, _ in before) and sorted(threads()) == sorted(before)


def _state(pid: int) -> str:
    """The process's state letter (R, S, T stopped, Z ended...), "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def _running(pid: int) -> bool:
    return _state(pid) not in ("", "Z", "X")


@contextmanager
def held(p: subprocess.Popen, workers: list[int]) -> Iterator[None]:
    """`p` and its `workers` stopped (SIGSTOP) for the block, and let go after it (SIGCONT): a
    signal the block sends them waits, pending, where each one stands, and is taken as it runs
    on, so the command cannot end, nor its workers, between the state the caller waited for and
    its signal. Fails if `p` or a worker had ended before it was stopped. A command in a session
    of its own is stopped and let go as a group, all its processes at once, as a terminal's
    Ctrl-C reaches them; else `p` first, whose end is its own process's to reach."""
    group = p.poll() is None and os.getpgid(p.pid) == p.pid
    if group:
        os.killpg(p.pid, signal.SIGSTOP)
    else:
        for pid in (p.pid, *workers):
            _signal(pid, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 10
        while (not all(_state(pid) in ("T", "", "Z", "X") for pid in (p.pid, *workers))
               and time.monotonic() < deadline):
            time.sleep(0.001)
        assert p.poll() is None and all(_state(pid) == "T" for pid in (p.pid, *workers)), (
            "the command or a worker of it ended before they were held")
        yield
    finally:
        if group:
            _signal(-p.pid, signal.SIGCONT)
        else:
            for pid in (*workers, p.pid):
                _signal(pid, signal.SIGCONT)


def _signal(pid: int, sig: int) -> None:
    """`sig` to `pid` (a group's, negative), which may have ended meanwhile."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _waiting_on_descriptors(pid: int) -> int:
    """How many threads of the process are blocked in select or poll, each on a descriptor it
    found empty or full (an asyncio loop idles in epoll; a sleep or a lock waits elsewhere)."""
    count = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            count += (task / "wchan").read_text().startswith("poll_schedule_timeout")
        except OSError:  # the thread ended meanwhile
            pass
    return count


def until_it_waits(p: subprocess.Popen, threads: int = 1) -> None:
    """Until `threads` threads of `p` wait in select or poll (it met an empty input, or a full
    output, and waits for it), or `p` ended (a failure the caller's assertions show). After
    ten seconds of neither it returns as well: a kernel that hides its threads' wait channels
    (wchan reads "0") makes this the fixed wait it replaced, and the caller's assertions
    still decide."""
    deadline = time.monotonic() + 10
    while p.poll() is None and _waiting_on_descriptors(p.pid) < threads and time.monotonic() < deadline:
        time.sleep(0.005)


# Python code that, put before a child's own, writes the peak of the child's own memory on
# stderr as it exits (`peak ` and VmHWM's KiB; the CLI's quick exit runs exit handlers too).
# Not its rusage: Linux carries the high-water mark of the memory a child was forked with
# across its exec, so a child's ru_maxrss starts at its parent's peak, here a test worker's,
# which grows with whatever tests it ran before.
PEAK_AT_EXIT = """\
import atexit as _atexit, sys as _sys
def _peak():
    with open("/proc/self/status") as status:
        _sys.stderr.write("".join("peak " + line.split()[1] + "\\n" for line in status if line.startswith("VmHWM:")))
_atexit.register(_peak)
"""


def peak_said(err: bytes | str) -> int:
    """The peak (KiB) a child started with `PEAK_AT_EXIT` wrote on its stderr."""
    text = err.decode() if isinstance(err, bytes) else err
    return int(next(line.split()[1] for line in text.splitlines() if line.startswith("peak ")))
