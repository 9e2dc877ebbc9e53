"""How the indexer starts its extraction workers: forked, unless the host runs other threads.

A child forked from a process with other threads inherits every lock those threads held at
that instant, never released in it, and can wait on one forever. A host that indexes while
other threads run (the MCP server) calls `from_forkserver()` once at start; its workers then
come from a forkserver, a clean single-threaded process. Kept apart from `indexer.build` so
the host can choose at start without loading the indexer.
"""

from __future__ import annotations

_method = "fork"


def method() -> str:
    return _method


def from_forkserver() -> None:
    """Workers from a forkserver from now on. The host's main module must import without side
    effects (`python -m context_tools.faces.cli`, the `rennet` script): every child imports it."""
    global _method
    import multiprocessing

    multiprocessing.get_context("forkserver").set_forkserver_preload(["indexer.build", "indexer.extract.blob"])
    _method = "forkserver"
