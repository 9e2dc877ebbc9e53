"""The rank never calls BLAS: in the `rennet` script's process, numpy starts no OpenBLAS thread
pool (indexer.rank.hold_blas_pool), unless the host chose a size itself; a Python caller that
imports the indexer keeps its numpy as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_COUNT = "; import numpy; print(len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS', '-'))"
_HELD = "import os; from indexer.rank import hold_blas_pool; hold_blas_pool()" + _COUNT
_CALLER = "import os; import indexer.api, indexer.rank.graph" + _COUNT


def _threads(code: str, **env: str) -> tuple[int, str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), out[1]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="counts the process's threads in /proc; OpenBLAS starts none on one core")
def test_the_script_holds_the_pool_and_a_caller_keeps_its_own():
    assert _threads(_HELD) == (1, "1")
    assert _threads(_HELD, OPENBLAS_NUM_THREADS="2") == (2, "2")  # the host's choice stands
    assert _threads(_HELD, OMP_NUM_THREADS="2") == (2, "-")  # as OpenBLAS reads it
    threads, size = _threads(_CALLER)
    assert threads > 1 and size == "-"  # a library caller's numpy is not ours to size


def test_the_script_module_imports_no_numpy_before_it_holds_the_pool():
    code = "import sys, context_tools.faces.cli; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"
