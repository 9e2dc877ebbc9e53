"""What a JavaScript or TypeScript declaration types a name as (`const`/`let`/`var name ...`):
its annotation; else the element of what a `for (const name of xs)` iterates; else its value's
type, the whole of the value: `new T(...)`, a call of a function declared to return T, a
conditional of dotted names (`c ? flow.bound : flow`, each value typed as a receiver is), an
element taken out of a declared container (`this.map_.get(k)`, `xs[i]`) or, read as a
container, a copy of a declared array (`all.splice(0)`). A `let` or `var` so typed holds that
class only where every assignment of it in its function makes the same."""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING, Protocol

from context_tools.query.symbols.call_close import SCRIPT, after_call
from context_tools.query.symbols.script_annotations import (
    IDENT,
    ITERATED,
    Reader,
    branches,
    element_before,
    iterated_by,
    named,
)
from context_tools.query.symbols.script_blocks import HEADER_LINES
from context_tools.query.symbols.script_chains import assignments, continued, copied_array, value_alone
from context_tools.query.symbols.script_declared import Declared
from indexer.lang.bindings_base import closing_bracket, dotted_names, opening_bracket

if TYPE_CHECKING:
    from context_tools.query.symbols.script_functions import ScriptFunctions
    from context_tools.query.symbols.script_signatures import Signatures

# the values a conditional's type may take, its nested conditionals' counted: each level of
# `c ? a : a` doubles them, and the rule that says them
ALTERNATIVES = 16
_CONSTANT = re.compile(rb"\bconst\b")
# a value made by a call: `new T(...)` (group 1 `new`), `f(...)`, `ns.f<A>(...)` (group 2 the name called)
_MADE = re.compile(rb"\s*(new\s+)?(?:" + IDENT + rb"\s*\.\s*)*(" + IDENT + rb")\s*(?:<[^()]*>)?\s*\(")


class Receivers(Protocol):
    """What types a dotted receiver at a line (`ScriptTypes.receiver`): what a value of dotted
    names, or a container's, is declared; how deep in declarations read through one another
    its reading is (`ScriptTypes.depth`)."""

    depth: int

    def receiver(self, path: str, line: int, col: int, receiver: tuple[str, ...],
                 read: Reader = named) -> Declared | None: ...


def _call_alone(lines: list[bytes], n: int, opened: int) -> bool:
    """Is the call whose parenthesis opens at byte `opened` of line `n` the whole value: closed,
    on that line or within `HEADER_LINES`, with nothing after it but `;` or a comment?"""
    rest = after_call(lines, n - 1, opened, SCRIPT, HEADER_LINES)
    return rest is not None and not rest.removeprefix(b";").strip()


def _takes_whole(value: bytes, container: tuple[str, ...]) -> bool:
    """Is the value, all of it, an element taken out of the container of dotted names
    (`this.map_.get(k)`, `xs[i]!`), not a larger expression ending with one (`c ? a : xs[i]`)?"""
    m = re.match(rb"(" + IDENT + rb"(?:\s*\.\s*" + IDENT + rb")*)\s*!?\s*(?:\??\.\s*get\s*\(|\[)", value)
    text = value.rstrip().removesuffix(b"!").rstrip()
    return m is not None and dotted_names(m.group(1)) == container and \
        opening_bracket(text, len(text) - 1, b"()[]{}") == m.end() - 1


def _taken(declared: Declared) -> int:
    """The values a declared type may take: one, or its conditional's, each counted so."""
    return sum(_taken(d) for d in declared.alternatives) if declared.alternatives else 1


