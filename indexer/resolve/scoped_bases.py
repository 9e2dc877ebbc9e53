"""Bases named through a language's scopes rather than by an import binding the name (Java,
C#, PHP, Ruby, C++): the classes a name may mean from where it is written, looked up among the
map's classes (`ClassIndex`), as each language's own name lookup takes them.

- Java: a class enclosing the declaring one, or a top-level class of its file; a single-type
  import (`import a.b.Base;`); a class of its own package; an on-demand import (`import a.b.*;`);
  a qualified name (`a.b.Base`, `Outer.Inner`) by its package or its first class. A name none
  of these reach is `java.lang`'s or an outside package's: `external`.
- C#: the namespaces enclosing the class, innermost first, then its `using` namespaces; a
  `using` alias (`using U = App.Models.User;`) stands for what it names. A name found nowhere is
  `external` when an outside namespace is imported (`using System;`), else `unresolved`.
- PHP: PHP's own rules: `\\A\\B` is fully qualified, a name whose first part a `use` imports
  (under its alias) is that import's, any other is in the class's namespace. Found nowhere: a
  global name (`Exception`, `\\Countable`) is `external`, one an import binds keeps the import's
  status, any other is `unresolved`.
- Ruby: the constant in the class and module statements lexically enclosing the class,
  innermost first, then at the top (`Module.nesting`; an `include` is read inside the class,
  the superclass outside it; `class Foo::Bar` in `module A` is in A, not in A::Foo: the
  scopes its base records, `Base.nesting`, where they are not its name's); the
  class's own file first, then the files it requires, then any file of the tree (Ruby's
  constants are global, loaded from anywhere). Found nowhere: `unresolved` when its first part
  is a module of the tree, else `external` (Ruby's core, a gem).
- C++: the namespaces and classes enclosing the class, innermost first, then the global one,
  in the class's file, then in the files its `#include`s reach, nearest first. Found nowhere:
  `unresolved` when the tree defines the class (no include reaches it), else `external`.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Iterable, Protocol

if TYPE_CHECKING:
    from indexer.lang.file_imports import FileImports
    from indexer.model import Base, Edge, ImportSpec

LANGUAGES = frozenset({"java", "csharp", "php", "ruby", "cpp"})
INCLUDE_CAP = 256  # files of one class's include closure read for its bases


class ClassIndex(Protocol):
    """What the map knows of its classes, as base resolution asks it."""

    def named(self, name: str) -> list[tuple[str, str]]:
        """(file, qualified name) of each class-like definition named `name`, by path."""
        ...

    def package(self, path: str) -> str:
        """The file's package or namespace declaration, "" for none."""
        ...

    def edges(self, path: str) -> list[Edge]:
        """The file's resolved imports."""
        ...


# (status, file, qualified name there) of one base
Found = tuple[str, str, str]


def resolve_scoped(language: str, bases: Iterable[Base], file: FileImports, index: ClassIndex
                   ) -> list[tuple[Base, Found]]:
    """Each base of one file's classes (`file`), in declaration order, with what it resolves
    to by the rules of its language (one of LANGUAGES)."""
    listed = list(bases)
    scope = _Scope(file, index, listed)
    rule = _RULES[language]
    return [(b, rule(scope, b)) for b in listed]


