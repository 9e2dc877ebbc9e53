"""context.symbol and context.references: definitions and reference sites of a name.

A query is a simple name (`route`), or a qualified one whose leading parts name
enclosing definitions and, optionally, the module path before them (`Flask.route`,
`app.Flask.route`, `flask.app.Flask.route` for `src/flask/app.py`). Qualification must
match the tail of `module path + container chain` part by part, the module path being the
defining file's or that of a file re-exporting the top-level name, directly or through
other re-exports (`models.Model` for django/db/models/base.py's Model, imported by
django/db/models/__init__.py; `attrs.define` through attr/__init__.py), under the name the
re-exporting file gives it (`pytest.mark` over `from _pytest.mark import MARK_GEN as mark`).
A Python module bound to a name qualifies under it, aliased or not (`pkg.s.Thing` after
pkg/__init__.py's `from . import sub as s`, `api.sub.Thing` after `from pkg import sub`); a
Rust path may start at a crate's name (`demo::net::Conn`). `::` separates parts as `.` does
(`Serializer::serialize_str`, `spdlog::logger::flush`).

A reference site is tagged with how it was tied to the definition:
`same_file` (in a defining file), `same_package` (in a file of a defining file's Go or
Java package, PHP or C# namespace or Ruby outermost module, which sees its names without an
import), `import` (in a file whose resolved imports reach a defining file, directly or
through files that re-export it under the name, up to four re-exports away, or through C
headers including it, or in such a file; a Python or JS import must bind the definition's
name, its class's for a method, or the module offering it; and a file's sites of its own
name for the definition, an import's alias, or, asked by the definition's own name, a name a
file re-exports it under; an import's binding is one, the variable of `const W =
require(...)` too, though `symbol` lists it as a definition; a `require` of a file exporting by
ES syntax binds its module object, whose `default` is its default export: `m.default()` is a
use of it, `m()` is not), or `name_match` (only the name is the same). A PHP class or function
is its name in any case, in the files of its namespace too (`new USER` for User); a C# file
sees a namespace's files only in its own project and those its .csproj references. A JS/TS name qualified by a module offering a definition under another name
is that definition (`lib.Gadget2` over lib/index.js's `export { default as Gadget2 } from
"./gadget"`); its references are the sites of the name asked.

With `workspace`, both run per member and merge, each item tagged with its `member`;
a site in a file importing (as an external package) what another member declares, in
the folder of the member's definition, is `import`-resolved across the members.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

import msgspec
from msgspec import Struct

from context_tools.query.near_names import NearNames
from context_tools.query.pinned import open_pinned, tree_path
from context_tools.query.workspace_scope import (
    MemberFreshnessPage,
    cross_importers,
    open_workspace,
    repo_of,
    rev_of,
    tag,
    workspace_of,
)
from indexer.contract.errors import NotFound
from indexer.contract.result import Result
from indexer.lang.python.resolve import is_python, module_candidates, module_stem, relative_base
from indexer.lang.registry import JS_FAMILY
from indexer.lang.rust.visibility import CrateView, Gate, head_of
from indexer.resolve.tree import join, parent

_MODULE_FILES = {"__init__", "index", "mod", "lib", "main"}
JS_DEFAULT = "default"  # what a JS or TS module exports its default export as, and imports it by


class Definition(Struct):
    name: str
    qualified: str
    kind: str
    path: str
    line: int
    end_line: int
    signature: str
    module: str  # the file's module: a Rust crate path (`demo::net`), else dotted from the path
    match: str  # "exact" | "qualified" | "fuzzy"


class SymbolAnswer(Struct):
    query: str
    fuzzy: bool  # true when nothing matched exactly and these are near names
    note: str
    definitions: list[Definition]


class Site(Struct):
    path: str
    line: int
    col: int
    role: str  # definition call reference module local identifier (model.Occurrence)
    resolution: str  # same_file same_package import name_match
    text: str | None = None


class ReferencesAnswer(Struct):
    query: str
    definitions: list[Definition]  # what the sites were resolved against
    definitions_total: int
    by_resolution: dict[str, int]  # over every site, not just this page
    sites: list[Site]


def module_name(path: str) -> str:
    """Dotted module path for display (`src/webapp/app.py` -> `webapp.app`)."""
    parts = module_parts(path)
    if len(parts) > 1 and parts[0] in ("src", "lib"):
        parts = parts[1:]
    return ".".join(parts)


_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")  # a TypeScript declaration file: `types.d.ts` is module `types`


def module_parts(path: str) -> list[str]:
    if path.endswith(_DECLARATION_SUFFIXES):
        stem = path[: path.rindex(".d.")]
    else:
        stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    parts = [p for p in stem.split("/") if p]
    if len(parts) > 1 and parts[-1] in _MODULE_FILES:
        parts = parts[:-1]
    return parts


def _path_ok(path: str, wanted: str | None) -> bool:
    if not wanted:
        return True
    if any(c in wanted for c in "*?["):
        from fnmatch import fnmatchcase

        return fnmatchcase(path, wanted[2:] if wanted.startswith("./") else wanted)
    wanted = tree_path(wanted)
    return path == wanted or path.startswith(wanted + "/")


def _qualifies(path: str, sym: Any, prefix: list[str]) -> str | None:
    """'exact' when prefix is the container chain itself, 'qualified' when it reaches into the
    module path, None when it does not match."""
    container = sym.container.split(".") if sym.container else []
    if prefix == container or (not prefix and not container):
        return "exact"
    if not prefix:
        return "exact"
    if _ends_with(module_parts(path) + container, prefix):
        return "exact" if len(prefix) <= len(container) else "qualified"
    return None


def _module_split(sym: Any, prefix: list[str]) -> tuple[list[str], list[str], list[str]] | None:
    """(the parts of `prefix` naming a module, the parts after them, the definition's container
    chain), the parts after as many as the chain has: `models` and `Model` of
    `models.Model.save`; None when nothing is before them."""
    container = sym.container.split(".") if sym.container else []
    if len(prefix) <= len(container):
        return None
    cut = len(prefix) - len(container)
    return prefix[:cut], prefix[cut:], container


def _ends_with(parts: list[str], tail: list[str]) -> bool:
    return len(tail) <= len(parts) and parts[len(parts) - len(tail):] == tail


def _module_before(sym: Any, prefix: list[str]) -> list[str] | None:
    """The parts of `prefix` naming a module when the parts after them are the definition's
    container chain itself (`demo::net` of `demo::net::Conn`); None otherwise."""
    split = _module_split(sym, prefix)
    return split[0] if split is not None and split[1] == split[2] else None


def _go_qualifies(snap: Any, path: str, sym: Any, prefix: list[str]) -> str | None:
    """'qualified' when the prefix is a Go package as code names it, then the container chain:
    `cobra.Command` for the root's `package cobra`, `doc.GenMarkdown` for doc/md_docs.go. A Go
    package is a folder, not a file, and its name is its package clause's."""
    module = _module_before(sym, prefix)
    if module is None:
        return None
    facts = snap.core_facts(path)
    package = facts.package_name if facts else ""
    folders = [p for p in path.rpartition("/")[0].split("/") if p]
    names = folders[:-1] + [package] if package else folders  # the import path's tail, named as imported
    return "qualified" if _ends_with(names, module) else None


def _crate_qualifies(path: str, sym: Any, prefix: list[str], walks: _Walks) -> str | None:
    """'qualified' when the prefix is a Rust module path from a library crate's name, then the
    container chain: `demo::net::Conn` (or `crate::net::Conn`) for src/net.rs of the crate
    whose Cargo.toml names it `demo` (`_Walks.crate_files`)."""
    module = _module_before(sym, prefix)
    return "qualified" if module is not None and path in walks.crate_files(module) else None


