"""Pages and their opaque cursors.

A cursor is `<payload>.<mac>`: the payload (base64url JSON) holds the offset of the
next item plus short prefixes of the snapshot fingerprint and the input digest it was
issued for; the mac is a SHA-256 over the payload, the command id, the input digest
and the binding. Editing any byte, replaying it on another snapshot, another command
or another query is a `bad_cursor` error. Cursors are deterministic, so every face
issues the same cursor for the same page.
"""

from __future__ import annotations

import hashlib
from typing import Sequence, TypeVar

import msgspec

from context_tools.faces.errors import BadCursor
from indexer.contract.decode import Undecodable, decode_json
from indexer.contract.encode import encode_json
from indexer.contract.result import Page

T = TypeVar("T")


class OtherSnapshot(BadCursor):
    """A cursor of this query issued on another snapshot than the one read now."""

_MAC_CHARS = 24
MAX_CURSOR_CHARS = 256  # ours are under 100: a longer one was not issued here
CURSOR_DEPTH = 1  # the payload is one flat object


def input_digest(value: msgspec.Struct) -> str:
    """Digest of the query itself: the input without its cursor and page size (a page size may
    change between pages; the query may not)."""
    blank = {k: None for k in ("cursor", "limit") if k in value.__struct_fields__}
    if blank:
        value = msgspec.structs.replace(value, **blank)
    return hashlib.sha256(encode_json(value)).hexdigest()


def _mac(payload: str, command: str, input_digest: str, binding: str) -> str:
    h = hashlib.sha256("\x00".join(("rennet-cursor-v1", payload, command, input_digest, binding)).encode())
    return h.hexdigest()[:_MAC_CHARS]


# A cursor's base64 and JSON are imported where a cursor is made or read: a reply of one page
# (most lookups) needs neither.
def encode_cursor(offset: int, *, command: str, input_digest: str, binding: str) -> str:
    import base64
    import json

    body = json.dumps({"o": offset, "s": binding[:12], "d": input_digest[:12]}, separators=(",", ":"))
    payload = base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")
    return f"{payload}.{_mac(payload, command, input_digest, binding)}"


def decode_cursor(cursor: str, *, command: str, input_digest: str, binding: str) -> int:
    """The offset a cursor points at, or BadCursor saying why it cannot be used here."""
    import base64

    try:
        if len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError
        payload, mac = cursor.split(".")
        body = decode_json(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)), max_depth=CURSOR_DEPTH)
        offset, snap, digest = body["o"], body["s"], body["d"]
        if not (isinstance(offset, int) and offset >= 0 and isinstance(snap, str) and isinstance(digest, str)):
            raise ValueError
    except (Undecodable, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise BadCursor("cursor is malformed") from None
    # the query first: a cursor of another query (another rev among its inputs) read another
    # snapshot too, but it is the query that the caller should fix
    if digest != input_digest[:12]:
        raise BadCursor("cursor was issued for a different query: give it with the same inputs as the call that "
                        "returned it (a CLI option too), or repeat the query without a cursor to start over")
    if snap != binding[:12]:
        raise OtherSnapshot("cursor was issued for another snapshot; repeat the query without a cursor")
    if mac != _mac(payload, command, input_digest, binding):
        raise BadCursor("cursor does not verify (edited, or issued by another command)")
    return offset


def cut_page(items: Sequence[T], *, size: int, cursor: str | None, command: str,
             input_digest: str, binding: str, offset: int = 0) -> tuple[list[T], Page]:
    """One page from `cursor`'s offset (or from `offset` when there is no cursor)."""
    if cursor:
        offset = decode_cursor(cursor, command=command, input_digest=input_digest, binding=binding)
        if offset > len(items):
            raise BadCursor("cursor points past the end of the collection")
    size = max(size, 1)
    chunk = list(items[offset: offset + size])
    end = offset + len(chunk)
    more = end < len(items)
    nxt = encode_cursor(end, command=command, input_digest=input_digest, binding=binding) if more else None
    return chunk, Page(total=len(items), returned=len(chunk), truncated=more, cursor=nxt)