class _Scope:
    """One file's view of the map's classes."""

    def __init__(self, file: FileImports, index: ClassIndex, bases: list[Base] | None = None) -> None:
        self.file = file
        self.bases = bases or []  # every base the file's classes declare
        self._ancestors: dict[str, dict[str, int]] = {}  # `ruby_ancestors`, by class
        self.path = file.path
        self.imports = file.imports
        self.edges = file.edges
        self.index = index
        self._spellings: dict[str, dict[str, list[str]]] = {}

    # What the rules ask of the file's imports and includes, whatever the base, is made once a
    # file: made again for each base, a file of many imports and bases cost their product.

    @cached_property
    def java_imports(self) -> list[ImportSpec]:
        """Its Java imports of types (not `import static`)."""
        return [i for i in self.imports if i.kind == "java" and not i.spec.startswith("static ")]

    @cached_property
    def java_by_name(self) -> dict[str, ImportSpec]:
        """The first of them naming each simple name last (`a.b.C`: C)."""
        found: dict[str, ImportSpec] = {}
        for spec in self.java_imports:
            found.setdefault(spec.spec.split(".")[-1], spec)
        return found

    @cached_property
    def php_uses(self) -> dict[str, ImportSpec]:
        """The first PHP `use` binding each name, in lower case (PHP's class names are not
        case sensitive)."""
        found: dict[str, ImportSpec] = {}
        for spec in self.imports:
            if spec.kind == "php_use":
                local = spec.aliases[0] if spec.aliases else spec.spec.rsplit("\\", 1)[-1]
                found.setdefault(local.lower(), spec)
        return found

    @cached_property
    def csharp_aliases(self) -> dict[str, ImportSpec]:
        """The first C# `using A = ...;` of each alias."""
        found: dict[str, ImportSpec] = {}
        for spec in self.imports:
            if spec.kind.startswith("csharp_using") and spec.aliases:
                found.setdefault(spec.aliases[0], spec)
        return found

    @cached_property
    def csharp_usings(self) -> dict[str, int]:
        """The namespaces of the file's C# `using`s without an alias, each at its first place."""
        found: dict[str, int] = {}
        for spec in self.imports:
            if spec.kind.startswith("csharp_using") and not spec.aliases:
                found.setdefault(spec.spec, len(found))
        return found

    @cached_property
    def csharp_using_list(self) -> list[str]:
        return list(self.csharp_usings)

    def under_usings(self, spelled: str) -> list[str]:
        """`spelled` under each namespace the file's `using`s name, in their order, as far as
        the first that names a class of the map: found from the classes of its name where
        they are fewer than the `using`s (a class named under every `using` would otherwise
        cost each base all of them)."""
        usings = self.csharp_usings
        named = self.index.named(spelled.rsplit(".", 1)[-1])
        if len(named) >= len(usings):
            return [f"{u}.{spelled}" for u in usings]
        tail = "." + spelled
        first = min((at for _, q in named if q.endswith(tail) and (at := usings.get(q[:-len(tail)])) is not None),
                    default=None)
        return [] if first is None else [f"{self.csharp_using_list[first]}{tail}"]

    @cached_property
    def csharp_outside(self) -> bool:
        """Does a C# `using` of the file reach no file of the tree?"""
        return any(spec.kind.startswith("csharp_using") and not self.targets(spec) for spec in self.imports)

    @cached_property
    def required_at(self) -> dict[str, int]:
        """The files the file's imports reach, each at its first place in its edges' order."""
        found: dict[str, int] = {}
        for e in self.edges:
            found.setdefault(e.target, len(found))
        return found

    @cached_property
    def bases_of(self) -> dict[str, list[Base]]:
        """The file's bases by the class declaring them."""
        found: dict[str, list[Base]] = {}
        for b in self.bases:
            found.setdefault(b.cls, []).append(b)
        return found

    def ruby_ancestors(self, cref: str) -> dict[str, int]:
        """The ancestors of the Ruby class or module `cref` the file declares, each with its place,
        nearest first: its superclass and the modules it includes or prepends (`_ANCESTRAL`),
        each resolved without looking in ancestors, then theirs where
        the file declares them, _ANCESTRY_DEPTH levels; a base's own ancestors elsewhere are not
        read. Made once for each class."""
        found = self._ancestors.get(cref)
        if found is None:
            found = self._ancestors[cref] = {}
            level = [cref]
            for _ in range(_ANCESTRY_DEPTH):
                following: list[str] = []
                for cls in level:
                    for base in self.bases_of.get(cls, ()):
                        if base.relation not in _ANCESTRAL:
                            continue
                        status, _, q = _ruby(self, base, ancestry=False)
                        if status == "resolved" and q != cref and q not in found:
                            found[q] = len(found)
                            following.append(q)
                level = following
        return found

    @cached_property
    def included(self) -> list[str]:
        return _includes(self)

    def files_of(self, qualified: str, fold: bool = False) -> list[str]:
        """The files defining a class of that qualified name (its scopes in any case, PHP's
        namespaces: `fold`)."""
        simple = qualified.rsplit(".", 1)[-1]
        return [p for p, q in self.index.named(simple) if q == qualified or (fold and q.lower() == qualified.lower())]

    def qualified_in(self, qualified: str, files: list[str], fold: bool = False) -> str:
        """The spelling of `qualified` in the first of `files` defining it ("" when none does)."""
        spellings = self._spelled(qualified.rsplit(".", 1)[-1])
        for f in files:
            for q in spellings.get(f, ()):
                if q == qualified or (fold and q.lower() == qualified.lower()):
                    return q
        return ""

    def _spelled(self, simple: str) -> dict[str, list[str]]:
        """The qualified names of the classes named `simple`, by file: a name many files define
        is looked for in one file without reading the others'."""
        found = self._spellings.get(simple)
        if found is None:
            found = self._spellings[simple] = {}
            for p, q in self.index.named(simple):
                found.setdefault(p, []).append(q)
        return found

    def targets(self, spec: ImportSpec) -> list[str]:
        return self.file.targets(spec)

    def import_status(self, spec: ImportSpec) -> str:
        return self.file.status_at(spec.line)

    def pick(self, files: list[str], preferred: Iterable[str] = ()) -> str:
        """The file to land on among `files`: the declaring file, then a preferred one, then the first."""
        if self.path in files:
            return self.path
        return next((f for f in preferred if f in files), files[0])

    def pick_required(self, files: list[str]) -> str:
        """`pick` preferring the files the file's imports reach, in their order (`required`)."""
        if self.path in files:
            return self.path
        ranked = [(at, f) for f in files if (at := self.required_at.get(f)) is not None]
        return min(ranked)[1] if ranked else files[0]


