"""How the indexer starts its extraction workers: forked, unless the host runs other threads.

A child forked from a process with other threads inherits every lock those threads held at
that instant, never released in it, and can wait on one forever. A host that indexes while
other threads run (the MCP server) calls `from_forkserver()` once at start; its workers then
come from a forkserver, a clean single-threaded process, which sets every language's
extraction up once (`indexer.extract.prepared`) so that no worker compiles a query again.
Kept apart from `indexer.build` so the host can choose at start without loading the indexer.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable

_method = "fork"

# Names the languages the forkserver's preload sets up, comma-separated (unset: every
# language): the forkserver is a new interpreter, and its environment is what reaches it.
PREPARE_ENV = "RENNET_PREPARE_LANGUAGES"


def method() -> str:
    return _method


def from_forkserver() -> None:
    """Workers from a forkserver from now on. The host's main module must import without side
    effects (`python -m context_tools.faces.cli`, the `rennet` script): every child imports it.
    The forkserver starts with the first workers, not here: its preload (every language's
    tags query compiled) costs the host's start nothing."""
    global _method
    import multiprocessing

    multiprocessing.get_context("forkserver").set_forkserver_preload(["indexer.build", "indexer.extract.prepared"])
    _method = "forkserver"


_starting = False


def start_soon(languages: Callable[[], Iterable[str] | None] | None = None) -> None:
    """Start the forkserver now, in the background, rather than with the first workers (once;
    for a forkserver host): a call about to index has its preload run beside its own first
    steps. Not at the host's start: the preload's CPU would slow the client's handshake.
    `languages`, called in the background first: the languages the preload sets up (None
    from it: every one); a language left out is compiled by each worker that meets it."""
    global _starting
    if _method != "forkserver" or _starting:
        return
    _starting = True
    import threading

    def start() -> None:
        from multiprocessing import forkserver

        named = languages() if languages is not None else None
        if named is not None:
            os.environ[PREPARE_ENV] = ",".join(sorted(named))
        forkserver.ensure_running()

    threading.Thread(target=start, name="rennet-forkserver", daemon=True).start()
