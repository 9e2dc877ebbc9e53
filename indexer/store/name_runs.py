"""The name index's defined names as a few sorted runs of text: what a near-name search reads.

The `defs` table lists, under each name, the blobs that define it. A search for names close
to one that is not defined wants every name; reading `defs` key by key, and filtering its
rows by a snapshot's blobs, costs a fresh process more than the rest of its answer. The
`names` table holds the same keys, each once, written in the transaction that first puts the
key in `defs`: a run per transaction, its names sorted, the plain ones (ASCII, no line break:
a name is its key's bytes) joined by line breaks into one string that a reader searches in C
and slices, never making an object per name; the others (rare) kept as their keys. Which of them a
snapshot defines the reader asks `defs` for the few names it keeps.

Runs are merged as they are written, so that each is at least twice the size of the next
newer one: a store holds a few dozen runs at most, a name is rewritten a few dozen times at
most over the store's life, and what writes rewrite grows with the names they add, not with
the store (a re-index that defines a few hundred new names rewrites a few small runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from indexer.contract.encode import encode_msgpack
from indexer.contract.read_back import read_back

if TYPE_CHECKING:
    from indexer.store.database import Store


class NameRun(msgspec.Struct, array_like=True):
    """Names of the name index, sorted as Python sorts strings (by code point)."""

    size: int  # names in the run
    text: str  # the plain names, each between line breaks ("\na\nb\n"); "" when none
    others: list[bytes]  # keys of the other names, in the order of their decoded names

    def plain(self) -> list[str]:
        return self.text[1:-1].split("\n") if self.text else []


_encode = encode_run = encode_msgpack
decode_run = read_back(msgspec.msgpack.Decoder(NameRun).decode)


def name_of(key: bytes) -> str:
    """A key as `Snapshot.defined_names` lists it."""
    return key.decode("utf-8", "replace")


def is_plain(key: bytes) -> bool:
    """A key kept in a run's text: one line of ASCII, the name its bytes spell."""
    return bool(key) and key.isascii() and b"\n" not in key


def run_of(plain: list[str], others: list[bytes]) -> NameRun:
    """A run of sorted plain names and sorted other keys."""
    return NameRun(len(plain) + len(others), "\n" + "\n".join(plain) + "\n" if plain else "", others)


def _sorted_others(keys: list[bytes]) -> list[bytes]:
    return sorted(keys, key=lambda k: (name_of(k), k))


def add(txn, store: Store, keys: list[bytes]) -> None:
    """Inside the caller's write transaction: a run of `keys` (new to `defs`, distinct),
    merged with the newest runs while one of those is less than twice its size."""
    if not keys:
        return
    plain = sorted(k.decode("ascii") for k in keys if is_plain(k))
    others = _sorted_others([k for k in keys if not is_plain(k)])
    cursor = txn.cursor(db=store.names)
    positioned = cursor.last()
    number = int.from_bytes(cursor.key(), "big") + 1 if positioned else 1
    size = len(plain) + len(others)
    while positioned:
        last = decode_run(cursor.value())
        if last.size >= 2 * size:
            break
        plain = sorted(last.plain() + plain)  # two sorted runs: merged in one pass
        others = _sorted_others(last.others + others) if last.others else others
        size = len(plain) + len(others)
        cursor.delete()
        positioned = cursor.last()
    txn.put(number.to_bytes(8, "big"), _encode(run_of(plain, others)), db=store.names)


def load(store: Store) -> list[NameRun]:
    """Every run, oldest (largest) first."""
    with store.env.begin(db=store.names, buffers=True) as txn:
        return [decode_run(value) for value in txn.cursor().iternext(keys=False, values=True)]
