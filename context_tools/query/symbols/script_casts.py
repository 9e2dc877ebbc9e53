"""The expression a JavaScript or TypeScript site's dot follows, text alone: what the
parentheses right before it hold (`(c ? a : b).m`, `return (x as T).m`, not a call's arguments
`f(x).m`), and the class of a cast there (`(x as T).m`), read over the lines above where the
site's line starts with the parenthesis closing it."""

from __future__ import annotations

import re

from context_tools.query.symbols.script_annotations import named_type, type_end
from context_tools.query.symbols.script_blocks import HEADER_LINES
from indexer.lang.bindings_base import SCRIPT_REST, SITE_TEXT, opening_bracket, site_window

# the words after which a parenthesis opens an expression, not a call's arguments (`return (x as T).m`)
_BEFORE_EXPRESSION = frozenset({b"return", b"await", b"typeof", b"void", b"yield", b"case", b"in", b"of", b"else",
                                b"do", b"throw", b"delete"})


def cast_before(lines: list[bytes], line: int, col: int) -> str | None:
    """The class of a cast ending right before a site's dot (`cast_type`), read over the lines
    above too where the site's line starts with the cast's closing parenthesis (`(\n x as T\n).m`)."""
    return cast_type(before_site(lines, line, col))


def before_site(lines: list[bytes], line: int, col: int) -> bytes:
    """The text before a site on its line, with the lines above where the line starts with a
    parenthesis closing there: at most `SITE_TEXT` bytes of it (`site_window`)."""
    if not 0 < line <= len(lines):
        return b""
    window, at = site_window(lines[line - 1], col, 0)
    before = window[:at].rstrip()
    if at == col and before.lstrip().startswith(b")"):
        above: list[bytes] = []
        size = 0
        for t in reversed(lines[max(0, line - 1 - HEADER_LINES):line - 1]):
            if size > SITE_TEXT:
                break
            text = site_window(t, len(t), 0)[0].strip()  # a long line's end alone
            above.append(text)
            size += len(text) + 1
        joined = b" ".join(reversed(above)) + b" " + before.lstrip()
        window, at = site_window(joined, len(joined), 0)
        before = window[:at]
    return before


def parenthesized(before: bytes) -> bytes | None:
    """What the parentheses of an expression hold when the text before a site's dot ends with
    them (`(expr).`, `return (expr).`); None otherwise, or for a call's arguments (`f(x).`)."""
    if not before.endswith(b")."):
        return None
    i = opening_bracket(before, len(before) - 2)
    if i is None:
        return None
    end = len(before[:i].rstrip())
    start = end
    while start > 0 and before[start - 1] in SCRIPT_REST:
        start -= 1
    last = before[end - 1:end]
    lead = before[start:end] if start < end else last if last in (b")", b"]") else b""  # `([\w$]+|[)\]])\s*$`
    if lead and lead not in _BEFORE_EXPRESSION:
        return None  # a call's arguments (`f(x as T).m`)
    return before[i + 1:len(before) - 2]


def cast_type(before: bytes) -> str | None:
    """The class of a cast the text before a site's dot ends with: `(expr as T).` (also
    `(expr as unknown as T).`); None otherwise."""
    inner = parenthesized(before)
    if inner is None:
        return None
    found = list(re.finditer(rb"\bas\s+", inner))
    if not found:
        return None
    tail = inner[found[-1].end():]
    return named_type(tail) if type_end(tail) == len(tail) else None
