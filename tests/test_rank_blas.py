"""The rank never calls BLAS: numpy, imported after the indexer's rank package, starts no
OpenBLAS thread pool (indexer/rank/__init__.py), unless the host chose a size itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_THREADS = ("import os, sys; import indexer.rank, numpy; "
            "print(len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS', '-'))")


def _threads_after_numpy(**env: str) -> tuple[int, str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", _THREADS], env={**clean, **env, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), out[1]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="counts the process's threads in /proc; OpenBLAS starts none on one core")
def test_numpy_after_the_rank_package_starts_no_blas_threads_unless_the_host_asks():
    assert _threads_after_numpy() == (1, "1")
    assert _threads_after_numpy(OPENBLAS_NUM_THREADS="2") == (2, "2")  # the host's choice stands
    assert _threads_after_numpy(OMP_NUM_THREADS="2") == (2, "-")  # as OpenBLAS reads it
