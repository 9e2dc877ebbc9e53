"""The blocks and declarations of JavaScript and TypeScript code as the receiver typing
(`script_types`) reads them, text alone: the innermost `{` holding a site, read back by braces
(`opening`); whether a block is a statement's or a literal's, which a narrowing holds through,
or a function's or class's body (`plain`); a `const`/`let`/`var` of a name (`declared`) and
any other binding of it (`bound_otherwise`)."""

from __future__ import annotations

import re

from indexer.lang.bindings_base import opening_bracket

HEADER_LINES = 30  # the lines a function's parameters are read over, at most
NARROWING_LINES = 200  # the lines read back from a site for the block holding it, at most

_PLAIN_BLOCK = re.compile(rb"(?:\belse|\btry|\bfinally|\bdo|[=(,:?\[]|\breturn)\s*$")
_PLAIN_HEAD = re.compile(rb"\b(?:if|for|while|switch|catch|with)\s*$")


def in_inner_function(text: bytes) -> bool:
    """Does the code `text` (from inside a function's body to a point of it) leave that point
    inside an inner function's body: a block left open whose head is no statement's (`if (...)
    {`, `else {`, `try {`) nor an object's (`= {`, `return {`, `({`)?"""
    stack: list[bool] = []
    for i, ch in enumerate(text):
        if ch == 0x7B:  # `{`
            stack.append(not plain(text[:i]))
        elif ch == 0x7D and stack:  # `}`
            stack.pop()
    return any(stack)


def declared(name: str) -> re.Pattern[bytes]:
    """`const name`, `let name`, `var name` (`export` before them), group 1 the colon of an annotation."""
    return re.compile(rb"(?:^\s*export\s+|\b)(?:const|let|var)\s+" + re.escape(name.encode()) + rb"(?![\w$])\s*(:?)\s*")


def plain(head: bytes) -> bool:
    """Is the block opening after `head` a statement's or a literal's (`if (...) {`, `else {`,
    `try {`, `case k: {`, `= {`), no function's or class's body, so that a narrowing holds
    through it?"""
    before = head.rstrip()
    if _PLAIN_BLOCK.search(before) is not None:
        return True
    opened = opening_bracket(before, len(before) - 1) if before.endswith(b")") else None
    return opened is not None and _PLAIN_HEAD.search(before[:opened]) is not None


def bound_otherwise(name: str) -> re.Pattern[bytes]:
    """A binding of the name other than `const`/`let`/`var name`: in a destructuring pattern,
    an arrow's or a function's parameter, a `catch`'s."""
    word = re.escape(name.encode())
    return re.compile(rb"(?:\b(?:const|let|var)\s*[{\[][^=]*(?<![\w$.])" + word + rb"(?![\w$])"
                      rb"|(?<![\w$.])" + word + rb"\s*\)?\s*=>|\([^()]*(?<![\w$.])" + word
                      + rb"(?![\w$])[^()]*\)\s*(?::[^=]*)?=>|\bfunction\b[^(]*\([^)]*(?<![\w$.])" + word
                      + rb"(?![\w$])|\bcatch\s*\(\s*" + word + rb"(?![\w$]))")


def opening(lines: list[bytes], line: int, col: int) -> tuple[int, int] | None:
    """(line, byte) of the innermost `{` holding the site, read back by braces."""
    depth = 0
    for n in range(line, max(0, line - NARROWING_LINES), -1):
        text = lines[n - 1] if n < line else lines[n - 1][:col]
        for i in range(len(text) - 1, -1, -1):
            ch = text[i:i + 1]
            if ch == b"}":
                depth += 1
            elif ch == b"{":
                if depth == 0:
                    return n, i
                depth -= 1
    return None
