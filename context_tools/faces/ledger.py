"""Receipts of calls, appended to a bounded, append-only ledger in the store.

Each call on any face appends one `Receipt` to `store.kv("ledger")` under a key that
sorts by time (8-byte big-endian nanoseconds, 4-byte pid, 2-byte sequence), so
concurrent processes never overwrite each other. Receipts are never edited; the oldest
are dropped once the ledger holds more than `MAX_RECEIPTS` (checked on one append in
`TRIM_EVERY`, drawn at random so short-lived CLI processes share the work).

The CLI and MCP faces write each receipt as its call ends. The in-process Python face
buffers receipts (at most `BATCH` of them or `BATCH_SECONDS` old) and writes them in one
transaction, so a warm call does not pay a disk sync; the buffer is flushed at exit and
before the ledger is read.
"""

from __future__ import annotations

import itertools
import os
import random
import threading
import time
from typing import TYPE_CHECKING, Iterator

import msgspec

from indexer.contract.encode import encode_json
from indexer.contract.read_back import read_back_json

if TYPE_CHECKING:
    import weakref

    from context_tools.faces.context import StoreHandle
    from indexer.store.database import Store

MAX_RECEIPTS = 10_000
TRIM_EVERY = 64
BATCH = 32
BATCH_SECONDS = 1.0
KV_NAME = "ledger"


class Receipt(msgspec.Struct, frozen=True):
    at: str  # UTC ISO-8601
    command: str
    surface: str
    input_digest: str
    outcome: str  # "ok" or the error code
    repo: str = ""
    oid: str = ""
    fingerprint: str = ""
    total: int | None = None
    returned: int | None = None
    truncated: bool | None = None
    spill: str = ""  # path of the spilled complete result, "" if none
    duration_ms: float = 0.0
    message: str = ""  # sanitized error message, "" on success


_seq = itertools.count()
_decode = read_back_json(msgspec.json.Decoder(Receipt).decode)  # of receipts the store holds


def _key() -> bytes:
    return time.time_ns().to_bytes(8, "big") + (os.getpid() & 0xFFFFFFFF).to_bytes(4, "big") + \
        (next(_seq) & 0xFFFF).to_bytes(2, "big")


def append(store: Store, receipt: Receipt) -> None:
    append_many(store, [receipt])


def append_many(store: Store, batch: list[Receipt]) -> None:
    if not batch or getattr(store, "readonly", False):
        return  # a store on a read-only file system answers reads and keeps no receipts
    store.kv(KV_NAME).put_many([(_key(), encode_json(r)) for r in batch])
    if any(random.randrange(TRIM_EVERY) == 0 for _ in batch):
        trim(store)


def _flush_quietly(ref: weakref.ref[Writer]) -> None:
    writer = ref()
    if writer is not None:
        try:
            writer.flush()
        except Exception:  # at exit there is no one left to tell
            pass


class Writer:
    """Receipts of one face on their way to the store: written at once, or batched."""

    def __init__(self, handle: StoreHandle, batched: bool) -> None:
        self.handle = handle
        self.batched = batched
        self._pending: list[Receipt] = []
        self._since = 0.0
        self._lock = threading.Lock()
        if batched:
            import atexit
            import weakref

            ref = weakref.ref(self)
            atexit.register(_flush_quietly, ref)

    def append(self, receipt: Receipt) -> None:
        if not self.batched:
            store = self.handle.store_if_any()
            if store is None:  # no store at a folder the user named: the receipt makes none
                return
            with self._lock:  # one write transaction at a time from this face's threads
                append(store, receipt)
            return
        if not self._pending:
            self._since = time.monotonic()
        self._pending.append(receipt)
        if len(self._pending) >= BATCH or time.monotonic() - self._since >= BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        store = self.handle.store_if_any() if pending else None
        if store is not None:
            append_many(store, pending)


def trim(store: Store, keep: int = MAX_RECEIPTS) -> None:
    kv = store.kv(KV_NAME)
    keys = [k for k, _ in kv.items()]
    drop = keys[: max(len(keys) - keep, 0)]
    delete_many = getattr(kv, "delete_many", None)  # one transaction when the store offers it
    if delete_many is not None:
        delete_many(drop)
    else:
        for key in drop:
            kv.delete(key)


def receipts(store: Store) -> Iterator[Receipt]:
    """Oldest first."""
    for _, value in store.kv(KV_NAME).items():
        yield _decode(value)
