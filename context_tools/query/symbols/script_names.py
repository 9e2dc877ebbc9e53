"""The declaration a JavaScript or TypeScript name is read from where a site reads it, and
the type it gives the name: in the functions holding the site, innermost first, a parameter
`x: T` (or a JSDoc `@param {T} x`), the last `const`/`let`/`var x` between the function's first
line and the site (`DeclaredValues`), a callback's parameter where the callback is passed
directly to a declared container's method or to a function declaring its type, a declaration
at the function's own level below the site; any other binding of the name on the way leaves
it untyped. Where no function binds it, the file's one top-level declaration of it, else, for
a name an import binds, the top-level declaration the import reaches (`script_imports`), read
in its own file. Also `this` in a function declaring `this: T`."""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

from context_tools.query.symbols.script_annotations import Reader, callback_of, named, named_type
from context_tools.query.symbols.script_blocks import bound_otherwise, declared
from context_tools.query.symbols.script_chains import blanked, passed_to
from context_tools.query.symbols.script_declared import Declared
from context_tools.query.symbols.script_imports import imported_definition

if TYPE_CHECKING:
    from context_tools.query.symbols.script_functions import ScriptFunctions
    from context_tools.query.symbols.script_signatures import Signatures
    from context_tools.query.symbols.script_values import DeclaredValues
    from indexer.model import Symbol


@functools.lru_cache(maxsize=1024)  # once a name: a query of many names outgrows re's own cache
def _parameter_patterns(name: str) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """A parameter `name` annotated (`name: T`, `name?: T`, a TypeScript modifier before it),
    and the name standing alone."""
    word = re.escape(name.encode())
    return (re.compile(rb"(?:^|[,(])\s*(?:(?:public|private|protected|readonly)\s+)*" + word + rb"\s*\??\s*:\s*"),
            re.compile(rb"(?<![\w$.])" + word + rb"(?![\w$])"))


