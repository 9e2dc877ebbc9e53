"""Rust's view of a source whose parse ran over its budget or left a wide error (Language.over_budget)."""

from __future__ import annotations

import re

# The lines a source ends in that hold nothing but `//` comments or white space.
_TRAILING = re.compile(rb"(?:[ \t]*(?://[^\n]*)?\r?\n)*[ \t]*(?://[^\n]*)?\Z")
_COMMENT = re.compile(rb"//[^\r\n]*")


def over_budget_view(data: bytes) -> bytes | None:
    """`data` with the `//` comments of the lines it ends in blanked, or None when it ends in
    none. After an unclosed block, tree-sitter's error recovery takes each comment in turn as
    a place to close it, and a long run of them costs the whole parse budget or ends as one
    wide ERROR node; blank, they cost nothing, and they define nothing, so the definitions before them are read as they stand.
    Same length and lines."""
    tail = _TRAILING.search(data)
    if tail is None or b"//" not in data[tail.start():]:
        return None
    start = tail.start()
    return data[:start] + _COMMENT.sub(lambda m: b" " * len(m.group()), data[start:])