class _Walks:
    """What one exact lookup finds once for all the definitions it checks: the files of each
    module part (one pass over the path list each, and the modules files of its leading parts
    bind), the tree's Cargo manifests and the roots of the library crates each name calls, and
    where the re-exports of each (module part, name) lead (`_reexport_walk`)."""

    def __init__(self, snap: Any, crates: bool = True) -> None:
        self.snap = snap
        # Rust crate names are looked for in a query written as Rust writes paths (`demo::Conn`):
        # each costs reading the tree's Cargo manifests (and its language column: at 100,000
        # files 40 ms and 28 MB), which a dotted query of a tree with some Rust need not pay
        self._crates = crates
        self._files: dict[tuple[str, ...], list[str]] = {}
        self._manifests: list[str] | None = None
        self._roots: dict[str, list[str]] = {}
        self._tree: Any = None
        self._modules: dict[tuple[str, ...], list[str]] = {}
        self._python: dict[tuple[str, ...], frozenset[str]] = {}
        self._reached: dict[tuple[tuple[str, ...], str], dict[tuple[str, str], bool]] = {}

    def files_of(self, module: list[str]) -> list[str]:
        """The files whose module path ends with `module` (`pytest` for src/pytest/__init__.py),
        and the Rust module files it names from a crate's name (`crate_files`), sorted."""
        key = tuple(module)
        found = self._files.get(key)
        if found is None:
            # a module path's parts are its path's segments: they stand in it joined by slashes
            joined = "/".join(module)
            tails = {p for p in self.snap.paths if joined in p and _ends_with(module_parts(p), module)}
            found = self._files[key] = sorted(tails.union(self.crate_files(module)))
        return found

    def crate_files(self, module: list[str]) -> list[str]:
        """The file of the Rust module `module` names when its first part is a crate's name as
        code writes it (`_crate_roots`): `demo` is the crate root (src/lib.rs, or src/main.rs
        for the package's binary), `demo::net` its child module, walked as `use` resolution
        walks it (resolve_rust.ModuleTree: a `#[path]` file, else src/net.rs or src/net/mod.rs,
        through inline modules that declare file modules). `crate` is every crate's root.
        Empty when no crate is so named, or the query is not written with `::`."""
        roots = self.crate_roots(module[0]) if self._crates else []
        if not roots:
            return []
        from indexer.lang.rust.resolve import Module

        tree = self.module_tree()
        found = []
        for root in roots:
            at, taken = tree.walk(Module(root, parent(root)), module[1:])  # a root's children are beside it
            if taken == len(module) - 1 and not at.inline:
                found.append(at.file)
        return sorted(set(found))

    def module_tree(self) -> Any:
        """The Rust module tree of the snapshot, its files' `mod` declarations read as walked."""
        if self._tree is None:
            from indexer.lang.rust.resolve import ModuleTree  # loaded only when a crate is named

            self._tree = ModuleTree(lambda p: self.snap.file(p) is not None, self._imports_of)
        return self._tree

    def _imports_of(self, path: str) -> tuple:
        facts = self.snap.import_facts(path)
        return facts.imports if facts is not None else ()

    def crate_view(self) -> CrateView:
        """Which Rust paths stay in their crate: a bare one naming no crate of the tree does."""
        return CrateView(lambda name: bool(self.crate_roots(name)))

    def crate_roots(self, name: str) -> list[str]:
        """The root files of the tree's crates called `name` (`_crate_roots`)."""
        found = self._roots.get(name)
        if found is None:
            if self._manifests is None:  # a pass over the paths (7 ms at 100,000), for a tree with Rust only
                self._manifests = [p for p in self.snap.paths if p == "Cargo.toml" or p.endswith("/Cargo.toml")
                                   ] if self.snap.holds_language("rust") else []
            found = self._roots[name] = _crate_roots(self.snap, self._manifests, name)
        return found

    def module_files(self, module: list[str]) -> list[str]:
        """The files `module` names as code reaches them, sorted: those whose module path ends
        with it (`files_of`), and the module a Python file of its leading parts binds to its
        last part, under an alias or not (`bound_modules`: `pkg.s` is pkg/sub.py after
        pkg/__init__.py's `from . import sub as s` or `import pkg.sub as s`, `api.sub` after
        api/__init__.py's `from pkg import sub`), or a submodule of a package so bound
        (`api.sub.inner`). The bindings are looked for only when no file has the module path
        itself: `synth.p601.m24065` is that file, and its leading parts are never read (each
        one a pass over the paths, `synth` matching a quarter of 100,000 of them). Each leading
        part is read once, the facts of its Python files only."""
        key = tuple(module)
        found = self._modules.get(key)
        if found is None:
            files = set(self.files_of(module))
            for outer in self.module_files(module[:-1]) if len(module) > 1 and not files else ():
                files.update(self.bound_modules(outer, module[-1]))
                files.update(_submodule(self.snap, outer, module[-1]))
            found = self._modules[key] = sorted(files)
        return found

    def bound_modules(self, path: str, local: str) -> set[str]:
        """The module files a Python file binds to the name `local` by an import: `import a.b
        as local`, `import local`, `from a import b as local` and `from a import local` where
        a.b is a module (a/b.py, not a name a/__init__.py defines). `import a.b` binds `a`, a
        package no edge of it names: not followed. A relative import's module is found beside
        the importer as the resolver finds it; an absolute one's is the edge of the import, asked
        only when some Python file of the tree is that module (the first edges a snapshot is
        asked decode all of them)."""
        if not is_python(path):
            return set()
        facts = self.snap.import_facts(path)
        found: set[str] = set()
        asked = []
        for spec in facts.imports if facts else ():
            for dotted in _binding(spec, local):
                if not spec.level:
                    files = self.python_modules(dotted)
                    if files:
                        asked.append((spec, files))
                    continue
                base = relative_base(path, spec.level)
                found.update(_first_file(self.snap, module_candidates(base, dotted)) if base is not None else ())
        edges = self.snap.imports(path) if asked else ()
        found.update(e.target for spec, files in asked for e in edges if _same_import(spec, e) and e.target in files)
        return found

    def python_modules(self, dotted: list[str]) -> frozenset[str]:
        """The Python files that are module `dotted` under some root: their module path, as a
        path (`module_stem`), ends with it."""
        key = tuple(dotted)
        found = self._python.get(key)
        if found is None:
            joined = "/".join(dotted)  # its parts stand in the path joined by slashes: a cheap first sieve
            found = self._python[key] = frozenset(
                p for p in self.snap.paths
                if joined in p and is_python(p) and _ends_with(module_stem(p).split("/"), dotted))
        return found

    def reached(self, module: list[str], name: str) -> dict[tuple[str, str], bool]:
        """(file, name it defines at the top) -> renamed on the way, for each definition that
        the files of `module` define or re-export as `name` to code outside them
        (`_reexport_walk`)."""
        key = (tuple(module), name)
        found = self._reached.get(key)
        if found is None:
            found = self._reached[key] = _reexport_walk(self.snap, self.module_files(module), name, module,
                                                        self.crate_view())
        return found


def _crate_roots(snap: Any, manifests: list[str], name: str) -> list[str]:
    """The root files of the crates that the Cargo.toml files `manifests` name `name`, each
    as its manifest places it, when the tree holds it (resolve_rust.target_roots): a library
    (`[lib] name`, else `[package] name` with hyphens made underscores: `demo`, `my_crate` for
    "my-crate"), a `[[bin]]`, the package's src/main.rs, and an auto-discovered binary
    src/bin/<name>.rs or src/bin/<name>/main.rs; every crate's root for `crate`. A manifest
    is parsed only when its text could name the crate or such a binary is there (tomllib
    takes 0.2 ms a manifest: a workspace of a thousand crates would pay it on every lookup)."""
    if not manifests:
        return []
    import re

    from indexer.contract.decode import Undecodable, decode_toml
    from indexer.lang.rust.resolve import auto_target, target_roots

    def exists(path: str) -> bool:
        return snap.file(path) is not None

    spelled = re.compile("[-_]".join(map(re.escape, name.split("_"))).encode())  # `my_crate` is written my-crate
    everything = name == "crate"
    autos = _auto_roots(snap) if everything else {}
    roots = []
    for manifest in manifests:
        directory = parent(manifest)
        binaries = [] if everything else [
            p for stem in dict.fromkeys((name, name.replace("_", "-")))
            for p in (join(directory, f"src/bin/{stem}.rs"), join(directory, f"src/bin/{stem}/main.rs")) if exists(p)]
        data = snap.blob_bytes(manifest)
        if not everything and not binaries and not spelled.search(data):
            continue
        try:
            doc = decode_toml(data.decode("utf-8", "replace"))
        except Undecodable:
            continue
        named = target_roots(doc, directory, exists)
        main = join(directory, "src/main.rs")
        if exists(main) and main not in {r for _, r in named}:
            named.append((auto_target(doc, "src/main.rs") or "", main))
        named += [(auto_target(doc, r[len(directory) + 1:] if directory else r) or "", r)
                  for r in binaries + autos.get(directory, [])]
        roots += [root for crate, root in named if everything or crate == name]
    return sorted(set(roots))


