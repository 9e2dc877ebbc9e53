"""Another indexer at work: the write lock of a store held from a thread of the test's process
(flock locks are per open file, so the code under test sees it as another process's)."""

from __future__ import annotations

import threading
from pathlib import Path

from indexer.store.database import Store, WriteLock


def hold_store(home: Path, seconds: float, until: threading.Event | None = None) -> threading.Thread:
    """The store at `home` (made when absent) held for `seconds` from now, or until `until` is
    set if that comes first; the thread holding it, to join. Returns once the lock is held."""
    Store.open(home).close()
    held = threading.Event()

    def hold() -> None:
        with WriteLock(home):
            held.set()
            (until or threading.Event()).wait(seconds)

    holder = threading.Thread(target=hold)
    holder.start()
    if not held.wait(30):
        raise RuntimeError(f"the write lock of {home} was not taken")
    return holder
