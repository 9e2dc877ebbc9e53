"""The functions of JavaScript and TypeScript files as the receiver typing (`script_types`)
reads them: which functions hold a line, a function's parameter list and where its body
starts, the braces' depth along its body, the JSDoc type of a parameter, and which definitions
of a name a file sees (its own, else the tree's TypeScript top level)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from context_tools.query.symbols.rightmost import Holding
from context_tools.query.symbols.script_annotations import IDENT, Reader, parameters
from context_tools.query.symbols.script_blocks import HEADER_LINES, Braces
from context_tools.query.symbols.script_chains import blanked
from indexer.lang.bindings import of_import

if TYPE_CHECKING:
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot

_TYPESCRIPT = (".ts", ".tsx", ".mts", ".cts")


class ScriptFunctions:
    """One query's reading of its JavaScript and TypeScript files' functions."""

    def __init__(self, snap: Snapshot, read_lines: Callable[[str], list[bytes]],
                 read_functions: Callable[[str], list[Symbol]], lines_naming: Callable[[str, str], list[int]],
                 read_braces: Callable[[str], Braces]) -> None:
        self.snap = snap
        # a file's lines, its functions and methods, and the lines that may declare a name,
        # read once a query (`sites._Reading`)
        self.lines = read_lines
        self.functions = read_functions
        self.lines_naming = lines_naming
        self.braces = read_braces  # the file's braces, matched once (`Braces`)
        self._parameters: dict[tuple[str, int], tuple[bytes, int, int]] = {}
        self._by_start: dict[str, Holding] = {}
        self._body_depths: dict[tuple[str, int], tuple[int, int, list[int]]] = {}


    def holder(self, path: str, line: int) -> Symbol | None:
        """The innermost function or method of the file holding the line: of those holding it
        that start on the latest line, the first in the file."""
        found = None
        for s in self.holders(path, line):
            if found is not None and s.line != found.line:
                break
            found = s
        return found

    def holders(self, path: str, line: int) -> list[Symbol]:
        """The functions and methods of the file holding the line, innermost (the latest
        starting) first: found by a binary search over them by their first byte (`Holding`),
        not by reading them all for each site."""
        found = self._by_start.get(path)
        if found is None:
            found = self._by_start[path] = Holding.by(self.functions(path), lambda s: s.start_byte)
        return list(found.holding(line))

    def parameters(self, path: str, holder: Symbol) -> tuple[bytes, int, int]:
        """The text of the function's parameter list, and the line (from 1) and byte its body
        starts at: past the parenthesis closing the list. Read once a function and query: every
        site of a function asks, and a list may be long."""
        key = (path, holder.start_byte)
        found = self._parameters.get(key)
        if found is None:
            found = self._parameters[key] = _parameters(self.lines(path), holder)
        return found

    def parameter_at(self, path: str, sym: Symbol, index: int) -> bytes | None:
        """The annotation of the function's parameter at `index` (counting from 0, a `this`
        parameter aside), the text after its colon; None where it has none there."""
        params, _, _ = self.parameters(path, sym)
        parts = [p for p in parameters(params) if not re.match(rb"\s*this\s*:", p)]
        m = re.match(rb"\s*(?:(?:public|private|protected|readonly)\s+)*" + IDENT + rb"\s*\??\s*:\s*",
                     parts[index]) if index < len(parts) else None
        return parts[index][m.end():] if m else None

    def depths(self, path: str, holder: Symbol) -> tuple[int, int, list[int]]:
        """(the line its body starts on, the byte there, the braces' depth at the start of each
        line from it to its last) of a function, read once a query."""
        key = (path, holder.start_byte)
        if key not in self._body_depths:
            lines = self.lines(path)
            _, body, start = self.parameters(path, holder)
            depths, depth = [], 0
            for n in range(body, min(holder.end_line, len(lines)) + 1):
                depths.append(depth)
                text = blanked(lines[n - 1][start:] if n == body else lines[n - 1])
                depth += text.count(b"{") - text.count(b"}")
            self._body_depths[key] = body, start, depths
        return self._body_depths[key]

    def documented(self, path: str, holder: Symbol, name: str, read: Reader) -> tuple[str, str] | None:
        """The class a JSDoc comment above the function (blank lines between) gives its parameter
        (`@param {Layer} layer`), which the TypeScript checker reads as the parameter's type."""
        lines = self.lines(path)
        n = holder.line - 1
        while 0 < n <= len(lines) and not lines[n - 1].strip():  # blank lines between: still its comment
            n -= 1
        if not (0 < n <= len(lines)) or not lines[n - 1].rstrip().endswith(b"*/"):
            return None
        block: list[bytes] = []
        while n > 0 and len(block) < HEADER_LINES:
            block.append(lines[n - 1])
            if b"/**" in lines[n - 1]:
                break
            n -= 1
        m = re.search(rb"@param\s*\{([^}]*)\}\s*\[?" + re.escape(name.encode()) + rb"(?![\w$])", b"\n".join(block))
        return read(m.group(1)) if m else None

    def defines(self, path: str, name: str) -> bool:
        """Does the file define the name itself, at any depth: not a variable an import binds on
        its line (`var Layer = require('./layer')` is the import's binding of another file's)?"""
        lines = [s.line for p, s in self.snap.definitions(name) if p == path]
        if not lines:
            return False
        facts = self.snap.import_facts(path)
        bound = {spec.line for spec in (facts.imports if facts else ())
                 if any(local == name for _, local in of_import(spec.kind).binds(spec))}
        return any(line not in bound for line in lines)

    def seen(self, name: str, site: str, kinds: tuple[str, ...]) -> list[tuple[str, Symbol]]:
        """The definitions of the name the site's file sees: its own (any of them, at any
        depth), else the top-level ones of the tree's TypeScript files (the one syntax declaring
        a type; a bundle a build wrote, JavaScript, declares none)."""
        found = self.snap.definitions(name)
        if self.defines(site, name):  # its own, at any depth (a bundle's, inside its wrapper)
            return [(p, s) for p, s in found if p == site and s.kind in kinds]
        return [(p, s) for p, s in found if s.kind in kinds and not s.container and p.endswith(_TYPESCRIPT)]


_PARAMETER_BRACKETS = re.compile(rb"[(\[{<)\]}>]")


def _parameters(lines: list[bytes], holder: Symbol) -> tuple[bytes, int, int]:
    """`ScriptFunctions.parameters`, read: from the header's first `(` to the bracket that
    brings the depth of `([{<` back to none (a `>` of `=>` no bracket), its brackets alone
    visited."""
    text = b"\n".join(lines[holder.line - 1:holder.line - 1 + HEADER_LINES])
    opened = text.find(b"(")
    depth = 0
    for m in _PARAMETER_BRACKETS.finditer(text, max(opened, 0)) if opened >= 0 else ():
        i = m.start()
        if text[i] in b"([{<":
            depth += 1
        elif not (text[i] == 0x3E and text[i - 1:i] == b"="):  # `=>`
            depth -= 1
            if depth == 0:
                return text[opened + 1:i], holder.line + text.count(b"\n", 0, i), i - text.rfind(b"\n", 0, i)
    return b"", holder.line, 0
