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
  `<P>(name, c: new (...args: any[]) => P): (x: any) => x is P`), T named as the predicate's
  file names it where the site's file defines or imports the predicate;
- the function holding the site declaring it: a parameter `x: T`, `this: T`, or a
  `const`/`let`/`var x: T` between the function's first line and the site; any other
  declaration of the name on the way (an arrow's parameter, `const x = ...`) leaves it untyped;
  where no function binds it, the file's one top-level declaration of it, else, for a name an
  import binds, the top-level `const`/`let`/`var` the import reaches through re-exports
  (`script_imports`), read in its own file (`export const computed: IComputedFactory = ...`,
  `export const annotation = createAnnotation(...)` of a function declared `: Annotation`);
- a declaration's value: `new T(...)`, a call of a function declared to return T (named as
  the function's file names it, where the site's file defines or imports it), or a
  conditional of dotted names (`const a = c ? flow.bound : flow`), as is a parenthesized
  conditional right before the dot (`(c ? a : b).m`): each value typed as a receiver is, the
  site decided only where every value's type has the same member; a `let` or `var` so typed
  only where every assignment of the name in its function makes that class too (`x = new
  T(...)`, `x = createT()`; `x = other` leaves it untyped);
- then each further part of a dotted receiver (`this.atom_`, `adm.values_`) a field of that
  class whose declaration names its type (`atom_: IAtom`, `keysAtom_!: IAtom`), the type
  named as the field's own file names it; a field no annotation types, by what the first
  class of its bases that assigns it makes in every `this.name = value` of its body and in
  the field's initializer (`new T(...)`, a call declared to return T);
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
and a `name_match` when it is another. Anything else is left to the rules before.

