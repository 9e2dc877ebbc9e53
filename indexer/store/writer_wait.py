"""Waiting for the indexer that holds a store's write lock, instead of failing at once.

A read of a revision another process (or another call of this server) is indexing waits for
that indexer to finish, bounded by WAIT_SECONDS; after it the read gets the typed `busy` with a
retry hint, never `store_locked`.
"""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from indexer.contract.errors import Busy, StoreLocked

T = TypeVar("T")
WAIT_SECONDS = 120.0
_POLL = 0.1
# How often a wait tells its caller it still waits: an MCP client resets its request timeout
# on each progress notification, and a wait can outlast that timeout.
TICK_SECONDS = 2.0
# Told the seconds waited so far: at once, then every TICK_SECONDS
Tick = Callable[[float], None]
# What the waiting thread lets go of while it waits, taken back once the wait ends: a server's
# call slot, which a call that works needs more than one that sleeps (`setting_aside`).
Aside = Callable[[], AbstractContextManager[None]]
_aside: ContextVar[Aside | None] = ContextVar("rennet_wait_aside", default=None)


@contextmanager
def setting_aside(aside: Aside | None) -> Iterator[None]:
    """Every wait for another indexer in this thread, within, runs inside `aside()`."""
    token = _aside.set(aside)
    try:
        yield
    finally:
        _aside.reset(token)


def writer_active(home: Path) -> bool:
    """Does an indexer hold the write lock of the store at `home` now?"""
    try:
        fd = os.open(home / "write.lock", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def wait_for_writer(home: Path, seconds: float | None = None, tick: Tick | None = None) -> bool:
    """True once no indexer holds the write lock (at once when none does), False after `seconds`
    (default WAIT_SECONDS); `tick` is told how long it has waited while it waits, and what the
    thread set aside (`setting_aside`) is let go meanwhile."""
    start = time.monotonic()
    deadline = start + (WAIT_SECONDS if seconds is None else seconds)
    if not writer_active(home):
        return True
    aside = _aside.get()
    with aside() if aside is not None else nullcontext():
        told = None
        while writer_active(home):
            now = time.monotonic()
            if now >= deadline:
                return False
            if tick is not None and (told is None or now - told >= TICK_SECONDS):
                told = now
                tick(now - start)
            time.sleep(_POLL)
    return True


def busy(home: Path, what: str, seconds: float) -> Busy:
    return Busy(f"{what}: the store at {home} is being written by another indexer and was still busy after "
                f"{seconds:.0f} s; retry in a minute")


def waiting(home: Path, attempt: Callable[[], T], what: str, seconds: float | None = None,
            tick: Tick | None = None) -> T:
    """`attempt()`, and again each time it met another indexer's write lock and that indexer
    finished within `seconds` (default WAIT_SECONDS) in all; `busy` when one is still writing
    after them. `tick`: as `wait_for_writer` tells it."""
    seconds = WAIT_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    while True:
        try:
            return attempt()
        except StoreLocked:
            if not wait_for_writer(home, max(deadline - time.monotonic(), 0.0), tick):
                raise busy(home, what, seconds) from None
