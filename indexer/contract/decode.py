"""Decoding outside input (JSON and TOML) within a depth and a size limit.

Every boundary that parses what it did not write (a manifest, a `.rennet.toml`, a cursor,
`rennet call` input, a tracker's answer) decodes through here and turns `Undecodable` into
its own typed error. The standard decoders recurse once per level of nesting, so input
nested a few hundred levels deep raises RecursionError, at a depth that depends on how deep
the caller's own stack already is: the depth is counted before decoding (brackets outside
strings and comments), so the limit is the same wherever the call is made, and a
RecursionError that still escapes a decoder is reported the same way.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Iterable, TypeVar

T = TypeVar("T")

JSON_MAX_DEPTH = 128  # a Jira answer's rich text nests four levels per list level
TOML_MAX_DEPTH = 32  # tomllib spends three frames a level; configs and manifests nest a handful
MAX_BYTES = 16 * 1024 * 1024  # unless the boundary gives its own


class Undecodable(ValueError):
    """Input that is not the format, or is nested deeper or is larger than the limit; the
    message says which, in one line, without quoting the input."""


class Unfit(Undecodable):
    """JSON whose values are not of the types asked for (`decode_json_as`); the message names
    where, by the path of the fields asked for, never by the input's text."""


_JSON_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOML_SKIPPED = (  # strings (multi-line first) and comments, where brackets are text
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*')
# A text is taken out whole and what is left of it counted, quickest in C, when it holds few
# pieces: else each piece (a string, a run of brackets) would be held at once, tens of times
# the input's size for a text of millions of short strings. Such a text is read as a stream
# of what is text to it or a run of brackets, its nesting counted as it goes.
_FEW_PIECES = 1 << 18
_JSON_TEXT, _NOT_BRACKET_B = re.compile(_JSON_STRING, re.S), re.compile(rb"[^\[\]{}]+")
_TOML_TEXT, _NOT_BRACKET = re.compile(_TOML_SKIPPED), re.compile(r"[^\[\]{}]+")
_JSON_SCAN = re.compile(_JSON_STRING + rb"|[\[\]{}]+", re.S)
_TOML_SCAN = re.compile(_TOML_SKIPPED + r"|[\[\]{}]+")
_OPEN = frozenset(b"[{")
_BRACKETS = frozenset(b"[]{}")
_BRACKET_TEXT = frozenset("[]{}")


def string_end(text: str, opened: int) -> int:
    """Just past the double-quoted string whose quote is at `opened` (a backslash escapes the
    character after it), or `len(text)` when it is never closed: how JSON and tree-sitter's
    query syntax both quote."""
    j, n = opened + 1, len(text)
    while j < n and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, n)


def _deepest(runs: Iterable[bytes], stop: int) -> int:
    """The deepest nesting of the brackets of these runs, read in order, counted up to `stop`
    (past it, `stop + 1`)."""
    depth = deepest = 0
    for run in runs:
        for b in run:
            if b in _OPEN:
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > stop:
                        return deepest
            elif depth:
                depth -= 1
    return deepest


def json_depth(data: bytes, stop: int = JSON_MAX_DEPTH) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings are text),
    counted up to `stop`."""
    if len(data) < _FEW_PIECES or sum(data.count(mark) for mark in (b'"', b"[", b"]", b"{", b"}")) < _FEW_PIECES:
        return _deepest((_NOT_BRACKET_B.sub(b"", _JSON_TEXT.sub(b"", data)),), stop)
    runs = (m.group() for m in _JSON_SCAN.finditer(data))
    return _deepest((run for run in runs if run[0] in _BRACKETS), stop)


def toml_depth(text: str, stop: int = TOML_MAX_DEPTH) -> int:
    """How deep the inline arrays and tables of a TOML text nest (brackets inside strings and
    comments are text), counted up to `stop`; table headers count as brackets too."""
    if len(text) < _FEW_PIECES or sum(text.count(mark) for mark in ('"', "'", "#", "[", "]", "{", "}")) < _FEW_PIECES:
        return _deepest((_NOT_BRACKET.sub("", _TOML_TEXT.sub("", text)).encode(),), stop)
    runs = (m.group() for m in _TOML_SCAN.finditer(text))
    return _deepest((run.encode() for run in runs if run[0] in _BRACKET_TEXT), stop)


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise Undecodable(f"larger than {max_bytes} bytes ({size})")


def _unread_value(form: str, exc: ValueError) -> Undecodable:
    """What a decoder's own ValueError (not its syntax error) says, in a line of ours: Python's
    text for an integer past its conversion limit is long and names a setting of Python's."""
    if "integer string conversion" in str(exc):
        return Undecodable(f"an integer of more than {sys.get_int_max_str_digits()} digits, more than Python reads")
    return Undecodable(f"not {form}: a value Python does not read ({type(exc).__name__})")