def _auto_roots(snap: Any) -> dict[str, list[str]]:
    """The roots of auto-discovered binaries (src/bin/x.rs, src/bin/x/main.rs), by the folder
    of the manifest they would be in: a pass over the paths, for `crate::` queries only."""
    found: dict[str, list[str]] = {}
    for p in snap.paths:
        if "src/bin/" in p and p.endswith(".rs"):
            head, _, rest = p.partition("src/bin/")
            if (not head or head.endswith("/")) and (rest.count("/") == 0 or rest.endswith("/main.rs") and rest.count("/") == 1):
                found.setdefault(head.rstrip("/"), []).append(p)
    return found


def _qualifies_through_reexport(path: str, sym: Any, prefix: list[str], walks: _Walks) -> str | None:
    """'qualified' when the prefix is the module path of a file that re-exports the definition's
    top-level name, then the name it re-exports it under and the rest of the container chain:
    `models.Model` for django/db/models/base.py's Model, which django/db/models/__init__.py
    imports; `attr.define`; `models.Model.save`; `pkg.Alias.run` over `from .m import Real as
    Alias`. Re-exports are followed through chains (`attrs.define`: attrs/__init__.py imports
    it from attr/__init__.py, which imports it from attr/_next_gen.py), from the module's files
    towards the definition, so only what they import is read (`_reexport_walk`)."""
    split = _module_split(sym, prefix)
    if split is None:
        return None
    module, chain, container = split
    if chain[1:] != container[1:]:  # the top-level name may be re-exported under another
        return None
    top = container[0] if container else sym.name
    wanted = chain[0] if container else sym.name  # what the re-exporting file calls `top`
    return "qualified" if (path, top) in walks.reached(module, wanted) else None


def name_parts(query: str) -> list[str]:
    """The parts of a qualified name, `.` or `::` between them (`a.B.c`, `a::B::c`); a query
    that is all separators is its own one part."""
    return [p for p in query.replace("::", ".").split(".") if p] or [query]


def find_exact(snap: Any, query: str, kind: str | None = None, path: str | None = None) -> list[tuple[str, Any, str]]:
    parts = name_parts(query)
    simple, prefix = parts[-1], parts[:-1]
    hits = []
    walks = _Walks(snap, crates="::" in query)
    for p, sym in snap.definitions(simple):
        if kind and sym.kind != kind:
            continue
        if not _path_ok(p, path):
            continue
        how = (_qualifies(p, sym, prefix) or (_go_qualifies(snap, p, sym, prefix) if p.endswith(".go") else None)
               or (_crate_qualifies(p, sym, prefix, walks) if p.endswith(".rs") else None)
               or _qualifies_through_reexport(p, sym, prefix, walks))
        if how is not None:
            hits.append((p, sym, how))
    if prefix:  # `pytest.mark`: a module re-exporting a definition under another name
        found = {(p, sym.line, sym.start_byte) for p, sym, _ in hits}
        for (p, name), renamed in sorted(walks.reached(prefix, simple).items()):
            # a definition reached under its own name, at the top of its file, was found above;
            # an inline module's item (`content.Content`) only here
            facts = snap.core_facts(p) if renamed or "." in name else None
            for sym in facts.symbols if facts else ():
                if (sym.qualified == name and (not kind or sym.kind == kind) and _path_ok(p, path)
                        and (p, sym.line, sym.start_byte) not in found):
                    hits.append((p, sym, "qualified"))
    rank_of = snap.rank_of
    hits.sort(key=lambda h: (h[2] != "exact", -rank_of(h[0]), h[0], h[1].line, h[1].start_byte))
    return hits


def _near_names(ctx: Any, snap: Any) -> NearNames:
    key = ("near names", snap.fingerprint)
    found = ctx.handle.memo.get(key)
    if found is None:
        found = ctx.handle.memo[key] = NearNames.of_snapshot(snap)
    return found


def find_fuzzy(ctx: Any, snap: Any, query: str, kind: str | None, path: str | None) -> list[tuple[str, Any, str]]:
    simple = name_parts(query)[-1]
    near = _near_names(ctx, snap).near(simple.lower())
    hits = []
    found = snap.definitions_of(near)
    for name in near:
        for p, sym in found[name]:
            if (not kind or sym.kind == kind) and _path_ok(p, path):
                hits.append((p, sym, "fuzzy"))
    order = {n: i for i, n in enumerate(near)}
    rank_of = snap.rank_of
    # the name as written before its other cases: `attrs.define` lists the function `define`
    # before a class `Define`
    hits.sort(key=lambda h: (h[1].name != simple, order[h[1].name], -rank_of(h[0]), h[0], h[1].line))
    return hits


def _definition(path: str, sym: Any, how: str, modules: Callable[[str], str]) -> Definition:
    return Definition(sym.name, sym.qualified, sym.kind, path, sym.line, sym.end_line, sym.signature,
                      modules(path), how)


def _modules(snap: Any) -> Callable[[str], str]:
    """The module shown for a definition's file: a Rust file's path in its crate (`demo::net`,
    indexer.lang.rust.paths; its manifests are read only when a .rs file is shown), else the
    dotted path-based name (`module_name`)."""
    rust: list[Any] = []

    def module(path: str) -> str:
        if not path.endswith(".rs"):
            return module_name(path)
        if not rust:
            from indexer.lang.rust.paths import RustModulePaths

            rust.append(RustModulePaths(snap))
        return rust[0].of(path) or module_name(path)

    return module


def symbol(input: Any, ctx: Any) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _symbol_across(input, ctx, name)
    snap, fresh = open_pinned(ctx, repo_of(input), rev_of(input))
    hits = find_exact(snap, input.name, input.kind, input.path)
    fuzzy = False
    if not hits and input.fuzzy:
        hits = find_fuzzy(ctx, snap, input.name, input.kind, input.path)
        fuzzy = bool(hits)
    if not hits:
        raise NotFound(f"no definition of {input.name!r}{_filters(input)} in {snap.oid[:12]}"
                       f"{_other_kinds(snap, input)}")
    items, page = ctx.page(hits, cap="definitions", limit=input.limit, cursor=input.cursor, binding=snap.fingerprint)
    modules = _modules(snap)
    return Result(SymbolAnswer(input.name, fuzzy, _fuzzy_note(input, fuzzy), [_definition(*h, modules) for h in items]),
                  freshness=fresh, page=page)


def _other_kinds(snap: Any, input: Any) -> str:
    """What a kind filter missed: the kinds the name is defined as (`--kind classes`, `--kind
    func`: kinds are the extraction's words, not a closed list to refuse others by)."""
    if not input.kind:
        return ""
    kinds = sorted({sym.kind for _, sym, _ in find_exact(snap, input.name, None, input.path)})
    return f"; {input.name!r} is defined as: {', '.join(kinds)}" if kinds else ""


def _filters(input: Any) -> str:
    return "".join(f" {k}={v!r}" for k, v in (("kind", input.kind), ("path", input.path)) if v)


def _fuzzy_note(input: Any, fuzzy: bool) -> str:
    return f"nothing is defined exactly as {input.name!r}; these are near names (match: fuzzy)" if fuzzy else ""


class WorkspaceSymbolAnswer(SymbolAnswer, kw_only=True):
    """Definitions across a workspace: each tagged with its `member`."""

    workspace: str
    member_freshness: MemberFreshnessPage