class DeclaredValues:
    """The types one query's JavaScript and TypeScript declarations give their names."""

    def __init__(self, read: ScriptFunctions, signatures: Signatures, receivers: Receivers) -> None:
        self.read = read
        self.signatures = signatures
        # the receivers' typing that keeps this object (`ScriptTypes`), reached by a weak
        # reference: a strong one would make a cycle of them that only the collector frees
        self.receivers: Receivers = weakref.proxy(receivers)

    def declared_at(self, path: str, lines: list[bytes], n: int, text: bytes, d: re.Match[bytes], name: str,
                    read: Reader = named) -> Declared | None:
        """What a declaration `const name ...` (matched by `d` in `text`, line `n`) types the
        name as: its annotation (read by `read`), else, for a class, the element of what a
        `for (const name of c)` iterates or its value's type (`value_type`)."""
        if d.group(1):
            typed = read(text[d.end():])
            return Declared(typed[0], f"annotation `{typed[1]}` of `{name}`") if typed else None
        copied = self._copied(path, lines, n, text, d, name, read)
        if copied is not None or read is not named:
            return copied
        if re.search(rb"\bfor\s*\(\s*$", text[:d.start()]):
            iterated = iterated_by(text[d.end():])
            found = self.element_of(path, n, iterated, ITERATED, f"`for ({text[d.start():d.end()].decode().strip()} of "
                                    f"{'.'.join(iterated)})`") if iterated else None
        else:
            found = self.value_type(path, lines, n, text, d.end(), name) or self._conditional_value(
                path, lines, n, text, d.end(), name)
        # a `let` or `var` holds what its value makes only where every assignment makes the same
        if found is None or _CONSTANT.search(d.group()) or self._made_alike(path, n, name, found.type):
            return found
        return None

    def element_of(self, path: str, line: int, container: tuple[str, ...], read: Reader, how: str) -> Declared | None:
        """The class of an element of the container of dotted names at the line, its declared
        type read by `read`; `how` says how the element was taken, for the rule."""
        declared = self.receivers.receiver(path, line, 0, container, read)
        return declared._replace(rule=f"{how}, {declared.rule}") if declared else None

    def _conditional_value(self, path: str, lines: list[bytes], n: int, text: bytes, at: int,
                           name: str) -> Declared | None:
        """The types of a declaration's value, the whole of it (from byte `at` of `text`, line
        `n`), when it is a conditional of dotted names (`= bound ? flow.bound : flow`): each
        value's as declared (`either`)."""
        m = re.match(rb"\s*=\s*", text[at:])
        if m is None or continued(lines, n):
            return None
        value = re.sub(rb"\s*(?://.*)?$", b"", text[at + m.end():]).removesuffix(b";")
        values = branches(value)
        either = self.either(path, n, len(lines[n - 1]) - len(text) + at + m.end(), values) if values else None
        return either._replace(rule=f"`{name}` = {either.rule}") if either else None

    def either(self, path: str, line: int, col: int, values: tuple[tuple[str, ...], ...]) -> Declared | None:
        """The types of the values a conditional of dotted names may take, each typed at the
        line as a receiver is: decided where each value's type decides alike
        (`ScriptTypes._member`); None when a value's type is not declared, or when the values
        it may take, its values' own conditionals counted, are more than `ALTERNATIVES`."""
        said = []
        for value in values:
            declared = self.receivers.receiver(path, line, col, value)
            if declared is None:
                return None
            said.append(declared)
        if sum(_taken(d) for d in said) > ALTERNATIVES:
            return None
        rule = " or ".join(f"`{'.'.join(v)}` ({d.rule})" for v, d in zip(values, said))
        return Declared(" | ".join(d.type for d in said), f"a conditional of {rule}", alternatives=tuple(said))

    def value_type(self, path: str, lines: list[bytes], n: int, text: bytes, at: int, name: str) -> Declared | None:
        """The type of a declaration's value, the whole of it (from byte `at` of `text`, line
        `n`): `new T(...)`, or a call of a top-level function every definition of which declares
        it returns T (`createAtom(...)` for `function createAtom(...): IAtom`)."""
        m = re.match(rb"\s*=\s*(new\s+)?(?:" + IDENT + rb"\.)*(" + IDENT + rb")\s*(?:<[^()]*>)?\s*\(", text[at:])
        # `text` is the line's end from some byte on: the parenthesis' byte in the whole line
        if m is None or not _call_alone(lines, n, len(lines[n - 1]) - len(text) + at + m.end() - 1):
            return None
        callee = m.group(2).decode()
        if m.group(1):
            return Declared(callee, f"`{name} = new {callee}(...)`")
        said = self.signatures.returns(callee, path)
        return Declared(said.type, f"`{name} = {callee}(...)`, declared to return {said.type}",
                        seen_from=said.seen_from) if said else None

    def _copied(self, path: str, lines: list[bytes], n: int, text: bytes, d: re.Match[bytes], name: str,
                read: Reader) -> Declared | None:
        """What a declaration without an annotation types the name as when its whole value
        takes it out of a container the code declares: an element (`let e = this.map_.get(k)`,
        `const x = xs[i]`: the element's class, where every assignment of the name in its
        function makes an instance of that very class), or, for a container's own reading, an
        array of the same elements (`const all = this.xs_`, `let rest = all.splice(0)`, where the
        name is never assigned again). None otherwise."""
        m = re.match(rb"\s*=(?![=>])", text[d.end():])
        value = value_alone(lines, n, text[d.end() + m.end():]) if m else None
        if value is None:
            return None
        if read is named:
            taken = element_before(value + b".")
            if taken is None or not _takes_whole(value, taken.container):
                return None
            found = self.element_of(path, n, taken.container, taken.read,
                                    f"`{name} = {'.'.join(taken.container)}{taken.how}`")
            if found is None:
                return None
            return found if self._made_alike(path, n, name, found.type) else None
        copied = copied_array(value)
        if copied is None or copied[0] == name or self._assigned(path, n, name):
            return None
        declared = self.receivers.receiver(path, n, 0, copied, read)
        return declared._replace(rule=f"`{name} = {value.decode()}`, {declared.rule}") if declared else None

    def _made_alike(self, path: str, n: int, name: str, typed: str) -> bool:
        """Does every assignment of the name in the function holding its declaration at line
        `n` (`_assigned`) make an instance of that very class (`name = new T(...)`, or a call,
        the whole value, of a function declared to return it: `name = createT()`), so that the
        name holds one wherever it is read? True where nothing assigns it again."""
        return all(v is not None and self._makes(v, typed, path) for v in self._assigned(path, n, name))

    def _makes(self, value: bytes, typed: str, path: str) -> bool:
        """Does the assigned value make an instance of the class (`made`)?"""
        made = self.made(value, path)
        return made is not None and made.type == typed

    def made(self, value: bytes, path: str) -> Declared | None:
        """The class the assigned value (the text after `=`, to the end of the code read) makes
        an instance of: `new T(...)`, or a call alone on its line of a function every
        definition the file sees declares it returns T (`Signatures.returns`, T named as the
        function's file names it); None for any other value."""
        m = _MADE.match(value)
        if m is None:
            return None
        callee = m.group(2).decode()
        line = value.split(b"\n", 1)[0]
        closed = closing_bracket(line, m.end() - 1, b"()[]{}")
        # `new T(` may close on a later line; a call must close on its own, so that nothing after it is unseen
        rest = line[closed + 1:].lstrip() if closed is not None else (b"" if m.group(1) else b"?")
        if rest and not rest.startswith((b";", b"}", b")", b"]", b",", b"//")):  # the assignment ends there
            return None  # `new T().child`, `make().child`: what the call makes is not the value
        if m.group(1):
            return Declared(callee, f"new {callee}(...)")
        said = self.signatures.returns(callee, path)
        return Declared(said.type, f"{callee}(...), declared to return {said.type}", seen_from=said.seen_from) if said else None

    def _assigned(self, path: str, n: int, name: str) -> list[bytes | None]:
        """The assignments of the name in the function holding its declaration at line `n`
        (the file, at its top level), after `script_chains.assignments`."""
        lines = self.read.lines(path)
        holder = self.read.holder(path, n)
        first, last = (holder.line, holder.end_line) if holder else (1, len(lines))
        text = b"\n".join(t for t in lines[first - 1:last] if name.encode() in t)
        return assignments(text, name)
