"""Processes a test started, looked at through /proc: their children and the CPU they spent,
to act at a state of theirs (workers forked, workers into their work) rather than after a
fixed sleep, which a loaded machine stretches or cuts short."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


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


def into_their_work(p: subprocess.Popen, workers: list[int]) -> None:
    """Until each of `workers` has spent a tenth of a second of CPU (past its start, into its
    tasks), or `p` ended."""
    deadline = time.monotonic() + 60
    while (workers and min(map(cpu_seconds, workers)) < 0.1 and all(os.path.exists(f"/proc/{w}") for w in workers)
           and p.poll() is None and time.monotonic() < deadline):
        time.sleep(0.005)


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
