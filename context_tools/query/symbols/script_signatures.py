"""What the functions of a JavaScript or TypeScript tree declare in their signatures, as the
receiver typing (`script_types`) asks it of the definitions a site's file sees
(`ScriptFunctions.seen`), each answer where every such definition says the same: the class a
function declares it returns (`): T {`), the class a function is a type predicate of (`(x:
any) => x is T`, or built by a generic function of the class it is passed:
`createPredicate("T", T)`), the type it declares a parameter (`wrap(a: T)`) or a callback's
parameter (`autorun(view: (r: T) => any)`) to be."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from context_tools.query.symbols.script_annotations import IDENT, named, named_type, parameters
from context_tools.query.symbols.script_blocks import HEADER_LINES
from context_tools.query.symbols.script_chains import Passed, callback_parameter
from context_tools.query.symbols.script_declared import Declared
from context_tools.query.symbols.script_imports import imported_definition
from indexer.lang.bindings_base import closing_bracket

if TYPE_CHECKING:
    from context_tools.query.symbols.script_functions import ScriptFunctions
    from indexer.model import Symbol


class Said(NamedTuple):
    """The class the definitions of a function agree they declare, and the one file declaring
    it, whose names it is written with (`Declared.seen_from`): None where the site's own names
    say it (`Signatures._seen_from`)."""

    type: str
    seen_from: str | None


class Signatures:
    """The declared signatures of one query's JavaScript and TypeScript functions, each read
    once a query."""

    def __init__(self, read: ScriptFunctions) -> None:
        self.read = read
        self._predicates: dict[tuple[str, str], Said | None] = {}
        self._returns: dict[tuple[str, str], Said | None] = {}
        self._callbacks: dict[tuple[Passed, str], tuple[str, str, str | None] | None] = {}

    def returns(self, callee: str, site: str) -> Said | None:
        """The class every top-level function of the name the site's file sees (`seen`)
        declares it returns (`): T {`), named as their file names it."""
        key = (callee, site)
        if key not in self._returns:
            said: set[str | None] = set()
            files = set()
            for path, sym in self.read.seen(callee, site, ("function",)):
                files.add(path)
                lines = self.read.lines(path)
                _, body, start = self.read.parameters(path, sym)
                after = lines[body - 1][start:] if 0 < body <= len(lines) else b""
                m = re.match(rb"\s*:\s*", after)
                said.add(named_type(after[m.end():]) if m else None)
            self._returns[key] = self._agreed(said, files, callee, site, ("function",))
        return self._returns[key]

    def predicate(self, name: str, site: str) -> Said | None:
        """The class a function of the map is declared a type predicate of (`function isT(x):
        x is T`, `const isT = f(...) as (x: any) => x is T`), when every definition of the name
        the site's file sees says the same one (`seen`), named as their file names it (a
        predicate built of a class names it where the `const` passes it)."""
        key = (name, site)
        if key not in self._predicates:
            said: set[str | None] = set()
            files = set()
            for path, sym in self.read.seen(name, site, ("function", "variable", "constant")):
                files.add(path)
                text = b"\n".join(self.read.lines(path)[sym.line - 1:min(sym.end_line, sym.line - 1 + HEADER_LINES)])
                end = text.find(b"{") if sym.kind == "function" else -1
                m = re.search(rb"(?:\)\s*:|=>)\s*" + IDENT + rb"\s+is\s+", text[:end] if end >= 0 else text)
                said.add(named_type(text[m.end():]) if m else self._built_predicate(path, sym, text))
            self._predicates[key] = self._agreed(said, files, name, site, ("function", "variable", "constant"))
        return self._predicates[key]

    def _agreed(self, said: set[str | None], files: set[str], name: str, site: str,
                kinds: tuple[str, ...]) -> Said | None:
        """What every definition of the function said, where all said the same class, seen
        from their file (`_seen_from`)."""
        typed = said.pop() if len(said) == 1 else None
        return Said(typed, self._seen_from(files, name, site, kinds)) if typed else None

    def _seen_from(self, files: set[str], name: str, site: str, kinds: tuple[str, ...]) -> str | None:
        """The file the definitions of the name are declared in, whose names their types are
        written with, where it is one and the site's file sees that very file's: its own, or
        the one its import of the name reaches (`script_imports`). None otherwise: where the
        file neither defines nor imports the name as the map knows (a bundle's function nested
        in its wrapper, no symbol), what it binds the name to is not known, and a type is named
        as the site's own names name it."""
        if len(files) != 1:
            return None
        (declaring,) = files
        if declaring == site:
            return declaring
        reached = imported_definition(self.read.snap, site, name, kinds)
        return declaring if reached is not None and reached[0] == declaring else None

    def _built_predicate(self, path: str, sym: Symbol, text: bytes) -> str | None:
        """The class a `const` is a type predicate of when its whole value (`text` its
        declaration) is a call of a generic function declared to return a predicate of its type
        parameter and to take a constructor of it where the call passes a class by name: `const
        isT = createPredicate("T", T)` for `function createPredicate<P>(name: string, c: new
        (...args: any[]) => P): (x: any) => x is P`."""
        if sym.kind == "function":
            return None
        m = re.search(rb"=\s*(" + IDENT + rb")\s*\(", text)
        closed = closing_bracket(text, m.end() - 1, b"()[]{}") if m else None
        if m is None or closed is None or re.match(rb"\s*;?\s*(?://.*)?$", text[closed + 1:].split(b"\n")[0]) is None:
            return None
        arguments = [a.strip() for a in parameters(text[m.end():closed])]
        said = set()
        for fpath, fsym in self.read.seen(m.group(1).decode(), path, ("function",)):
            said.add(self._predicate_of_parameter(fpath, fsym, arguments))
        return said.pop() if len(said) == 1 else None

    def _predicate_of_parameter(self, path: str, sym: Symbol, arguments: list[bytes]) -> str | None:
        """The class a call of the generic function with `arguments` returns a predicate of:
        the class named by the argument its parameter `c: new (...) => P` takes, P the type
        parameter of its declared return `(x: any) => x is P`."""
        lines = self.read.lines(path)
        params, body, start = self.read.parameters(path, sym)
        after = lines[body - 1][start:] if 0 < body <= len(lines) else b""
        returned = re.match(rb"\s*:\s*\([^()]*\)\s*=>\s*" + IDENT + rb"\s+is\s+(" + IDENT + rb")\s*[{;]", after)
        header = lines[sym.line - 1]
        generic = re.search(rb"\bfunction\s*" + re.escape(sym.name.encode()) + rb"\s*<([^<>()]*)>", header)
        if returned is None or generic is None:
            return None
        parameter = returned.group(1)
        if parameter not in {m.group(1) for p in parameters(generic.group(1))
                             if (m := re.match(rb"\s*(" + IDENT + rb")", p)) is not None}:
            return None  # a class of that name, no type parameter
        constructs = re.compile(rb"\s*" + IDENT + rb"\s*:\s*new\s*\([^()]*\)\s*=>\s*" + re.escape(parameter) + rb"\s*$")
        taking = [i for i, p in enumerate(parameters(params)) if constructs.match(p)]
        if len(taking) != 1 or taking[0] >= len(arguments):
            return None
        passed = re.fullmatch(IDENT, arguments[taking[0]])
        return passed.group(0).decode() if passed else None

    def parameter_type(self, callee: str, index: int, site: str) -> Declared | None:
        """The type every top-level function of the name the site's file sees (`seen`)
        declares its parameter at `index` (counting from 0, a `this` parameter aside) to be,
        as its file names it; None where one declares none there, or they disagree."""
        said: set[str | None] = set()
        files = set()
        for path, sym in self.read.seen(callee, site, ("function",)):
            written = self.read.parameter_at(path, sym, index)
            read = named(written) if written is not None else None
            said.add(read[0] if read else None)
            files.add(path)
        typed = said.pop() if len(said) == 1 else None
        if typed is None:
            return None
        return Declared(typed, f"an argument of {callee}(...), its parameter declared `{typed}`",
                        seen_from=self._seen_from(files, callee, site, ("function",)))

    def callback_type(self, passed: Passed, site: str) -> tuple[str, str, str | None] | None:
        """(the class, as written, the file it is seen from: `_seen_from`) every definition of the callee
        the site's file sees declares the parameter of the callback passed to it, where none is
        overloaded and the class is none of its type parameters."""
        key = (passed, site)
        if key not in self._callbacks:
            said: set[tuple[str, str] | None] = set()
            files = set()
            for p, sym in self.read.seen(passed.callee, site, ("function",)):
                header = re.compile(rb"\bfunction\s*" + re.escape(passed.callee.encode()) + rb"\s*(<[^()]*>)?\s*\(")
                if sum(1 for t in self.read.lines(p) if header.search(t)) != 1:
                    said.add(None)  # overloads: the call picks one
                    continue
                generics = header.search(b"\n".join(self.read.lines(p)[sym.line - 1:sym.line - 1 + HEADER_LINES]))
                annotated = self.read.parameter_at(p, sym, passed.argument)
                written = callback_parameter(annotated, passed.parameter) if annotated is not None else None
                typed = named(written) if written is not None else None
                if typed and generics and generics.group(1) and re.search(
                        rb"[<,]\s*" + re.escape(typed[0].encode()) + rb"(?![\w$])", generics.group(1)):
                    typed = None  # a type parameter of the function
                said.add(typed)
                files.add(p)
            typed = said.pop() if len(said) == 1 else None
            self._callbacks[key] = (*typed, self._seen_from(files, passed.callee, site, ("function",))) if typed else None
        return self._callbacks[key]