`ScriptTypes` coordinates the readers, each a module beneath it: `script_casts` (the
expression before a site's dot), `script_narrowing` (the narrowing blocks), `script_names`
(the declaration a name is read from), `script_values` (the type a declaration's annotation
or value gives), `script_signatures` (what a function of the tree declares),
`script_functions` (the functions of a file and the definitions it sees), `script_blocks`
(braces and bindings, text alone); each answers a `script_declared.Declared`."""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import TYPE_CHECKING, Callable, NamedTuple

from context_tools.query.symbols.hierarchy import Cls, is_class, object_type
from context_tools.query.symbols.script_annotations import (
    IDENT,
    INTERSECTION,
    Reader,
    argument_of,
    branches,
    element_before,
    named,
    named_type,
)
from context_tools.query.symbols.script_blocks import Braces, inner_functions
from context_tools.query.symbols.script_casts import before_site, cast_type, parenthesized
from context_tools.query.symbols.script_chains import chain_before, field_assignments, keyed_member
from context_tools.query.symbols.script_declared import Declared, Typed
from context_tools.query.symbols.script_functions import ScriptFunctions
from context_tools.query.symbols.script_names import DeclaredNames
from context_tools.query.symbols.script_narrowing import Narrowing
from context_tools.query.symbols.script_signatures import Signatures
from context_tools.query.symbols.script_values import DeclaredValues
from indexer.lang.bindings_base import site_window

if TYPE_CHECKING:
    from context_tools.query.symbols.members import MemberSites
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot

# what every object has from Object.prototype: a member no declared type decides
OBJECT = frozenset({"constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
                    "toString", "valueOf"})
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
# declarations read through one another for one receiver's type (`const b = c ? a : a`, `a`'s
# own declaration, ...): a commit chooses how they nest, and may make them a loop
RECEIVER_DEPTH = 8
_FIELD_MODIFIERS = rb"(?:(?:public|private|protected|readonly|static|declare|override|accessor)\s+)*#?"


class ScriptTypes:
    """The declared types of one query's receivers, for its JavaScript and TypeScript sites."""

    def __init__(self, snap: Snapshot, members: MemberSites, read_lines: Callable[[str], list[bytes]],
                 read_functions: Callable[[str], list[Symbol]], lines_naming: Callable[[str, str], list[int]],
                 read_braces: Callable[[str], Braces], typed: Typed | None = None) -> None:
        self.snap = snap
        self.members = members
        # a file's lines, its functions and methods and its braces, read once a query (`sites._Reading`)
        self.read = ScriptFunctions(snap, read_lines, read_functions, lines_naming, read_braces)
        self.signatures = Signatures(self.read)
        self.narrowing = Narrowing(self.read, self.signatures)
        self.values = DeclaredValues(self.read, self.signatures, self)
        self.names = DeclaredNames(self.read, self.signatures, self.values)
        self._classes: dict[str, list[Cls]] = {}
        # the declared type of each object literal a key of which was asked: (file, line, byte)
        self._objects: dict[tuple[str, int, int], Declared | None] = {}
        self._returns: dict[tuple[str, int], Returns | None] = {}  # by function: its return type, its inner functions
        # each receiver's type at each depth of the declarations read to reach it: what a
        # receiver is typed as depends on how many more may be read, nothing else
        self._receivers: dict[tuple[str, int, int, tuple[str, ...], Reader, int], Declared | None] = {}
        self.depth = 0
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
        one (`wrap({ make_ })` for `function wrap(a: T)`: `Signatures.parameter_type`): that class's
        member of the name, as `decide` says; None otherwise."""
        if simple in OBJECT:
            return None
        lines = self.read.lines(path)
        text, at = site_window(lines[line - 1], col, len(simple.encode())) if 0 < line <= len(lines) else (b"", col)
        after = text[at + len(simple.encode()):].lstrip()
        if not text[:at].rstrip().endswith((b"{", b",")) and text[:at].strip() or not (
                after[:1] in (b",", b"}", b":", b"") or after.startswith(b"//")):
            return None  # a value, not a key (`{ turn: turn }`'s second)
        opened = self.read.braces(path).opening(line, col)
        if opened is None:
            return None
        # the literal's declared type, whichever of its keys asks
        key = (path, *opened)
        if key not in self._objects:
            self._objects[key] = self._object_type(path, *opened)
        declared = self._objects[key]
        return self._judged(declared, path, simple) if declared is not None else None

    def _object_type(self, path: str, n: int, i: int) -> Declared | None:
        """The declared type of the object literal opening at byte `i` of line `n` (`object_key`)."""
        lines = self.read.lines(path)
        window, at = site_window(lines[n - 1], i, 0)  # the line's text before the object, near it
        before = window[:at].rstrip()
        declared = None
        annotated = re.search(rb"\b(?:const|let|var)\s+(" + IDENT + rb")\s*:\s*(.*?)=\s*$", before)
        if annotated is not None:
            typed = named_type(annotated.group(2))
            declared = Declared(typed, f"an object declared `{typed}`") if typed else None
        elif re.search(rb"(?:^|[;{}]|\s)return$", before):
            holder = self.read.holder(path, n)
            if holder is None:
                return None
            key = (path, holder.start_byte)
            if key not in self._returns:
                self._returns[key] = Returns.read(lines, holder, *self.read.parameters(path, holder)[1:])
            returns = self._returns[key]
            if returns is None or not returns.holds_own(n, i):
                return None  # no declared return type, or the object an inner function returns
            declared = Declared(returns.typed, f"an object {holder.qualified} returns, declared `{returns.typed}`")
        elif (argument := argument_of(before)) is not None and not any(
                s.line == n and s.name == argument[0] for s in self.read.functions(path)):  # no method's own pattern
            declared = self.signatures.parameter_type(argument[0], argument[1], path)
        return declared

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
        if self.read.defines(path, declared.type):
            return [c for c in found if c.path == path]  # the file's own binding of the name, whatever it is
        return [c for c in found if not c.path.endswith(_DECLARATIONS)] or found

    def _element(self, path: str, line: int, col: int) -> Declared | None:
        """The class of the element a site's receiver takes out of a container of dotted names
        (`map.get(k)!.`, `arr[i].`) whose declared type says it."""
        lines = self.read.lines(path)
        if not 0 < line <= len(lines):
            return None
        window, at = site_window(lines[line - 1], col, 0)
        taken = element_before(window[:at])
        if taken is None:
            return None
        declared = self.receiver(path, line, col, taken.container, taken.read)
        return declared._replace(rule=f"`{'.'.join(taken.container)}{taken.how}`, {declared.rule}") if declared else None

    def _chained(self, path: str, line: int, col: int) -> Declared | None:
        """A receiver reached from a cast or a typed name through fields and computed keys
        (`(x as T)[$mobx].`, `(x as T).atom_.`, `disposer[$mobx].`: `chain_before`): each
        field's declared type (`_field`), each key's the member the class declares under it
        (`_keyed`)."""
        chain = chain_before(before_site(self.read.lines(path), line, col))  # `(\n x as T\n)[k].`: the cast opens above
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
                written = keyed_member(self.read.lines(k.path)[k.sym.line - 1:k.sym.end_line], key)
                if written is not None:
                    typed = named(written) if written else None
                    files.add(k.path)
                    break
            said.add(typed)
        typed = said.pop() if len(said) == 1 else None
        # the type as the declaring class's file names it
        return Declared(typed[0], f"{declared.rule}, `[{key}]: {typed[1]}`",
                        seen_from=files.pop() if len(files) == 1 else None) if typed else None

    def _conditional(self, path: str, line: int, col: int) -> Declared | None:
        """The types of a parenthesized conditional of dotted names right before a site's dot
        (`(auto ? autoAnnotation : annotation).`), each value's as declared (`DeclaredValues.either`)."""
        inner = parenthesized(before_site(self.read.lines(path), line, col))
        values = branches(inner) if inner is not None else None
        return self.values.either(path, line, col, values) if values else None

    def receiver(self, path: str, line: int, col: int, receiver: tuple[str, ...], read: Reader = named) -> Declared | None:
        """The declared type of a dotted receiver at the line: its head's, then each further
        part a field of the class before it whose declaration names its type; the last one's
        declaration read by `read` (an element of the container it declares). Declarations
        are read through one another `RECEIVER_DEPTH` deep at most (deeper, untyped), each
        receiver once a depth: a name whose value names it, or declarations whose values each
        name the one before twice (`const a2 = c ? a1 : a1`), are read once a level, not once
        a way."""
        key = (path, line, col, receiver, read, self.depth)
        if key in self._receivers:
            return self._receivers[key]
        if self.depth >= RECEIVER_DEPTH:
            return None
        self.depth += 1
        try:
            found = self._receivers[key] = self._receiver(path, line, col, receiver, read)
        finally:
            self.depth -= 1
        return found

    def _receiver(self, path: str, line: int, col: int, receiver: tuple[str, ...], read: Reader) -> Declared | None:
        head = receiver[0]
        last = len(receiver) - 1
        if head == "this":
            if last == 0 and read is not named:
                return None
            cls = self.members.enclosing(path, line)
            if cls is not None and cls.path != path:
                return None  # a class of another file named as the container: no class the file writes
            declared = Declared(cls.sym.name, f"this in {cls.sym.qualified}", cls) if cls is not None else \
                self.names.this_parameter(path, line)
        else:
            first = read if last == 0 else named
            declared = (self.narrowing.narrowed(path, line, col, head) if first is named else None) or self.names.declaration(
                path, line, head, first)
        for i, part in enumerate(receiver[1:], 1):
            if declared is None:
                return None
            declared = self._field(declared, part, path, read if i == last else named)
        return declared

    def _field(self, declared: Declared, name: str, path: str, read: Reader = named) -> Declared | None:
        """The declared type of a field of the class (`atom_: IAtom`, `keysAtom_!: IAtom`,
        `public enhancer_: IEnhancer<V> = e`, a parameter property `constructor(private svc:
        Service)`), its own or a base's, when every class the
        declaration may name declares the same; seen from the file declaring the field."""
        said: set[tuple[str, str] | None] = set()
        files = set()
        rules = set()
        for c in self.classes(declared, path):
            found = self.members.member(c, name)
            if found is not None and found[1].kind != "field":
                return None
            text = found[1].signature.encode() if found is not None else b""
            # a field's own line starts with it; a constructor's parameter property
            # (`constructor(private readonly svc: Service)`) stands after a `(` or `,` of its line
            m = re.search(rb"(?:^|[(,])\s*(?:(?:public|private|protected|readonly|static|declare|override)\s+)*"
                          + re.escape(name.encode()) + rb"\s*[!?]?\s*:\s*", text)
            if m is not None:
                typed = read(text[m.end():])
                said.add(typed)
                rules.add(f"field `{name}: {typed[1]}`" if typed else "")
                files.add(found[0] if found is not None else c.path)
                continue
            assigned = self._assigned_field(c, name) if read is named else None
            if assigned is None:
                return None
            said.add((assigned.type, assigned.type))
            rules.add(assigned.rule)
            files.add(assigned.seen_from or c.path)
        typed = said.pop() if len(said) == 1 else None
        # the type as the declaring class's file names it, as `_keyed` reads a key's
        return Declared(typed[0], f"{declared.rule}, {rules.pop()}", seen_from=files.pop() if len(files) == 1 else None
                        ) if typed and len(rules) == 1 else None

    def _assigned_field(self, c: Cls, name: str) -> Declared | None:
        """The class an unannotated field holds (JavaScript's way): read in the first class of
        `c`'s bases, in order, that assigns it, when every `this.name = value` of that class's
        body and its field's initializer (`name = new T()`) make an instance of one class
        (`new T(...)`, a call declared to return T); the type as that class's file names it."""
        for k in self.members.h.mro(c):
            lines = self.read.lines(k.path)
            first, last = k.sym.line, min(k.sym.end_line, len(lines))
            text = b"\n".join(t for t in lines[first - 1:last] if name.encode() in t)
            values = field_assignments(text, name)
            own = self.members.h.member_at(k, name)
            if own is not None and own[1].kind == "field":
                m = re.match(rb"\s*" + _FIELD_MODIFIERS + re.escape(name.encode()) + rb"\s*[!?]?\s*=(?![=>])",
                             own[1].signature.encode())
                if m is not None:
                    values.append(own[1].signature.encode()[m.end():])
            if not values:
                continue
            made = {self.values.made(v, k.path) if v is not None else None for v in values}
            typed = made.pop() if len(made) == 1 else None
            if typed is None:
                return None
            return Declared(typed.type, f"`this.{name}` an instance in {k.sym.qualified}'s methods",
                            seen_from=typed.seen_from or k.path)
        return None

    def _constructor(self, path: str, sym: Symbol) -> bool:
        """A function of its file's top whose prototype holds methods (`Layer.prototype.match =
        function () {}`): a class written the older way."""
        if sym.kind != "function" or sym.container:
            return False
        facts = self.snap.core_facts(path)
        return any(s.kind == "method" and s.container == sym.name for s in (facts.symbols if facts else ()))


class Returns(NamedTuple):
    """A function's declared return type, and where in its body an inner function's body is
    open: read once a function, where each object literal it returns read its body from the
    start up to itself (the square of a body returning many)."""

    typed: str
    starts: list[int]  # where each of the function's lines from the body's starts, in `text` below
    first: int  # the line (from 1) `text` starts on, at byte `column`
    column: int
    body: int  # where the body's `{` is in `text`
    opens: list[int]  # where an inner function's body opens in `text`, in order (`in_inner_function`)
    closes: list[int]  # where one closes

    @staticmethod
    def read(lines: list[bytes], holder: Symbol, body: int, start: int) -> Returns | None:
        """The function's return type (`: T` after its parameters, at line `body`, byte `start`)
        and its body's inner functions; None when it declares no type or has no body."""
        rows = [lines[body - 1][start:], *lines[body:holder.end_line]] if 0 < body <= len(lines) else []
        text = b"\n".join(rows)
        head = re.match(rb"\s*:\s*", text)
        typed = named_type(text[head.end():]) if head else None
        at = text.find(b"{", head.end()) if head else -1
        if typed is None or at < 0:
            return None
        starts = [0]
        for row in rows[:-1]:
            starts.append(starts[-1] + len(row) + 1)
        opens, closes = inner_functions(text, at + 1)
        return Returns(typed, starts, body, start, at, opens, closes)

    def holds_own(self, n: int, i: int) -> bool:
        """Is byte `i` of line `n` in the function's body, outside every inner function's?"""
        k = n - self.first
        if not 0 <= k < len(self.starts):
            return False
        at = self.starts[k] + i - (self.column if k == 0 else 0)
        return at > self.body and bisect_left(self.opens, at) == bisect_left(self.closes, at)
