"""A child the forkserver forks for a host that has gone ends without a word; any other
error it meets still prints its traceback. Run in an interpreter of its own: the module
under test changes that interpreter's SIGINT and `sys.excepthook`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.test_context_world import ROOT, cli_env

_MEET = """
import os, pickle, sys
from multiprocessing import synchronize
import indexer.forkserver_first

def meet(step):
    try:
        step()
    except BaseException:
        sys.excepthook(*sys.exc_info())
    sys.stderr.write("--\\n")

def rebuild_gone_semaphore():
    # What a child unpickles for a pool's lock: the named semaphore its host made, which
    # the host unlinked as it exited.
    name = f"/rennet-test-gone-{os.getpid()}"
    synchronize.Lock.__new__(synchronize.Lock).__setstate__((0, synchronize.SEMAPHORE, 1, name))

def read_from_gone_host():
    read, write = os.pipe()
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        pickle.load(pipe)

def open_missing_file():
    open(f"/nonexistent-{os.getpid()}")

def fail_otherwise():
    raise ValueError("a fault of our own")

class Elsewhere:
    def __setstate__(self, state):
        open(f"/nonexistent-{os.getpid()}")

def missing_file_in_another_setstate():
    # a missing file met unpickling something other than the host's semaphore: a fault
    Elsewhere().__setstate__(None)
"""


def _stderr_of(steps: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _MEET + textwrap.dedent(steps)], cwd=ROOT, env=cli_env(None),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stderr.split("--\n")[:-1]


def test_a_host_gone_before_its_child_read_what_to_run_leaves_the_child_silent():
    said = _stderr_of("""
        meet(rebuild_gone_semaphore)
        meet(read_from_gone_host)
    """)
    assert said == ["", ""]


def test_any_other_error_in_a_child_still_prints_its_traceback():
    said = _stderr_of("""
        meet(open_missing_file)
        meet(fail_otherwise)
        meet(missing_file_in_another_setstate)
    """)
    assert said[0].startswith("Traceback") and "FileNotFoundError" in said[0]
    assert said[1].startswith("Traceback") and "ValueError: a fault of our own" in said[1]
    assert said[2].startswith("Traceback") and "FileNotFoundError" in said[2] and "__setstate__" in said[2]


def test_the_forkserver_ignores_a_ctrl_c_once_its_first_preload_is_in():
    said = _stderr_of("""
        import signal
        sys.stderr.write(f"{signal.getsignal(signal.SIGINT) is signal.SIG_IGN}\\n--\\n")
    """)
    assert said == ["True\n"]


def test_a_preload_imports_each_module_past_one_that_fails():
    """`preload` imports each module as far as it goes: one that fails leaves the next still
    imported ahead."""
    said = _stderr_of("""
        assert "colorsys" not in sys.modules
        indexer.forkserver_first.preload("indexer.no_such_module", "colorsys")
        sys.stderr.write(f"{'colorsys' in sys.modules}\\n--\\n")
    """)
    assert said == ["True\n"]
