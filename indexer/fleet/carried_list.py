"""A list or map of a bundle's record kept as the msgpack it came in, decoded a block at a time.

Decoded whole, a record's files (edges, unresolved imports, packages, dependencies, entry
points; its fan-in and rank, a path's entry each) come to several times their bytes (a struct,
a slot and a string object a field, where the bytes hold a few characters), and how many a
record holds is its maker's choice within the caps. Kept as a view of the inflated body and
where its entries end (four bytes an item of a list, a block of a map), what an import holds of
them is their bytes and one block decoded: the checks, the fingerprint and the stored form each
read them a block at a time (the fingerprint orders the manifests' lists by their keys alone:
indexer/store/canonical.py `_in_order`; the maps are read in their keys' order, the files').
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate
from operator import add
from typing import Generic, Iterator, Mapping, Sequence, TypeVar, cast, overload

import msgspec

from indexer.contract.msgpack_length import length
from indexer.model import LIST_BLOCK
from indexer.store.records import array_head, map_head

T = TypeVar("T")
V = TypeVar("V")

_decode_raws = msgspec.msgpack.Decoder(list[msgspec.Raw]).decode
_ARRAY = (0x90, 0xDC)  # a container's head: the fixed form's first byte, the 16-bit form's
_MAP = (0x80, 0xDE)


class _Carried:
    """The entries of a msgpack container (`raw`, a view of a bundle's inflated body) kept as
    their bytes after its head, and where every `step`th one ends: what a carried list and a
    carried map share. An entry is `width` msgpack values (a map's: its key and its value).
    Only the bounds are read here, a Raw a value held for a moment; a container too few bytes
    for its count (at `smallest` an entry) is refused before."""

    def __init__(self, raw: msgspec.Raw | memoryview, kind: tuple[int, int], width: int, smallest: int,
                 step: int) -> None:
        view = memoryview(raw)
        fixed, wide = kind
        what = ("array", "items") if kind == _ARRAY else ("map", "entries")
        if not view or not (fixed <= view[0] <= fixed | 0x0F or view[0] in (wide, wide + 1)):
            raise msgspec.ValidationError(f"Expected `{what[0]}`")
        self._entries = view[{wide: 3, wide + 1: 5}.get(view[0], 1):]
        self._count = length(view)
        if len(self._entries) < self._count * smallest:
            raise msgspec.ValidationError(f"a {what[0]} of {self._count} {what[1]} in {len(self._entries)} bytes")
        # a map's keys and values read as one array of them, its head made for it
        values = view if width == 1 else array_head(width * self._count) + self._entries
        lengths = map(len, _decode_raws(values))  # a Raw a value, let go at once
        if width == 2:
            lengths = map(add, lengths, lengths)  # a key's and its value's together
        ends = array("I", accumulate(lengths, initial=0))
        if ends[-1] != len(self._entries):
            raise msgspec.ValidationError("container entries do not fill the container")
        if step > 1:
            ends = ends[::step] + (ends[-1:] if self._count % step else array("I"))
        self._ends = ends

    def _bytes(self, start: int, stop: int, head: bytes) -> bytes:
        """The container of the entries between ends `start` and `stop`, under `head`."""
        return head + self._entries[self._ends[start]:self._ends[stop]]


class CarriedList(_Carried, Sequence[T], Generic[T]):
    """The items of the msgpack array `raw` (a view of a bundle's inflated body), decoded
    anew on each read by `decode` (a decoder of a list of them). Only the items' bounds are
    read here: a read may raise msgspec's errors until every item has been read once (the
    bundle's checks read them all, in order, before anything else does).

    `smallest`: the fewest bytes an item can take (its struct's with every field empty: each is
    required). An array of fewer bytes than its count needs is refused before its bounds are
    read, which holds a small object an item for a moment: at most a few times the items' bytes."""

    def __init__(self, raw: msgspec.Raw | memoryview, decode: msgspec.msgpack.Decoder[list[T]],
                 smallest: int) -> None:
        super().__init__(raw, _ARRAY, 1, smallest, 1)
        self._decode = decode.decode

    def __len__(self) -> int:
        return self._count

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
        return self._decode(self._bytes(start, stop, array_head(stop - start)))

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


_ABSENT = object()


class CarriedMap(_Carried, Mapping[str, V], Generic[V]):
    """The msgpack map `raw` (a view of a bundle's inflated body) of paths, a record's fan-in
    or rank, decoded a block of LIST_BLOCK entries at a time by `decode` (a decoder of such a
    map): where each block ends is kept (four bytes a block), and the first key of each once
    asked for, a compact index. Lookups assume the keys strictly increasing, as the files'
    paths they must be a part of (the bundle's checks hold them so, reading every entry once,
    before anything looks one up); the last block looked in is kept, so looking up the files'
    paths in order decodes each block once."""

    def __init__(self, raw: msgspec.Raw | memoryview, decode: msgspec.msgpack.Decoder[dict[str, V]]) -> None:
        super().__init__(raw, _MAP, 2, _SMALLEST_ENTRY, LIST_BLOCK)
        self._decode = decode.decode
        self._firsts: list[str] | None = None
        self._at = -1
        self._held: dict[str, V] = {}

    def _read(self, block: int) -> dict[str, V]:
        return self._decode(self._bytes(block, block + 1, map_head(min(LIST_BLOCK, self._count - block * LIST_BLOCK))))

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        for block in range(len(self._ends) - 1):
            yield from self._read(block)

    @overload
    def get(self, key: str, /) -> V | None: ...
    @overload
    def get(self, key: str, /, default: V | T) -> V | T: ...
    def get(self, key: str, /, default: object = None) -> object:
        found = self._held.get(key, _ABSENT)
        if found is not _ABSENT:
            return found
        if self._firsts is None:
            self._firsts = [next(iter(self._read(b))) for b in range(len(self._ends) - 1)]
        block = bisect_right(self._firsts, key) - 1  # the only block that may hold it
        if block < 0 or block == self._at:
            return default
        self._held, self._at = self._read(block), block
        return self._held.get(key, default)

    def __getitem__(self, key: str) -> V:
        found = self.get(key, _ABSENT)
        if found is _ABSENT:
            raise KeyError(key)
        return cast(V, found)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping) or len(other) != len(self):
            return False
        return all(other.get(key, _ABSENT) == value for block in range(len(self._ends) - 1)
                   for key, value in self._read(block).items())

    __hash__ = None  # type: ignore[assignment]  # compared by its entries, as a dict is

    def __repr__(self) -> str:
        return f"CarriedMap({len(self)} entries)"


_SMALLEST_ENTRY = 2  # an empty string's byte and a small number's
