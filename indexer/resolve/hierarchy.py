"""The class hierarchy: each base a class declares (`BlobFacts.bases`) resolved through the
file's own definitions and its resolved imports to the file defining it, as an `inherits` edge
from the class's file to the base's, with both names.

Python: a base named by a top-level definition of the class's file is that file's; one bound
by an import (`from .web import Base`, `import web` for `web.Base`, `import a.b as c` for
`c.Base`) lands where the import's edge does, on the file that defines the name when the import
reaches several. A base bound by an import that reaches no file of the tree keeps the import's
status (`external` or `unresolved`), a builtin (`object`, `Exception`) is `external`, and any
other unbound name is `unresolved`: kept, and marked as imports are.

Java, C#, PHP, Ruby and C++ name a base through their scopes (namespaces, packages, enclosing
classes, includes): indexer/resolve/scoped_bases.py.

JavaScript and TypeScript (`extends`, `implements`, an interface's `extends`): the same, by
their imports (`import { Base as B } from "./web"`, `import * as web`, `const web =
require("./web")` for `web.Base`); a default import lands on its file under the name
`default`. A name nothing binds is a global of the environment (`Error`): `external`.

Rust (`impl Trait for Type`, a trait's supertraits) and Go (embedded types) resolve by their
own rules: `indexer/lang/rust/bases.py`, `indexer/lang/go/bases.py`.
"""

from __future__ import annotations

import builtins
from bisect import bisect_left, bisect_right
from operator import attrgetter
from typing import Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

from msgspec import Struct

from indexer.lang.class_kinds import CLASS_KINDS
from indexer.lang.file_imports import FileImports
from indexer.model import Base, BlobFacts, Edge, ImportSpec, SnapshotRecord, Symbol, UnresolvedImport
from indexer.resolve.scoped_bases import LANGUAGES as SCOPED
from indexer.resolve.scoped_bases import ClassIndex, resolve_scoped
from indexer.resolve.tree import CAVEATS
from indexer.store.facts_table import Summary, summaries_of


class Inherits(Struct, frozen=True, gc=False):
    source: str  # the class's file
    cls: str  # the class's qualified name in it
    spec: str  # the base as written
    line: int
    status: str  # resolved external unresolved
    target: str = ""  # the base's file, when resolved
    base: str = ""  # the base's qualified name there, when resolved
    relation: str = ""  # as the class declares it (`Base.relation`): Ruby's include, PHP's use, ...


_KINDS = frozenset({"python", "js"})  # the import kinds a base is bound by
_JS_DEFAULT = "default"  # the name a JS module's default export (`module.exports = X`) is reached by

# (file, top-level name) -> does the file define it?
Defines = Callable[[str, str], bool]
# a file -> its symbols (a Rust glob `use` of an enum brings in its variants alone)
SymbolsOf = Callable[[str], list[Symbol]]
# a file -> the other files of its package (Go: its folder's files of the same package clause)
PackageOf = Callable[[str], tuple[str, ...]]
# a file -> its package clause (Go), "" for none
PackageName = Callable[[str], str]


def _no_package(path: str) -> tuple[str, ...]:
    return ()


def _no_name(path: str) -> str:
    return ""


def _no_symbols(path: str) -> list[Symbol]:
    return []


