"""Python sources tree-sitter-python's scanner must not be handed: indentation nested deeper
than its saved state holds (`Language.unsafe`).

After each token tree-sitter saves the scanner's state in a 1,024-byte buffer: a header, the
open string delimiters (at most 255 of them) and two bytes for each indentation level it holds.
The scanner checks for room before each level, not for its two bytes, so with an odd header
(one string open) and over 500 levels it writes one byte past the buffer
(tree-sitter-python issue #350) and the process crashes. However many strings are open, 256
levels fit. No Python that runs comes near: CPython's tokenizer refuses 100.

The scanner pushes a level for a line indented wider than the level on top, so the levels it
holds are distinct widths that lines measure. A width is measured from a line's start through
spaces (1 column), tabs (8), and backslash-newlines, which carry it over to the next line; a
form feed or a carriage return alone starts it again at 0. A source in which fewer than 256
distinct widths can be measured can never hold more levels; the widths are counted without
parsing, in time linear in the source.
"""

from __future__ import annotations

import re

LEVELS_MAX = 256
_SPACES = b" " * LEVELS_MAX
_RUN = re.compile(rb"^(?:[ \t\f\r]|\\\r?\n)+", re.M)
_PART = re.compile(rb"\\\r?\n|[\r\f]|[ \t]+")


def unsafe_source(data: bytes) -> bool:
    """Whether tree-sitter-python's scanner could be made to hold more than LEVELS_MAX
    indentation levels by `data` (see the module's docstring)."""
    if not _carried(data) and b"\t" not in data and _SPACES not in data:
        return False  # each width a run of spaces on one line, shorter than LEVELS_MAX: fewer widths
    return len(measured_widths(data)) > LEVELS_MAX


def _carried(data: bytes) -> bool:
    """Whether a backslash-newline stands in a line's indentation (nothing before it on its
    line but whitespace): each ends a line, so the lines are looked at once each."""
    for continuation in (b"\\\n", b"\\\r\n"):
        at = data.find(continuation)
        while at >= 0:
            if not data[data.rfind(b"\n", 0, at) + 1:at].strip(b" \t\f\r"):
                return True
            at = data.find(continuation, at + 1)
    return False


def measured_widths(data: bytes) -> set[int]:
    """Every width the scanner may measure for an indentation in `data`, and maybe more."""
    widths: set[int] = set()
    for run in set(_RUN.findall(data)):
        if b"\\" not in run and b"\r" not in run and b"\f" not in run:
            widths.add(run.count(b" ") + 8 * run.count(b"\t"))
        else:
            widths.update(_widths(run))
    return widths


def _widths(run: bytes) -> set[int]:
    """The widths measured in a run holding backslash-newlines or resets: from its start, and
    from after each newline in it (where the scanner may begin measuring), each up to the
    run's end and from the last reset on. Read backwards, once."""
    parts = _PART.findall(run)
    out: set[int] = set()
    width = 0
    counting = True  # no reset met yet, reading backwards from the run's end
    for part in reversed(parts):
        if part[:1] == b"\\":
            out.add(width)  # a measure beginning right after this newline
        elif part in (b"\r", b"\f"):
            counting = False
        elif counting:
            width += part.count(b" ") + 8 * part.count(b"\t")
    out.add(width)
    return out