def _symbol_across(input: Any, ctx: Any, name: str) -> Result:
    scope = open_workspace(ctx, name)
    hits = [(i, m, h) for i, m in enumerate(scope.readable)
            for h in find_exact(m.snap, input.name, input.kind, input.path)]
    fuzzy = False
    if not hits and input.fuzzy:  # near names only when no member defines the name exactly
        hits = [(i, m, h) for i, m in enumerate(scope.readable)
                for h in find_fuzzy(ctx, m.snap, input.name, input.kind, input.path)]
        fuzzy = bool(hits)
    if not hits:
        raise NotFound(f"no definition of {input.name!r}{_filters(input)} in workspace {name!r} "
                       f"(members: {scope.names()})")
    # exact before qualified matches across the workspace; then member order; then each member's own order
    ordered = [h for _, h in sorted(enumerate(hits), key=lambda e: (e[1][2][2] == "qualified", e[1][0], e[0]))]
    items, page = ctx.page(ordered, cap="definitions", limit=input.limit, cursor=input.cursor, binding=scope.binding)
    named = {id(m): _modules(m.snap) for m in scope.readable}
    defs = [tag(_definition(*h, named[id(m)]), m.member.name) for _, m, h in items]
    data = WorkspaceSymbolAnswer(input.name, fuzzy, _fuzzy_note(input, fuzzy), defs, workspace=name,
                                 member_freshness=scope.member_freshness)
    return Result(data, freshness=scope.freshness, page=page)


def references(input: Any, ctx: Any) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _references_across(input, ctx, name)
    snap, fresh = open_pinned(ctx, repo_of(input), rev_of(input))
    defs = find_exact(snap, input.name, input.kind, input.path)
    if not defs and _narrowed(input):
        raise NotFound(f"no definition of {input.name!r} to resolve references against in {snap.oid[:12]}"
                       f"{_other_kinds(snap, input)}")
    # Every page of an answer needs all of its sites (to sort and count them): a caller paging
    # through thousands of sites, or asking again, gets them computed once per snapshot.
    key = ("sites", snap.fingerprint, input.name, input.kind, input.path, input.include_definitions,
           input.resolution)
    found = ctx.handle.memo.get(key)
    if found is None:
        found = ctx.handle.memo[key] = _sites(snap, input, defs)
    sites, counts = found
    items, page = ctx.page(sites, cap="sites", limit=input.limit, cursor=input.cursor, binding=snap.fingerprint)
    if input.text:
        items = _with_text(snap, items)
    modules = _modules(snap)
    shown = [_definition(*d, modules) for d in defs[: ctx.cap("definitions")]]
    return Result(ReferencesAnswer(input.name, shown, len(defs), counts, items), freshness=fresh, page=page)


def _narrowed(input: Any) -> bool:
    """A qualified, kind- or path-filtered query names a definition; without one it has no answer."""
    return len(name_parts(input.name)) > 1 or bool(input.kind or input.path)


RESOLUTIONS = ("import", "same_file", "same_package", "name_match")  # as by_resolution lists them
_ORDER = {"same_file": 0, "same_package": 1, "import": 2, "name_match": 3}
MODULE_KINDS = frozenset({"module", "namespace", "package"})


def _sites(snap: Any, input: Any, defs: list, imported_from_members: set[str] = frozenset()
           ) -> tuple[list[Site], dict[str, int]]:
    """Reference sites of the name in one snapshot, resolved against `defs` (its own definitions);
    `imported_from_members`: files importing the name's package from another workspace member."""
    parts = name_parts(input.name)
    simple = parts[-1]
    starts = sorted({(p, s.name) for p, s, _ in defs})
    exported = _exported_as(snap, defs)  # a JS/TS file's own export of it as `default`, or renamed
    # the files defining it as the name, or exporting their definition as it (`lib.Implement`
    # over tool.js's `export { Tool as Implement }`); not a definition re-exported under the
    # name, nor a variable an import binds (`const Engine = require("./engine")`: its sites are
    # the import's, as `import Engine from`'s are)
    import_bound = _import_bound(snap, defs)
    def_files = {p for p, s, _ in defs if s.name == simple and (p, s.line) not in import_bound} | {
        p for p, n in exported if n == simple}
    def_sites = {(p, s.line) for p, s, _ in defs}
    reaches: dict[str, bool] = {}

    # the files re-exporting a definition under the name: their own sites and their importers'
    gate = Gate(_Walks(snap).crate_view())
    offered = _relays(snap, starts + exported, gate)
    relays = {r for r, names in offered.items() if simple in names}
    # The definition under other names, its sites all reached through imports: a file's own
    # name for it (`from .m import Real as Alias`, `use App\Models\User as U;`), and, asked by
    # its own name, the names files re-export it under (`references MARK_GEN`: pytest's `mark`,
    # and `pytest.mark` where pytest is imported). Asked by such a name (`pytest.mark`,
    # `lib.Gadget2` over `export { default as Gadget2 } from "./gadget"`), the other names stay
    # out, those a file offering this one offers it under too (lib's `default`): that name's
    # sites are the answer.
    own_name = any(n == simple for _, n in starts)
    offers = [(p, n) for p, n in starts if n == simple] + (exported if own_name else []) + [
        (r, n) for r in sorted(offered) if own_name or r in relays for n in sorted(offered[r])
        if own_name or n == simple]
    projects = _CSharpProjects(snap)  # its folders found once, for the aliases and the resolutions
    aliased = _alias_sites(snap, offers, simple, gate, projects)
    # A module site (a segment of an import's path) names a package or module: it refers to
    # the name's definitions only when one of them is a module or namespace (a Rust `mod`), or
    # when there is none to refer to. `import os.path` is not a use of a function `path`.
    skip_modules = bool(defs) and not any(s.kind in MODULE_KINDS for _, s, _ in defs)

    # What a file must import to reach a definition: the name it is bound by at the top (a
    # method's class, `Headers` for Headers.get), from a defining file or a file re-exporting it
    # (`httpx/__init__.py` for Client.get over `from ._client import Client`)
    anchors = sorted({(p, _anchor(s)) for p, s, _ in defs} | set(exported))
    bound: dict[str, set[str]] = {}
    for p, n in anchors:
        bound.setdefault(p, set()).add(n)
    for p, names in _relays(snap, anchors, gate).items():
        bound.setdefault(p, set()).update(names)
    # an import of a module as a whole reaches what it offers under the name asked (`api.get`), or
    # a class of a method that the file names (`pkg.Headers(...).get`): not `attr.asdict` where
    # attr offers `_asdict`, nor every `run` of a file importing pytest, which offers Pytester
    classes = {_anchor(s) for _, s, _ in defs if s.container}
    offered_whole = {p: names & classes for p, names in bound.items() if simple in names or names & classes}

    def whole(importer: str, target: str) -> bool:
        names = offered_whole.get(target)
        return names is not None and (simple in bound[target] or any(
            o.role != "local" for n in sorted(names) for o in snap.occurrences_in(importer, n)))
    reached = def_files | relays
    package_files: dict[tuple[str, ...], list[str]] = {}  # a definition's package -> its files there
    for p, _, _ in defs:
        key = _package_of(snap, p)
        if key is not None:
            package_files.setdefault(key, []).append(p)
    packages = set(package_files)
    # the C# projects a `global using` of a defining file's namespace or type (not an alias,
    # which binds only its own name: `_alias_sites`) is in: each of their files sees the
    # definition as its own `using` would make it seen
    global_projects = {projects.of(e.source) for p in sorted(def_files) if p.endswith(".cs")
                       for e in snap.importers(p) if e.kind == "csharp_global_using"
                       and any(not spec.aliases for spec in specs_of(snap, e))}

    def sees_package(path: str) -> bool:
        """Is the file of a definition's package, and, a C# one, of a project seeing its file
        there (a C# namespace may span projects, each seeing those its .csproj references)?"""
        package = _package_of(snap, path)
        if package not in packages:
            return False
        return package[0] != "csharp" or any(projects.sees(path, p) for p in package_files[package])

    def resolution(path: str) -> str:
        if path in def_files:
            return "same_file"
        hit = reaches.get(path)
        if hit is None:
            hit = reaches[path] = path in imported_from_members or path in relays or _imports_any(
                snap, path, bound, whole, reached, gate) or (
                bool(global_projects) and path.endswith(".cs") and projects.of(path) in global_projects)
        if hit:
            return "import"
        return "same_package" if packages and sees_package(path) else "name_match"

    spelled = _php_spellings(snap, defs, simple, packages, aliased)
    sites: list[Site] = []
    counts = dict.fromkeys(RESOLUTIONS, 0)
    for path, occ, through, binding in [(p, o, False, (p, o.line) in import_bound) for p, o in snap.occurrences(simple)
                                        ] + aliased + spelled:
        if occ.role == "local":  # a parameter or local variable (or a use of one): no site of a definition
            continue
        # Trust the extractor's role; a plain-tokenizer site has none, so fall back to the def line.
        # An import's own binding of an alias is an import site, whatever the role: `const W =
        # require("./engine")` declares a variable W, `import W from "./engine"` does not, and
        # each is the same binding of engine's export.
        is_def = not binding and (occ.role == "definition"
                                  or (occ.role == "identifier" and (path, occ.line) in def_sites))
        if (is_def and not input.include_definitions) or (skip_modules and occ.role == "module"):
            continue
        how = "import" if through else resolution(path)
        if len(parts) > 1 and how == "name_match":
            continue  # a qualified query asks for this definition, not any same-named thing
        counts[how] += 1
        if input.resolution and how != input.resolution:
            continue
        sites.append(Site(path, occ.line, occ.col, occ.role, how))
    sites.sort(key=lambda s: (_ORDER[s.resolution], s.path, s.line, s.col))
    return sites, counts


