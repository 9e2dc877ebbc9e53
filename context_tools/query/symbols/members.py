"""Sites of Java, C#, PHP, Ruby and C++ resolved by their own syntax, through the class
hierarchy: `this.name` (`$this->`, `self::`, `static::`, Ruby's `self.`, `this->`) is the member
`name` of the class the site is written in, looked up in its ancestors as the class's own
order has it; `super.name` (`base.`, `parent::`) the member its bases give it; a bare name in a
method (Java, C#, C++, Ruby: `Bindings.implicit_self`) the class's member when it has one. Such a
site is the definition's when that member is one of the definitions asked, and a `name_match`
when it is another (an override, another class's). `Type.name` on a class of the map that
is not the definition's (nor a subclass reaching it) is that class's member: the definition's
only when the class reaches it. A receiver the index cannot type (a variable, a call's result)
is a `name_match`; a named argument (`f(name: x)`) is no site."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterator, Literal

from context_tools.query.symbols.hierarchy import Cls, Hierarchy, is_class
from context_tools.query.symbols.rightmost import Holding
from indexer.lang.bindings import of_path
from indexer.lang.bindings_base import call_opened
from indexer.lang.member_syntax import SELF_CLASS, SUPER, THIS

if TYPE_CHECKING:
    from context_tools.query.symbols.lookup import Hit
    from indexer.lang.bindings_base import SiteSyntax
    from indexer.model import Occurrence, Symbol
    from indexer.store.snapshot import Snapshot

LANGUAGES = frozenset({"java", "csharp", "php", "ruby", "cpp"})
BOUND = frozenset({"same_file", "same_package", "import"})
_WORDS = {THIS: "this", SUPER: "super", SELF_CLASS: "self.class"}
_SCOPES = frozenset({"namespace", "module", "package"})
_MEMBERS = frozenset({"method", "field"})

Decision = tuple[str, str] | None | Literal[False]
# the types the lines of a file declare a variable of: (path, name, first line, last line) ->
# their simple names
Declared = Callable[[str, str, int, int], frozenset[str]]
_FUNCTIONS = frozenset({"method", "function", "constructor"})
_FIELDS = frozenset({"field", "constant"})
_METHODS = frozenset({"method"})
_CHAIN = 4  # parts of a receiver typed through its fields (`this.a.b.c`), calls of a chain
# the callee a call's `(` follows: a dotted name (`x.f.m`, `m`), its start where a `.` may stand
_NEW = re.compile(rb"(?<![\w$.])new$")
# `((Foo) x)`, `((Http1Exchange<?>) x.f)`: a parenthesised cast to a class, what its text holds
_CAST = re.compile(rb"\(\s*\(\s*((?:[A-Za-z_$][\w$]*\s*\.\s*)*[A-Z][\w$]*)\s*(?:<[^()]*>)?\s*\)\s*[^\s)]")
_CALLEE = re.compile(rb"((?:[A-Za-z_$][\w$]*\s*\.\s*)*[A-Za-z_$][\w$]*)\s*(?:<[^()]*>\s*)?$")


class ClassReading:
    """What the classes are, whichever definitions a query weighs its sites against: the
    snapshot's hierarchy, each class's member of a name, each file's symbols in order. One a
    query, shared by the `MemberSites` of its definitions (a name may have many)."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._h: Hierarchy | None = None
        self.members: dict[tuple[tuple[str, str], str, bool], tuple[str, Symbol] | None] = {}
        # each file's definitions by first byte, to ask which hold a line (`MemberSites.holding`)
        self.spans: dict[str, Holding] = {}
        # the definitions of a name (`Snapshot.definitions`), read once a query
        self.definitions: dict[str, list[tuple[str, Symbol]]] = {}
        # the classes each file's classes inherit from (`MemberSites._inherited_scopes`)
        self.inherited: dict[str, frozenset[tuple[str, str]]] = {}

    def defined(self, name: str) -> list[tuple[str, Symbol]]:
        found = self.definitions.get(name)
        if found is None:
            found = self.definitions[name] = self.snap.definitions(name)
        return found

    @property
    def h(self) -> Hierarchy:
        if self._h is None:
            self._h = Hierarchy(self.snap)
        return self._h


