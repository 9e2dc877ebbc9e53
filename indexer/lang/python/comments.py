"""What tree-sitter-python is shown of a source: a long run of comment-only lines blanked.

Its scanner, at each comment standing on a line of its own, looks on past the comments after
it for the next line's indentation, and the parser reads the file again from there: a run of
thousands of comment lines (which a file of a commit under review may hold) was parsed in the
square of its length. A comment names nothing, so a run of them is shown as blank lines,
which the scanner passes over at once. A line is blanked only when it holds no quote,
backslash or brace, so that one within a string (or an f-string) leaves the string as it was
(same length and lines: every offset read from the source still holds)."""

from __future__ import annotations

import re

RUN = 32  # comment lines in a row that are blanked: a shorter run costs little to parse

_RUN = re.compile(rb"(?:^[ \t]*#[^'\"\\{}\r\n]*\r?\n){%d,}" % RUN, re.MULTILINE)
_NOT_NEWLINE = re.compile(rb"[^\r\n]")


def parser_view(name: str, data: bytes) -> bytes:
    """`data` with each run of at least `RUN` comment-only lines blanked."""
    if data.count(b"#") < RUN:
        return data
    return _RUN.sub(lambda m: _NOT_NEWLINE.sub(b" ", m.group()), data)
