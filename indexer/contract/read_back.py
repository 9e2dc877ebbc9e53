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

T = TypeVar("T")


def read_back(decode: Callable[[bytes | memoryview], T]) -> Callable[[bytes | memoryview], T]:
    """`decode` (a msgspec decoder's method) for bytes the store holds."""

    def read(data: bytes | memoryview) -> T:
        try:
            return decode(data)
        except UnicodeDecodeError as exc:
            raise msgspec.DecodeError(f"a string of a stored record is not UTF-8 (at byte {exc.start})") from None

    return read
