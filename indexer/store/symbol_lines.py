"""A blob's symbols as stored JSON lines, and those lines made into a snapshot's symbol lines.

The records codec stores a blob's symbols in this form and the canonical serialization
reads them back; both import it from here.
"""

from __future__ import annotations

from indexer.contract.encode import encode_json, encode_json_lines
from indexer.model import Symbol

_PATH_MARK = b"\t"  # where a stored symbol line takes its file's path (see the module docstring)


def symbols_json(symbols: list[Symbol]) -> bytes:
    """A blob's symbols as JSON lines, the Symbol fields in declared order, each line opening
    `{<tab>`: what its symbol lines are made of (stored with its facts, so assembly need not
    decode them). `model.decode_symbols` reads it back."""
    if not symbols:
        return b""
    # A raw newline stands only between lines: inside a string it is escaped.
    return (b"\n" + encode_json_lines(symbols)[:-1]).replace(b"\n{", b"\n{" + _PATH_MARK)[1:] + b"\n"


def symbol_lines(path: str, body: bytes) -> bytes:
    """`{"type":"symbol","path":...,"name":...,"kind":...,"container":...,"line":...,...}` per symbol
    of `body` (see `symbols_json`)."""
    return body.replace(_PATH_MARK, b'"type":"symbol","path":' + encode_json(path) + b",")
