"""The narrowings of a JavaScript or TypeScript name that hold where a site reads it: `if (x
instanceof T)`, or `if (isT(x))` with `isT` declared a type predicate (`Signatures.predicate`),
on the site's own line or heading a block holding it. The blocks are read outwards from the
innermost through those of statements and literals (`script_blocks.plain`), never out of a
function's body, and a narrowing holds only where its block neither assigns nor declares the
name again."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from context_tools.query.symbols.script_annotations import IDENT
from context_tools.query.symbols.script_blocks import NARROWING_LINES, bound_otherwise, declared, plain
from context_tools.query.symbols.script_chains import ASSIGNED
from context_tools.query.symbols.script_declared import Declared
from indexer.lang.bindings_base import NAME_REST, call_opened, site_window

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


def _if_condition(head: bytes) -> bytes | None:
    """The condition of the `if (...)` a block's head ends with, read back from its closing
    parenthesis to the one opening it; None for any other head."""
    text = head.rstrip()
    opened = call_opened(text)
    if opened is None:
        return None
    before = text[:opened].rstrip()
    if not before.endswith(b"if") or len(before) > 2 and before[-3] in NAME_REST:  # `\bif`
        return None
    return text[opened + 1:-1]


@functools.lru_cache(maxsize=1024)  # once a name: a query of many names outgrows re's own cache
def _patterns(name: str) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """`if (name instanceof T)` (group 1 T) and `if (isT(name))` (group 1 isT)."""
    word = re.escape(name.encode())
    return (re.compile(rb"\bif\s*\(\s*" + word + rb"\s+instanceof\s+(?:" + IDENT + rb"\.)*(" + IDENT + rb")\s*\)"),
            re.compile(rb"\bif\s*\(\s*(" + IDENT + rb")\s*\(\s*" + word + rb"\s*\)\s*\)"))


class Narrowing:
    """The narrowings of one query's JavaScript and TypeScript sites."""

    def __init__(self, read: ScriptFunctions, signatures: Signatures) -> None:
        self.read = read
        self.signatures = signatures
        # the first narrowing of each kind a line writes of a name: (where it ends, the type
        # or the predicate it names)
        self._written: dict[tuple[str, int, str], tuple[tuple[int, str] | None, tuple[int, str] | None]] = {}
        # what a block and the blocks holding it narrow a name to, read outwards from it
        self._outward: dict[tuple[str, tuple[int, int], str], Declared | None] = {}

    def narrowed(self, path: str, line: int, col: int, name: str) -> Declared | None:
        """The class a narrowing of the site's own line or of a block holding it makes the
        name: `if (name instanceof T)`, `if (isT(name))` with `isT` a declared type predicate.
        The blocks are read outwards from the innermost through those of statements and
        literals (`if (...) {`, `else {`, `try {`, `case k: {`: `plain`), never out of a
        function's body; the name must not be assigned or declared again inside the narrowing
        block. A line's narrowings of a name are found once, and so is what each block
        narrows it to with those holding it, however many sites they hold."""
        lines = self.read.lines(path)
        if not 0 < line <= len(lines):
            return None
        found = self._on_line(path, line, col, name)
        if found is not None:
            return found
        at = (line, col)
        braces = self.read.braces(path)
        blocks: list[tuple[str, tuple[int, int], str]] = []  # read here, to be kept
        while (opened := braces.opening(*at)) is not None:
            key = (path, opened, name)
            if key in self._outward:
                found = self._outward[key]
                break
            blocks.append(key)
            window, end = site_window(lines[opened[0] - 1], opened[1], 0)
            head = window[:end]  # the text before the block on its line, near it
            condition = _if_condition(head)
            found = self._narrowing(b"if (" + condition + b")", name, path) if condition is not None else None
            if found is not None:
                found = None if _rebound_in_block(lines, *opened, name) else found
                break
            if not plain(head):
                break
            at = opened
        # each block read ends where the innermost's reading ended
        self._outward.update((key, found) for key in blocks)
        return found

    def _on_line(self, path: str, line: int, col: int, name: str) -> Declared | None:
        """A narrowing written on the line before byte `col` (`cond && ...`, `if (x instanceof
        T) x.m()`), as `_narrowing` reads that text: a line's first narrowing of each kind is
        found once, and holds for a site past its end (narrowings do not overlap, so the first
        in the text before the site is the line's first, if it ends before the site)."""
        key = (path, line, name)
        if key not in self._written:
            text = self.read.lines(path)[line - 1]
            instance, predicate = _patterns(name)
            m = instance.search(text)
            p = predicate.search(text)
            self._written[key] = ((m.end(), m.group(1).decode()) if m else None,
                                  (p.end(), p.group(1).decode()) if p else None)
        first, guarded = self._written[key]
        if first is not None and first[0] <= col:
            return Declared(first[1], f"`{name} instanceof {first[1]}`")
        if guarded is not None and guarded[0] <= col:
            said = self.signatures.predicate(guarded[1], path)
            return Declared(said.type, f"`{guarded[1]}({name})`, a type predicate of {said.type}",
                            seen_from=said.seen_from) if said else None
        return None

    def _narrowing(self, text: bytes, name: str, path: str) -> Declared | None:
        """A narrowing `if (name instanceof T)` or `if (isT(name))` written on the text, the
        whole condition of its `if` (or `cond && ...` before the site)."""
        instance, predicate = _patterns(name)
        m = instance.search(text)
        if m is not None:
            return Declared(m.group(1).decode(), f"`{name} instanceof {m.group(1).decode()}`")
        m = predicate.search(text)
        if m is not None:
            guard = m.group(1).decode()
            said = self.signatures.predicate(guard, path)
            return Declared(said.type, f"`{guard}({name})`, a type predicate of {said.type}",
                            seen_from=said.seen_from) if said else None
        return None