class MemberSites:
    """One query's definitions, asked of each site whose syntax names a class."""

    def __init__(self, snap: Snapshot, defs: list[Hit], simple: str, classes: set[str],
                 read: ClassReading | None = None) -> None:
        self.snap = snap
        self.simple = simple
        self.classes = classes  # the methods' classes, and those they are reached through
        self.keys = {(p, s.line, s.start_byte) for p, s, _ in defs}
        # members of classes alone (a namespace's class is not one: C#, PHP and C++ name it as
        # the container of its classes)
        self.methods_only = bool(defs) and all(s.kind in _MEMBERS for _, s, _ in defs)
        # the scopes a definition is written in, as a qualified receiver may name them
        # (`geo::Shape`, `Shop::User`, `App.Models.User`), and the Java packages of their files
        self.scopes = {part for _, s, _ in defs for part in s.container.replace("\\", ".").split(".") if part}
        self.packages = {facts.package_name for p, _, _ in defs
                         if (facts := snap.core_facts(p)) is not None and facts.package_name}
        self.read = read if read is not None else ClassReading(snap)
        self._members = self.read.members
        self._aliases: dict[tuple[str, str], bool] = {}

    @property
    def h(self) -> Hierarchy:
        return self.read.h

    def decide(self, path: str, occ: Occurrence, syntax: SiteSyntax, how: str, implicit_self: bool,
               declared: Declared | None = None, before: bytes = b"") -> Decision:
        """(resolution, rule) when the site's syntax decides it, False when it leaves it to the
        file (`how`), None when it is no site. `declared` gives the types the file declares a
        variable of (Java): `x.name` and `this.x.name` are then the member of x's type, and
        `f(...).name` the member of the type f is declared to return, read from `before`, the
        site's line before it."""
        if syntax.form == "keyword":
            return None
        if syntax.form == "bare":
            if not self.methods_only:  # a class's or a function's name: its file decides
                return False
            if not implicit_self:  # a PHP bare name is a function's
                return ("name_match", "bare name, not a method's") if how in BOUND else False
            # the innermost class with such a member, out to the classes enclosing it (an inner
            # class calls its outer class's methods bare); none: the file decides (a static
            # import, C#'s `using static`, a top-level function)
            cls = self.enclosing(path, occ.line)
            while cls is not None:
                found = self.member(cls, self.simple)
                if found is not None:
                    return self._judge(found, cls, path, how, "bare name")
                cls = self._outer(cls)
            return False
        receiver = syntax.receiver
        if not receiver:
            if declared is not None and before:  # `getPluginManager().postMessage(...)`, `((Foo) x).close()`
                text = before.rstrip()[:-1]
                types = self._call_types(path, occ, text, declared, 0)
                label = "a cast" if _cast_at_end(text) else "what the call before it returns"
                typed = self._typed_member(path, how, types, label) if types else None
                if typed is not None:
                    return typed
            return ("name_match", "attribute of an untyped receiver") if how in BOUND else False
        if receiver[0] in _WORDS:
            word = _WORDS[receiver[0]]
            cls = self.enclosing(path, occ.line)
            if cls is None:
                return "name_match", f"`{word}` outside a class"
            found = self.member(cls, self.simple, bases_only=receiver[0] == SUPER)
            if found is None:
                return "name_match", f"`{word}` in {cls.sym.qualified}, which has no member {self.simple}"
            if receiver[0] == SELF_CLASS and found[1].kind == "field":  # `attr_reader :name`: an instance's
                return "name_match", f"`{word}` in {cls.sym.qualified}: {found[1].qualified} is an instance's attribute"
            return self._judge(found, cls, path, how, f"`{word}`")
        if declared is not None and len(receiver) > 1 and receiver[1] == "this":
            qualified = self._qualified_this(path, occ, receiver, how)
            if qualified is not None:
                return qualified
        last = receiver[-1]
        if last in self.classes or last in self.scopes or ".".join(receiver) in self.packages or self._alias(path, last):
            return False  # the definition's class (or a subclass reaching it), its namespace, or an import's alias
        named = [Cls(p, s) for p, s in self.snap.definitions(last) if is_class(s)]
        if named:
            for c in named:
                found = self.member(c, self.simple)
                if found is not None and (found[0], found[1].line, found[1].start_byte) in self.keys:
                    return False
            return "name_match", f"attribute of class `{last}`, which does not reach it"
        if any(s.kind in _SCOPES for _, s in self.snap.definitions(last)):
            return False  # a namespace or module of the map (`ns::helper()`)
        if declared is not None and len(receiver) <= _CHAIN and receiver[1:].count("this") == 0:
            typed = self._declared(path, occ, receiver, how, declared)
            if typed is not None:
                return typed
        if how not in BOUND:
            return False
        return "name_match", f"attribute of an untyped receiver `{'.'.join(receiver)}`"

    def _qualified_this(self, path: str, occ: Occurrence, receiver: tuple[str, ...],
                        how: str) -> tuple[str, str] | None:
        """Java's `Outer.this.name`: the member of the class `Outer` enclosing the site, as
        `this.name` is of the innermost; `Outer.this.f.name` the member of the type its field f
        is declared, as for `this.f.name`. None when no class of that name encloses the site."""
        outer = self.enclosing(path, occ.line)
        while outer is not None and outer.sym.name != receiver[0]:
            outer = self._outer(outer)
        if outer is None:
            return None
        word = f"`{receiver[0]}.this`"
        if len(receiver) == 2:
            found = self.member(outer, self.simple)
            if found is None:
                return "name_match", f"{word} in {outer.sym.qualified}, which has no member {self.simple}"
            return self._judge(found, outer, path, how, word)
        if len(receiver) > _CHAIN + 1:
            return None
        types = self._field_type(self.member_of(outer, receiver[2], _FIELDS))
        for field in receiver[3:]:
            types = {typed for written, seen in types for c in self._classes_seen(seen, written)
                     for typed in self._field_type(self.member_of(c, field, _FIELDS))}
        return self._typed_member(path, how, types, f"`{'.'.join(receiver)}`")

    def _declared(self, path: str, occ: Occurrence, receiver: tuple[str, ...], how: str,
                  declared: Declared) -> tuple[str, str] | None:
        """`x.name` where a method holding the site declares `x` of a class of the map before it (a
        parameter, a local: `CordovaPlugin plugin = ...;`), or else `x` is a field of the class the
        site is in, its own, an enclosing class's or a base's, declared so: that class's member
        `name`, as Java binds a call by the type declared; `x.f.name` and `this.f.g.name` the
        member of the type its last field is declared, each field read in its class. None when no
        class of the map types it."""
        return self._typed_member(path, how, self._chain_types(path, occ, receiver, declared),
                                  f"`{'.'.join(receiver)}`")

    def _chain_types(self, path: str, occ: Occurrence, receiver: tuple[str, ...],
                     declared: Declared) -> set[tuple[str, str]]:
        """The types a receiver of names is declared (`x`, `this.f`, `x.f.g`), each as written
        with the file whose names it is written in."""
        parts = receiver[1:] if receiver[0] == "this" else receiver
        types: set[tuple[str, str]] = set()
        if parts is receiver:  # a parameter or local of a method holding the site, innermost first
            for holder in self.holding(path, occ.line):
                if holder.kind in _FUNCTIONS:
                    types = {(t, path) for t in declared(path, parts[0], holder.line, occ.line)}
                    if types:
                        break
        if not types:
            types = self._field_types(path, occ.line, parts[0])
        for field in parts[1:]:  # `a.b.name`: the field b of a's type, as declared
            types = {typed for written, seen in types for c in self._classes_seen(seen, written)
                     for typed in self._field_type(self.member_of(c, field, _FIELDS))}
        return types

    def _call_types(self, path: str, occ: Occurrence, text: bytes, declared: Declared,
                    depth: int) -> set[tuple[str, str]]:
        """The types the Java call `text` ends with is declared to return (`result_type` of the
        method's signature, in the method's file): `m(...)` a method of the class the site is in
        or one enclosing it, `x.f.m(...)` of the type `x.f` is declared, `Type.m(...)` of the
        class, `<call>.m(...)` of what that call returns, _CHAIN calls deep."""
        opened = call_opened(text) if depth < _CHAIN else None
        if opened is None:
            return set()
        head = text[:opened].rstrip()
        cast = _cast_at_end(text, opened)
        if cast is not None:  # `((Foo) x).name`: the class cast to, as the file writes it
            return {(cast, path)}
        callee = _CALLEE.search(head)
        if callee is None:
            return set()
        names = [p.strip().decode() for p in callee.group(1).split(b".")]
        method, outer = names[-1], head[:callee.start(1)].rstrip()
        if _NEW.search(outer):  # `new Foo<T>(...)`: an instance of the class
            return {(".".join(names), path)}
        if outer.endswith(b"."):  # `<call>.m(...)`
            owners = [c for written, seen in self._call_types(path, occ, outer[:-1], declared, depth + 1)
                      for c in self._classes_seen(seen, written)]
        elif len(names) == 1 or names[:-1] == ["this"]:
            owners = []
            cls = self.enclosing(path, occ.line)
            while cls is not None and not owners:
                if self.member(cls, method) is not None:
                    owners = [cls]
                cls = self._outer(cls)
        else:
            receiver = tuple(names[:-1])
            owners = self._classes_seen(path, ".".join(receiver)) if receiver[-1][:1].isupper() else []
            if not owners:
                owners = [c for written, seen in self._chain_types(path, occ, receiver, declared)
                          for c in self._classes_seen(seen, written)]
        return {typed for c in owners for typed in self._result_type(self.member_of(c, method, _METHODS))}

    @staticmethod
    def _result_type(found: tuple[str, Symbol] | None) -> set[tuple[str, str]]:
        """The type a method's signature says it returns, with its file (`result_type`)."""
        if found is None or found[1].kind != "method":
            return set()
        written = of_path(found[0]).result_type(found[1].signature)
        return {(written, found[0])} if written else set()

    def _typed_member(self, path: str, how: str, types: set[tuple[str, str]],
                      label: str) -> tuple[str, str] | None:
        """The member asked of the classes `types` names, when one of them has it: the site's
        (resolution, rule) where it is a definition asked, a name_match naming the other member
        where it is another's; None when no class of the map has a member of the name."""
        other: tuple[str, Symbol] | None = None
        other_type = ""
        for written, seen in sorted(types):
            for c in self._classes_seen(seen, written):
                found = self.member(c, self.simple)
                if found is None:
                    continue
                if (found[0], found[1].line, found[1].start_byte) in self.keys:
                    resolution, _ = self._judge(found, c, path, how, "")
                    owner = found[1].container
                    return resolution, f"attribute of {label}, declared {written}" + (
                        f", which inherits it from {owner}" if owner != c.sym.qualified else "")
                if other is None:
                    other, other_type = found, written
        if other is not None:
            return "name_match", f"attribute of {label}, declared {other_type}: {other[1].qualified}"
        return None

    def _sees(self, path: str, written: str, where: str, sym: Symbol) -> bool:
        """Does a Java type written in the file (`InputStream`, `SSLStreams.InputStream`,
        `java.io.InputStream`) name the class `sym` of `where`? Qualified, when the class's
        package and enclosing classes end so; simple, when the file defines it, or a single-type
        import names it (which hides the package's), or it is a top-level class of the file's own
        package, or an on-demand import names the package or class holding it."""
        package = self._package(where)
        full = ".".join(part for part in (package, sym.container, sym.name) if part)
        if "." in written:
            return full == written or full.endswith("." + written)
        if where == path:
            return True
        if sym.container and (where, sym.container) in self._inherited_scopes(path):
            return True  # a member class of a class the file's classes inherit (`Listener` in a `WebSocket`)
        facts = self.snap.import_facts(path)
        specs = [spec.spec for spec in (facts.imports if facts else ())
                 if spec.kind == "java" and not spec.spec.startswith("static ")]
        single = [spec for spec in specs if spec.rsplit(".", 1)[-1] == written]
        if single:
            return full in single
        if not sym.container and package == self._package(path):
            return True
        return full.rsplit(".", 1)[0] + ".*" in specs

    def _inherited_scopes(self, path: str) -> frozenset[tuple[str, str]]:
        """The classes (file, qualified name) the file's classes inherit from, whose member
        classes its code names by their simple names as Java lets it: read once a file."""
        found = self.read.inherited.get(path)
        if found is None:
            facts = self.snap.core_facts(path)
            own = [Cls(path, s) for s in (facts.symbols if facts else ()) if is_class(s)]
            found = self.read.inherited[path] = frozenset(
                (c.path, c.sym.qualified) for cls in own for c in self.h.mro(cls)[1:])
        return found

    def _package(self, path: str) -> str:
        facts = self.snap.core_facts(path)
        return facts.package_name if facts is not None and facts.package_name else ""

    def _classes_seen(self, seen: str, written: str) -> list[Cls]:
        """The classes of the map a type written in the file `seen` names (`_sees`)."""
        simple = written.rsplit(".", 1)[-1]
        return [Cls(p, s) for p, s in self.read.defined(simple) if is_class(s) and self._sees(seen, written, p, s)]

    def _field_types(self, path: str, line: int, variable: str) -> set[tuple[str, str]]:
        """The type the field `variable` of the class holding the line (or of a class enclosing
        it), its own or inherited, is declared of, with the file declaring it (`_field_type`)."""
        cls = self.enclosing(path, line)
        while cls is not None:
            found = self.member_of(cls, variable, _FIELDS)
            if found is not None:
                return self._field_type(found)
            cls = self._outer(cls)
        return set()

    @staticmethod
    def _field_type(found: tuple[str, Symbol] | None) -> set[tuple[str, str]]:
        """The type a field's signature declares it of, with its file, whose names it is written
        in; none for a member that is no field, or of no type the signature shows."""
        if found is None or found[1].kind not in _FIELDS:
            return set()
        written = of_path(found[0]).field_type(found[1].signature)
        return {(written, found[0])} if written else set()

    def _judge(self, found: tuple[str, Symbol], cls: Cls, site: str, how: str, word: str) -> tuple[str, str]:
        path, sym = found
        if (path, sym.line, sym.start_byte) in self.keys:
            # tied to the member's file as the site's file is: the same, by an import, of its
            # package, or by the class's `inherits` edges where nothing else ties them: `import`
            package = of_path(site).package_of(self.snap, site)
            resolution = "same_file" if path == site else "import" if how == "import" else "same_package" if (
                package is not None and package == of_path(path).package_of(self.snap, path)) else "import"
            owner = sym.container
            return resolution, f"{word} in {cls.sym.qualified}" + (
                f", which inherits it from {owner}" if owner != cls.sym.qualified else "")
        return "name_match", f"{word} in {cls.sym.qualified} is {sym.qualified}"

    def member(self, cls: Cls | None, name: str, bases_only: bool = False) -> tuple[str, Symbol] | None:
        """The member `name` of the class (of its bases only: `super`), and its file."""
        if cls is None:
            return None
        key = (cls.key, name, bases_only)
        if key not in self._members:
            self._members[key] = next((found for c in (self.h.after(cls) if bases_only else self.h.mro(cls))
                                       if (found := self.h.member_at(c, name)) is not None), None)
        return self._members[key]

    def member_of(self, cls: Cls, name: str, kinds: frozenset[str]) -> tuple[str, Symbol] | None:
        """The member `name` of the class of one of `kinds`, and its file: Java lets a field
        and a method share a name (`client` beside `client()`), and `member` finds the first."""
        found = self.member(cls, name)
        if found is None or found[1].kind in kinds:
            return found
        return next(((p, s) for c in self.h.mro(cls) for p, s in self.read.defined(name)
                     if p == c.path and s.container == c.sym.qualified and s.kind in kinds), None)

    def _alias(self, path: str, name: str) -> bool:
        """Does an import of the file bind `name` as an alias (`use App\\Models\\User as U;`,
        `using U = Shop.Models.User;`)? Its file's imports decide what it names."""
        key = (path, name)
        if key not in self._aliases:
            facts = self.snap.import_facts(path)
            self._aliases[key] = any(name in spec.aliases for spec in (facts.imports if facts else ()))
        return self._aliases[key]

    def _outer(self, cls: Cls) -> Cls | None:
        """The class the class is written in, in its file."""
        container = cls.sym.container
        simple = container.rsplit(".", 1)[-1]
        found = [s for p, s in self.read.defined(simple) if p == cls.path and s.qualified == container and is_class(s)]
        return Cls(cls.path, found[0]) if container and found else None

    def holding(self, path: str, line: int) -> Iterator[Symbol]:
        """The file's definitions holding the line, the last starting first: each the last in
        the order of their first bytes starting at or before the line that ends at or past it
        (those starting past it start past it: start_byte orders lines too), found by a search."""
        spans = self.read.spans.get(path)
        if spans is None:
            facts = self.snap.core_facts(path)
            spans = self.read.spans[path] = Holding(sorted(facts.symbols if facts else (), key=lambda s: s.start_byte))
        return spans.holding(line)

    def enclosing(self, path: str, line: int) -> Cls | None:
        """The class a line of the file is written in: the innermost definition holding it, if
        a class, else the class its container names (a method's; a C++ method defined out of
        its class, `void Circle::spin() {}`, names a class of another file)."""
        inner = next(self.holding(path, line), None)
        if inner is None:
            return None
        if is_class(inner):
            return Cls(path, inner)
        container = inner.container
        while container:
            simple = container.rsplit(".", 1)[-1]
            found = sorted(((p, s) for p, s in self.read.defined(simple) if s.qualified == container and is_class(s)),
                           key=lambda t: (t[0] != path, t[0]))
            if found:
                return Cls(*found[0])
            container = container.rpartition(".")[0]
        return None


def _cast_at_end(text: bytes, opened: int | None = None) -> str | None:
    """The class a parenthesised cast the text ends with casts to (`((Foo) x)`: `Foo`), None
    when the parentheses it ends with hold no cast or are a call's (`f((Foo) x)`)."""
    if opened is None:
        opened = call_opened(text)
    if opened is None or (opened > 0 and (text[opened - 1:opened].isalnum() or text[opened - 1] in b"_$>")):
        return None
    found = _CAST.match(text, opened)
    return re.sub(rb"\s", b"", found.group(1)).decode() if found is not None else None