class WorkspaceReferencesAnswer(ReferencesAnswer, kw_only=True):
    """Reference sites across a workspace: sites and definitions tagged with their `member`. A site
    importing, from another member, the package that member declares and defines the name in is
    import-resolved."""

    workspace: str
    member_freshness: MemberFreshnessPage


def _references_across(input: Any, ctx: Any, name: str) -> Result:
    scope = open_workspace(ctx, name)
    members = scope.readable
    defs = {m.member.name: find_exact(m.snap, input.name, input.kind, input.path) for m in members}
    if not any(defs.values()) and _narrowed(input):
        raise NotFound(f"no definition of {input.name!r} to resolve references against in workspace {name!r} "
                       f"(members: {scope.names()})")
    crossing = cross_importers(scope, {k: {p for p, _, _ in v} for k, v in defs.items()})
    merged: list[tuple[int, int, Site]] = []
    counts = dict.fromkeys(RESOLUTIONS, 0)
    for i, m in enumerate(members):
        sites, found = _sites(m.snap, input, defs[m.member.name], crossing.get(m.member.name, set()))
        merged += [(i, n, s) for n, s in enumerate(sites)]
        for k, v in found.items():
            counts[k] += v
    merged.sort(key=lambda t: (_ORDER[t[2].resolution], t[0], t[1]))
    items, page = ctx.page(merged, cap="sites", limit=input.limit, cursor=input.cursor, binding=scope.binding)
    tagged = []
    for i, m in enumerate(members):
        mine = [s for j, _, s in items if j == i]
        if input.text and mine:
            mine = _with_text(m.snap, mine)
        tagged.append(iter([tag(s, m.member.name) for s in mine]))
    sites = [next(tagged[i]) for i, _, _ in items]  # back in page order
    named = {m.member.name: _modules(m.snap) for m in members}
    all_defs = [tag(_definition(*d, named[m.member.name]), m.member.name) for m in members for d in defs[m.member.name]]
    data = WorkspaceReferencesAnswer(input.name, all_defs[: ctx.cap("definitions")], len(all_defs), counts, sites,
                                     workspace=name, member_freshness=scope.member_freshness)
    return Result(data, freshness=scope.freshness, page=page)


def _package_of(snap: Any, path: str) -> tuple[str, ...] | None:
    """The package whose files see each other's top-level names without an import: a Go file's
    folder and package clause (an external `x_test` package is another one), a Java file's
    package declaration, a PHP or C# file's (first) namespace, in which an unqualified class
    name is the namespace's own (`new Stream(...)` in GuzzleHttp\\Psr7\\Utils.php), a Ruby file's
    outermost module (`_ruby_namespace`). None for
    other files and for a file that declares no package."""
    if path.endswith(".rb"):
        return _ruby_namespace(snap, path)
    language = _NAMESPACED.get(path.rpartition(".")[2])
    if language is None:
        return None
    facts = snap.core_facts(path)
    if not facts or not facts.package_name:
        return None
    if language == "go":
        return (language, path.rpartition("/")[0], facts.package_name)
    # PHP's namespace names are case-insensitive (`namespace app\models;` is App\Models)
    return (language, facts.package_name.lower() if language == "php" else facts.package_name)


_NAMESPACED = {"go": "go", "java": "java", "php": "php", "cs": "csharp"}  # file suffix -> language


def _ruby_namespace(snap: Any, path: str) -> tuple[str, ...] | None:
    """A Ruby file's outermost module or class (its first): constants of `module Rack` are
    `Request` in every file that opens `module Rack`, as Ruby looks them up through the nesting."""
    facts = snap.core_facts(path)
    top = next((s.name for s in facts.symbols if not s.container and s.kind in ("module", "class")), None) if facts else None
    return ("ruby", top) if top else None


def _import_bound(snap: Any, defs: list) -> set[tuple[str, int]]:
    """(file, line) of each of `defs` that is a JS/TS variable an import binds on its line to
    another of them (`const Engine = require("./engine")` where engine.js defines Engine, `const
    { Part } = require("./parts")`): the name of what the import reaches, not a definition of
    its own for references. A variable bound to a package's or to what no definition of the
    name is (`var Router = require("./router")` over an anonymous `module.exports = function`)
    stays its file's definition. Only the import facts of the defining files that are JS or
    TS are read, and the edges of those with such a variable."""
    candidates = []
    for path, sym, _ in defs:
        entry = snap.file(path) if not sym.container else None
        facts = snap.import_facts(path) if entry is not None and entry.language in JS_FAMILY else None
        specs = [spec for spec in (facts.imports if facts else ()) if spec.kind == "js" and spec.line == sym.line
                 and any(local == sym.name for _, local in _bindings(spec))]
        if specs:
            candidates.append((path, sym.line, sym.name, specs))
    if not candidates:
        return set()
    bound = {(path, line) for path, line, _, _ in candidates}
    defining = {p for p, s, _ in defs if (p, s.line) not in bound}
    # a `require` of an ES module binds its module object (`_target_bindings`), no definition
    return {(path, line) for path, line, name, specs in candidates
            if any(_same_import(spec, e) and e.target in defining
                   and any(local == name for inner, local in _target_bindings(snap, spec, e.target) if inner != "*")
                   for spec in specs for e in snap.imports(path))}


def _exported_as(snap: Any, defs: list) -> list[tuple[str, str]]:
    """(file, name) for each name a JS or TS file exports one of its top-level definitions
    `defs` under, other than its own (`BlobFacts.exported_as`): `export default class Bar`,
    `class Bar {}; export default Bar;` and `export { Bar as default }` offer Bar as `default`,
    which `import Foo from "./bar"` binds to Foo; `export { Bar as Baz }` offers Baz. Only the
    import facts of the defining files that are JS or TS are read."""
    found = set()
    for path, sym, _ in defs:
        entry = snap.file(path) if not sym.container else None
        facts = snap.import_facts(path) if entry is not None and entry.language in JS_FAMILY else None
        found.update((path, name) for local, name in (facts.exported_as if facts else ()) if local == sym.name)
    return sorted(found)


_RELAY_HOPS = 4  # re-exports followed from a defining file: `pkg` -> `pkg.api` -> `pkg.api._client` is two


def _reexported(spec: Any) -> Iterator[tuple[str, str]]:
    """(name in the imported file, name the importing file offers its own importers) for each
    name the import passes on. A Python, Rust or other import binds what it imports, under its
    alias if it has one (`from a import b as c` offers b as c); a JS or TS one offers only what
    it exports (`export { b as c } from`, an imported binding named by `export { x }`), never
    what a plain `import` binds. A `*` offers every name as is (`from a import *`, `export *
    from`); a namespace (`import * as ns`, `export * as ns from`) offers none of them. A PHP
    `use` or C# `using` offers nothing (`FILE_OWN_IMPORTS`)."""
    if spec.kind in FILE_OWN_IMPORTS:
        return
    pairs = zip(spec.names, spec.exports) if spec.kind == "js" else _bindings(spec)
    for name, out in pairs:
        if out and (name != "*" or out == "*"):
            yield name, out


# Imports whose names are the importing file's own: nothing importing that file sees them
# (PHP `use`, C# `using`; a C# `global using` is its project's: `_CSharpProjects`), so they
# re-export nothing.
FILE_OWN_IMPORTS = frozenset({"php_use", "php_use_function", "php_use_const", "csharp_using",
                              "csharp_global_using"})
