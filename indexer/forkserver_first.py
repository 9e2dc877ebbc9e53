"""The first module of the forkserver's preload (`worker_start.from_forkserver`), imported
there alone: from here on the forkserver ignores a Ctrl-C, and a child it forks for a host
that has gone says nothing.

The forkserver ignores SIGINT itself only once its preload is imported, a second or more of
work; a Ctrl-C sent to the terminal's whole group meanwhile printed its traceback beside the
host's own line. Its workers ignore it too (`start_as_child`); the host decides what stops.

A child the forkserver forks reads what to run from its host; a host stopped meanwhile (a
signal to the group, a client ending its server) leaves that read at its end, or finds the
pool's semaphores already unlinked by the host's exit, and multiprocessing hands the error
to `sys.excepthook`, whose traceback reached the client's log. No one is left to tell, so
such an error ends the child without a word.

An extraction worker (named `worker_start.WORKER_NAME`) runs nothing of its host's main module,
which multiprocessing would run again in each child it starts so (a script's, as `__mp_main__`):
a worker needs only the indexer's modules, a script that indexes at its top level without a
`__main__` guard would index again in each, and a large one would cost each worker its imports.
"""

import importlib
import os
import signal
import sys
from multiprocessing import spawn, synchronize
from types import TracebackType
from typing import Mapping

from indexer.contract.memory_limit import one_malloc_arena
from indexer.worker_start import WORKER_NAME

signal.signal(signal.SIGINT, signal.SIG_IGN)
one_malloc_arena()  # its workers fork from it, under the host's `ulimit -v`

_HOST_GONE = (EOFError, BrokenPipeError, ConnectionResetError)
_SEMAPHORES = os.path.normcase(synchronize.__file__)
_default_hook = sys.excepthook


def _semaphore_gone(kind: type[BaseException], traceback: TracebackType | None) -> bool:
    """A semaphore the host named is gone only when the host has ended: it unlinks its
    semaphores as it exits. Any other missing file is a fault worth its traceback."""
    if not issubclass(kind, FileNotFoundError) or traceback is None:
        return False
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    code = traceback.tb_frame.f_code
    return code.co_name == "__setstate__" and os.path.normcase(code.co_filename) == _SEMAPHORES


def _quiet_when_host_gone(kind: type[BaseException], value: BaseException, traceback: TracebackType | None) -> None:
    if not issubclass(kind, _HOST_GONE) and not _semaphore_gone(kind, traceback):
        _default_hook(kind, value, traceback)


sys.excepthook = _quiet_when_host_gone


_MAIN = ("init_main_from_name", "init_main_from_path")
_prepare = spawn.prepare


def _prepare_worker(data: Mapping[str, object]) -> None:
    if data.get("name") == WORKER_NAME:
        data = {key: value for key, value in data.items() if key not in _MAIN}
    _prepare(data)


spawn.prepare = _prepare_worker  # each child the forkserver forks looks it up as it starts


def preload(*modules: str) -> None:
    """Import `modules` ahead in the forkserver, each as far as it goes. multiprocessing's own
    preload lets only an ImportError pass: any other (a MemoryError under the host's `ulimit
    -v`) ended the forkserver with its traceback on the host's stderr, and the host's next
    workers with a bare EOFError. A module not imported here is imported by each worker that
    needs it, where a failure is the worker's, typed as its host reports it."""
    for name in modules:
        try:
            importlib.import_module(name)
        except BaseException:  # nothing is lost: the workers import it again
            pass
