"""The `impl` line a Rust map entry's member stands under.

A Rust type's methods are written in `impl` blocks, apart from the type (often after other
types, or in another file), and their signatures do not name it: `fn fmt(&self, f: &mut
fmt::Formatter)` three times in a file says nothing of which types' Debug or Display they
are, and indented under the last type listed it reads as that type's. The map lists each
block's first line (`impl<E> Debug for ErrorImpl<E>`) before the first of its members shown.
"""

from __future__ import annotations

import re

# how a line opening an impl block starts (after its indentation); `unsafe impl Send for X`
_IMPL = re.compile(rb"(?:unsafe\s+)?impl\b")
# the lines between an impl's first line and its members, at the impl's own indentation
_BETWEEN = re.compile(rb"(?:\{|where\b)")
# how far back a member's impl line is looked for: an impl block of thousands of lines is common
_LOOKBACK = 20_000


def impl_line(lines: list[bytes], line: int) -> tuple[int, str] | None:
    """(1-based line, text without its `{`) of the `impl` block holding the definition whose
    name is on `line` (1-based), None when what holds it is no impl (a trait, a module, a
    struct's fields) or is not found: the nearest line above it indented less than it, past
    blank lines and a multi-line header's `where` and `{`."""
    if not 0 < line <= len(lines):
        return None
    own = _indent(lines[line - 1])
    for j in range(line - 2, max(-1, line - 2 - _LOOKBACK), -1):
        text = lines[j]
        stripped = text.strip()
        if not stripped or _indent(text) >= own:
            continue
        if _BETWEEN.match(stripped):
            continue
        if not _IMPL.match(stripped):
            return None
        header = stripped.removesuffix(b"{").rstrip().decode("utf-8", "replace")
        return j + 1, header[:200]
    return None


def is_impl_line(text: str) -> bool:
    """Is a Rust map line an impl's line (`impl_line`) rather than a definition's?"""
    return _IMPL.match(text.lstrip().encode()) is not None


def _indent(text: bytes) -> int:
    return len(text) - len(text.lstrip(b" \t"))
