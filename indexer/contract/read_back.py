"""Decoders of what the store wrote, for reading it back.

msgspec raises a string that is not UTF-8 (a byte of a stored record flipped) as
UnicodeDecodeError, and every other damage as msgspec.DecodeError. A decoder of stored bytes
made here raises DecodeError for both, so that a reader tells damage by one exception (and
the faces answer `store_corrupt` for it), while a UnicodeDecodeError anywhere else, decoding
a repository's bytes, stays what it is: our bug.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import msgspec

from indexer.contract.memory_limit import room_for

T = TypeVar("T")

# msgspec's JSON decoder ends the process (a segmentation fault) when an allocation fails as it
# decodes a string holding escapes. Under an address-space limit (`ulimit -v`) the most the
# decoding of stored JSON into our types may take (its objects, a few times the text) is asked
# for first, its lack `out_of_memory`.
JSON_ROOM = 2 << 20
JSON_ROOM_PER_BYTE = 4


def read_back(decode: Callable[[bytes | memoryview], T]) -> Callable[[bytes | memoryview], T]:
    """`decode` (a msgspec decoder's method) for bytes the store holds."""

    def read(data: bytes | memoryview) -> T:
        try:
            return decode(data)
        except UnicodeDecodeError as exc:
            raise msgspec.DecodeError(f"a string of a stored record is not UTF-8 (at byte {exc.start})") from None

    return read


def read_back_json(decode: Callable[[bytes | memoryview], T]) -> Callable[[bytes | memoryview], T]:
    """`read_back(decode)` for a msgspec JSON decoder's method, given the room its decoding may
    take first (see JSON_ROOM)."""
    read = read_back(decode)

    def read_json(data: bytes | memoryview) -> T:
        room_for(JSON_ROOM + JSON_ROOM_PER_BYTE * len(data), f"decoding {len(data)} bytes of stored JSON")
        return read(data)

    return read_json