def _enclosing(cls: str) -> list[str]:
    """The scopes a name is looked up in from a class `cls` (`a.b.C`), innermost first, the
    top ("") last."""
    parts = cls.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)] + [""]


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def _java(s: _Scope, b: Base) -> Found:
    parts = b.base.split(".")
    head, rest = parts[0], parts[1:]

    def within(found: Found) -> Found:  # `Outer.Inner` once `Outer` is found
        if not rest or found[0] != "resolved":
            return found
        q = _join(found[2], ".".join(rest))
        return ("resolved", found[1], q) if s.qualified_in(q, [found[1]]) else ("external", "", "")

    for scope in _enclosing(b.cls):
        if s.qualified_in(_join(scope, head), [s.path]):
            return within(("resolved", s.path, _join(scope, head)))
    spec = s.java_by_name.get(head)  # the first import naming it
    if spec is not None:
        segments = spec.spec.split(".")
        targets = s.targets(spec)
        if not targets:
            return s.import_status(spec), "", ""
        nested = [".".join(segments[i:]) for i in range(len(segments) - 1, 0, -1)]  # C, then a.b.C.Inner's C.Inner
        for q in nested[::-1] + [head]:
            if (where := [t for t in targets if s.qualified_in(q, [t])]):
                return within(("resolved", where[0], q))
        return within(("resolved", targets[0], head))
    package = s.index.package(s.path)
    mine = [p for p in s.files_of(head) if s.index.package(p) == package]
    if mine:
        return within(("resolved", s.pick(mine), head))
    for spec in s.java_imports:
        if spec.spec.endswith(".*"):
            found = [t for t in s.targets(spec) if s.qualified_in(head, [t])]
            if found:
                return within(("resolved", found[0], head))
    for k in range(len(parts) - 1, 0, -1):  # a.b.Base, a.b.Outer.Inner
        package, q = ".".join(parts[:k]), ".".join(parts[k:])
        found = [p for p in s.files_of(q) if s.index.package(p) == package]
        if found:
            return "resolved", s.pick(found), q
    return "external", "", ""


def _csharp(s: _Scope, b: Base) -> Found:
    parts = b.base.split(".")
    spelled = b.base
    alias = s.csharp_aliases.get(parts[0])
    if alias is not None:
        spelled = ".".join([alias.spec, *parts[1:]])
    candidates = [_join(scope, spelled) for scope in _enclosing(b.cls)] if spelled == b.base else [spelled]
    for q in candidates + s.under_usings(spelled):
        files = s.files_of(q)
        if files:
            return "resolved", s.pick(files), q
    return ("external" if s.csharp_outside or parts[0] == "System" else "unresolved"), "", ""