# PHP's names of classes, functions and namespaces are case-insensitive (`new user()` is User),
# its constants' and variables' not
ANY_CASE_IMPORTS = frozenset({"php_use", "php_use_function"})


def _bindings(spec: Any) -> Iterable[tuple[str, str]]:
    """(name in the imported file, the importing file's own name for it) for each name the
    import binds: `from a import b as c` binds b as c, `import { b as c } from`, `use a::b as
    c;`, `use A\\B as C;` and `using C = A.B;` likewise; an unrenamed name binds as itself. A JS
    or TS module bound whole (`const m = require("./a")`, `import m = require("./a")`) binds
    what it exports as a whole, its `default` (`module.exports = X`, `export = X`)."""
    if spec.kind in FILE_OWN_IMPORTS:
        return ((_last_part(spec.spec), spec.aliases[0]),) if spec.aliases else ()
    if spec.kind == "rust_use":
        return _rust_bindings(spec)
    if spec.kind == "js":
        if not spec.names:  # the module itself (`const m = require(...)`): what it exports as a whole
            return ((JS_DEFAULT, spec.aliases[0]),) if spec.aliases else ()
        # `export { default } from` binds no name of the file
        return ((name, local) for i, name in enumerate(spec.names) if (local := spec.local(i)) != JS_DEFAULT)
    return ((name, spec.local(i)) for i, name in enumerate(spec.names))


def _target_bindings(snap: Any, spec: Any, target: str) -> Iterable[tuple[str, str]]:
    """`_bindings` of an import resolved to the file at `target`: a JS module bound whole (`const
    m = require("./a")`) that exports by ES syntax binds its module object, as `import * as m`
    does (`m.default()` uses its default export, `m()` does not), not its default."""
    if spec.kind == "js" and not spec.names and spec.aliases and _es_module(snap, target):
        return (("*", spec.aliases[0]),)
    return _bindings(spec)


def _es_module(snap: Any, path: str) -> bool:
    facts = snap.import_facts(path)
    return facts is not None and facts.es_module


def _alias_sites(snap: Any, offers: Iterable[tuple[str, str]], simple: str, gate: Gate,
                 projects: _CSharpProjects) -> list[tuple[str, Any, bool, bool]]:
    """(file, site, True, binding) of each use of a definition under a name other than `simple`, given
    the files that define or re-export it and the name each offers it under: a re-exporting
    file's own sites of the name it offers (`mark` in pytest/__init__.py); and an importing
    file's sites of its own name for it, an alias (`from .m import Real as Alias`, `import {
    Real as Alias }`, `import Alias from` a file exporting Real as default, `const Alias =
    require` one whose `module.exports` it is, `use crate::m::Real as Alias;`, `use
    App\\Models\\User as U;`, `using U = App.Models.User;`, the alias's own site included) or
    the offered name itself, through an import of it, of `*`, or of the module (`import
    pytest` then `pytest.mark`). Each is reached through an import. A PHP file's name for a
    class or function it imports is its name in any case (`use App\\Models\\User as U;` then
    `new u()`, `use ...\\User;` then `user::find()`); a C# `global using U = ...;` names it U
    in every C# file of its project. Only the offering files' importers are read (and, for a
    global alias, the alias's files). An importer a Rust relay's `use` is not visible to is
    passed over (`gate`). `binding` marks a site on the line of the import binding the name
    there (`const W = require(...)`'s W, which the extractor holds the definition of a
    variable)."""
    found: dict[tuple[str, str], bool] = {}  # (file, its name for the definition) -> in any case
    binds: set[tuple[str, str, int]] = set()  # (file, name, line of an import binding it)
    for path, name in offers:
        if name != simple and not _js_default(snap, path, name):
            found.setdefault((path, name), False)
        for edge in snap.importers(path):
            if edge.kind in C_INCLUDES or not gate.passes(edge):  # an include names nothing
                continue
            for spec in specs_of(snap, edge):
                any_case = spec.kind in ANY_CASE_IMPORTS
                for local in _local_names(snap, spec, edge.target, name):
                    if local == simple and not any_case:
                        continue
                    found[(edge.source, local)] = found.get((edge.source, local), False) or any_case
                    binds.add((edge.source, local, spec.line))
                    if spec.kind == "csharp_global_using":
                        found.update(((p, local), False) for p in projects.sharing(edge.source, local))
    out = []
    for (path, local), any_case in sorted(found.items()):
        if any_case:  # the spellings other than the asked name's own (the references' pass finds those)
            spelled = [o for o in snap.occurrences_in_any_case(path, local) if o.name != simple]
            out += [(path, o, True, False) for o in _php_names(snap, path, spelled)]
        else:
            out += [(path, o, True, (path, local, o.line) in binds) for o in snap.occurrences_in(path, local)]
    return out


PHP_ANY_CASE_KINDS = frozenset({"class", "interface", "trait", "enum", "function"})


def _php_spellings(snap: Any, defs: list, simple: str, packages: set, aliased: list) -> list[tuple[str, Any, bool, bool]]:
    """(file, site, False, False) of each use of a PHP class or function spelled in another case
    (`user::find()`, `new USER` for class User: PHP's names of these are case-insensitive) in a
    file defining it or in a file of its namespace, which sees it without a `use`; a file's
    `use` of it finds its own (`_alias_sites`), not again here. Only the files holding such a
    spelling are read (`Snapshot.spellings`: the name index walked by case)."""
    if not any(s.kind in PHP_ANY_CASE_KINDS and _language(snap, p) == "php" for p, s, _ in defs):
        return []
    defining = {p for p, _, _ in defs}
    seen = {(p, o.line, o.col) for p, o, _, _ in aliased}
    by_file: dict[str, list[Any]] = {}
    for spelling in snap.spellings(simple):
        if spelling == simple:
            continue
        for path, occ in snap.occurrences(spelling):
            if (path, occ.line, occ.col) not in seen and _language(snap, path) == "php":
                by_file.setdefault(path, []).append(occ)
    out = []
    for path in sorted(by_file):
        if path in defining or _package_of(snap, path) in packages:
            out += [(path, o, False, False) for o in _php_names(snap, path, by_file[path])]
    return out


def _language(snap: Any, path: str) -> str:
    entry = snap.file(path)
    return entry.language if entry is not None else ""


def _php_names(snap: Any, path: str, sites: list[Any]) -> list[Any]:
    """The PHP `sites` that may name a class or function: not a definition (a method `user` is
    no use of a class User), a variable (`$u`, `self::$u`), a property (`$this->u`) or a class's
    constant or method (`Events::COMMAND`), which PHP matches case-sensitively or which are
    another thing of the name. An occurrence does not say which it is: the line's text before
    it does (the file read only when there are sites)."""
    sites = [o for o in sites if o.role != "definition"]
    if not sites:
        return sites
    rows = snap.blob_bytes(path).split(b"\n")
    return [o for o in sites if 0 < o.line <= len(rows)
            and not rows[o.line - 1][:o.col].rstrip().endswith((b"$", b"->", b"::"))]


class _CSharpProjects:
    """The C# projects of a snapshot (indexer/lang/csharp/projects.py, as the resolver reads them): a
    `global using` is every file of its project's, and a file sees the namespaces of its own
    project and of those its .csproj references. The .csproj files are found on first need, in
    one pass over the paths, and read only when a file's visibility is asked."""

    def __init__(self, snap: Any) -> None:
        self.snap = snap
        self._projects: Any = None

    def _read(self) -> Any:
        if self._projects is None:
            from indexer.lang.csharp.projects import CSharpProjects

            self._projects = CSharpProjects((p for p in self.snap.paths if p.endswith(".csproj")), self.snap.blob_bytes)
        return self._projects

    def of(self, path: str) -> str | None:
        return self._read().of(path)

    def sees(self, viewer: str, target: str) -> bool:
        return self._read().sees(viewer, target)

    def sharing(self, path: str, name: str) -> list[str]:
        """The C# files of `path`'s project that have sites of `name` (the name index tells)."""
        project = self.of(path)
        files = {p for p, _ in self.snap.occurrences(name) if p.endswith(".cs")}
        return sorted(p for p in files if self.of(p) == project)


