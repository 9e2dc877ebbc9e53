"""Containers read from their msgpack heads: a list's or map's length before its items are
made, and structs that decode a model type with its containers left undecoded.

A bundle is untrusted input, and a byte of msgpack can become tens of bytes of Python
objects: these let a reader count what a value holds before it decodes it."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence

import msgspec

NIL = msgspec.Raw(b"\xc0")


BIN_HEAD = {0xC4: 2, 0xC5: 3, 0xC6: 5}  # msgpack bin 8, 16, 32: bytes of head before the content


def bin_content(raw: msgspec.Raw | bytes | memoryview) -> memoryview | None:
    """The content of the msgpack bin `raw`, a view, not a copy; None unless `raw` is one bin,
    its head and the bytes it says."""
    view = memoryview(raw)
    head = BIN_HEAD.get(view[0]) if view else None
    if head is None or int.from_bytes(view[1:head], "big") != len(view) - head:
        return None
    return view[head:]


def _holds_items(kind: object) -> bool:
    """A list or a map (or a sequence or a mapping: a record's list or map a bundle may keep as
    its bytes), or a tuple of any length (`tuple[str, ...]`): a container whose length the value
    chooses."""
    origin = typing.get_origin(kind)
    return origin in (list, dict, Sequence, Mapping) or (origin is tuple and typing.get_args(kind)[-1:] == (Ellipsis,))


def containers(cls: type[msgspec.Struct]) -> tuple[str, ...]:
    """The fields of `cls` that hold a list, a map or a tuple of any length (or may: `list |
    None`), by encoded name."""
    found = []
    for f in msgspec.structs.fields(cls):
        kinds = typing.get_args(f.type) if typing.get_origin(f.type) in (types.UnionType, typing.Union) else (f.type,)
        if any(_holds_items(k) for k in kinds):
            found.append(f.encode_name)
    return tuple(found)


def shape(name: str, cls: type[msgspec.Struct]) -> tuple[type[msgspec.Struct], tuple[str, ...]]:
    """A struct decoding `cls`'s containers undecoded, their lengths to be read before their
    items are made (a field of another kind is skipped here and refused, if it must be, by the
    typed decode after); and their names. Made from `cls`, so a container it gains is counted
    too."""
    fields = containers(cls)
    if not cls.__struct_config__.array_like:
        return msgspec.defstruct(name, [(f, msgspec.Raw, NIL) for f in fields]), fields
    # encoded as an array: its fields by place, up to its last container, each kept undecoded
    # (one left out at the end, as `omit_defaults` leaves a default, reads as nil)
    every = [f.encode_name for f in msgspec.structs.fields(cls)]
    last = max((every.index(f) for f in fields), default=-1)
    return msgspec.defstruct(name, [(f, msgspec.Raw, NIL) for f in every[:last + 1]], array_like=True), fields
