"""Where a call written in source closes, and what follows it there: the one bracket walk the
receiver rules of Python (`receivers`) and of JavaScript/TypeScript (`script_types`) make to
know whether a call is the whole value assigned (`x = Foo(...)`, not `x = Foo(...).bar()`),
each with its language's strings and comments."""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple


class Spelling(NamedTuple):
    quotes: bytes  # the characters that open a string; each closes it, on its line at the latest
    comment: bytes  # what opens a comment running to the end of its line

    @property
    def marks(self) -> re.Pattern[bytes]:
        """The bytes a walk over a call stops at: quotes, a comment's first byte, brackets, and
        the backslash that escapes a string's next byte."""
        return _marks(self.quotes + self.comment[:1])


@cache
def _marks(stops: bytes) -> re.Pattern[bytes]:
    return re.compile(b"[" + re.escape(stops + b"()[]{}\\") + b"]")


PYTHON = Spelling(b"'\"", b"#")
SCRIPT = Spelling(b"'\"`", b"//")
GO = Spelling(b"'\"`", b"//")  # a rune, an interpreted and a raw string; a raw string spanning lines is read as code


def after_call(lines: list[bytes], first: int, opened: int, spelling: Spelling, most: int) -> bytes | None:
    """The code after the call whose parenthesis opens at byte `opened` of line `first` (from
    0), on the line where it closes, its comment cut and white space stripped; None when it
    does not close within `most` lines. Brackets inside strings are not counted; a string
    does not run on past its line (a triple-quoted or template string spanning lines is read
    as code from the next line on). Only the bytes that matter are visited (`Spelling.marks`),
    found by a regular expression: a call's arguments may be long, and each site of a name
    assigned from it asks."""
    depth = 0
    marks = spelling.marks
    for n in range(first, min(first + most, len(lines))):
        text = lines[n]
        quote = -1
        escaped = -1  # the byte a backslash escapes, inside a string
        for m in marks.finditer(text, opened if n == first else 0):
            j = m.start()
            ch = text[j]
            if j == escaped:
                continue
            if quote >= 0:
                if ch == 0x5C:  # `\`
                    escaped = j + 1
                elif ch == quote:
                    quote = -1
            elif ch in spelling.quotes:
                quote = ch
            elif text.startswith(spelling.comment, j):
                break
            elif ch in b"([{":
                depth += 1
            elif ch in b")]}":
                depth -= 1
                if depth == 0:
                    return text[j + 1:].split(spelling.comment, 1)[0].strip()
    return None


def opened_above(lines: list[bytes], last: int, close: int, spelling: Spelling, most: int,
                 most_bytes: int) -> tuple[int, int] | None:
    """Where the call closing at byte `close` of line `last` (from 0) opens, on a line above it
    (`Request(` of `Request(\n    "GET",\n).prepare()`): (line, byte) of its parenthesis,
    looked for over at most `most` lines and `most_bytes` bytes; None when it opens on `last`
    itself or is not found. The walk back counts brackets alone; the place it finds must close
    at `close` when walked forward as `after_call` walks, strings and comments read, else None."""
    depth = 0
    budget = most_bytes
    for n in range(last, max(last - most, -1), -1):
        text = lines[n][:close + 1] if n == last else lines[n]
        budget -= len(text)
        if budget < 0:
            return None
        for j in range(len(text) - 1, -1, -1):
            ch = text[j]
            if ch in b")]}":
                depth += 1
            elif ch in b"([{":
                depth -= 1
                if depth == 0:
                    if n == last or ch != 0x28:  # `(`
                        return None
                    rest = lines[last][close + 1:].split(spelling.comment, 1)[0].strip()
                    return (n, j) if after_call(lines, n, j, spelling, last - n + 1) == rest else None
    return None
