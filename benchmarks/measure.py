"""Run a child process and measure it: wall time, the peak RSS of its largest process
(wait4 rusage, which covers the descendants it reaped) and the peak proportional set size
(PSS) of its whole process tree, sampled from /proc so forked workers are not double counted."""

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


def _pss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def tree_pss(root: int) -> int:
    kids = _children()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _pss(pid)
        stack.extend(kids.get(pid, ()))
    return total


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
        sample: bool = True, timeout: float | None = None) -> Measured:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        peak = 0
        done = threading.Event()

        def sampler() -> None:
            nonlocal peak
            while not done.wait(SAMPLE_SECONDS):
                peak = max(peak, tree_pss(proc.pid))

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
        return Measured(proc.returncode, wall, usage.ru_maxrss * 1024, peak, out.read(), err.read())
