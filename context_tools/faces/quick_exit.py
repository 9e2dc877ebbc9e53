"""Leaving a process without tearing the interpreter down.

A normal exit frees every module and object one by one, which grows with what the process
held (a large index's objects): work no one waits for. The exit handlers still
run and the standard streams are flushed, as at a normal exit; with other threads alive
the exit stays normal, since it would wait for them.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def quick_exit(code: int) -> NoReturn:
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing left to tell
            pass
    os._exit(code)
