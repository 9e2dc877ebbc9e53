"""The blocks and declarations of JavaScript and TypeScript code as the receiver typing
(`script_types`) reads them, text alone: the innermost `{` holding a site, read back by braces
(`Braces`); whether a block is a statement's or a literal's, which a narrowing holds through,
or a function's or class's body (`plain`); a `const`/`let`/`var` of a name (`declared`) and
any other binding of it (`bound_otherwise`)."""

from __future__ import annotations

import functools
import re
from array import array
from bisect import bisect_left, bisect_right

from indexer.lang.bindings_base import opening_bracket

HEADER_LINES = 30  # the lines a function's parameters are read over, at most
NARROWING_LINES = 200  # the lines read back from a site for the block holding it, at most

_PLAIN_BLOCK = re.compile(rb"(?:\belse|\btry|\bfinally|\bdo|[=(,:?\[]|\breturn)\s*$")
_PLAIN_HEAD = re.compile(rb"\b(?:if|for|while|switch|catch|with)\s*$")
_BRACE = re.compile(rb"[{}]")
_NEVER = 1 << 62  # past any byte of a file
_BLANK = frozenset(b" \t\n\r\x0b\x0c")  # what `bytes.strip` takes, and `\s`
# the longest word either head pattern ends with (`finally`), and the byte before it
_HEAD_WORD = 8


def in_inner_function(text: bytes) -> bool:
    """Does the code `text` (from inside a function's body to a point of it) leave that point
    inside an inner function's body: a block left open whose head is no statement's (`if (...)
    {`, `else {`, `try {`) nor an object's (`= {`, `return {`, `({`)?"""
    opens, closes = inner_functions(text)
    return len(opens) > len(closes)


def inner_functions(text: bytes, start: int = 0) -> tuple[list[int], list[int]]:
    """Where the blocks of `text` from byte `start` (inside a function's body) that are an inner
    function's body open and close, each in order: a point is in one when more of them open
    before it than close (`in_inner_function` of the text up to it). Each brace's head is read
    back from it only as far as `plain` looks, within the text from `start`."""
    opens: list[int] = []
    closes: list[int] = []
    stack: list[bool] = []
    text = text[start:] if start else text
    for m in _BRACE.finditer(text):
        i = m.start()
        if text[i] == 0x7B:  # `{`
            inner = not _plain_before(text, i)
            stack.append(inner)
            if inner:
                opens.append(i + start)
        elif stack and stack.pop():  # `}`
            closes.append(i + start)
    return opens, closes


@functools.lru_cache(maxsize=1024)  # once a name: a query of many names outgrows re's own cache
def declared(name: str) -> re.Pattern[bytes]:
    """`const name`, `let name`, `var name` (`export` before them), group 1 the colon of an annotation."""
    return re.compile(rb"(?:^\s*export\s+|\b)(?:const|let|var)\s+" + re.escape(name.encode()) + rb"(?![\w$])\s*(:?)\s*")


def plain(head: bytes) -> bool:
    """Is the block opening after `head` a statement's or a literal's (`if (...) {`, `else {`,
    `try {`, `case k: {`, `= {`), no function's or class's body, so that a narrowing holds
    through it?"""
    return _plain_before(head, len(head))


def _plain_before(text: bytes, end: int) -> bool:
    """`plain` of the text before byte `end`, read back from it: the blank before it, the few
    bytes a block's head word takes (and the one before, for its word boundary), and a
    condition's parentheses."""
    j = end
    while j > 0 and text[j - 1] in _BLANK:
        j -= 1
    if _PLAIN_BLOCK.search(text[max(0, j - _HEAD_WORD):j]) is not None:
        return True
    opened = opening_bracket(text, j - 1) if j > 0 and text[j - 1] == 0x29 else None  # `)`
    if opened is None:
        return False
    k = opened
    while k > 0 and text[k - 1] in _BLANK:
        k -= 1
    return _PLAIN_HEAD.search(text[max(0, k - _HEAD_WORD):opened]) is not None


@functools.lru_cache(maxsize=1024)
def bound_otherwise(name: str) -> re.Pattern[bytes]:
    """A binding of the name other than `const`/`let`/`var name`: in a destructuring pattern,
    an arrow's or a function's parameter, a `catch`'s."""
    word = re.escape(name.encode())
    return re.compile(rb"(?:\b(?:const|let|var)\s*[{\[][^=]*(?<![\w$.])" + word + rb"(?![\w$])"
                      rb"|(?<![\w$.])" + word + rb"\s*\)?\s*=>|\([^()]*(?<![\w$.])" + word
                      + rb"(?![\w$])[^()]*\)\s*(?::[^=]*)?=>|\bfunction\b[^(]*\([^)]*(?<![\w$.])" + word
                      + rb"(?![\w$])|\bcatch\s*\(\s*" + word + rb"(?![\w$]))")


class Braces:
    """A file's braces, read once a file: the innermost `{` holding a point is the last one
    left open before it (the nearest `{` whose text to the point is balanced, as reading back
    by braces finds it), so that each site finds its own by a binary search, not by reading
    back its line and the lines above; and where each line stops being visible from (`closes`:
    `this_aliases.ThisAliases`)."""

    def __init__(self, lines: list[bytes]) -> None:
        # each line's first byte in the file, lines joined by one byte, and the end's
        self.starts = array("q")
        # each brace's byte in the file, in order, and the `{` left open after it (-1: none)
        self._at = array("q")
        self._open = array("q")
        # the byte from which each line's start is inside no block it was (the balance of braces
        # first below its own there: a `}` no `{` opened counts too), _NEVER when none closes
        self.closes = array("q", [_NEVER]) * len(lines)
        open_lines: list[tuple[int, int]] = []  # (balance at its start, line from 0), balances rising
        stack: list[int] = []
        balance = start = 0
        for i, text in enumerate(lines):
            self.starts.append(start)
            open_lines.append((balance, i))
            for m in _BRACE.finditer(text):
                if text[m.start()] == 0x7B:  # `{`
                    stack.append(start + m.start())
                    balance += 1
                else:
                    if stack:
                        stack.pop()
                    balance -= 1
                    while open_lines and open_lines[-1][0] > balance:
                        self.closes[open_lines.pop()[1]] = start + m.start() + 1
                self._at.append(start + m.start())
                self._open.append(stack[-1] if stack else -1)
            start += len(text) + 1
        self.starts.append(start)

    def opening(self, line: int, col: int) -> tuple[int, int] | None:
        """(line, byte) of the innermost `{` holding the byte `col` of line `line` (from 1), at
        most `NARROWING_LINES` lines above it."""
        at = min(self.starts[line - 1] + col, self.starts[line] - 1)  # no byte past the line's end
        i = bisect_left(self._at, at) - 1
        found = self._open[i] if i >= 0 else -1
        if found < 0:
            return None
        n = bisect_right(self.starts, found)
        return (n, found - self.starts[n - 1]) if n > line - NARROWING_LINES else None


