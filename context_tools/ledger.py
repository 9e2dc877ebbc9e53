"""Receipts of calls, appended to a bounded, append-only ledger in the store.

Each call on any face appends one `Receipt` to `store.kv("ledger")` under a key that
sorts by time (8-byte big-endian nanoseconds, 4-byte pid, 2-byte sequence), so
concurrent processes never overwrite each other. Receipts are never edited; the oldest
are dropped once the ledger holds more than `MAX_RECEIPTS` (checked on a process's
first append and every `TRIM_EVERY` appends after).
"""

from __future__ import annotations

import itertools
import os
import time
from typing import Any, Iterator

import msgspec

MAX_RECEIPTS = 10_000
TRIM_EVERY = 64
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
_appends = itertools.count()
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Receipt)


def _key() -> bytes:
    return time.time_ns().to_bytes(8, "big") + (os.getpid() & 0xFFFFFFFF).to_bytes(4, "big") + \
        (next(_seq) & 0xFFFF).to_bytes(2, "big")


def append(store: Any, receipt: Receipt) -> None:
    kv = store.kv(KV_NAME)
    kv.put(_key(), _encoder.encode(receipt))
    if next(_appends) % TRIM_EVERY == 0:
        trim(store)


def trim(store: Any, keep: int = MAX_RECEIPTS) -> None:
    kv = store.kv(KV_NAME)
    keys = [k for k, _ in kv.items()]
    for key in keys[: max(len(keys) - keep, 0)]:
        kv.delete(key)


def receipts(store: Any) -> Iterator[Receipt]:
    """Oldest first."""
    for _, value in store.kv(KV_NAME).items():
        yield _decoder.decode(value)
