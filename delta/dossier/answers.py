"""A tracker's answer read into the few fields a dossier uses.

An answer is decoded into msgspec Structs that declare only what a reader uses (its
`decode_json_as`, within the depth and size bounds of every outside JSON): what they do not
declare is skipped without being made, and a value the tracker may send in any shape is a
`msgspec.Raw`, a view of its JSON, read here when it is used. Decoded whole, an answer of
millions of small values held tens of times its size in Python objects, and the dossier keeps
a few fields of it.

A list is read an element at a time (`items`), each element decoded on its own and let go: a
reader that takes the first hundred reads no further, and one that takes them all holds one
at a time. A value of a type a reader does not take reads as nothing (`text`, `decoded`), as
a broken tracker's stray value did before; the fields a ticket cannot be without (a title) are
typed, so their absence fails the decoding, `malformed_response`.
"""

from __future__ import annotations

import re
from typing import Iterator, TypeVar

import msgspec
from msgspec import Raw

from delta.dossier.transport import TrackerFailure
from indexer.contract.decode import Undecodable, Unfit, decode_json_as

T = TypeVar("T")
Json = Raw | memoryview  # the JSON text of one value, as a field or an element of a list holds it
NULL = Raw(b"null")  # a field the answer leaves out reads as JSON's null


class Named(msgspec.Struct):
    """An object read for its `name` alone (a Jira status, a Linear state or user)."""

    name: Raw = NULL

# A string (its brackets and commas are text), a bracket, a colon or comma, or a bare scalar.
TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+', re.S)
_BLANK = re.compile(rb"[ \t\r\n]*")
_OPEN, _CLOSE, _COMMA, _QUOTE = frozenset(b"[{"), frozenset(b"]}"), ord(","), ord('"')


def read_answer(data: bytes, into: type[T], unusable: str, unfit: str) -> T:
    """The answer `data` as `into`, or `malformed_response`: `unfit` when it is JSON of other
    types, `unusable` when it is no usable JSON, each followed by why (a depth, a size, the path
    of a field, never the answer's text)."""
    try:
        return decode_json_as(data, into, max_bytes=max(len(data), 1))
    except Unfit as exc:
        raise TrackerFailure("malformed_response", f"{unfit} ({exc})") from None
    except Undecodable as exc:
        raise TrackerFailure("malformed_response", f"{unusable} ({exc})") from None


_BLANKS = frozenset(b" \t\r\n")
_NULL = ord("n")


def first(value: Json) -> int:
    """The first byte of a value's JSON: `"`, `[`, `{`, or a scalar's first letter."""
    if value is NULL:
        return _NULL
    view = memoryview(value)
    if not view:
        return 0
    if view[0] not in _BLANKS:
        return view[0]
    at = _BLANK.match(view).end()  # type: ignore[union-attr]
    return view[at] if at < len(view) else 0


def text(value: Json) -> str:
    """A JSON string's text; any other value has none."""
    if first(value) != _QUOTE:
        return ""
    return msgspec.json.decode(value, type=str)


def decoded(value: Json, into: type[T]) -> T | None:
    """An object decoded as the Struct `into` (whose fields are all optional `Raw`s), or None
    for any other value."""
    if first(value) != ord("{"):
        return None
    return msgspec.json.decode(value, type=into)


def is_empty(value: Json) -> bool:
    """Whether a value is one Python reads as false: null, false, a zero, "", [] or {}."""
    view = memoryview(value)
    c = first(view)
    if c == _QUOTE:
        return text(view) == ""
    if c == ord("["):
        return next(items(view), None) is None
    if c == ord("{"):
        tokens = TOKEN.finditer(view)
        next(tokens)
        return view[next(tokens).start()] == ord("}")
    if c in b"tfn":
        return c != ord("t")
    return float(bytes(view)) == 0


# An element holding no list or object, and the comma or bracket after it: most elements of a
# long list, each found in one match.
_FLAT_ITEM = re.compile(rb'[ \t\r\n]*((?:\{(?:[^"\[\]{}]|"[^"\\]*(?:\\.[^"\\]*)*")*\}|"[^"\\]*(?:\\.[^"\\]*)*"'
                        rb'|\[(?:[^"\[\]{}]|"[^"\\]*(?:\\.[^"\\]*)*")*\]|[^\s"\[\]{},]+))[ \t\r\n]*([,\]])', re.S)


def items(value: Json) -> Iterator[memoryview]:
    """The elements of a JSON array, each as its own JSON text, found as they are asked for;
    anything but an array has none. The text was checked as JSON when the answer was decoded."""
    view = memoryview(value)
    at = _BLANK.match(view).end()  # type: ignore[union-attr]
    if at >= len(view) or view[at] != ord("["):
        return
    at += 1
    if view[_BLANK.match(view, at).end()] == ord("]"):  # type: ignore[union-attr]
        return
    while True:
        flat = _FLAT_ITEM.match(view, at)
        if flat is not None:
            yield view[flat.start(1):flat.end(1)]
            if view[flat.start(2)] == ord("]"):
                return
            at = flat.end()
            continue
        depth = 0  # an element holding lists or objects: read to its end a token at a time
        for m in TOKEN.finditer(view, at):
            c = view[m.start()]
            if c in _OPEN:
                depth += 1
            elif c in _CLOSE:
                if depth == 0:
                    yield view[at:m.start()]
                    return
                depth -= 1
            elif c == _COMMA and depth == 0:
                yield view[at:m.start()]
                at = m.end()
                break
        else:
            return  # no end: not JSON, which the answer's decoding refused already
