"""The blob facts of a snapshot's files as assembly reads them: a summary of every file at
hand, the full core facts decoded only for the files that ask for them.

Most of a re-index's assembly reads only a few fields of each file's facts (size, lines,
counts, the symbols' JSON, markers for entry points and marks); decoding every core in
full (per-name use counts, definitions, imports) costs most of loading them, and the
memory it takes. Import resolution and the rank's changed rows ask for full facts by path,
which are then decoded from the store one by one.
"""

from __future__ import annotations

from typing import Callable, Iterator, Mapping

import msgspec

from indexer.contract.msgpack_length import length
from indexer.contract.read_back import read_back
from indexer.model import Base, BlobFacts, Symbol, decode_symbols
from indexer.store.database import Store
from indexer.store.records import load_cores


class FactsSummary(msgspec.Struct):
    """What assembly reads of every file's stored core facts (the fields keep BlobFacts'
    names, so a full BlobFacts serves wherever a summary is read)."""

    language: str
    lines: int
    main_block: bool = False
    package_name: str = ""
    build_ignored: bool = False
    generated: str = ""
    skipped: str = ""
    occurrences_capped: bool = False
    symbols_capped: bool = False
    parse_error_total: int = 0
    occurrence_count: int = 0
    size: int = 0
    symbols_json: bytes = b""
    symbol_count: int = 0
    bases: list[Base] = msgspec.field(default_factory=list)
    import_specs: msgspec.Raw = msgspec.field(default=msgspec.Raw(b"\x90"), name="imports")  # counted, not decoded

    @property
    def symbols(self) -> list[Symbol]:
        return []  # never decoded here: `symbols_json` holds them

    @property
    def occurrences(self) -> list:
        return []  # summarized by `occurrence_count`

    def symbol_list(self) -> list[Symbol]:
        return decode_symbols(self.symbols_json) if self.symbols_json else []

    @property
    def symbol_total(self) -> int:
        return self.symbol_count

    @property
    def import_total(self) -> int:
        return length(self.import_specs)


Summary = FactsSummary | BlobFacts

_decode_summary = msgspec.msgpack.Decoder(FactsSummary).decode  # the other fields are skipped, never built


def _summary(data: bytes | memoryview) -> FactsSummary:
    """A blob's summary, holding no view of `data`: decoded in place from the store's pages, a
    `Raw` field is a view of them, which a later write may reuse once the read ends (a summary
    kept past its transaction, or by the resident cache, then counted another record's bytes:
    billions of imports)."""
    found = _decode_summary(data)
    return msgspec.structs.replace(found, import_specs=msgspec.Raw(bytes(found.import_specs)))


decode_summary = read_back(_summary)


def load_summaries(store: Store, keys: Mapping[str, bytes]) -> dict[str, FactsSummary]:
    """path -> summary of the stored core facts, for the given path -> facts key (each blob
    decoded once); paths whose facts the store lacks are left out."""
    return load_cores(store, keys, decode_summary)


class FactsTable(Mapping[str, BlobFacts]):
    """path -> full core facts (as `records.load_facts(symbols=False)` gives them), in the
    order of `summaries`, which holds every path: those already decoded in full (`full`, by
    facts key) serve as their own summary; the others are read from the store on first ask
    and kept (with `keep` False, read again on every ask: what they are read from may be
    facts no one vouches for, whose decoded size must not add up)."""

    def __init__(self, summaries: Mapping[str, Summary], keys: Mapping[str, bytes], full: dict[bytes, BlobFacts],
                 read: Callable[[bytes], BlobFacts | None], keep: bool = True) -> None:
        self.summaries = summaries
        self._keys = keys
        self._full = full
        self._read = read
        self._keep = keep

    def __getitem__(self, path: str) -> BlobFacts:
        summary = self.summaries[path]
        if isinstance(summary, BlobFacts):
            return summary
        key = self._keys[path]
        facts = self._full.get(key)
        if facts is None:
            facts = self._read(key)
            if facts is None:
                raise KeyError(path)  # the store lost them since the summary was read
            if self._keep:
                self._full[key] = facts
        return facts

    def __contains__(self, path: object) -> bool:
        return path in self.summaries

    def __iter__(self) -> Iterator[str]:
        return iter(self.summaries)

    def __len__(self) -> int:
        return len(self.summaries)


def summaries_of(facts: Mapping[str, BlobFacts]) -> Mapping[str, Summary]:
    """What to read when only summary fields are wanted: a FactsTable's summaries (nothing
    decoded in full), any other mapping as it is."""
    return facts.summaries if isinstance(facts, FactsTable) else facts