# Each decoder imports its parser when it first runs: a process that decodes no outside
# text (a CLI lookup imports this module for its limits) loads neither.
def decode_json(data: bytes | str, *, max_depth: int = JSON_MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """The value of a JSON text (UTF-8 bytes or str), or Undecodable."""
    import json

    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    _check_size(len(raw), max_bytes)
    if json_depth(raw, max_depth) > max_depth:
        raise Undecodable(f"nested more than {max_depth} levels deep")
    try:
        return json.loads(data)  # bytes: in the encoding JSON's own rule detects (UTF-8 mostly)
    except UnicodeDecodeError:
        raise Undecodable("not text in a JSON encoding") from None
    except json.JSONDecodeError as exc:
        raise Undecodable(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise Undecodable(f"nested more than {max_depth} levels deep") from None
    except ValueError as exc:
        raise _unread_value("JSON", exc) from None


_UTF8_SLICE = 1 << 20


def _check_utf8(data: bytes | memoryview) -> None:
    """Refuse bytes that are not UTF-8, read a slice at a time: msgspec checks only the strings
    it makes, and a value kept as its JSON (`msgspec.Raw`) is read or written later."""
    import codecs

    check = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for at in range(0, len(view), _UTF8_SLICE):
            check.decode(view[at:at + _UTF8_SLICE])
        check.decode(b"", final=True)
    except UnicodeDecodeError:
        raise Undecodable("not UTF-8 text") from None


# A number that may be out of the range msgspec reads: a run of digits a float overflows on,
# or an exponent. Looked for in the whole text first, in C; only a text that has one is read a
# token at a time, to tell its numbers from its strings.
_LONG_INTEGER = "an integer of more than {} digits, more than Python reads"
_LARGE_NUMBER = "a number larger than a float holds"
_SUSPECT_NUMBER = re.compile(rb"[0-9]{309}|[0-9][eE]")
_STRING_OR_NUMBER = re.compile(_JSON_STRING + rb"|-?[0-9][0-9.eE+-]*", re.S)


def _check_numbers(data: bytes) -> None:
    """Refuse a text holding a number msgspec does not read (an integer of more digits than
    Python converts, a float past the largest): a value kept as its JSON is read later, and
    would fail then."""
    import math

    if _SUSPECT_NUMBER.search(data) is None:
        return
    for m in _STRING_OR_NUMBER.finditer(data):
        token = m.group()
        if token[:1] == b'"':
            continue
        if any(c in token for c in b".eE"):
            if not math.isfinite(float(token)):
                raise Undecodable(_LARGE_NUMBER)
        elif len(token.lstrip(b"-")) > sys.get_int_max_str_digits() > 0:
            raise Undecodable(_LONG_INTEGER.format(sys.get_int_max_str_digits()))


def decode_json_as(data: bytes | memoryview, into: type[T], *, max_depth: int = JSON_MAX_DEPTH,
                   max_bytes: int = MAX_BYTES) -> T:
    """The value of a UTF-8 JSON text as `into`, or Undecodable (`Unfit` when it is JSON of
    other types). msgspec types: a Struct's undeclared fields are skipped without being made,
    and a `msgspec.Raw` field is a view of its JSON, whose numbers are all ones msgspec reads
    back. Only what `into` declares is made, so the memory taken follows what is read, not
    what was sent."""
    import msgspec

    _check_size(len(data), max_bytes)
    _check_utf8(data)
    text = bytes(data) if isinstance(data, memoryview) else data
    if json_depth(text, max_depth) > max_depth:
        raise Undecodable(f"nested more than {max_depth} levels deep")
    try:
        value = msgspec.json.decode(data, type=into)
    except msgspec.ValidationError as exc:
        if str(exc).startswith("Integer value out of range"):
            raise Undecodable(_LONG_INTEGER.format(sys.get_int_max_str_digits())) from None
        if str(exc).startswith("Number out of range"):
            raise Undecodable(_LARGE_NUMBER) from None
        raise Unfit(f"not of the shape read: {exc}") from None
    except msgspec.DecodeError as exc:
        raise Undecodable(f"not JSON: {exc}") from None
    except RecursionError:
        raise Undecodable(f"nested more than {max_depth} levels deep") from None
    _check_numbers(text)  # JSON now: each number token is one
    return value


# A key's text once its quoted parts are taken out: bare parts, dots and blank space.
_BARE_KEY = re.compile(r"[A-Za-z0-9_\-. \t]*")


def toml_key_dots(text: str) -> int:
    """The most dots of a header's or a line's key, strings and comments taken out first: a key
    of more parts than tables may nest is refused after decoding anyway, and tomllib spends a
    square in a key's parts before that (slicing the key at each part)."""
    most = 0
    for line in _TOML_TEXT.sub("", text).split("\n"):
        line = line.lstrip(" \t")
        if line.startswith("["):
            key = line.lstrip("[").partition("]")[0]
        else:
            key, eq, _ = line.partition("=")
            if not eq:
                continue
        if key.count(".") > most and _BARE_KEY.fullmatch(key):
            most = key.count(".")
    return most


def decode_toml(data: bytes | str, *, max_depth: int = TOML_MAX_DEPTH, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """The table of a TOML document (UTF-8 bytes or str), or Undecodable. Depth counts inline
    arrays and tables before decoding and, after it, tables made by dotted keys and headers."""
    import tomllib

    if isinstance(data, str):
        text = data
        # the limit is in bytes, as JSON's: a character is one to four of them, so only a text
        # that may pass it is encoded to be weighed
        counted = len(text) > max_bytes or len(text) * 4 <= max_bytes  # the count alone decides
        _check_size(len(text) if counted else len(text.encode("utf-8", "surrogatepass")), max_bytes)
    else:
        _check_size(len(data), max_bytes)
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise Undecodable("not UTF-8 text") from None
    if toml_depth(text, max_depth) > max_depth or toml_key_dots(text) > max_depth:
        raise Undecodable(f"nested more than {max_depth} levels deep")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Undecodable(f"not TOML: {str(exc).splitlines()[0][:200]}") from None
    except RecursionError:
        raise Undecodable(f"nested more than {max_depth} levels deep") from None
    except ValueError as exc:
        raise _unread_value("TOML", exc) from None
    if nested_deeper(doc, max_depth):
        raise Undecodable(f"nested more than {max_depth} levels deep")
    return doc


def nested_deeper(value: object, limit: int) -> bool:
    """True when dicts and lists nest more than `limit` levels (walked with a stack, not recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[object]
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
