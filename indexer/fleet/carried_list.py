"""A list of a bundle's record kept as the msgpack it came in, decoded a block at a time.

Decoded whole, a record's files (edges, unresolved imports, packages, dependencies, entry
points) come to several times their bytes (a struct, a slot and a string object a field, where
the bytes hold a few characters), and how many a record holds is its maker's choice within the
caps. Kept as a view of the inflated body and the offset of each item (four bytes an item),
what an import holds of them is their bytes and one block decoded: the checks, the fingerprint
and the stored form each read them a block at a time (the fingerprint orders the manifests'
lists by their keys alone: indexer/store/canonical.py `_in_order`).
"""

from __future__ import annotations

from array import array
from itertools import accumulate
from typing import Generic, Iterator, Sequence, TypeVar, overload

import msgspec

from indexer.fleet.msgpack_heads import length
from indexer.model import LIST_BLOCK
from indexer.store.records import ARRAY_HEAD_BYTES as _ARRAY_HEAD
from indexer.store.records import array_head

T = TypeVar("T")

_decode_raws = msgspec.msgpack.Decoder(list[msgspec.Raw]).decode


class CarriedList(Sequence[T], Generic[T]):
    """The items of the msgpack array `raw` (a view of a bundle's inflated body), decoded
    anew on each read by `decode` (a decoder of a list of them). Only the items' bounds are
    read here: a read may raise msgspec's errors until every item has been read once (the
    bundle's checks read them all, in order, before anything else does).

    `smallest`: the fewest bytes an item can take (its struct's with every field empty: each is
    required). An array of fewer bytes than its count needs is refused before its bounds are
    read, which holds a small object an item for a moment: at most a few times the items' bytes."""

    def __init__(self, raw: msgspec.Raw | memoryview, decode: msgspec.msgpack.Decoder[list[T]],
                 smallest: int) -> None:
        view = memoryview(raw)
        if not view or not (0x90 <= view[0] <= 0x9F or view[0] in _ARRAY_HEAD):
            raise msgspec.ValidationError("Expected `array`")
        self._items = view[_ARRAY_HEAD.get(view[0], 1):]
        if len(self._items) < length(view) * smallest:
            raise msgspec.ValidationError(f"an array of {length(view)} items in {len(self._items)} bytes")
        self._decode = decode.decode
        # each item's end, from the lengths of its undecoded values: a Raw an item, let go at once
        self._ends = array("I", accumulate(map(len, _decode_raws(view)), initial=0))
        if self._ends[-1] != len(self._items):
            raise msgspec.ValidationError("array items do not fill the array")

    def __len__(self) -> int:
        return len(self._ends) - 1

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            stop = max(start, stop)
            return self._block(start, stop)
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("carried list index out of range")
        return self._block(index, index + 1)[0]

    def _block(self, start: int, stop: int) -> list[T]:
        if start == stop:
            return []
        return self._decode(array_head(stop - start) + self._items[self._ends[start]:self._ends[stop]])

    def __iter__(self) -> Iterator[T]:
        for start in range(0, len(self), LIST_BLOCK):
            yield from self[start:start + LIST_BLOCK]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)) or len(other) != len(self):
            return False
        return all(self[i:i + LIST_BLOCK] == list(other[i:i + LIST_BLOCK]) for i in range(0, len(self), LIST_BLOCK))

    __hash__ = None  # type: ignore[assignment]  # compared by its items, as a list is

    def __repr__(self) -> str:
        return f"CarriedList({len(self)} items)"
