"""How the indexer starts its extraction workers: forked, unless the host runs other threads.

A child forked from a process with other threads inherits every lock those threads held at
that instant, never released in it, and can wait on one forever. Workers are forked only
when the process has no other thread as they start (`method`), counted by the kernel since a
C library's threads hold locks too; otherwise they come from a forkserver, a clean
single-threaded process. A host that indexes more than once while other threads run (the
MCP server) calls `from_forkserver()` once at start, so that its forkserver sets every
language's extraction up once (`indexer.extract.prepared`) and no worker compiles a query
again. Kept apart from `indexer.build` so the host can choose at start without loading the
indexer.
"""

from __future__ import annotations

import os
from typing import Sequence

# The name of each extraction worker, by which the forkserver knows it runs none of the host's
# main module (`indexer.forkserver_first`)
WORKER_NAME = "rennet-worker"
_method = "fork"  # the host's choice: "fork" leaves it to the threads found as workers start

# What the forkserver's preload sets up, told through its environment (it is a new
# interpreter): the languages named, comma-separated; else those the HEAD trees of the
# repositories holding (or, for a folder in none, under) the folders of ROOTS_ENV name (a JSON
# list); else every language.
PREPARE_ENV = "RENNET_PREPARE_LANGUAGES"
ROOTS_ENV = "RENNET_PREPARE_ROOTS"


def method() -> str:
    """How workers started now start: "forkserver" when the host chose it or this process runs
    another thread, else "fork"."""
    return "forkserver" if _method == "forkserver" or not alone() else "fork"


def prepared() -> bool:
    """Whether the host chose the forkserver (`from_forkserver`), whose preload compiles the
    queries ahead."""
    return _method == "forkserver"


def alone() -> bool:
    """Whether this process runs one thread: the kernel's count (`threading` knows only the
    threads Python started, not those of a C library, OpenBLAS's or a driver's). Where the
    kernel does not tell (no `/proc`: macOS, whose system libraries run threads of their own),
    a fork is never taken for safe."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def wait_gone(native_ids: Sequence[int], deadline: float) -> None:
    """Return once the threads of `native_ids`, ended, have left the kernel's count of this
    process's threads (`alone`), or at `deadline` (`time.monotonic()`)."""
    import time

    for tid in native_ids:
        while os.path.exists(f"/proc/self/task/{tid}") and time.monotonic() < deadline:
            time.sleep(0.0005)


# Imported by the forkserver a threaded caller's workers come from (`for_threads`): those a
# forked worker has from the indexer's process before it forks, without the queries compiled.
THREADED_PRELOAD = ("indexer.forkserver_first", "indexer.forkserver_threads")
_for_threads = False


def for_threads() -> None:
    """Have the forkserver, when this call starts it, import what a worker needs
    (`THREADED_PRELOAD`), beside any preload the caller set for its own. For workers started
    from it because other threads run, where the host did not choose it (`from_forkserver`):
    unlike a host's, it compiles no query ahead, each worker compiling those of the languages
    it meets, as a forked worker does."""
    global _for_threads
    if prepared() or _for_threads:
        return
    _for_threads = True
    from multiprocessing import forkserver

    # The caller's own kept (the forkserver is one for the whole process), but for its main
    # module, multiprocessing's default: run again there, a script indexing at its top level
    # without a `__main__` guard would index again.
    theirs = [m for m in getattr(forkserver._forkserver, "_preload_modules", ())
              if m not in THREADED_PRELOAD and m != "__main__"]
    forkserver.set_forkserver_preload([*THREADED_PRELOAD, *theirs])


def from_forkserver(roots: Sequence[str] = ()) -> None:
    """Workers from a forkserver from now on; its preload sets up the languages the HEAD trees
    of the repositories holding `roots`, or under a root in none, name (none given: every
    language). The host calls this at its start, before it runs other threads: the roots reach
    the forkserver in this process's environment, which must not change while another thread
    may read it. The forkserver starts with the first workers or `start_soon`, not here: its
    preload costs the host's start nothing."""
    global _method
    import json
    import multiprocessing

    if roots:
        os.environ[ROOTS_ENV] = json.dumps(list(roots))  # ASCII: a name's lone surrogates escaped
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        ["indexer.forkserver_first", "indexer.forkserver_host"])
    _method = "forkserver"


def quiet_tracker() -> None:
    """Keep multiprocessing's resource tracker from warning, at the host's end, of the
    semaphores a killed host's pool leaves: it removes them all the same, and the warning
    reached the terminal, or the log of the agent that ran the server, for nothing anyone did
    wrong. Called before the tracker starts: it takes its warning filters from this
    process's options."""
    import sys

    quiet = "ignore::UserWarning:multiprocessing.resource_tracker"
    if quiet not in sys.warnoptions:
        sys.warnoptions.append(quiet)


_starting = False


def start_soon() -> None:
    """Start the forkserver now, in the background, rather than with the first workers (once;
    for a forkserver host): a call about to index has its preload run beside its own first
    steps. Not at the host's start: the preload's CPU would slow the client's handshake."""
    global _starting
    if _method != "forkserver" or _starting:
        return
    _starting = True
    quiet_tracker()
    import signal
    import threading
    from multiprocessing import forkserver

    from indexer.extract.child_process import HELD

    def start() -> None:
        # Born with what `fork_pool` holds blocked, as the forkserver and the resource tracker
        # are when a pool starts them: a SIGHUP to the host's group ended the tracker (which
        # ignores SIGINT and SIGTERM only), and the host's next use of it relaunched it with
        # a warning on stderr. The mask is this thread's, which ends here.
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
        tracker_first()
        forkserver.ensure_running()

    from indexer.contract.memory_limit import start_thread

    try:
        start_thread(threading.Thread(target=start, name="rennet-forkserver", daemon=True))
    except RuntimeError:  # no room for its stack or start (a `ulimit -v`): the first pool starts it, or says why not
        _starting = False


def tracker_first() -> None:
    """Start multiprocessing's resource tracker, if it is not running, holding the signals the
    calling thread holds (`HELD`) again once it has started. Its start unblocks SIGINT and
    SIGTERM in the calling thread as it ends, whatever the thread held before: a forkserver
    started next was born with them open, and a Ctrl-C to the group while it imported its
    preload printed that process's KeyboardInterrupt traceback on the host's stderr."""
    import signal
    from multiprocessing import resource_tracker

    from indexer.extract.child_process import HELD

    held = HELD & signal.pthread_sigmask(signal.SIG_BLOCK, ())
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
