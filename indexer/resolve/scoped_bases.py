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

from typing import TYPE_CHECKING, Iterable, Protocol

if TYPE_CHECKING:
    from indexer.model import Base, Edge, ImportSpec, UnresolvedImport

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


def resolve_scoped(path: str, language: str, bases: Iterable[Base], imports: list[ImportSpec], edges: list[Edge],
                   unresolved: list[UnresolvedImport], index: ClassIndex) -> list[tuple[Base, Found]]:
    """Each base of one file's classes, in declaration order, with what it resolves to by the
    rules of its language (one of LANGUAGES); `edges` and `unresolved` are the file's own
    imports'."""
    scope = _Scope(path, imports, edges, unresolved, index)
    rule = _RULES[language]
    return [(b, rule(scope, b)) for b in bases]


class _Scope:
    """One file's view of the map's classes."""

    def __init__(self, path: str, imports: list[ImportSpec], edges: list[Edge], unresolved: list[UnresolvedImport],
                 index: ClassIndex) -> None:
        self.path = path
        self.imports = imports
        self.edges = edges
        self.unresolved = unresolved
        self.index = index

    def files_of(self, qualified: str, fold: bool = False) -> list[str]:
        """The files defining a class of that qualified name (its scopes in any case, PHP's
        namespaces: `fold`)."""
        simple = qualified.rsplit(".", 1)[-1]
        return [p for p, q in self.index.named(simple) if q == qualified or (fold and q.lower() == qualified.lower())]

    def qualified_in(self, qualified: str, files: list[str], fold: bool = False) -> str:
        """The spelling of `qualified` in the first of `files` defining it ("" when none does)."""
        simple = qualified.rsplit(".", 1)[-1]
        for f in files:
            for p, q in self.index.named(simple):
                if p == f and (q == qualified or (fold and q.lower() == qualified.lower())):
                    return q
        return ""

    def targets(self, spec: ImportSpec) -> list[str]:
        return sorted({e.target for e in self.edges if e.line == spec.line and e.kind == spec.kind
                       and e.spec == spec.spec})

    def import_status(self, spec: ImportSpec) -> str:
        return next((u.status for u in self.unresolved if u.line == spec.line), "external")

    def pick(self, files: list[str], preferred: Iterable[str] = ()) -> str:
        """The file to land on among `files`: the declaring file, then a preferred one, then the first."""
        if self.path in files:
            return self.path
        return next((f for f in preferred if f in files), files[0])


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
    specs = [i for i in s.imports if i.kind == "java" and not i.spec.startswith("static ")]
    for spec in specs:
        segments = spec.spec.split(".")
        if segments[-1] == head:
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
    for spec in specs:
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
    for spec in s.imports:
        if spec.kind.startswith("csharp_using") and spec.aliases and spec.aliases[0] == parts[0]:
            spelled = ".".join([spec.spec, *parts[1:]])
            break
    candidates = [_join(scope, spelled) for scope in _enclosing(b.cls)] if spelled == b.base else [spelled]
    candidates += [f"{spec.spec}.{spelled}" for spec in s.imports
                   if spec.kind.startswith("csharp_using") and not spec.aliases]
    for q in candidates:
        files = s.files_of(q)
        if files:
            return "resolved", s.pick(files), q
    outside = any(spec.kind.startswith("csharp_using") and not s.targets(spec) for spec in s.imports)
    return ("external" if outside or parts[0] == "System" else "unresolved"), "", ""


def _php(s: _Scope, b: Base) -> Found:
    namespace = b.cls.rsplit(".", 1)[0] if "." in b.cls else ""
    name = b.base
    bound = None
    if name.startswith("\\"):
        fqn = name[1:]
    else:
        head, _, rest = name.partition("\\")
        for spec in s.imports:
            local = spec.aliases[0] if spec.aliases else spec.spec.rsplit("\\", 1)[-1]
            if spec.kind == "php_use" and local.lower() == head.lower():
                bound = spec
                break
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


def _ruby(s: _Scope, b: Base) -> Found:
    parts = b.base.removeprefix("::").split("::")
    if b.base.startswith("::"):
        scopes = [""]
    else:
        # Module.nesting: a superclass is read where the class statement stands, a mixin in its body
        scopes = list(b.nesting) or _enclosing(b.cls)
        if b.relation:
            scopes.insert(0, b.cls)
    required = [e.target for e in s.edges]
    for scope in scopes:
        q = _join(scope, ".".join(parts))
        files = s.files_of(q)
        if files:
            return "resolved", s.pick(files, required), q
    known = len(parts) > 1 and any(q.split(".")[-1] == parts[0] for _, q in s.index.named(parts[0]))
    return ("unresolved" if known else "external"), "", ""


def _cpp(s: _Scope, b: Base) -> Found:
    parts = b.base.removeprefix("::").split("::")
    scopes = [""] if b.base.startswith("::") else _enclosing(b.cls)
    candidates = [_join(scope, ".".join(parts)) for scope in scopes]
    reached = _includes(s)
    for f in reached:
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
