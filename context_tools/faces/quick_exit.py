"""Leaving a process without tearing the interpreter down.

A normal exit frees every module and object one by one, which grows with what the process
held (a large index's objects): work no one waits for. The exit handlers still
run and the standard streams are flushed, as at a normal exit; with other threads alive
the exit stays normal, since it would wait for them, unless the process has said it leaves
them (`leave_threads_at_exit`: an MCP server's).

multiprocessing's temporary folder (`/tmp/pymp-*`, where a forkserver's socket lives) is
removed here, not by multiprocessing's own exit handler (`temp_folder_removed`), and by every
other way out of the process too (`standard_streams.leave`), which skips the handlers.
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
    temp_folder_removed()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing left to tell
            pass
    os._exit(code)


def temp_folder_removed() -> None:
    """Remove multiprocessing's temporary folder, if this process made one, and take its
    removal from multiprocessing's exit handler. That handler lists the folder, which needs a
    directory stream's buffer: under a `ulimit -v` with no room left, the listing fails ENOMEM
    and the handler prints its traceback. Where it fails so here, what multiprocessing put
    there (the forkserver's socket) is removed by name, which needs no room; a folder that
    still stands is one `out_of_memory` line. Another failure (the folder gone, or not ours to
    remove) says nothing: the system's temporary folder is swept by its own rules."""
    util = sys.modules.get("multiprocessing.util")
    if util is None:  # never loaded: it made no folder
        return
    for finalizer in list(util._finalizer_registry.values()):
        try:
            if finalizer._callback is not util._remove_temp_dir:
                continue
            folder = finalizer._args[1]
        except (AttributeError, IndexError, TypeError):  # run meanwhile by another thread's leaving
            continue
        try:
            finalizer()  # leaves multiprocessing's list first: its exit handler does not try again
        except (OSError, MemoryError) as exc:
            _removed_by_name(folder, exc)


def _removed_by_name(folder: str, listing: BaseException) -> None:
    forkserver = sys.modules.get("multiprocessing.forkserver")
    socket = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_address", None)
    try:
        if isinstance(socket, str) and os.path.dirname(socket) == folder:
            try:
                os.unlink(socket)
            except FileNotFoundError:
                pass
        os.rmdir(folder)
        return
    except FileNotFoundError:
        return
    except (OSError, MemoryError):
        pass
    try:
        from indexer.contract.memory_limit import memory_fault

        fault = memory_fault(listing, f"removing its temporary folder {folder} as it leaves")
        if fault is not None:
            print(f"rennet: {fault.code}: {fault.message}", file=sys.stderr, flush=True)
    except (OSError, ValueError, MemoryError):  # stderr gone, or no room even for the line
        pass
