"""Facts summaries kept from one index to the next in a long-lived host.

A host that indexes more than once in its process (the MCP server; see `keep`) would
otherwise load and decode the stored summary of nearly every blob of the tree again for
each index, though the previous one loaded the same. A summary is a pure function of its
facts key (blob, language, extractor version), so one kept is still right for any later
index; what may change is whether the store holds the facts (gc, or another store), so a
kept summary is used only for a key the store is seen to hold in the same read transaction,
and the whole lot is dropped when the host indexes into another store.

Bounded: at most CEILING_BYTES of summaries (an estimate of what they hold), the least
recently used dropped first; nothing a client sends chooses the size. A process that never
calls `keep` (a one-off `rennet index`) keeps nothing.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Iterable, Mapping

if TYPE_CHECKING:  # imported where used: a host calls `keep` at start, before it loads the store
    from indexer.store.database import Store
    from indexer.store.facts_table import FactsSummary
    from indexer.store.records import StoredFacts

# The summaries of some 100,000 files of ordinary source (a summary holds its symbols' JSON).
CEILING_BYTES = 256 << 20
_ENTRY_BYTES = 480  # a summary's struct, its facts key and its place in the table, before its symbols


def estimate(summary: FactsSummary) -> int:
    """What a kept summary is counted as: its fixed cost and its symbols' JSON."""
    return _ENTRY_BYTES + len(summary.symbols_json)


class KeptSummaries:
    """facts key -> decoded summary, of one store at a time, at most `ceiling` bytes
    (`estimate`), the least recently used dropped first."""

    def __init__(self, ceiling: int = CEILING_BYTES) -> None:
        self.ceiling = ceiling
        self.bytes = 0
        self.served = 0  # summaries served from memory, over the host's life
        self._entries: OrderedDict[bytes, tuple[FactsSummary, int]] = OrderedDict()
        self._store: tuple[str, int, int] | None = None
        self._lock = threading.Lock()  # a host's indexes may run in threads

    def __len__(self) -> int:
        return len(self._entries)

    def load(self, store: Store, keys: Mapping[str, bytes]) -> dict[str, FactsSummary]:
        """path -> summary for the given path -> facts key, as `facts_table.load_summaries`
        gives them: a kept summary where the store holds its key, the others read and
        decoded, and kept; paths whose facts the store lacks are left out."""
        from indexer.store.database import unpack
        from indexer.store.facts_table import decode_summary

        with self._lock:
            self._same_store(store)
            found: dict[bytes, FactsSummary] = {}
            with store.env.begin(db=store.facts, buffers=True) as txn:
                present = txn.cursor().set_key  # asks without copying the value out
                for key in sorted(set(keys.values())):  # key order: the B-tree's pages in turn
                    kept = self._entries.get(key)
                    if kept is not None:
                        if present(key):
                            found[key] = kept[0]
                            self._entries.move_to_end(key)
                            self.served += 1
                        else:  # the store lost them (gc): never claimed from memory
                            self._drop(key)
                        continue
                    raw = txn.get(key)
                    if raw is not None:
                        summary = found[key] = decode_summary(unpack(raw))
                        self._add(key, summary)
            self._trim()
        return {path: found[key] for path, key in keys.items() if key in found}

    def add_stored(self, store: Store, stored: Iterable[StoredFacts]) -> None:
        """Keep the summaries of facts being written to `store`, decoded as `load` would
        decode them from the store."""
        from indexer.store.database import unpack
        from indexer.store.facts_table import decode_summary

        with self._lock:
            self._same_store(store)
            for x in stored:
                if x.key not in self._entries:
                    self._add(x.key, decode_summary(unpack(x.packed_core)))
            self._trim()

    def _same_store(self, store: Store) -> None:
        identity = _identity(store)
        if identity != self._store:
            self._entries.clear()
            self.bytes = 0
            self._store = identity

    def _add(self, key: bytes, summary: FactsSummary) -> None:
        size = estimate(summary)
        self._entries[key] = (summary, size)
        self.bytes += size

    def _drop(self, key: bytes) -> None:
        _, size = self._entries.pop(key)
        self.bytes -= size

    def _trim(self) -> None:
        while self.bytes > self.ceiling and self._entries:
            _, (_, size) = self._entries.popitem(last=False)
            self.bytes -= size


def _identity(store: Store) -> tuple[str, int, int]:
    """The store's folder and its data file's identity: a store removed and made again at
    the same path is another store."""
    path = store.env.path()
    try:
        st = os.stat(os.path.join(path, "data.mdb"))
        return os.path.realpath(path), st.st_dev, st.st_ino
    except OSError:
        return os.path.realpath(path), 0, 0


_kept: KeptSummaries | None = None


def keep(ceiling: int = CEILING_BYTES) -> None:
    """From now on this process keeps the summaries each index loads or parses for the next
    (up to `ceiling` bytes). For hosts that index more than once; a one-off index gains nothing."""
    global _kept
    if _kept is None or _kept.ceiling != ceiling:
        _kept = KeptSummaries(ceiling)


def stop() -> None:
    """Keep nothing from now on, and let go of what was kept."""
    global _kept
    _kept = None


def kept() -> KeptSummaries | None:
    """The process's kept summaries, None unless `keep` was called."""
    return _kept


def load_summaries(store: Store, keys: Mapping[str, bytes]) -> dict[str, FactsSummary]:
    """`facts_table.load_summaries`, from the kept summaries where this process keeps them."""
    from indexer.store.facts_table import load_summaries as load_stored

    kept = _kept
    return kept.load(store, keys) if kept is not None else load_stored(store, keys)


def parsed(store: Store, stored: Iterable[StoredFacts]) -> None:
    """Facts just parsed and being written to `store`: their summaries kept for the next
    index where this process keeps summaries."""
    kept = _kept
    if kept is not None:
        kept.add_stored(store, stored)