def _js_default(snap: Any, path: str, name: str) -> bool:
    """Is `name` a JS/TS file's `default`: a keyword there, the name of no binding (a `default`
    in `export { Bar as default }` is no use of Bar)."""
    entry = snap.file(path) if name == JS_DEFAULT else None
    return entry is not None and entry.language in JS_FAMILY


def _local_names(snap: Any, spec: Any, target: str, name: str) -> Iterator[str]:
    """What a file calls `name` of the file at `target` through the import `spec`: the local
    name it binds it to; the name itself through a `*` that passes it on, a JS/TS namespace
    (`ns.name`) or a Python import of the module (`pytest.mark`). A PHP class or function
    imports under its alias or its own name, matched in any case (`ANY_CASE_IMPORTS`)."""
    if spec.kind == "python" and not spec.names:
        yield name
    if spec.kind in ANY_CASE_IMPORTS:
        last = _last_part(spec.spec)
        if last.lower() == name.lower():
            yield spec.aliases[0] if spec.aliases else last
        return
    for inner, local in _target_bindings(snap, spec, target):
        if inner == name and local not in ("", "*"):
            yield local
        elif inner == "*" and (local != "*" or _star_passes(snap, spec, target)(name)):
            yield name


def _last_part(spec: str) -> str:
    """The name an import path ends with: `User` of App\\Models\\User and of App.Models.User."""
    return spec.replace("\\", ".").rpartition(".")[2]


def _star_passes(snap: Any, spec: Any, target: str) -> Callable[[str], bool]:
    """Which names a `*` import of the file at `target` passes on. Python's `from m import *`
    binds exactly the names m's `__all__` lists, underscored ones included, when m's top-level
    statements spell it out in literals (`BlobFacts.dunder_all`, see indexer/lang/python/dunder_all.py);
    otherwise, `__all__` absent or not read, every name not starting with an underscore. In
    other languages a `*` passes on every name."""
    if spec.kind != "python":
        return _every_name
    facts = snap.import_facts(target)
    listed = facts.dunder_all if facts is not None else None
    return _public_name if listed is None else frozenset(listed).__contains__


def _every_name(name: str) -> bool:
    return True


def _public_name(name: str) -> bool:
    return not name.startswith("_")


def _rust_bindings(spec: Any) -> tuple[tuple[str, str], ...]:
    """A Rust `use` keeps the last segments of what it imports in the path it walks (`pub use
    net::Conn;` is spec "net::Conn", no names; a group item may be "conn::{self,Conn}", its
    aliases beside it): the names and the local names they get are read out of the use tree."""
    from indexer.lang.rust.resolve import use_bindings  # the resolver's reading, loaded only when asked

    return use_bindings(spec.spec, spec.names, spec.aliases)


def _same_import(spec: Any, edge: Any) -> bool:
    return spec.line == edge.line and spec.kind == edge.kind and spec.spec == edge.spec


def specs_of(snap: Any, edge: Any) -> list[Any]:
    """The imports of the edge's importing file that the edge resolves (its imports alone read)."""
    facts = snap.import_facts(edge.source)
    return [spec for spec in facts.imports if _same_import(spec, edge)] if facts else []


def _binding(spec: Any, local: str) -> Iterator[list[str]]:
    """The dotted module (after the import's leading dots) a Python import binds to `local`,
    if it may be one: `import a.b as local` -> a.b; `from .a import b as local` -> a.b, which
    is a module if a/b.py (or a/b/) is there, else a name a defines."""
    if spec.kind != "python":
        return
    dotted = [p for p in spec.spec.split(".") if p]
    if not spec.names:
        if spec.aliases == (local,) or (not spec.aliases and not spec.level and dotted == [local]):
            yield dotted
        return
    for i, name in enumerate(spec.names):
        if name != "*" and spec.local(i) == local:
            yield dotted + [name]


def _first_file(snap: Any, candidates: Iterable[str]) -> tuple[str, ...]:
    """The first of `candidates` the snapshot has, as resolve_python takes it; () when none."""
    found = next((p for p in candidates if snap.file(p) is not None), None)
    return (found,) if found else ()


def _submodule(snap: Any, package: str, name: str) -> tuple[str, ...]:
    """The file of the submodule `name` of a Python package (given its __init__), () when it
    has none or `package` is no package's __init__."""
    if not package.endswith(_PACKAGE_FILES):
        return ()
    return _first_file(snap, module_candidates(parent(package), [name]))


_PACKAGE_FILES = ("/__init__.py", "/__init__.pyi")


def _relays(snap: Any, starts: Iterable[tuple[str, str]], gate: Gate) -> dict[str, frozenset[str]]:
    """Files that re-export a definition, each with the names it offers it under, given the
    defining files and the definition's name in each (`starts`): `from .app import Flask` in a
    package `__init__.py`, `export { route } from "./router"`, or, from a file that does, up
    to `_RELAY_HOPS` re-exports away (`pkg/__init__.py: from .api import Client` over
    `pkg/api/__init__.py: from ._client import Client`): importing one of them reaches the
    definition too. A re-export may rename it (`from .structures import MARK_GEN as mark`
    offers `mark`, not `MARK_GEN`; the next file looks for `mark`), see `_reexported`. Each
    file is passed once, with every name it offers at the first hop reaching it, so a loop of
    re-exports ends. Only importers of the defining files and of the relays found are read,
    never the rest of the tree. A Rust `use` is one too (`pub use net::Conn;` in lib.rs:
    `use crate::Conn` reaches net.rs; `pub use net::{conn::{Conn as Link}};` offers `Link`).
    So is a Python package's __init__ binding the module itself to a name (lib/__init__.py's
    `from . import tools [as t]`): `import lib` then `lib.tools.helper()` reaches tools.py's
    helper. So is a C or C++ header including the defining file, whose includers see all it
    includes (a .c file including python-zstandard.h, which includes zstd.h, sees ZSTD_isError).
    (Elsewhere, reaching a module through another that imported it is rare, and counting it
    would make that module's every user an `import` site of each name it uses.) A Rust `use`
    passes a name on only to the importers its visibility reaches (`pub use` to all, a private
    one to the modules inside its own): `gate` learns each relay's, and passes over the other
    importers."""
    frontier: dict[str, set[str]] = {}
    for path, name in starts:
        frontier.setdefault(path, set()).add(name)
    seen = set(frontier)
    relays: dict[str, frozenset[str]] = {}
    for _ in range(_RELAY_HOPS):
        found: dict[str, set[str]] = {}
        for target in sorted(frontier):
            names = frontier[target]
            for edge in snap.importers(target):
                if edge.source in seen or not gate.passes(edge):
                    continue
                if edge.kind in C_INCLUDES and not edge.source.endswith(C_SOURCES):
                    found.setdefault(edge.source, set()).update(names)  # a header passes on all it includes
                    continue
                for spec in specs_of(snap, edge):
                    if edge.source.endswith(_PACKAGE_FILES) and _binds_module(spec, target):
                        found.setdefault(edge.source, set()).update(names)  # one attribute deeper
                    for inner, outer in _reexported(spec):
                        if inner == "*":
                            found.setdefault(edge.source, set()).update(
                                filter(_star_passes(snap, spec, target), names))
                        elif inner in names:
                            found.setdefault(edge.source, set()).add(outer)
                        else:
                            continue
                        gate.offer(edge.source, spec)
        if not found:
            break
        seen |= found.keys()
        relays.update((path, frozenset(names)) for path, names in found.items())
        frontier = found
    return relays


def _anchor(sym: Any) -> str:
    """The name a definition is imported by: its own at the top of its file, else its
    outermost container's (`Headers` for the method Headers.get)."""
    return sym.container.partition(".")[0] if sym.container else sym.name


# Imports that list the names they bind: one naming none of a file's definitions of a name
# (nor `*`, nor the module itself) reaches none of them
NAMED_IMPORTS = frozenset({"python", "js"})


