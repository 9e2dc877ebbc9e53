"""The narrowings of a JavaScript or TypeScript name that hold where a site reads it: `if (x
instanceof T)`, or `if (isT(x))` with `isT` declared a type predicate (`Signatures.predicate`),
on the site's own line or heading a block holding it. The blocks are read outwards from the
innermost through those of statements and literals (`script_blocks.plain`), never out of a
function's body, and a narrowing holds only where its block neither assigns nor declares the
name again."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from context_tools.query.symbols.script_annotations import IDENT
from context_tools.query.symbols.script_blocks import NARROWING_LINES, bound_otherwise, declared, plain
from context_tools.query.symbols.script_chains import ASSIGNED
from context_tools.query.symbols.script_declared import Declared

if TYPE_CHECKING:
    from context_tools.query.symbols.script_functions import ScriptFunctions
    from context_tools.query.symbols.script_signatures import Signatures


def _rebound_in_block(lines: list[bytes], n: int, i: int, name: str) -> bool:
    """Is the name assigned (`name = ...`, `name ??= ...`) or declared again (`const name`, a
    parameter `name`) inside the block opening at byte `i` of line `n`, up to where it closes?"""
    bound = (re.compile(rb"(?<![\w$.])" + re.escape(name.encode()) + ASSIGNED), declared(name),
             bound_otherwise(name))
    depth = 0
    for m in range(n, min(n + NARROWING_LINES, len(lines) + 1)):
        text = lines[m - 1][i:] if m == n else lines[m - 1]
        if any(b.search(text) for b in bound):
            return True
        depth += text.count(b"{") - text.count(b"}")
        if depth <= 0:
            return False
    return True


class Narrowing:
    """The narrowings of one query's JavaScript and TypeScript sites."""

    def __init__(self, read: ScriptFunctions, signatures: Signatures) -> None:
        self.read = read
        self.signatures = signatures

    def narrowed(self, path: str, line: int, col: int, name: str) -> Declared | None:
        """The class a narrowing of the site's own line or of a block holding it makes the
        name: `if (name instanceof T)`, `if (isT(name))` with `isT` a declared type predicate.
        The blocks are read outwards from the innermost through those of statements and
        literals (`if (...) {`, `else {`, `try {`, `case k: {`: `plain`), never out of a
        function's body; the name must not be assigned or declared again inside the narrowing
        block."""
        lines = self.read.lines(path)
        if not 0 < line <= len(lines):
            return None
        found = self._narrowing(lines[line - 1][:col], name, path)
        if found is not None:
            return found
        at = (line, col)
        while (opened := self.read.braces(path).opening(*at)) is not None:
            head = lines[opened[0] - 1][:opened[1]]
            m = re.search(rb"\bif\s*\((.*)\)\s*$", head)
            found = self._narrowing(b"if (" + m.group(1) + b")", name, path) if m else None
            if found is not None:
                return None if _rebound_in_block(lines, *opened, name) else found
            if not plain(head):
                return None
            at = opened
        return None

    def _narrowing(self, text: bytes, name: str, path: str) -> Declared | None:
        """A narrowing `if (name instanceof T)` or `if (isT(name))` written on the text, the
        whole condition of its `if` (or `cond && ...` before the site)."""
        word = re.escape(name.encode())
        m = re.search(rb"\bif\s*\(\s*" + word + rb"\s+instanceof\s+(?:" + IDENT + rb"\.)*(" + IDENT + rb")\s*\)", text)
        if m is not None:
            return Declared(m.group(1).decode(), f"`{name} instanceof {m.group(1).decode()}`")
        m = re.search(rb"\bif\s*\(\s*(" + IDENT + rb")\s*\(\s*" + word + rb"\s*\)\s*\)", text)
        if m is not None:
            guard = m.group(1).decode()
            said = self.signatures.predicate(guard, path)
            return Declared(said.type, f"`{guard}({name})`, a type predicate of {said.type}",
                            seen_from=said.seen_from) if said else None
        return None
