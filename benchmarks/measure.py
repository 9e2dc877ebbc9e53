"""Run a child process and measure it: wall time, the peak RSS of its largest process
(wait4 rusage, which covers the descendants it reaped) and the peak proportional set size
(PSS) of its whole process tree, sampled from /proc so forked workers are not double counted.
PSS counts the store's pages the processes map (LMDB reads and writes through a memory map):
the anonymous part alone (`Pss_Anon`) is what the processes allocated themselves."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SAMPLE_SECONDS = 0.2  # coarse on purpose: the sampler shares the 2 cores with what it measures


@dataclass
class Measured:
    returncode: int
    wall: float
    max_rss: int  # bytes, largest single process of the tree
    peak_pss: int  # bytes, largest sampled sum over the tree (0 when /proc is not readable)
    stdout: str
    stderr: str
    peak_anon: int = 0  # bytes, peak_pss's anonymous part (the heaps, not the store's mapped pages)
    cpu: float = 0.0  # user + system seconds of the process and the descendants it reaped (wait4)


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def process_cpu(pid: int, reaped: bool = False) -> float:
    """User + system CPU seconds of a process, every thread of it, as /proc says; with
    `reaped`, those of the children it waited for too. OSError or ValueError where the
    process is gone or its line unreadable."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15 if reaped else 13]) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    """The live children of `pid`, as /proc lists them now."""
    return _children().get(pid, [])


def command_line(pid: int) -> bytes:
    """The process's command line, its arguments NUL-separated; b"" once it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _pss(pid: int) -> tuple[int, int]:
    """The process's PSS and its anonymous part, in bytes; zeros when /proc does not say."""
    total = anon = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                total = int(line.split()[1]) * 1024
            elif line.startswith("Pss_Anon:"):
                anon = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return total, anon


def tree_pss(root: int) -> tuple[int, int]:
    """The PSS of the process tree under `root`, and its anonymous part."""
    kids = _children()
    total = anon = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        pss, pss_anon = _pss(pid)
        total += pss
        anon += pss_anon
        stack.extend(kids.get(pid, ()))
    return total, anon


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
        sample: bool = True, timeout: float | None = None) -> Measured:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        peak = peak_anon = 0
        done = threading.Event()

        def sampler() -> None:
            nonlocal peak, peak_anon
            while not done.wait(SAMPLE_SECONDS):
                pss, anon = tree_pss(proc.pid)
                peak, peak_anon = max(peak, pss), max(peak_anon, anon)

        thread = threading.Thread(target=sampler, daemon=True) if sample else None
        if thread:
            thread.start()
        deadline = None if timeout is None else started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.perf_counter() > deadline:
                proc.kill()
            time.sleep(0.005)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        if thread:
            thread.join()
        out.seek(0)
        err.seek(0)
        return Measured(proc.returncode, wall, usage.ru_maxrss * 1024, peak, out.read(), err.read(), peak_anon,
                        usage.ru_utime + usage.ru_stime)
