"""Waiting for the indexer that holds a store's write lock, instead of failing at once.

A read of a revision another process (or another call of this server) is indexing waits for
that indexer to finish, bounded by WAIT_SECONDS; after it the read gets the typed `busy` with a
retry hint, never `store_locked`. A server bounds its calls tighter (`answering_within`): a
client's request timeout must not fire before the call answers `busy`.
"""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import Callable, NamedTuple, TypeVar

from indexer.contract.errors import Busy, StoreLocked
from indexer.contract.scoped import scoped

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


class CallBound(NamedTuple):
    """When the call this thread serves must have ended its waits (`time.monotonic()`), the
    seconds it was given in all, which a retry of the call is given again, and when it came."""

    until: float
    seconds: float
    came: float


_call: ContextVar[CallBound | None] = ContextVar("rennet_wait_call", default=None)


def answering_within(seconds: float, start: float) -> AbstractContextManager[None]:
    """Every wait for another indexer in this thread, within, ends `seconds` after `start` at the
    latest (`time.monotonic()`, when the call came): the call's waits together, not each."""
    return scoped(_call, CallBound(start + seconds, seconds, start))


def call_bound() -> CallBound | None:
    """The bound `answering_within` set for this thread's waits, if any."""
    return _call.get()


def deadline(seconds: float | None = None, start: float | None = None) -> float:
    """When a wait starting at `start` (default now) for `seconds` (default WAIT_SECONDS) ends,
    the call's bound included."""
    start = time.monotonic() if start is None else start
    end = start + (WAIT_SECONDS if seconds is None else seconds)
    bound = _call.get()
    return end if bound is None else min(end, bound.until)


def setting_aside(aside: Aside | None) -> AbstractContextManager[None]:
    """Every wait for another indexer in this thread, within, runs inside `aside()`."""
    return scoped(_aside, aside)


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
    (default WAIT_SECONDS) or at the call's bound (`answering_within`), whichever comes first;
    `tick` is told how long it has waited while it waits, and what the thread set aside
    (`setting_aside`) is let go meanwhile."""
    start = time.monotonic()
    end = deadline(seconds, start)
    if not writer_active(home):
        return True
    aside = _aside.get()
    with aside() if aside is not None else nullcontext():
        told = None
        while writer_active(home):
            now = time.monotonic()
            if now >= end:
                return False
            if tick is not None and (told is None or now - told >= TICK_SECONDS):
                told = now
                tick(now - start)
            time.sleep(_POLL)
    return True


def retry_hint(seconds: float | None = None) -> str:
    """What a `busy` answer tells its caller to do: retry at once, since the retry itself waits for
    the indexer again, as long as this wait could (`seconds`, default WAIT_SECONDS, or the
    call's bound)."""
    bound = _call.get()
    again = WAIT_SECONDS if seconds is None else seconds
    if bound is not None:
        again = min(again, bound.seconds)
    return f"retry now: the retry waits up to {shown(again)} s for it to finish"


def shown(seconds: float) -> str:
    """Seconds as a message gives them: whole from 10 on, a tenth below."""
    return f"{seconds:.0f}" if seconds >= 10 else f"{round(seconds, 1):g}"


def waited_since(began: float) -> float:
    """The seconds a `busy` says its caller waited: since `began`, when the wait began, or within
    a server's call (`answering_within`) since the call came, if earlier: its bound counts from
    there, and its client has waited since, the call's other waits included."""
    bound = _call.get()
    return time.monotonic() - (began if bound is None else min(began, bound.came))


def busy(home: Path, what: str, began: float, seconds: float | None = None) -> Busy:
    """`busy` after a wait that began at `began` (`waited_since`), bounded by `seconds` (default
    WAIT_SECONDS) or the call's bound."""
    return Busy(f"{what}: the store at {home} is being written by another indexer, still at work after "
                f"{shown(waited_since(began))} s of waiting; {retry_hint(seconds)}")


def waiting(home: Path, attempt: Callable[[], T], what: str, seconds: float | None = None,
            tick: Tick | None = None) -> T:
    """`attempt()`, and again each time it met another indexer's write lock and that indexer
    finished within `seconds` (default WAIT_SECONDS) in all, or the call's bound
    (`answering_within`); `busy` when one is still writing after them. `tick`: as
    `wait_for_writer` tells it. `busy` tells the time since the first attempt began (or the call
    came, `waited_since`), the attempts between the waits counted: the time the caller has waited,
    which the bound counts too."""
    start = time.monotonic()
    end = deadline(seconds, start)
    while True:
        try:
            return attempt()
        except StoreLocked:
            began = time.monotonic()
            if not wait_for_writer(home, max(end - began, 0.0), tick):
                raise busy(home, what, start, seconds) from None