def hierarchy(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> list[Inherits]:
    """The `inherits` edges of a snapshot, by file (in the file table's order), then in each
    file's declaration order. Only the files declaring bases are read in full."""
    return [edge for found in inherits_by_file(record, facts) for edge in found]


def inherits_by_file(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> Iterator[list[Inherits]]:
    """`hierarchy`, a declaring file's edges at a time: a reader that writes them as they come
    holds one file's, never all (a map of many bases, as a bundle may carry, would come to
    many times its facts), nor the symbol lists of the files it looked names up in."""
    summary = summaries_of(facts).get
    declaring = [f.path for f in record.files if (s := summary(f.path)) is not None and s.bases]
    if not declaring:
        return
    top: dict[str, frozenset[str]] = {}
    listed: dict[str, list[Symbol]] = {}

    def symbols(path: str) -> list[Symbol]:
        found = listed.get(path)
        if found is None:
            s = summary(path)
            # full facts loaded for assembly hold their symbols as JSON too: `symbol_list` reads either
            found = listed[path] = s.symbol_list() if s is not None else []
        return found

    def defines(path: str, name: str) -> bool:
        names = top.get(path)
        if names is None:
            s = summary(path)
            names = top[path] = frozenset(x.name for x in (s.symbol_list() if s is not None else []) if not x.container)
        return name in names

    scoped = any((s := summary(p)) is not None and s.language in SCOPED for p in declaring)
    index = _Classes(record, summary) if scoped else None
    folders: dict[str, list[str]] = {}

    def package_name(path: str) -> str:
        s = summary(path)
        return s.package_name if s is not None else ""

    packages: dict[str, tuple[str, ...]] = {}

    def package(path: str) -> tuple[str, ...]:
        found = packages.get(path)
        if found is not None:
            return found
        if not folders:
            for f in record.files:
                folders.setdefault(f.path.rpartition("/")[0], []).append(f.path)
        name = package_name(path)
        found = packages[path] = tuple(p for p in folders.get(path.rpartition("/")[0], ()) if p != path and name
                                       and p.endswith(".go") and package_name(p) == name)
        return found

    for path in declaring:
        full = facts[path]
        yield resolve_bases(path, full.language, full.bases, full.imports, _of_file(record.edges, path, _source),
                            _of_file(record.unresolved, path, _path), defines, index, package, package_name,
                            symbols)


_source = attrgetter("source")
_path = attrgetter("path")
Line = TypeVar("Line", Edge, UnresolvedImport)


def _of_file(lines: Sequence[Line], path: str, path_of: Callable[[Line], str]) -> list[Line]:
    """The lines of `path`: a run of a record's edges or unresolved imports, which are sorted
    by file path first (model.SnapshotRecord), found by bisecting. One declaring file's lines
    are made at a time, never every declaring file's at once (a bundle's record may hold many,
    each read from its bytes)."""
    at = bisect_left(lines, path, key=path_of)
    return list(lines[at:bisect_right(lines, path, lo=at, key=path_of)])


class _Classes:
    """The map's classes as assembly has them (`ClassIndex`): the symbols of every file of a
    language with classes, decoded once, on first need."""

    _LANGUAGES = SCOPED | {"c"}  # a C++ base may be a struct of a header read as C

    def __init__(self, record: SnapshotRecord, summary: Callable[[str], Summary | None]) -> None:
        self.record = record
        self.summary = summary
        self._named: dict[str, list[tuple[str, str]]] | None = None

    def named(self, name: str) -> list[tuple[str, str]]:
        if self._named is None:
            found: dict[str, list[tuple[str, str]]] = {}
            for f in self.record.files:
                s = self.summary(f.path)
                if s is None or s.language not in self._LANGUAGES:
                    continue
                for sym in s.symbol_list():
                    if sym.kind in CLASS_KINDS:
                        found.setdefault(sym.name, []).append((f.path, sym.qualified))
            self._named = found
        return self._named.get(name, [])

    def package(self, path: str) -> str:
        s = self.summary(path)
        return s.package_name if s is not None else ""

    def edges(self, path: str) -> list[Edge]:
        return _of_file(self.record.edges, path, _source)


def resolve_bases(path: str, language: str, bases: Iterable[Base], imports: list[ImportSpec], edges: list[Edge],
                  unresolved: list[UnresolvedImport], defines: Defines, index: ClassIndex | None = None,
                  package: PackageOf = _no_package, package_name: PackageName = _no_name,
                  symbols: SymbolsOf = _no_symbols) -> list[Inherits]:
    """The `inherits` edges of one file's classes, in declaration order; `edges` and
    `unresolved` are the file's own imports' (any others are ignored). A language whose names
    resolve through its scopes (indexer/resolve/scoped_bases.py) asks `index` of the map's
    classes; `package` and `package_name` say what a Go file's package is, `symbols` what a Rust
    file a glob `use` reaches defines."""
    # marks beside edges say no status
    file = FileImports(path, imports, edges, [u for u in unresolved if u.status not in CAVEATS])
    if language in SCOPED:
        return [Inherits(path, b.cls, b.base, b.line, status, target, qualified, b.relation) for b, (status, target, qualified)
                in resolve_scoped(language, bases, file, index)] if index is not None else []
    if language == "rust":
        from indexer.lang.rust.bases import RustBases

        rust = RustBases(file, defines, symbols)
        return [Inherits(path, b.cls, b.base, b.line, *rust.resolve(b.base)) for b in bases]
    if language == "go":
        from indexer.lang.go.bases import GoBases

        go = GoBases(file, defines, package, package_name)
        return [Inherits(path, b.cls, b.base, b.line, *go.resolve(b.base)) for b in bases]
    out = []
    python = language == "python"
    binding = _Bindings(imports)
    for b in bases:
        parts = b.base.split(".")
        if len(parts) == 1 and defines(path, parts[0]):
            out.append(Inherits(path, b.cls, b.base, b.line, "resolved", path, parts[0]))
            continue
        bound = binding.of(parts, b.line)
        if bound is None:
            # a name no import binds: Python's builtins, and a JS/TS global of the environment
            # (`Error`, `HTMLElement`) where nothing binds it, are outside the tree
            status = "external" if len(parts) == 1 and (hasattr(builtins, parts[0]) or not python) else "unresolved"
            out.append(Inherits(path, b.cls, b.base, b.line, status))
            continue
        spec, name = bound
        targets = file.targets_on_line(spec.line, spec.kind)
        if not targets:
            out.append(Inherits(path, b.cls, b.base, b.line, file.status_at(spec.line)))
            continue
        target = next((t for t in targets if defines(t, name)), targets[0])
        out.append(Inherits(path, b.cls, b.base, b.line, "resolved", target, name))
    return out


class _Bindings:
    """The file's imports of the kinds a base is bound by (`_KINDS`), found by the name a base
    starts with; those binding one way of writing a base (`_bound_name`) are found once for
    it. A file of many imports and many bases so costs their sum, not their product."""

    def __init__(self, imports: list[ImportSpec]) -> None:
        self._by_head: dict[str, list[ImportSpec]] = {}
        for spec in imports:
            if spec.kind in _KINDS:
                for head in _heads(spec):
                    listed = self._by_head.setdefault(head, [])
                    if not listed or listed[-1] is not spec:
                        listed.append(spec)
        self._binding: dict[tuple[int, str, tuple[str, ...]], tuple[list[int], list[ImportSpec]]] = {}

    def of(self, parts: list[str], line: int) -> tuple[ImportSpec, str] | None:
        """The import binding the base's first part (the last such import above the base, else
        the first), and the name the base has in what the import reaches."""
        # what binds a base depends on its parts but the last (`_bound_name`)
        key = (len(parts), parts[0], tuple(parts[1:-1]))
        found = self._binding.get(key)
        if found is None:
            specs = [spec for spec in self._by_head.get(parts[0], ()) if _bound_name(spec, parts) is not None]
            found = self._binding[key] = ([spec.line for spec in specs], specs)
        lines, specs = found
        if not specs:
            return None
        # a file's imports are in line order (`import_specs.import_order`)
        at = bisect_right(lines, line) - 1
        spec = specs[at] if at >= 0 else specs[0]
        name = _bound_name(spec, parts)
        return (spec, name) if name is not None else None


def _heads(spec: ImportSpec) -> Iterator[str]:
    """The names a base may start with for the import to bind it (`_bound_name`)."""
    if spec.names:
        for i, original in enumerate(spec.names):
            yield spec.aliases[i] if spec.aliases and spec.aliases[i] else original
    elif spec.aliases:
        yield spec.aliases[0]
    else:
        yield spec.spec.split(".")[0]


def _bound_name(spec: ImportSpec, parts: list[str]) -> str | None:
    head = parts[0]
    if spec.names:  # from m import a, b as c; import { a, b as c } from "m"
        for i, original in enumerate(spec.names):
            local = spec.aliases[i] if spec.aliases and spec.aliases[i] else original
            if original == "*" and local == head and len(parts) == 2:  # import * as web: `web.Base`
                return parts[-1]
            if original != "*" and local == head:
                return original if len(parts) == 1 else parts[-1]
        return None
    if len(parts) < 2:
        # `const Base = require("./base")`: the name binds what the module exports as a whole, its
        # default (`module.exports = Base`), as `import Base from "./base"` binds it
        return _JS_DEFAULT if spec.kind == "js" and spec.aliases and spec.aliases[0] == head else None
    if spec.aliases:  # import a.b as c, const c = require("m"), import * as c: `c.Base`
        return parts[-1] if spec.aliases[0] == head and len(parts) == 2 else None
    module = spec.spec.split(".")  # import a.b: `a.b.Base`
    return parts[-1] if parts[:-1] == module else None
