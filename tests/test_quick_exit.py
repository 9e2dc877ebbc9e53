"""A process that leaves by quick_exit (the `rennet` console script, the benchmark's probe)
must leave as a normal exit would: its code, every byte of output, its exit handlers run;
and with another thread still working, wait for it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(body: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # output buffered, as usual
    return subprocess.run([sys.executable, "-c", textwrap.dedent(body)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


def test_the_code_the_output_and_the_exit_handlers_are_kept():
    done = _run("""
        import atexit, sys
        from context_tools.faces.quick_exit import quick_exit
        atexit.register(lambda: print("handler ran", file=sys.stderr))
        sys.stdout.write("x" * 200000)  # more than the buffer: written through
        sys.stdout.write("end")  # still buffered when leaving
        sys.stderr.write("last words")
        quick_exit(3)
    """)
    assert done.returncode == 3
    assert done.stdout == "x" * 200000 + "end"
    assert done.stderr == "last wordshandler ran\n"


def test_a_thread_still_working_is_waited_for():
    done = _run("""
        import threading, time
        from context_tools.faces.quick_exit import quick_exit
        def late():
            time.sleep(0.3)
            print("thread done", flush=True)
        threading.Thread(target=late).start()
        quick_exit(0)
    """)
    assert done.returncode == 0
    assert done.stdout == "thread done\n"