def _php(s: _Scope, b: Base) -> Found:
    namespace = b.cls.rsplit(".", 1)[0] if "." in b.cls else ""
    name = b.base
    bound = None
    if name.startswith("\\"):
        fqn = name[1:]
    else:
        head, _, rest = name.partition("\\")
        bound = s.php_uses.get(head.lower())
        fqn = bound.spec.lstrip("\\") + ("\\" + rest if rest else "") if bound else (
            f"{namespace}\\{name}" if namespace else name)
    space, _, simple = fqn.rpartition("\\")
    q = f"{space}.{simple}" if space else simple
    files = s.files_of(q, fold=True)
    if files:
        target = s.pick(files, s.targets(bound) if bound else ())
        return "resolved", target, s.qualified_in(q, [target], fold=True)
    if bound is not None:
        targets = s.targets(bound)
        return ("resolved", targets[0], q) if targets else (s.import_status(bound), "", "")
    return ("external" if not space else "unresolved"), "", ""


def _ruby(s: _Scope, b: Base, ancestry: bool = True) -> Found:
    parts = b.base.removeprefix("::").split("::")
    if b.base.startswith("::"):
        scopes = [""]
    else:
        # Module.nesting: a superclass is read where the class statement stands, a mixin in its body
        scopes = list(b.nesting) or _enclosing(b.cls)
        if b.relation:
            scopes.insert(0, b.cls)
    written = ".".join(parts)
    for scope in scopes:
        if not scope and scopes[0] and ancestry:
            # before the top, the ancestors of the innermost scope (`class EmptyScope <
            # EmptyLinkedList` in `class Scope < LinkedList`: LinkedList's EmptyLinkedList)
            found = _in_ancestors(s, scopes[0], written)
            if found is not None:
                return found
        q = _join(scope, written)
        files = s.files_of(q)
        if files:
            return "resolved", s.pick_required(files), q
    known = len(parts) > 1 and any(q.split(".")[-1] == parts[0] for _, q in s.index.named(parts[0]))
    return ("unresolved" if known else "external"), "", ""


_ANCESTRY_DEPTH = 4  # levels of ancestors the file declares, looked through for a constant
# the relations of a Ruby class's own ancestors: its superclass, the modules it includes or
# prepends (not those it extends, nor those a hook hands on to what includes it)
_ANCESTRAL = frozenset({"", "include", "prepend"})


def _in_ancestors(s: _Scope, cref: str, written: str) -> Found | None:
    """The constant `written` of an ancestor of the class or module `cref`, as Ruby looks for
    it after the lexical scopes, the nearest first (`ruby_ancestors`): found among the classes
    of its last name, so a class of many ancestors costs no more for each base it has."""
    order = s.ruby_ancestors(cref)
    if not order:
        return None
    best: tuple[int, str] | None = None
    for _, q in s.index.named(written.rsplit(".", 1)[-1]):
        if q.endswith("." + written):
            at = order.get(q[:-len(written) - 1])
            if at is not None and (best is None or at < best[0]):
                best = (at, q)
    return ("resolved", s.pick_required(s.files_of(best[1])), best[1]) if best is not None else None


def _cpp(s: _Scope, b: Base) -> Found:
    parts = b.base.removeprefix("::").split("::")
    scopes = [""] if b.base.startswith("::") else _enclosing(b.cls)
    candidates = [_join(scope, ".".join(parts)) for scope in scopes]
    for f in s.included:
        for q in candidates:
            if s.qualified_in(q, [f]):
                return "resolved", f, q
    anywhere = any(s.files_of(q) for q in candidates)
    return ("unresolved" if anywhere else "external"), "", ""


def _includes(s: _Scope) -> list[str]:
    """The class's file, then the files its includes reach, breadth first (nearest first), at
    most INCLUDE_CAP."""
    out = [s.path]
    seen = {s.path}
    i = 0
    while i < len(out) and len(out) < INCLUDE_CAP:
        edges = s.edges if i == 0 else s.index.edges(out[i])
        for e in sorted(edges, key=lambda e: e.line):
            if e.target not in seen and e.kind.startswith("c_"):
                seen.add(e.target)
                out.append(e.target)
        i += 1
    return out[:INCLUDE_CAP]


_RULES = {"java": _java, "csharp": _csharp, "php": _php, "ruby": _ruby, "cpp": _cpp}
