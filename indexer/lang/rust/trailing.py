"""Rust's view of a source whose parse ran over its budget or left a wide error (Language.over_budget)."""

from __future__ import annotations

import re

_INK = re.compile(rb"[^\r]")  # what a blanked line loses: all but a CRLF's CR


def over_budget_view(data: bytes) -> bytes | None:
    """`data` with the lines it ends in that hold only `//` comments or white space blanked, or
    None when none of them holds a comment. After an unclosed block, tree-sitter's error
    recovery takes each comment in turn as a place to close it, and a long run of them costs
    the whole parse budget or ends as one wide ERROR node; blank, they cost nothing, and they
    define nothing, so the definitions before them are read as they stand. Same length and
    lines. Read line by line from the end, so a long run of comments before a last line of
    code costs one pass."""
    lines = data.split(b"\n")
    start = len(lines)
    while start > 0:
        text = lines[start - 1].lstrip()
        if text and text != b"\r" and not text.startswith(b"//"):
            break
        start -= 1
    if not any(b"//" in line for line in lines[start:]):
        return None
    return b"\n".join(lines[:start] + [_INK.sub(b" ", line) for line in lines[start:]])
