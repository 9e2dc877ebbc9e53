"""Encoding to msgpack and JSON with msgspec, a lack of memory raised as a MemoryError.

msgspec's encoders that return bytes (`encode`, `Encoder.encode`, `Encoder.encode_lines`)
end the process with a segmentation fault when the buffer they write in cannot grow: the
failed resize frees it and leaves NULL, and their error path frees that again. Under an
address-space limit (`ulimit -v`) any encoding that outgrows the room left is such a
failure, and a server would vanish mid-call instead of answering `out_of_memory`.
`Encoder.encode_into` grows a bytearray, which stays whole when it cannot grow, and raises
MemoryError: every encoding in Rennet is made through here, so, its bytes copied out once
made. Only the encoders' defaults are used (compact JSON, fields in declared order), so
these give the very bytes msgspec's `encode` gives.
"""

from __future__ import annotations

from typing import Iterable

import msgspec

_MSGPACK = msgspec.msgpack.Encoder()
_JSON = msgspec.json.Encoder()


def encode_msgpack(value: object) -> bytes:
    """`msgspec.msgpack.encode(value)`, a lack of memory raised as a MemoryError."""
    out = bytearray()
    _MSGPACK.encode_into(value, out)
    return bytes(out)


def encode_json(value: object) -> bytes:
    """`msgspec.json.encode(value)`, a lack of memory raised as a MemoryError."""
    out = bytearray()
    _JSON.encode_into(value, out)
    return bytes(out)


def encode_json_lines(items: Iterable[object]) -> bytes:
    """`msgspec.json.Encoder().encode_lines(items)`: each item's JSON and a newline, a lack of
    memory raised as a MemoryError."""
    out = bytearray()
    for item in items:
        _JSON.encode_into(item, out, -1)  # -1: after what the buffer holds
        out += b"\n"
    return bytes(out)
