"""noise-offer.json, and the in-process map from a cited region back to its hunk id.

The offer lists changed regions (path, side, 1-based inclusive line range) with no hunk
ids and no line bodies: the seat reading it runs `git diff` itself. A hunk that adds
lines offers its new-side range; one that only deletes offers its old-side range.
`RegionMap` keeps the region -> hunk id pairs for the runner and is never serialized.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
from msgspec import Struct

from delta.hunks import HunkRecord
from indexer.contract.encode import encode_json

OFFER_NAME = "noise-offer.json"


class Region(Struct, frozen=True):
    path: str
    side: str  # "new" (lines at head) | "old" (lines at the merge base)
    start: int  # 1-based, inclusive
    end: int
    noise: str | None = None  # the pre-classified noise class, if any


class NoiseOffer(Struct):
    schema: str
    base_oid: str
    head_oid: str
    merge_base_oid: str
    total: int
    regions: list[Region]


def offered_region(h: HunkRecord, noise: str | None) -> Region | None:
    if h.new_changed:
        return Region(h.path, "new", h.new_changed[0], h.new_changed[1], noise)
    if h.old_changed:
        return Region(h.path, "old", h.old_changed[0], h.old_changed[1], noise)
    return None


class RegionMap:
    """Cited (path, side, start, end) -> hunk id. Both sides of every hunk are kept, so a
    region cited on either side resolves. Internal: ids never leave the process."""

    def __init__(self) -> None:
        self._spans: dict[tuple[str, str], list[tuple[int, int, str]]] = {}

    def add(self, h: HunkRecord) -> None:
        if h.new_changed:
            self._spans.setdefault((h.path, "new"), []).append((*h.new_changed, h.id))
        if h.old_changed:
            self._spans.setdefault((h.path, "old"), []).append((*h.old_changed, h.id))

    def resolve(self, path: str, side: str, start: int, end: int | None = None) -> str | None:
        """The hunk id whose changed lines the cited range overlaps most (first on a tie);
        None when it overlaps no changed lines."""
        end = start if end is None else end
        best: tuple[int, str] | None = None
        for lo, hi, hid in self._spans.get((path, side), ()):
            overlap = min(hi, end) - max(lo, start) + 1
            if overlap > 0 and (best is None or overlap > best[0]):
                best = (overlap, hid)
        return best[1] if best else None

    def __len__(self) -> int:
        return sum(len(v) for v in self._spans.values())

    def __reduce__(self):  # pickling would carry ids out of the process
        raise TypeError("RegionMap is an in-process map and cannot be serialized")


def write_json_atomic(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(payload)
    os.replace(tmp, path)


def write_offer(folder: Path, offer: NoiseOffer) -> Path:
    path = folder / OFFER_NAME
    write_json_atomic(path, msgspec.json.format(encode_json(offer), indent=2) + b"\n")
    return path
