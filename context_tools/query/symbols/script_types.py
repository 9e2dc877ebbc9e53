"""What a JavaScript or TypeScript receiver is, by what the code around it declares: the one
typing of a receiver the references query makes for these languages beyond `this` and a
line assigning an instance (`sites._BySyntax`). A receiver is typed only where a declaration
decides it:

- a cast, `(expr as T).name`;
- a narrowing of a block holding the site (or of the site's own line), read outwards through
  the blocks of statements (`if`, `else`, `try`, `case`), never past a function's body, and
  where the name is not assigned inside: `if (x instanceof T) {`, or `if (isT(x)) {` where
  `isT` is declared a type predicate (`(x: any) => x is T`, `function isT(x): x is T`) or is
  a `const` a generic function builds of a class it is passed (`createPredicate("T", T)` of
  `<P>(name, c: new (...args: any[]) => P): (x: any) => x is P`);
- the function holding the site declaring it: a parameter `x: T`, `this: T`, or a
  `const`/`let`/`var x: T` between the function's first line and the site; any other
  declaration of the name on the way (an arrow's parameter, `const x = ...`) leaves it untyped;
  where no function binds it, the file's one top-level declaration of it, else, for a name an
  import binds, the top-level `const`/`let`/`var` the import reaches through re-exports
  (`script_imports`), read in its own file (`export const computed: IComputedFactory = ...`,
  `export const annotation = createAnnotation(...)` of a function declared `: Annotation`);
- a declaration's value: `new T(...)`, a call of a function declared to return T, or a
  conditional of dotted names (`const a = c ? flow.bound : flow`), as is a parenthesized
  conditional right before the dot (`(c ? a : b).m`): each value typed as a receiver is, the
  site decided only where every value's type has the same member; a `let` or `var` so typed
  only where every assignment of the name in its function makes that class too (`x = new
  T(...)`, `x = createT()`; `x = other` leaves it untyped);
- then each further part of a dotted receiver (`this.atom_`, `adm.values_`) a field of that
  class whose declaration names its type (`atom_: IAtom`, `keysAtom_!: IAtom`), the type
  named as the field's own file names it;
- an element taken out of a standard container whose type those bindings declare
  (`script_annotations`): `map.get(k)!.m` of `Map<K, T>`; `arr[i].m` of `T[]`, `Array<T>` or
  `ReadonlyArray<T>`; the parameter of a callback passed directly to `arr.forEach(...)` (`map`,
  `filter`, ...: the first, `reduce`'s second) of those or of `Set<T>`, `ReadonlySet<T>`
  (`Map<K, T>`'s `forEach`: T); `for (const x of arr)`. An annotated callback parameter, a
  callback passed by name or an element type that is no one class leave it untyped;
- a computed key a class or interface declares (`script_chains`): `x[K].m` where `x`'s class,
  or its nearest base declaring one, declares `[K]: T` (K the same identifier, not its value):
  T; and a chain of fields and such keys after a cast or a typed name (`(x as T)[$mobx].m`,
  `(x as T).atom_.m`). A key declared as a method or without a type, or by no class, leaves it
  untyped;
- a `const`/`let` without annotation whose whole value takes an element out of a container
  so declared (`let e = this.map_.get(k)`, `const x = xs[i]`), when every assignment of the
  name in its function makes that very class (`e = new T(...)`, as for a `let` above); and,
  read as a container, one copying an array of the same elements (`const all = this.xs_`,
  `let rest = all.splice(0)`: `slice`, `concat`, `reverse`, `sort`, `filter` with a callback
  written in place) never assigned again;
- a declaration the function holding the site makes below it at its body's own level (`var d
  = f()` below a closure reading `d`), where it is the function's one declaration of the name;
- the parameter of a callback passed directly to a call of a top-level function declaring the
  callback's type (`autorun(r => ...)` for `autorun(view: (r: T) => any)`), one definition
  of it, not overloaded, T none of its type parameters.

A key of an object literal (`make_,`, `make_: f`) is the member it implements where the
literal's type is declared: returned by a function declared `: T`, the value of `const o: T =`,
or an argument of a call of a function declaring that parameter `: T` (`wrap({ make_ })`).

T must name a class or interface of the map, or an object type alias (`Foo<K, V>`, `Foo |
undefined` and `Foo | boolean` are Foo: a member is read only where the other types have
none; an intersection `A & B`'s member is the one its parts of the map that have one agree
on, a part the map lacks passed over as an unresolved base is); the site is then the
definition's when the member the class has of the name, its own or a base's, is one asked,
and a `name_match` when it is another. Anything else is left to the rules before."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, NamedTuple

from context_tools.query.symbols.call_close import SCRIPT, after_call
from context_tools.query.symbols.hierarchy import Cls, is_class, object_type
from context_tools.query.symbols.script_annotations import (
    IDENT,
    INTERSECTION,
    ITERATED,
    Reader,
    argument_of,
    branches,
    callback_of,
    element_before,
    iterated_by,
    named,
    named_type,
    parameters,
    type_end,
)
from context_tools.query.symbols.script_chains import (
    ASSIGNED,
    Passed,
    assignments,
    blanked,
    callback_parameter,
    chain_before,
    continued,
    copied_array,
    keyed_member,
    passed_to,
    value_alone,
)
from context_tools.query.symbols.script_imports import imported_definition
from indexer.lang.bindings import of_import
from indexer.lang.bindings_base import closing_bracket, dotted_names, opening_bracket

if TYPE_CHECKING:
    from context_tools.query.symbols.members import MemberSites
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot

HEADER_LINES = 30  # the lines a function's parameters are read over, at most
NARROWING_LINES = 200  # the lines read back from a site for the block holding it, at most
# the words after which a parenthesis opens an expression, not a call's arguments (`return (x as T).m`)
_BEFORE_EXPRESSION = frozenset({b"return", b"await", b"typeof", b"void", b"yield", b"case", b"in", b"of", b"else",
                                b"do", b"throw", b"delete"})
# what every object has from Object.prototype: a member no declared type decides
OBJECT = frozenset({"constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
                    "toString", "valueOf"})
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
_TYPESCRIPT = (".ts", ".tsx", ".mts", ".cts")


class Declared(NamedTuple):
    """A receiver's type as the code declares it: the type's name (`A & B` an intersection),
    the binding that said so and, where the binding names the very class (`this`), that class;
    `seen_from` the file whose names the type is written with, where another file's declaration
    said it (an imported `const`'s), `alternatives` the types of the values a conditional may
    take (`c ? a : b`), where there are several."""

    type: str
    rule: str
    cls: Cls | None = None
    seen_from: str | None = None
    alternatives: tuple[Declared, ...] = ()


# the declared type of each receiver asked (file, line, byte, dotted receiver, cast): what the
# code says of it, whichever definition a query weighs it against
Typed = dict[tuple[str, int, int, tuple[str, ...], "str | None"], "Declared | None"]


def cast_before(lines: list[bytes], line: int, col: int) -> str | None:
    """The class of a cast ending right before a site's dot (`cast_type`), read over the lines
    above too where the site's line starts with the cast's closing parenthesis (`(\n x as T\n).m`)."""
    return cast_type(_before(lines, line, col))


def _before(lines: list[bytes], line: int, col: int) -> bytes:
    """The text before a site on its line, with the lines above where the line starts with a
    parenthesis closing there."""
    before = lines[line - 1][:col].rstrip() if 0 < line <= len(lines) else b""
    if before.lstrip().startswith(b")"):
        before = b" ".join(t.strip() for t in lines[max(0, line - 1 - HEADER_LINES):line - 1]) + b" " + before.lstrip()
    return before


def parenthesized(before: bytes) -> bytes | None:
    """What the parentheses of an expression hold when the text before a site's dot ends with
    them (`(expr).`, `return (expr).`); None otherwise, or for a call's arguments (`f(x).`)."""
    if not before.endswith(b")."):
        return None
    i = opening_bracket(before, len(before) - 2)
    if i is None:
        return None
    lead = re.search(rb"([\w$]+|[)\]])\s*$", before[:i])
    if lead is not None and lead.group(1) not in _BEFORE_EXPRESSION:
        return None  # a call's arguments (`f(x as T).m`)
    return before[i + 1:len(before) - 2]


def cast_type(before: bytes) -> str | None:
    """The class of a cast the text before a site's dot ends with: `(expr as T).` (also
    `(expr as unknown as T).`); None otherwise."""
    inner = parenthesized(before)
    if inner is None:
        return None
    found = list(re.finditer(rb"\bas\s+", inner))
    if not found:
        return None
    tail = inner[found[-1].end():]
    return named_type(tail) if type_end(tail) == len(tail) else None


_PLAIN_BLOCK = re.compile(rb"(?:\belse|\btry|\bfinally|\bdo|[=(,:?\[]|\breturn)\s*$")
_PLAIN_HEAD = re.compile(rb"\b(?:if|for|while|switch|catch|with)\s*$")


def _in_inner_function(text: bytes) -> bool:
    """Does the code `text` (from inside a function's body to a point of it) leave that point
    inside an inner function's body: a block left open whose head is no statement's (`if (...)
    {`, `else {`, `try {`) nor an object's (`= {`, `return {`, `({`)?"""
    stack: list[bool] = []
    for i, ch in enumerate(text):
        if ch == 0x7B:  # `{`
            stack.append(not _plain(text[:i]))
        elif ch == 0x7D and stack:  # `}`
            stack.pop()
    return any(stack)


def _declared(name: str) -> re.Pattern[bytes]:
    """`const name`, `let name`, `var name` (`export` before them), group 1 the colon of an annotation."""
    return re.compile(rb"(?:^\s*export\s+|\b)(?:const|let|var)\s+" + re.escape(name.encode()) + rb"(?![\w$])\s*(:?)\s*")


_CONSTANT = re.compile(rb"\bconst\b")
# a value made by a call: `new T(...)` (group 1 `new`), `f(...)`, `ns.f<A>(...)` (group 2 the name called)
_MADE = re.compile(rb"\s*(new\s+)?(?:" + IDENT + rb"\s*\.\s*)*(" + IDENT + rb")\s*(?:<[^()]*>)?\s*\(")


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


def _plain(head: bytes) -> bool:
    """Is the block opening after `head` a statement's or a literal's (`if (...) {`, `else {`,
    `try {`, `case k: {`, `= {`), no function's or class's body, so that a narrowing holds
    through it?"""
    before = head.rstrip()
    if _PLAIN_BLOCK.search(before) is not None:
        return True
    opened = opening_bracket(before, len(before) - 1) if before.endswith(b")") else None
    return opened is not None and _PLAIN_HEAD.search(before[:opened]) is not None


def _bound_otherwise(name: str) -> re.Pattern[bytes]:
    """A binding of the name other than `const`/`let`/`var name`: in a destructuring pattern,
    an arrow's or a function's parameter, a `catch`'s."""
    word = re.escape(name.encode())
    return re.compile(rb"(?:\b(?:const|let|var)\s*[{\[][^=]*(?<![\w$.])" + word + rb"(?![\w$])"
                      rb"|(?<![\w$.])" + word + rb"\s*\)?\s*=>|\([^()]*(?<![\w$.])" + word
                      + rb"(?![\w$])[^()]*\)\s*(?::[^=]*)?=>|\bfunction\b[^(]*\([^)]*(?<![\w$.])" + word
                      + rb"(?![\w$])|\bcatch\s*\(\s*" + word + rb"(?![\w$]))")


def _rebound_in_block(lines: list[bytes], n: int, i: int, name: str) -> bool:
    """Is the name assigned (`name = ...`, `name ??= ...`) or declared again (`const name`, a
    parameter `name`) inside the block opening at byte `i` of line `n`, up to where it closes?"""
    bound = (re.compile(rb"(?<![\w$.])" + re.escape(name.encode()) + ASSIGNED), _declared(name),
             _bound_otherwise(name))
    depth = 0
    for m in range(n, min(n + NARROWING_LINES, len(lines) + 1)):
        text = lines[m - 1][i:] if m == n else lines[m - 1]
        if any(b.search(text) for b in bound):
            return True
        depth += text.count(b"{") - text.count(b"}")
        if depth <= 0:
            return False
    return True


class ScriptTypes:
    """The declared types of one query's receivers, for its JavaScript and TypeScript sites."""

    def __init__(self, snap: Snapshot, members: MemberSites, read_lines: Callable[[str], list[bytes]],
                 read_functions: Callable[[str], list[Symbol]], typed: Typed | None = None) -> None:
        self.snap = snap
        self.members = members
        # a file's lines and its functions and methods, read once a query (`sites._Reading`)
        self.lines = read_lines
        self.functions = read_functions
        self._classes: dict[str, list[Cls]] = {}
        self._predicates: dict[tuple[str, str], str | None] = {}
        self._returns: dict[tuple[str, str], str | None] = {}
        self._tops: dict[tuple[str, str, Reader], Declared | None] = {}
        self._body_depths: dict[tuple[str, int], tuple[int, int, list[int]]] = {}
        self._callbacks: dict[tuple[Passed, str], tuple[str, str, str | None] | None] = {}
        self._imports: dict[tuple[str, str], tuple[str, Symbol] | None] = {}
        # the receivers typed so far: shared by the passes of one query, one a definition
        self._typed: Typed = {} if typed is None else typed

    def decide(self, path: str, line: int, col: int, receiver: tuple[str, ...], cast: str | None,
               simple: str) -> tuple[bool, str] | None:
        """(the site is the definition's, the rule) when a declaration types the receiver as
        classes of the map that all have a member `simple`; None when none does."""
        if simple in OBJECT:
            return None
        key = (path, line, col, receiver, cast)
        if key in self._typed:
            declared = self._typed[key]
        else:
            declared = self._typed[key] = Declared(cast, f"cast to `{cast}`") if cast else (
                self.receiver(path, line, col, receiver) if receiver else (
                    self._element(path, line, col) or self._chained(path, line, col) or self._conditional(
                        path, line, col)))
        if declared is None:
            return None
        return self._judged(declared, path, simple)

    def _judged(self, declared: Declared, path: str, simple: str) -> tuple[bool, str] | None:
        """Is the member `simple` that the declared type's classes have one asked (with the rule)?
        None when they have none or disagree."""
        verdict = self._member(declared, path, simple)
        if verdict is None:
            return None
        mine, qualified = verdict
        return (True, declared.rule) if mine else (False, f"{declared.rule}: {qualified}")

    def _member(self, declared: Declared, path: str, simple: str) -> tuple[bool, str] | None:
        """(it is one asked, its qualified name) of the member `simple` a declared type has:
        the one every class the type may name has; of a conditional's alternatives, the one
        each has; of an intersection, the one its parts of the map having one have (a part the
        map lacks, `PropertyDecorator`, is passed over as a base the map lacks is). None when
        they have none or disagree."""
        if declared.alternatives:
            said = {self._member(d, path, simple) for d in declared.alternatives}
            return said.pop() if len(said) == 1 else None
        if INTERSECTION in declared.type:
            verdicts: set[tuple[bool, str] | None] = set()
            for part in declared.type.split(INTERSECTION):
                found = self._verdicts(self.classes(declared._replace(type=part), path), simple)
                if len(found) > 1:
                    return None  # a part naming classes that disagree
                verdicts |= found - {None}
            return verdicts.pop() if len(verdicts) == 1 else None
        classes = self.classes(declared, path)
        found = self._verdicts(classes, simple)
        return found.pop() if classes and len(found) == 1 else None

    def _verdicts(self, classes: list[Cls], simple: str) -> set[tuple[bool, str] | None]:
        """(one asked, its qualified name) of each class's member `simple`, None for a class
        without one."""
        verdicts: set[tuple[bool, str] | None] = set()
        for c in classes:
            found = self.members.member(c, simple)
            verdicts.add(None if found is None else (
                (found[0], found[1].line, found[1].start_byte) in self.members.keys, found[1].qualified))
        return verdicts

    def object_key(self, path: str, line: int, col: int, simple: str) -> tuple[bool, str] | None:
        """A key of an object literal (`make_,`, `make_: f`) whose type is declared: the object a
        function returns whose declared return type is a class of the map (`function f(): T {
        ... return { make_ } }`), the value of a declaration annotated with one (`const o: T
        = { make_ }`), or an argument of a call of a function declaring its parameter there
        one (`wrap({ make_ })` for `function wrap(a: T)`: `_parameter_type`): that class's
        member of the name, as `decide` says; None otherwise."""
        if simple in OBJECT:
            return None
        lines = self.lines(path)
        text = lines[line - 1] if 0 < line <= len(lines) else b""
        after = text[col + len(simple.encode()):].lstrip()
        if not text[:col].rstrip().endswith((b"{", b",")) and text[:col].strip() or not (
                after[:1] in (b",", b"}", b":", b"") or after.startswith(b"//")):
            return None  # a value, not a key (`{ turn: turn }`'s second)
        opened = self._opening(lines, line, col)
        if opened is None:
            return None
        n, i = opened
        before = lines[n - 1][:i].rstrip()
        declared = None
        annotated = re.search(rb"\b(?:const|let|var)\s+(" + IDENT + rb")\s*:\s*(.*?)=\s*$", before)
        if annotated is not None:
            typed = named_type(annotated.group(2))
            declared = Declared(typed, f"an object declared `{typed}`") if typed else None
        elif re.search(rb"(?:^|[;{}]|\s)return$", before):
            holder = self._holder(path, n)
            if holder is None:
                return None
            _, body, start = self._parameters(path, holder)
            between = b"\n".join([lines[body - 1][start:], *lines[body:n - 1], lines[n - 1][:i]]) if body < n else \
                lines[n - 1][start:i]
            head = re.match(rb"\s*:\s*", between)
            typed = named_type(between[head.end():]) if head else None
            body_at = between.find(b"{", head.end()) if head else -1
            if typed is None or body_at < 0 or _in_inner_function(between[body_at + 1:]):
                return None  # no declared return type, or the object an inner function returns
            declared = Declared(typed, f"an object {holder.qualified} returns, declared `{typed}`")
        elif (argument := argument_of(before)) is not None and not any(
                s.line == n and s.name == argument[0] for s in self.functions(path)):  # no method's own pattern
            declared = self._parameter_type(argument[0], argument[1], path)
        if declared is None:
            return None
        return self._judged(declared, path, simple)

    def _parameter_type(self, callee: str, index: int, site: str) -> Declared | None:
        """The type every top-level function of the name the site's file sees (`_seen`)
        declares its parameter at `index` (counting from 0, a `this` parameter aside) to be,
        as its file names it; None where one declares none there, or they disagree."""
        said: set[str | None] = set()
        files = set()
        for path, sym in self._seen(callee, site, ("function",)):
            written = self._parameter_at(path, sym, index)
            read = named(written) if written is not None else None
            said.add(read[0] if read else None)
            files.add(path)
        typed = said.pop() if len(said) == 1 else None
        if typed is None:
            return None
        return Declared(typed, f"an argument of {callee}(...), its parameter declared `{typed}`",
                        seen_from=files.pop() if len(files) == 1 else None)

    def _parameter_at(self, path: str, sym: Symbol, index: int) -> bytes | None:
        """The annotation of the function's parameter at `index` (counting from 0, a `this`
        parameter aside), the text after its colon; None where it has none there."""
        params, _, _ = self._parameters(path, sym)
        parts = [p for p in parameters(params) if not re.match(rb"\s*this\s*:", p)]
        m = re.match(rb"\s*(?:(?:public|private|protected|readonly)\s+)*" + IDENT + rb"\s*\??\s*:\s*",
                     parts[index]) if index < len(parts) else None
        return parts[index][m.end():] if m else None

    def _opening(self, lines: list[bytes], line: int, col: int) -> tuple[int, int] | None:
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

    def classes(self, declared: Declared, path: str) -> list[Cls]:
        """The classes of the map a declared type names, seen from the file: where the file
        defines the name itself, its own class of it (none when that definition is no class: a
        bundle's `var Reaction = function () {...}()`), else those of the tree's code (a `.d.ts`
        a build wrote beside it aside), else the declarations'."""
        if declared.cls is not None:
            return [declared.cls]
        path = declared.seen_from or path
        found = self._classes.get(declared.type)
        if found is None:
            found = self._classes[declared.type] = [Cls(p, s) for p, s in self.snap.definitions(declared.type)
                                                    if is_class(s) or object_type(s) or self._constructor(p, s)]
        if self._defines(path, declared.type):
            return [c for c in found if c.path == path]  # the file's own binding of the name, whatever it is
        return [c for c in found if not c.path.endswith(_DECLARATIONS)] or found

    def _element(self, path: str, line: int, col: int) -> Declared | None:
        """The class of the element a site's receiver takes out of a container of dotted names
        (`map.get(k)!.`, `arr[i].`) whose declared type says it."""
        lines = self.lines(path)
        taken = element_before(lines[line - 1][:col]) if 0 < line <= len(lines) else None
        if taken is None:
            return None
        declared = self.receiver(path, line, col, taken.container, taken.read)
        return declared._replace(rule=f"`{'.'.join(taken.container)}{taken.how}`, {declared.rule}") if declared else None

    def _chained(self, path: str, line: int, col: int) -> Declared | None:
        """A receiver reached from a cast or a typed name through fields and computed keys
        (`(x as T)[$mobx].`, `(x as T).atom_.`, `disposer[$mobx].`: `chain_before`): each
        field's declared type (`_field`), each key's the member the class declares under it
        (`_keyed`)."""
        lines = self.lines(path)
        if not 0 < line <= len(lines):
            return None
        before = lines[line - 1][:col]
        if before.lstrip().startswith(b")"):  # `(\n x as T\n)[k].`: the cast opens above
            before = b" ".join(t.strip() for t in lines[max(0, line - 1 - HEADER_LINES):line - 1]) + b" " + before.lstrip()
        chain = chain_before(before)
        if chain is None:
            return None
        if chain.names:
            declared = self.receiver(path, line, col, chain.names)
        else:
            cast = cast_type(chain.cast + b".")
            declared = Declared(cast, f"cast to `{cast}`") if cast else None
        for step in chain.steps:
            if declared is None:
                return None
            declared = self._keyed(declared, step.name, path) if step.keyed else self._field(declared, step.name, path)
        return declared

    def _keyed(self, declared: Declared, key: str, path: str) -> Declared | None:
        """The declared type of the member a class declares under a computed key of the
        identifier (`[$mobx]: Reaction`, matched by the identifier as written, not by its
        value), its own or the nearest base's, when every class the declaration may name says
        the same; None where one declares it otherwise (a method, an untyped field) or none does."""
        said = set()
        files = set()
        for c in self.classes(declared, path):
            typed = None
            for k in self.members.h.mro(c):
                written = keyed_member(self.lines(k.path)[k.sym.line - 1:k.sym.end_line], key)
                if written is not None:
                    typed = named(written) if written else None
                    files.add(k.path)
                    break
            said.add(typed)
        typed = said.pop() if len(said) == 1 else None
        # the type as the declaring class's file names it
        return Declared(typed[0], f"{declared.rule}, `[{key}]: {typed[1]}`",
                        seen_from=files.pop() if len(files) == 1 else None) if typed else None

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
            found = self._element_of(path, n, taken.container, taken.read,
                                     f"`{name} = {'.'.join(taken.container)}{taken.how}`")
            if found is None:
                return None
            return found if self._made_alike(path, n, name, found.type) else None
        copied = copied_array(value)
        if copied is None or copied[0] == name or self._assigned(path, n, name):
            return None
        declared = self.receiver(path, n, 0, copied, read)
        return declared._replace(rule=f"`{name} = {value.decode()}`, {declared.rule}") if declared else None

    def _made_alike(self, path: str, n: int, name: str, typed: str) -> bool:
        """Does every assignment of the name in the function holding its declaration at line
        `n` (`_assigned`) make an instance of that very class (`name = new T(...)`, or a call,
        the whole value, of a function declared to return it: `name = createT()`), so that the
        name holds one wherever it is read? True where nothing assigns it again."""
        return all(v is not None and self._makes(v, typed, path) for v in self._assigned(path, n, name))

    def _makes(self, value: bytes, typed: str, path: str) -> bool:
        """Does the assigned value (the text after `=`, to the end of the code read) make an
        instance of the class: `new T(...)`, or a call alone on its line of a function every
        definition the file sees declares it returns T (`returns`)?"""
        m = _MADE.match(value)
        if m is None:
            return False
        if m.group(1):
            return m.group(2).decode() == typed
        line = value.split(b"\n", 1)[0]
        closed = closing_bracket(line, m.end() - 1, b"()[]{}")
        rest = line[closed + 1:].strip().removeprefix(b";").strip() if closed is not None else b"?"
        return (not rest or rest.startswith(b"//")) and self.returns(m.group(2).decode(), path) == typed

    def _assigned(self, path: str, n: int, name: str) -> list[bytes | None]:
        """The assignments of the name in the function holding its declaration at line `n`
        (the file, at its top level), after `script_chains.assignments`."""
        lines = self.lines(path)
        holder = self._holder(path, n)
        first, last = (holder.line, holder.end_line) if holder else (1, len(lines))
        text = b"\n".join(t for t in lines[first - 1:last] if name.encode() in t)
        return assignments(text, name)

    def _later(self, path: str, holder: Symbol, line: int, name: str, read: Reader) -> tuple[Declared | None, bool]:
        """(its type, whether the function binds the name) where the function declares it
        after the line, at its body's own level, visible to the whole body (`var d = f()`
        below a closure reading `d`): the one such declaration's type; untyped when it declares
        it otherwise there (`function d() {}`) or more than once."""
        lines = self.lines(path)
        body, start, depths = self._depths(path, holder)
        declared = _declared(name)
        other = re.compile(rb"\b(?:function\s*\*?|class)\s+" + re.escape(name.encode()) + rb"(?![\w$])")
        found: list[tuple[int, re.Match[bytes] | None]] = []
        for n in range(max(line + 1, body), body + len(depths)):
            if name.encode() not in lines[n - 1]:
                continue
            text = blanked(lines[n - 1][start:] if n == body else lines[n - 1])
            for m in (*declared.finditer(text), *other.finditer(text)):
                if depths[n - body] + text.count(b"{", 0, m.start()) - text.count(b"}", 0, m.start()) == 1:
                    found.append((n, m if m.re is declared else None))
        if not found:
            return None, False
        n, d = found[0]
        if len(found) > 1 or d is None:
            return None, True
        written = lines[n - 1][start:] if n == body else lines[n - 1]  # the value as written, strings and all
        return self._declared_at(path, lines, n, written, d, name, read), True

    def _depths(self, path: str, holder: Symbol) -> tuple[int, int, list[int]]:
        """(the line its body starts on, the byte there, the braces' depth at the start of each
        line from it to its last) of a function, read once a query."""
        key = (path, holder.start_byte)
        if key not in self._body_depths:
            lines = self.lines(path)
            _, body, start = self._parameters(path, holder)
            depths, depth = [], 0
            for n in range(body, min(holder.end_line, len(lines)) + 1):
                depths.append(depth)
                text = blanked(lines[n - 1][start:] if n == body else lines[n - 1])
                depth += text.count(b"{") - text.count(b"}")
            self._body_depths[key] = body, start, depths
        return self._body_depths[key]

    def _passed(self, path: str, text: bytes, name: str) -> Declared | None:
        """The class of a callback's parameter the line binds, where the callback is passed
        directly to a call of a top-level function every definition of which the file sees
        (`_seen`, once each: no overloads) declares the callback's type with that parameter's
        (`autorun(r => ...)` for `autorun(view: (r: IReactionPublic) => any)`); a type
        parameter of the function declares nothing."""
        passed = passed_to(text, name)
        typed = self._callback_type(passed, path) if passed is not None else None
        if typed is None or passed is None:
            return None
        return Declared(typed[0], f"`{name}` of a callback passed to {passed.callee}, declared `{typed[1]}`",
                        seen_from=typed[2])

    def _callback_type(self, passed: Passed, site: str) -> tuple[str, str, str | None] | None:
        """(the class, as written, the one file declaring it) every definition of the callee
        the site's file sees declares the callback's parameter (`_passed`)."""
        key = (passed, site)
        if key not in self._callbacks:
            said: set[tuple[str, str] | None] = set()
            files = set()
            for p, sym in self._seen(passed.callee, site, ("function",)):
                header = re.compile(rb"\bfunction\s*" + re.escape(passed.callee.encode()) + rb"\s*(<[^()]*>)?\s*\(")
                if sum(1 for t in self.lines(p) if header.search(t)) != 1:
                    said.add(None)  # overloads: the call picks one
                    continue
                generics = header.search(b"\n".join(self.lines(p)[sym.line - 1:sym.line - 1 + HEADER_LINES]))
                annotated = self._parameter_at(p, sym, passed.argument)
                written = callback_parameter(annotated, passed.parameter) if annotated is not None else None
                typed = named(written) if written is not None else None
                if typed and generics and generics.group(1) and re.search(
                        rb"[<,]\s*" + re.escape(typed[0].encode()) + rb"(?![\w$])", generics.group(1)):
                    typed = None  # a type parameter of the function
                said.add(typed)
                files.add(p)
            typed = said.pop() if len(said) == 1 else None
            self._callbacks[key] = (*typed, files.pop() if len(files) == 1 else None) if typed else None
        return self._callbacks[key]

    def _conditional(self, path: str, line: int, col: int) -> Declared | None:
        """The types of a parenthesized conditional of dotted names right before a site's dot
        (`(auto ? autoAnnotation : annotation).`), each value's as declared (`_either`)."""
        inner = parenthesized(_before(self.lines(path), line, col))
        values = branches(inner) if inner is not None else None
        return self._either(path, line, col, values) if values else None

    def _either(self, path: str, line: int, col: int, values: tuple[tuple[str, ...], ...]) -> Declared | None:
        """The types of the values a conditional of dotted names may take, each typed at the
        line as a receiver is: decided where each value's type decides alike (`_member`);
        None when a value's type is not declared."""
        said = []
        for value in values:
            declared = self.receiver(path, line, col, value)
            if declared is None:
                return None
            said.append(declared)
        rule = " or ".join(f"`{'.'.join(v)}` ({d.rule})" for v, d in zip(values, said))
        return Declared(" | ".join(d.type for d in said), f"a conditional of {rule}", alternatives=tuple(said))

    def receiver(self, path: str, line: int, col: int, receiver: tuple[str, ...], read: Reader = named) -> Declared | None:
        """The declared type of a dotted receiver at the line: its head's, then each further
        part a field of the class before it whose declaration names its type; the last one's
        declaration read by `read` (an element of the container it declares)."""
        head = receiver[0]
        last = len(receiver) - 1
        if head == "this":
            if last == 0 and read is not named:
                return None
            cls = self.members.enclosing(path, line)
            if cls is not None and cls.path != path:
                return None  # a class of another file named as the container: no class the file writes
            declared = Declared(cls.sym.name, f"this in {cls.sym.qualified}", cls) if cls is not None else \
                self._this_parameter(path, line)
        else:
            first = read if last == 0 else named
            declared = (self._narrowed(path, line, col, head) if first is named else None) or self._declaration(
                path, line, head, first)
        for i, part in enumerate(receiver[1:], 1):
            if declared is None:
                return None
            declared = self._field(declared, part, path, read if i == last else named)
        return declared

    def _field(self, declared: Declared, name: str, path: str, read: Reader = named) -> Declared | None:
        """The declared type of a field of the class (`atom_: IAtom`, `keysAtom_!: IAtom`,
        `public enhancer_: IEnhancer<V> = e`), its own or a base's, when every class the
        declaration may name declares the same; seen from the file declaring the field."""
        said = set()
        files = set()
        for c in self.classes(declared, path):
            found = self.members.member(c, name)
            if found is None or found[1].kind != "field":
                return None
            text = found[1].signature.encode()
            m = re.match(rb"\s*(?:(?:public|private|protected|readonly|static|declare|override)\s+)*"
                         + re.escape(name.encode()) + rb"\s*[!?]?\s*:\s*", text)
            said.add(read(text[m.end():]) if m else None)
            files.add(found[0])
        typed = said.pop() if len(said) == 1 else None
        # the type as the declaring class's file names it, as `_keyed` reads a key's
        return Declared(typed[0], f"{declared.rule}, field `{name}: {typed[1]}`",
                        seen_from=files.pop() if len(files) == 1 else None) if typed else None

    def _holder(self, path: str, line: int) -> Symbol | None:
        """The innermost function or method of the file holding the line."""
        around = [s for s in self.functions(path) if s.line <= line <= s.end_line]
        return max(around, key=lambda s: s.line) if around else None

    def _holders(self, path: str, line: int) -> list[Symbol]:
        """The functions and methods of the file holding the line, innermost first."""
        return sorted((s for s in self.functions(path) if s.line <= line <= s.end_line), key=lambda s: -s.start_byte)

    def _parameters(self, path: str, holder: Symbol) -> tuple[bytes, int, int]:
        """The text of the function's parameter list, and the line (from 1) and byte its body
        starts at: past the parenthesis closing the list."""
        lines = self.lines(path)
        text = b"\n".join(lines[holder.line - 1:holder.line - 1 + HEADER_LINES])
        opened = text.find(b"(")
        depth = 0
        for i in range(max(opened, 0), len(text) if opened >= 0 else 0):
            ch = text[i:i + 1]
            if ch in (b"(", b"[", b"{", b"<"):
                depth += 1
            elif ch in (b")", b"]", b"}", b">") and not (ch == b">" and text[i - 1:i] == b"="):
                depth -= 1
                if depth == 0:
                    return text[opened + 1:i], holder.line + text.count(b"\n", 0, i), i - text.rfind(b"\n", 0, i)
        return b"", holder.line, 0

    def _constructor(self, path: str, sym: Symbol) -> bool:
        """A function of its file's top whose prototype holds methods (`Layer.prototype.match =
        function () {}`): a class written the older way."""
        if sym.kind != "function" or sym.container:
            return False
        facts = self.snap.core_facts(path)
        return any(s.kind == "method" and s.container == sym.name for s in (facts.symbols if facts else ()))

    def _documented(self, path: str, holder: Symbol, name: str, read: Reader) -> tuple[str, str] | None:
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

    def _this_parameter(self, path: str, line: int) -> Declared | None:
        """`this` in a function declaring its type (`function make_(this: Annotation, ...)`)."""
        holder = self._holder(path, line)
        if holder is None:
            return None
        params, _, _ = self._parameters(path, holder)
        m = re.match(rb"\s*this\s*:\s*", params)
        typed = named_type(params[m.end():]) if m else None
        return Declared(typed, f"`this: {typed}` of {holder.qualified}") if typed else None

    def _declaration(self, path: str, line: int, name: str, read: Reader = named) -> Declared | None:
        """The type the function holding the line declares the name of: a parameter `name: T`
        (or `@param {T} name` in its JSDoc), or the last `const`/`let`/`var name` between its
        header and the line (`: T`, or a value that is an instance or a call of a function
        declared to return one: `valueDeclared`). Another declaration of the name on the way
        (an inner function's parameter) leaves it untyped. Where no function holding the line
        binds it, the one declaration of the file's top level, else that of the file an import
        of the name reaches (`_imported`). The annotations are read by `read`: the class they
        name, or an element of the container they declare."""
        for holder in self._holders(path, line):  # innermost first: a closure sees its function's names
            found, bound = self._bound_in(path, holder, line, name, read)
            if bound:
                return found
        return self._top_level(path, name, read) or self._imported(path, name, read)

    def _imported(self, path: str, name: str, read: Reader = named) -> Declared | None:
        """The type a name the file imports has: what the top-level `const`, `let` or `var`
        the import reaches (`script_imports`) is declared, read in its own file as
        `_top_level` reads it there (`export const computed: IComputedFactory = ...`, `export
        const actionAnnotation = createActionAnnotation(...)`), its type named as that file
        names it."""
        key = (path, name)
        if key not in self._imports:
            self._imports[key] = imported_definition(self.snap, path, name, ("variable", "constant"))
        found = self._imports[key]
        if found is None or found[0] == path:
            return None
        declared = self._top_level(found[0], found[1].name, read)
        if declared is None:
            return None
        return declared._replace(rule=f"`{name}` imported from {found[0]}, {declared.rule}",
                                 seen_from=declared.seen_from or found[0])

    def _bound_in(self, path: str, holder: Symbol, line: int, name: str,
                  read: Reader) -> tuple[Declared | None, bool]:
        """(its type, whether the function binds the name at all) for the name at the line."""
        word = re.escape(name.encode())
        params, body, start = self._parameters(path, holder)
        found = None
        bound = False
        m = re.search(rb"(?:^|[,(])\s*(?:(?:public|private|protected|readonly)\s+)*" + word + rb"\s*\??\s*:\s*", params)
        if m is not None:
            typed = read(params[m.end():])
            found, bound = (Declared(typed[0], f"annotation `{typed[1]}` of parameter `{name}`") if typed else None), True
        elif re.search(rb"(?<![\w$.])" + word + rb"(?![\w$])", params):
            documented = self._documented(path, holder, name, read)
            if documented is None:
                return None, True  # a parameter without a type, or one inside a pattern
            found, bound = Declared(documented[0], f"JSDoc `@param {{{documented[1]}}} {name}`"), True
        lines = self.lines(path)
        declared = _declared(name)
        other = _bound_otherwise(name)
        for n in range(body, line + 1):
            text = lines[n - 1] if 0 < n <= len(lines) else b""
            text = text[start:] if n == body else text
            if name.encode() not in text:
                continue
            d = declared.search(text)
            if d is not None:
                found, bound = self._declared_at(path, lines, n, text, d, name, read), True
                if found is None:
                    return None, True
            elif other.search(text):
                # an arrow's or function's parameter: an element where the callback is passed
                # directly to a declared container's method, and binds the name once on the line
                alone = read is named and len(other.findall(text)) == 1
                taken = callback_of(text, name) if alone else None
                found = self._element_of(path, n, taken.container, taken.read, taken.how) if taken else (
                    self._passed(path, text, name) if alone else None)
                if found is None:
                    return None, True
                bound = True
        return (found, bound) if bound else self._later(path, holder, line, name, read)

    def _element_of(self, path: str, line: int, container: tuple[str, ...], read: Reader, how: str) -> Declared | None:
        """The class of an element of the container of dotted names at the line, its declared
        type read by `read`; `how` says how the element was taken, for the rule."""
        declared = self.receiver(path, line, 0, container, read)
        return declared._replace(rule=f"{how}, {declared.rule}") if declared else None

    def _declared_at(self, path: str, lines: list[bytes], n: int, text: bytes, d: re.Match[bytes], name: str,
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
            found = self._element_of(path, n, iterated, ITERATED, f"`for ({text[d.start():d.end()].decode().strip()} of "
                                     f"{'.'.join(iterated)})`") if iterated else None
        else:
            found = self.value_type(path, lines, n, text, d.end(), name) or self._conditional_value(
                path, lines, n, text, d.end(), name)
        # a `let` or `var` holds what its value makes only where every assignment makes the same
        if found is None or _CONSTANT.search(d.group()) or self._made_alike(path, n, name, found.type):
            return found
        return None

    def _conditional_value(self, path: str, lines: list[bytes], n: int, text: bytes, at: int,
                           name: str) -> Declared | None:
        """The types of a declaration's value, the whole of it (from byte `at` of `text`, line
        `n`), when it is a conditional of dotted names (`= bound ? flow.bound : flow`): each
        value's as declared (`_either`)."""
        m = re.match(rb"\s*=\s*", text[at:])
        if m is None or continued(lines, n):
            return None
        value = re.sub(rb"\s*(?://.*)?$", b"", text[at + m.end():]).removesuffix(b";")
        values = branches(value)
        either = self._either(path, n, len(lines[n - 1]) - len(text) + at + m.end(), values) if values else None
        return either._replace(rule=f"`{name}` = {either.rule}") if either else None

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
        typed = self.returns(callee, path)
        return Declared(typed, f"`{name} = {callee}(...)`, declared to return {typed}") if typed else None

    def returns(self, callee: str, site: str) -> str | None:
        """The class every top-level function of the name the site's file sees (`_seen`)
        declares it returns (`): T {`)."""
        key = (callee, site)
        if key not in self._returns:
            said = set()
            for path, sym in self._seen(callee, site, ("function",)):
                lines = self.lines(path)
                _, body, start = self._parameters(path, sym)
                after = lines[body - 1][start:] if 0 < body <= len(lines) else b""
                m = re.match(rb"\s*:\s*", after)
                said.add(named_type(after[m.end():]) if m else None)
            self._returns[key] = said.pop() if len(said) == 1 else None
        return self._returns[key]

    def _top_level(self, path: str, name: str, read: Reader = named) -> Declared | None:
        """The type the file's one top-level declaration of the name gives it (`export const
        flowAnnotation = createFlowAnnotation("flow")`, `const app: App = ...`)."""
        key = (path, name, read)
        if key not in self._tops:
            lines = self.lines(path)
            declared = _declared(name)
            found = [(n, d) for n, text in enumerate(lines, 1) if text[:1] not in (b" ", b"\t", b"}", b")")
                     and name.encode() in text and (d := declared.match(text)) is not None]
            self._tops[key] = self._declared_at(path, lines, found[0][0], lines[found[0][0] - 1], found[0][1], name, read) if len(
                found) == 1 else None
        return self._tops[key]

    def _narrowed(self, path: str, line: int, col: int, name: str) -> Declared | None:
        """The class a narrowing of the site's own line or of a block holding it makes the
        name: `if (name instanceof T)`, `if (isT(name))` with `isT` a declared type predicate.
        The blocks are read outwards from the innermost through those of statements and
        literals (`if (...) {`, `else {`, `try {`, `case k: {`: `_plain`), never out of a
        function's body; the name must not be assigned or declared again inside the narrowing
        block."""
        lines = self.lines(path)
        if not 0 < line <= len(lines):
            return None
        found = self._narrowing(lines[line - 1][:col], name, path)
        if found is not None:
            return found
        at = (line, col)
        while (opened := self._opening(lines, *at)) is not None:
            head = lines[opened[0] - 1][:opened[1]]
            m = re.search(rb"\bif\s*\((.*)\)\s*$", head)
            found = self._narrowing(b"if (" + m.group(1) + b")", name, path) if m else None
            if found is not None:
                return None if _rebound_in_block(lines, *opened, name) else found
            if not _plain(head):
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
            typed = self.predicate(guard, path)
            return Declared(typed, f"`{guard}({name})`, a type predicate of {typed}") if typed else None
        return None

    def predicate(self, name: str, site: str) -> str | None:
        """The class a function of the map is declared a type predicate of (`function isT(x):
        x is T`, `const isT = f(...) as (x: any) => x is T`), when every definition of the name
        the site's file sees says the same one (`_seen`)."""
        key = (name, site)
        if key not in self._predicates:
            said = set()
            for path, sym in self._seen(name, site, ("function", "variable", "constant")):
                text = b"\n".join(self.lines(path)[sym.line - 1:min(sym.end_line, sym.line - 1 + HEADER_LINES)])
                end = text.find(b"{") if sym.kind == "function" else -1
                m = re.search(rb"(?:\)\s*:|=>)\s*" + IDENT + rb"\s+is\s+", text[:end] if end >= 0 else text)
                said.add(named_type(text[m.end():]) if m else self._built_predicate(path, sym, text))
            self._predicates[key] = said.pop() if len(said) == 1 else None
        return self._predicates[key]

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
        for fpath, fsym in self._seen(m.group(1).decode(), path, ("function",)):
            said.add(self._predicate_of_parameter(fpath, fsym, arguments))
        return said.pop() if len(said) == 1 else None

    def _predicate_of_parameter(self, path: str, sym: Symbol, arguments: list[bytes]) -> str | None:
        """The class a call of the generic function with `arguments` returns a predicate of:
        the class named by the argument its parameter `c: new (...) => P` takes, P the type
        parameter of its declared return `(x: any) => x is P`."""
        lines = self.lines(path)
        params, body, start = self._parameters(path, sym)
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

    def _defines(self, path: str, name: str) -> bool:
        """Does the file define the name itself, at any depth: not a variable an import binds on
        its line (`var Layer = require('./layer')` is the import's binding of another file's)?"""
        lines = [s.line for p, s in self.snap.definitions(name) if p == path]
        if not lines:
            return False
        facts = self.snap.import_facts(path)
        bound = {spec.line for spec in (facts.imports if facts else ())
                 if any(local == name for _, local in of_import(spec.kind).binds(spec))}
        return any(line not in bound for line in lines)

    def _seen(self, name: str, site: str, kinds: tuple[str, ...]) -> list[tuple[str, Symbol]]:
        """The definitions of the name the site's file sees: its own (any of them, at any
        depth), else the top-level ones of the tree's TypeScript files (the one syntax declaring
        a type; a bundle a build wrote, JavaScript, declares none)."""
        found = self.snap.definitions(name)
        if self._defines(site, name):  # its own, at any depth (a bundle's, inside its wrapper)
            return [(p, s) for p, s in found if p == site and s.kind in kinds]
        return [(p, s) for p, s in found if s.kind in kinds and not s.container and p.endswith(_TYPESCRIPT)]
