"""The calls that may index which an MCP server has in flight, counted as they arrive, so a read
sent beside one (an agent's parallel calls) waits for it instead of answering `not_indexed`.

A read that finds no snapshot waits for an indexer at work (indexer.store.writer_wait), but an
index call is seen as one only once its thread reaches the indexer, after imports a first call
pays; a read sent in the same breath can get there first. The server counts an index call from
the moment it reads the request, in the order requests come, so a read that found nothing
waits for every index call that was in flight then, and asks once more.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from context_tools.faces.argument_bounds import PATH_CHARS
from indexer.store.writer_wait import TICK_SECONDS, deadline


class IndexCalls:
    """Calls in flight that may index, by the repository they name (a path as the client gave
    it, resolved), each an event set when it ends: a read waits only for those of its own."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._open: dict[threading.Event, str] = {}
        self.ended = 0  # how many have ended: one that ended while a read looked may have written it

    def begin(self, repo: str) -> threading.Event:
        ended = threading.Event()
        with self._guard:
            self._open[ended] = repo
        return ended

    def end(self, ended: threading.Event) -> None:
        with self._guard:
            self._open.pop(ended, None)
            self.ended += 1
        ended.set()

    def in_flight(self, repo: str) -> list[threading.Event]:
        with self._guard:
            return [ended for ended, named in self._open.items() if named == repo]


def repository_named(arguments: object) -> str:
    """The repository a call's arguments name, as a key of `IndexCalls`: its path resolved
    (the server's folder when none is named); a workspace by its name."""
    import os

    given = arguments.get("repo") if isinstance(arguments, dict) else None
    workspace = arguments.get("workspace") if isinstance(arguments, dict) else None
    if isinstance(workspace, str) and given is None:
        return "workspace:" + workspace
    if not isinstance(given, str) or not given:
        return os.path.realpath(".")
    if len(given) > PATH_CHARS:  # refused as input later: not resolved on the event loop
        return given[:PATH_CHARS]
    try:
        return os.path.realpath(given)
    except ValueError:  # a NUL, a lone surrogate (no file system names it): refused as input later
        return given


def wait_for(calls: list[threading.Event], tick: Callable[[float], None] | None,
             seconds: float | None = None) -> bool:
    """True once every one of `calls` ended, False after `seconds` (default WAIT_SECONDS) or at
    the call's bound (`writer_wait.answering_within`); `tick` is told how long this has waited,
    at once and every TICK_SECONDS, as a wait for an indexer is told."""
    start = time.monotonic()
    end = deadline(seconds, start)
    if tick is not None and calls:
        tick(0.0)
    for ended in calls:
        while not ended.wait(min(TICK_SECONDS, max(end - time.monotonic(), 0.0))):
            if time.monotonic() >= end:
                return False
            if tick is not None:
                tick(time.monotonic() - start)
    return True
