"""Leaving a process without tearing the interpreter down.

A normal exit frees every module and object one by one, which grows with what the process
held (a large index's objects): work no one waits for. The exit handlers still
run and the standard streams are flushed, as at a normal exit; with other threads alive
the exit stays normal, since it would wait for them, unless the process has said it leaves
them (`leave_threads_at_exit`: an MCP server's).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

_THREADS_LEFT = [False]  # set once: the exit no longer waits for this process's other threads


def leave_threads_at_exit() -> None:
    """From now on this process's exit does not wait for its other threads. An MCP server's
    calls run in anyio's worker threads, which its event loop stops as it ends; short of
    memory it may end without, and an ended server whose exit waited for an idle worker
    never left, its client seeing no end."""
    _THREADS_LEFT[0] = True


def quick_exit(code: int) -> NoReturn:
    if threading.active_count() > 1 and not _THREADS_LEFT[0]:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing left to tell
            pass
    os._exit(code)