def _imports_any(snap: Any, path: str, bound: dict[str, set[str]], whole: Callable[[str, str], bool],
                 reached: set[str], gate: Gate) -> bool:
    """Does the file import one of the files `bound` maps so as to bind one of the names it
    maps it to: `from ._models import Headers` reaches Headers.get, `from ._models import
    Request` does not (a `get` there is some other one, a dict's); so does an import of `*`
    passing the name, `import * as ns from`, or one of a kind that names nothing (a Go
    package, a C header) to a file defining the name or re-exporting it as itself (`reached`).
    An import of a module itself (`import httpx`, `from . import tools`, `const m =
    require(...)`) reaches what the module offers as its attributes (`whole`). A Rust relay's
    importer must see its `use` (`gate`)."""
    for edge in snap.imports(path):
        if edge.kind not in NAMED_IMPORTS:
            if edge.target in reached and gate.passes(edge):
                return True
            continue
        names = bound.get(edge.target)
        if names and any(_binds_one(snap, spec, edge.target, names, lambda: whole(path, edge.target))
                         for spec in specs_of(snap, edge)):
            return True
    return False


def _binds_one(snap: Any, spec: Any, target: str, names: set[str], whole: Callable[[], bool]) -> bool:
    """Does the named import `spec` of the file at `target` bind one of `names`, or the module
    itself when what it offers is reached as an attribute (`whole`)?"""
    if not spec.names:  # a JS module bound whole (`const m = require(...)`), not imported for effect
        return (spec.kind == "python" or bool(spec.aliases)) and whole() or any(
            inner in names for inner, _ in _target_bindings(snap, spec, target))
    if _binds_module(spec, target):
        return whole()
    for inner, _ in _bindings(spec):
        if inner in names or (inner == "*" and any(filter(_star_passes(snap, spec, target), names))):
            return True
    return False


C_INCLUDES = frozenset({"c_include", "c_system_include"})
# C and C++ files compiled on their own: including one is rare, and nothing includes what they
# include through them
C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm")


def _binds_module(spec: Any, target: str) -> bool:
    """Does the Python import `spec`, resolved to the file at `target`, bind that module itself
    to a name of the importing file (`from . import tools`, `from lib import tools as t`,
    `import lib.tools as t`), rather than names it defines (`from .tools import helper`)?"""
    if spec.kind != "python":
        return False
    if not spec.names:
        return bool(spec.aliases)  # `import a.b` alone binds `a`, not the module the edge reaches
    return module_stem(target).rpartition("/")[2] in spec.names


def _reexport_walk(snap: Any, starts: list[str], name: str, module: list[str], view: CrateView
                   ) -> dict[tuple[str, str], bool]:
    """Where the re-exports of `name` by the files `starts` (a module's) lead: (file, the name
    it defines at the top) -> whether the name changed on the way, for each definition reached
    up to `_RELAY_HOPS` away. `pytest.mark`: pytest/__init__.py's `from _pytest.mark import
    MARK_GEN as mark`, over _pytest/mark/__init__.py's `from .structures import MARK_GEN`,
    reaches (structures.py, MARK_GEN), renamed; `attrs.define` reaches (attr/_next_gen.py,
    define) over two imports of it. Each hop looks in the imported file for the name the
    importing one imports; a file defining it at the top ends its chain. A start defining it
    is reached too (a module bound under another name: `pkg.s.Thing` for pkg/sub.py's Thing
    after `from . import sub as s`), and still walked on. Only the starts and the files their
    re-exports reach are read. A Rust `use` passes the name on only when the path reaching it
    sees it (`view`): `demo::X` a `pub use` of the crate root, `crate::X` any
    `use` of it, `crate::a::X` a `pub(crate) use` of a.rs too, and each later hop what the
    previous file's `use` path sees. A `use` of an item of one of the file's own inline
    modules (`pub use self::content::Content;` beside `mod content { pub enum Content }`)
    reaches that item, under its qualified name in the file (`content.Content`)."""
    # the query's own path: from inside no module, or from the whole crate for `crate::X`
    viewer = (lambda p: p) if module == ["crate"] else (lambda p: "")
    # (file, the name looked for in it, renamed on the way, the file whose `use` reached it, and
    # the first segment of that `use`'s path)
    frontier = sorted({(p, name, False, viewer(p), module[0]) for p in starts})
    seen = {(p, name) for p in starts}
    reached = {(p, local): renamed for p in starts for local, renamed in _offered_as(snap, p, name)}
    for _ in range(_RELAY_HOPS):
        # (file, name looked for) -> renamed on some way there, the first way's importer and head
        found: dict[tuple[str, str], tuple[bool, str, str]] = {}
        for path, wanted, renamed, by, head in frontier:
            facts = snap.import_facts(path)
            # the imports that could pass `wanted` on, as the file's facts tell; only then its
            # edges (the first asked of a snapshot decodes every edge of it: 0.2 s at 100,000 files)
            passing = [(spec, inner, inner if inner != "*" else wanted)
                       for spec in (facts.imports if facts else ()) for inner, outer in _reexported(spec)
                       if (inner == "*" or outer == wanted)
                       and (spec.kind != "rust_use" or view.sees(spec.visibility, path, by, head))]
            edges = snap.imports(path) if passing else ()
            for spec, inner, before in passing:
                if spec.kind == "rust_use":  # an item of an inline module of the file itself: no edge
                    for qualified in _inline_items(snap, path, spec, wanted):
                        reached.setdefault((path, qualified), renamed or qualified.rpartition(".")[2] != wanted)
                for e in edges:
                    if _same_import(spec, e) and (inner != "*" or _star_passes(snap, spec, e.target)(wanted)):
                        key = (e.target, before)
                        was = found.get(key)
                        way = (path, head_of(spec.spec, spec.names)) if was is None else was[1:]
                        found[key] = ((was is not None and was[0]) or renamed or before != wanted, *way)
        frontier = []
        for (path, wanted), (renamed, by, head) in sorted(found.items()):
            if (path, wanted) in seen:
                continue
            seen.add((path, wanted))
            ends = _offered_as(snap, path, wanted)
            reached.update(((path, local), renamed or again) for local, again in ends)
            if not ends:  # else the definition: the chain ends here
                frontier.append((path, wanted, renamed, by, head))
        if not frontier:
            break
    return reached


def _offered_as(snap: Any, path: str, name: str) -> list[tuple[str, bool]]:
    """(the top-level definition, renamed) that the file at `path` offers its importers as
    `name`: its own definition of the name (not renamed), or, in a JS or TS file, one it
    exports under that name (`BlobFacts.exported_as`: `export default class Gadget` offers
    Gadget as `default`, `export { Tool as Implement }` Tool as Implement). Its import facts
    are read only when it defines no such name."""
    if _defines_at_top(snap, path, name):
        return [(name, False)]
    entry = snap.file(path)
    facts = snap.import_facts(path) if entry is not None and entry.language in JS_FAMILY else None
    return [(local, True) for local, out in (facts.exported_as if facts else ()) if out == name
            and _defines_at_top(snap, path, local)]


def _inline_items(snap: Any, path: str, spec: Any, wanted: str) -> list[str]:
    """The qualified names (`content.Content`) of the items of the file's own inline modules
    that the Rust `use` brings in as `wanted`: `use self::content::Content;` (or, from 2018,
    `use content::Content;`) in the file that holds `mod content { pub enum Content ... }`. The
    resolver reaches no other file for them (an edge to the importer itself is dropped)."""
    from indexer.lang.rust.resolve import use_leaves

    wanted_paths = []
    for segments, alias in use_leaves(spec.spec, spec.names, spec.aliases):
        inside = segments[1:] if segments[0] == "self" else segments
        if (alias or segments[-1]) == wanted and len(inside) > 1 and not spec.level and inside[0] not in ("crate", "super"):
            wanted_paths.append(".".join(inside))
    if not wanted_paths:
        return []
    facts = snap.core_facts(path)
    defined = {s.qualified for s in facts.symbols} if facts else set()
    return [q for q in wanted_paths if q in defined]


def _defines_at_top(snap: Any, path: str, name: str) -> bool:
    facts = snap.core_facts(path)
    return facts is not None and any(s.name == name and not s.container for s in facts.symbols)


def _with_text(snap: Any, sites: list[Site]) -> list[Site]:
    lines_of: dict[str, list[str]] = {}
    out = []
    for s in sites:
        lines = lines_of.get(s.path)
        if lines is None:
            from context_tools.query.file_view import text_lines

            lines = lines_of[s.path] = text_lines(snap.blob_bytes(s.path))
        text = lines[s.line - 1].strip()[:240] if 0 < s.line <= len(lines) else None
        out.append(msgspec.structs.replace(s, text=text))
    return out