class DeclaredNames:
    """The declarations one query's JavaScript and TypeScript sites read their names from."""

    def __init__(self, read: ScriptFunctions, signatures: Signatures, values: DeclaredValues) -> None:
        self.read = read
        self.signatures = signatures
        self.values = values
        self._tops: dict[tuple[str, str, Reader, int], Declared | None] = {}
        self._imports: dict[tuple[str, str], tuple[str, Symbol] | None] = {}
        # a function's lines binding a name, and its declarations of it at its body's level
        self._binding: dict[tuple[str, int, str], list[int]] = {}
        self._level: dict[tuple[str, int, str], list[tuple[int, int]]] = {}
        # the types its binding lines give the name, read in order to the first untyped (and a
        # later declaration's), at each depth of the reading that asks (`ScriptTypes.receiver`)
        self._said: dict[tuple[str, int, str, Reader, int], list[Declared | None]] = {}
        self._parameter: dict[tuple[str, int, str, Reader], tuple[Declared | None, bool, bool]] = {}
        self._laters: dict[tuple[str, int, int, str, Reader, int], Declared | None] = {}

    def declaration(self, path: str, line: int, name: str, read: Reader = named) -> Declared | None:
        """The type the function holding the line declares the name of: a parameter `name: T`
        (or `@param {T} name` in its JSDoc), or the last `const`/`let`/`var name` between its
        header and the line (`: T`, or a value that is an instance or a call of a function
        declared to return one: `DeclaredValues.declared_at`). Another declaration of the name
        on the way (an inner function's parameter) leaves it untyped. Where no function holding
        the line binds it, the one declaration of the file's top level, else that of the file
        an import of the name reaches (`_imported`). The annotations are read by `read`: the
        class they name, or an element of the container they declare."""
        for holder in self.read.holders(path, line):  # innermost first: a closure sees its function's names
            found, bound = self._bound_in(path, holder, line, name, read)
            if bound:
                return found
        return self._top_level(path, name, read) or self._imported(path, name, read)

    def this_parameter(self, path: str, line: int) -> Declared | None:
        """`this` in a function declaring its type (`function make_(this: Annotation, ...)`)."""
        holder = self.read.holder(path, line)
        if holder is None:
            return None
        params, _, _ = self.read.parameters(path, holder)
        m = re.match(rb"\s*this\s*:\s*", params)
        typed = named_type(params[m.end():]) if m else None
        return Declared(typed, f"`this: {typed}` of {holder.qualified}") if typed else None

    def _imported(self, path: str, name: str, read: Reader = named) -> Declared | None:
        """The type a name the file imports has: what the top-level `const`, `let` or `var`
        the import reaches (`script_imports`) is declared, read in its own file as
        `_top_level` reads it there (`export const computed: IComputedFactory = ...`, `export
        const actionAnnotation = createActionAnnotation(...)`), its type named as that file
        names it."""
        key = (path, name)
        if key not in self._imports:
            self._imports[key] = imported_definition(self.read.snap, path, name, ("variable", "constant"))
        found = self._imports[key]
        if found is None or found[0] == path:
            return None
        typed = self._top_level(found[0], found[1].name, read)
        if typed is None:
            return None
        return typed._replace(rule=f"`{name}` imported from {found[0]}, {typed.rule}",
                              seen_from=typed.seen_from or found[0])

    def _bound_in(self, path: str, holder: Symbol, line: int, name: str,
                  read: Reader) -> tuple[Declared | None, bool]:
        """(its type, whether the function binds the name at all) for the name at the line:
        its parameter's, then each line of its body binding the name up to the line, in order
        (the last one's type; untyped where one's is not declared). The lines binding it are
        found once a function and name, and each one's type read once a depth
        (`ScriptTypes.receiver`), however many sites of the function read the name."""
        _, body, start = self.read.parameters(path, holder)
        key = (path, holder.start_byte, name, read)
        if key not in self._parameter:
            self._parameter[key] = self._parameter_typed(path, holder, name, read)
        found, bound, untyped = self._parameter[key]
        if untyped:
            return None, True  # a parameter without a type, or one inside a pattern
        binding = self._binding_lines(path, holder, body, start, name)
        k = bisect_right(binding, line)
        if not k:
            return (found, bound) if bound else self._later(path, holder, line, name, read)
        # the types of the binding lines read so far, in order, ending at the first untyped one
        said = self._said.setdefault((path, holder.start_byte, name, read, self.values.receivers.depth), [])
        while len(said) < k and (not said or said[-1] is not None):
            said.append(self._binding_at(path, binding[len(said)], body, start, name, read))
        if said[-1] is None and len(said) <= k:
            return None, True
        return said[k - 1], True

    def _parameter_typed(self, path: str, holder: Symbol, name: str,
                         read: Reader) -> tuple[Declared | None, bool, bool]:
        """(its type, whether a parameter of the function is the name, whether that parameter
        leaves it untyped whatever its body binds): an annotation's type, or a JSDoc
        `@param`'s for a parameter without one. Read once a function and name, however many
        sites ask."""
        annotated, mentioned = _parameter_patterns(name)
        params = self.read.parameters(path, holder)[0]
        m = annotated.search(params)
        if m is not None:
            typed = read(params[m.end():])
            return (Declared(typed[0], f"annotation `{typed[1]}` of parameter `{name}`") if typed else None), True, False
        if mentioned.search(params):
            documented = self.read.documented(path, holder, name, read)
            if documented is None:
                return None, True, True
            return Declared(documented[0], f"JSDoc `@param {{{documented[1]}}} {name}`"), True, False
        return None, False, False

    def _binding_lines(self, path: str, holder: Symbol, body: int, start: int, name: str) -> list[int]:
        """The lines of the function's body, from its first, that bind the name: a `const`,
        `let` or `var` of it, or another binding (`bound_otherwise`)."""
        key = (path, holder.start_byte, name)
        found = self._binding.get(key)
        if found is None:
            lines = self.read.lines(path)
            declaring = declared(name)
            other = bound_otherwise(name)
            found = self._binding[key] = []
            for n in range(body, holder.end_line + 1):
                text = lines[n - 1] if 0 < n <= len(lines) else b""
                text = text[start:] if n == body else text
                if name.encode() in text and (declaring.search(text) or other.search(text)):
                    found.append(n)
        return found

    def _binding_at(self, path: str, n: int, body: int, start: int, name: str, read: Reader) -> Declared | None:
        """The type line `n` of a function's body, binding the name, gives it: a `const`, `let` or
        `var`'s (`DeclaredValues.declared_at`); an arrow's or function's parameter's where the
        callback is passed directly to a declared container's method, and binds the name once on
        the line, or to a function declaring its type (`_passed`); None otherwise."""
        lines = self.read.lines(path)
        text = lines[n - 1] if 0 < n <= len(lines) else b""
        text = text[start:] if n == body else text
        d = declared(name).search(text)
        if d is not None:
            return self.values.declared_at(path, lines, n, text, d, name, read)
        other = bound_otherwise(name)
        alone = read is named and len(other.findall(text)) == 1
        taken = callback_of(text, name) if alone else None
        return self.values.element_of(path, n, taken.container, taken.read, taken.how) if taken else (
            self._passed(path, text, name) if alone else None)

    def _later(self, path: str, holder: Symbol, line: int, name: str, read: Reader) -> tuple[Declared | None, bool]:
        """(its type, whether the function binds the name) where the function declares it
        after the line, at its body's own level, visible to the whole body (`var d = f()`
        below a closure reading `d`): the one such declaration's type; untyped when it declares
        it otherwise there (`function d() {}`) or more than once. Its declarations at that level
        are found once a function and name, and the type read once a depth."""
        body, start, depths = self.read.depths(path, holder)
        later = self._level_lines(path, holder, name)
        i = bisect_left(later, (max(line + 1, body), -1))
        if i == len(later):
            return None, False
        n, index = later[i]
        if i + 1 < len(later) or index < 0:
            return None, True
        key = (path, n, index, name, read, self.values.receivers.depth)
        if key not in self._laters:
            lines = self.read.lines(path)
            written = lines[n - 1][start:] if n == body else lines[n - 1]  # the value as written, strings and all
            d = list(declared(name).finditer(blanked(written)))[index]
            self._laters[key] = self.values.declared_at(path, lines, n, written, d, name, read)
        return self._laters[key], True

    def _level_lines(self, path: str, holder: Symbol, name: str) -> list[tuple[int, int]]:
        """(line, which `const`/`let`/`var` of the name on it, -1 for a `function` or `class`
        of it) of each declaration of the name at the function body's own level, in order."""
        key = (path, holder.start_byte, name)
        found = self._level.get(key)
        if found is None:
            lines = self.read.lines(path)
            body, start, depths = self.read.depths(path, holder)
            declaring = declared(name)
            other = re.compile(rb"\b(?:function\s*\*?|class)\s+" + re.escape(name.encode()) + rb"(?![\w$])")
            found = self._level[key] = []
            for n in range(body, body + len(depths)):
                if name.encode() not in lines[n - 1]:
                    continue
                text = blanked(lines[n - 1][start:] if n == body else lines[n - 1])
                for index, m in (*enumerate(declaring.finditer(text)), *((-1, m) for m in other.finditer(text))):
                    if depths[n - body] + text.count(b"{", 0, m.start()) - text.count(b"}", 0, m.start()) == 1:
                        found.append((n, index))
            found.sort()
        return found

    def _top_level(self, path: str, name: str, read: Reader = named) -> Declared | None:
        """The type the file's one top-level declaration of the name gives it (`export const
        flowAnnotation = createFlowAnnotation("flow")`, `const app: App = ...`)."""
        # what it gives depends on how deep the reading that asks is (`ScriptTypes.receiver`)
        key = (path, name, read, self.values.receivers.depth)
        if key not in self._tops:
            lines = self.read.lines(path)
            declaring = declared(name)
            # of the lines that may declare the name (`lines_naming`), not every line for each name
            found = [(i + 1, d) for i in self.read.lines_naming(path, name) if lines[i][:1] not in (b" ", b"\t", b"}", b")")
                     and (d := declaring.match(lines[i])) is not None]
            self._tops[key] = self.values.declared_at(path, lines, found[0][0], lines[found[0][0] - 1], found[0][1], name,
                                                      read) if len(found) == 1 else None
        return self._tops[key]

    def _passed(self, path: str, text: bytes, name: str) -> Declared | None:
        """The class of a callback's parameter the line binds, where the callback is passed
        directly to a call of a top-level function every definition of which the file sees
        (`ScriptFunctions.seen`, once each: no overloads) declares the callback's type with that
        parameter's (`autorun(r => ...)` for `autorun(view: (r: IReactionPublic) => any)`); a
        type parameter of the function declares nothing."""
        passed = passed_to(text, name)
        typed = self.signatures.callback_type(passed, path) if passed is not None else None
        if typed is None or passed is None:
            return None
        return Declared(typed[0], f"`{name}` of a callback passed to {passed.callee}, declared `{typed[1]}`",
                        seen_from=typed[2])
