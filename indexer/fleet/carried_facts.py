"""A bundle's blob facts kept as the msgpack it carried them in, decoded a blob at a time.

Decoded all at once, a bundle's facts can come to tens of times their bytes (many tiny items:
a three-byte string becomes an 80-byte object), and which of them a bundle holds is its
maker's choice. Kept as bytes and decoded on each ask, never kept decoded, what an import holds
of them is their bytes and one blob's facts (bounded by facts_weight) at a time.

The fingerprint reads most files' facts only for a few fields, three times over (the file
lines, the symbol lines, the class hierarchy): it reads them as `CarriedSummary`, which leaves
the occurrences undecoded and decodes the symbols only when asked."""

from __future__ import annotations

from typing import Callable, Iterator, Mapping, Sequence, TypeVar

import msgspec

from indexer.contract.msgpack_length import length
from indexer.fleet.msgpack_heads import BIN_HEAD, NIL
from indexer.model import BlobFacts, Symbol
from indexer.store.facts_table import FactsSummary, FactsTable, Summary
from indexer.store.records import decode_core

_decode_symbols = msgspec.msgpack.Decoder(list[Symbol]).decode


class CarriedSummary(FactsSummary):
    """A summary of a blob's complete facts as a bundle carries them (symbols listed, not in
    `symbols_json`; occurrences listed, not counted): read as the fingerprint reads a
    BlobFacts, to the same bytes."""

    carried_symbols: msgspec.Raw = msgspec.field(default=NIL, name="symbols")
    carried_occurrences: msgspec.Raw = msgspec.field(default=NIL, name="occurrences")

    @property
    def symbols(self) -> list[Symbol]:
        return _decode_symbols(self.carried_symbols) if length(self.carried_symbols) else []

    def symbol_list(self) -> list[Symbol]:
        return self.symbols


_decode_summary = msgspec.msgpack.Decoder(CarriedSummary).decode


def carried_summary(raw: memoryview) -> CarriedSummary:
    summary = _decode_summary(raw)
    # as BlobFacts counts them: `symbol_total`, and the file line's `occurrence_count or len(occurrences)`
    summary.symbol_count = summary.symbol_count or length(summary.carried_symbols)
    summary.occurrence_count = summary.occurrence_count or length(summary.carried_occurrences)
    return summary


T = TypeVar("T", covariant=True)


class _Decoded(Mapping[bytes, T]):
    """facts key -> what `decode` makes of its bytes in `raw` (a msgpack bin each, its head
    checked before), made anew on every ask."""

    def __init__(self, raw: dict[bytes, msgspec.Raw], decode: Callable[[memoryview], T]) -> None:
        self.raw = raw
        self._decode = decode

    def __getitem__(self, key: bytes) -> T:
        return self._decode(content(self.raw[key]))

    def __contains__(self, key: object) -> bool:
        return key in self.raw

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)


def content(raw: msgspec.Raw) -> memoryview:
    """The bytes a facts entry's bin `raw` holds: read on every ask, so only its head's size is
    read here (`msgpack_heads.bin_content` checked the head where the bundle was read)."""
    view = memoryview(raw)
    return view[BIN_HEAD[view[0]]:]


class CarriedFacts(_Decoded[BlobFacts]):
    """facts key -> a blob's complete facts, decoded on every ask from `raw`: each the msgpack
    bin the bundle carries them in (msgpack of BlobFacts, checked to decode within bounds
    before), kept as msgspec made it, a small object over the inflated body (a view of it would
    take three times as much a blob: a bundle of many tiny files holds one a file)."""

    def __init__(self, raw: dict[bytes, msgspec.Raw] | None = None) -> None:
        super().__init__(raw if raw is not None else {}, decode_core)

    def add(self, other: CarriedFacts) -> None:
        """Hold `other`'s facts too (their bytes, not a copy)."""
        self.raw.update(other.raw)

    @property
    def summaries(self) -> Mapping[bytes, CarriedSummary]:
        return _Decoded(self.raw, carried_summary)


S = TypeVar("S", bound=Summary, covariant=True)


class ByPath(Mapping[str, S]):
    """path -> its facts, found by its facts key in the first of `sources` holding it and
    decoded there on each ask, in the order of `keys` (the record's files)."""

    def __init__(self, keys: Mapping[str, bytes], sources: Sequence[Mapping[bytes, S]]) -> None:
        self._keys = keys
        self._sources = sources

    def __getitem__(self, path: str) -> S:
        key = self._keys[path]
        for source in self._sources:
            if key in source:
                return source[key]
        raise KeyError(path)

    def __contains__(self, path: object) -> bool:
        key = self._keys.get(path) if isinstance(path, str) else None
        return key is not None and any(key in source for source in self._sources)

    def __iter__(self) -> Iterator[str]:
        return (path for path in self._keys if path in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def fingerprint_table(keys: Mapping[str, bytes], carried: Sequence[CarriedFacts],
                      stored: Mapping[bytes, FactsSummary] | None = None,
                      read_stored: Callable[[bytes], BlobFacts | None] | None = None) -> FactsTable:
    """path -> facts, as the fingerprint reads them: summaries of the `carried` facts (the
    first holding a key), else of `stored` ones; full facts decoded anew on each ask (from the
    carried bytes, else by `read_stored`), none kept."""

    def read(key: bytes) -> BlobFacts | None:
        for facts in carried:
            if key in facts:
                return facts[key]
        return read_stored(key) if read_stored is not None else None

    sources: list[Mapping[bytes, Summary]] = [c.summaries for c in carried]
    if stored is not None:
        sources.append(stored)
    return FactsTable(ByPath[Summary](keys, sources), keys, {}, read, keep=False)
