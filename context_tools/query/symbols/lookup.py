"""Definitions of a name or qualified name: exact (`find_exact`: the qualification matched
against the module path and container chain, a package's name, a crate's name or a module
re-exporting the name), else near names (`find_fuzzy`); and the `Definition` each is shown as."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol

from context_tools.query.symbols.answers import Definition
from context_tools.query.symbols.names import ends_with, module_name, module_parts, name_parts, path_ok
from context_tools.query.symbols.rust_macros import exported_at
from context_tools.query.symbols.walks import Walks
from indexer.lang.bindings import Scopes, of_path

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.query.near_names import NearNames
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot

# a definition found: its file, its symbol, how it matched ("exact" | "qualified" | "fuzzy")
Hit = tuple[str, "Symbol", str]


class Filters(Protocol):
    """What a query narrows its definitions by (the inputs of symbol and references)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str | None: ...

    @property
    def path(self) -> str | None: ...


def _qualifies(path: str, sym: Symbol, prefix: list[str]) -> str | None:
    """'exact' when prefix is the container chain itself, 'qualified' when it reaches into the
    module path, None when it does not match."""
    container = sym.container.split(".") if sym.container else []
    if prefix == container or (not prefix and not container):
        return "exact"
    if not prefix:
        return "exact"
    if ends_with(module_parts(path) + container, prefix):
        return "exact" if len(prefix) <= len(container) else "qualified"
    return None


def _module_split(sym: Symbol, prefix: list[str]) -> tuple[list[str], list[str], list[str]] | None:
    """(the parts of `prefix` naming a module, the parts after them, the definition's container
    chain), the parts after as many as the chain has: `models` and `Model` of
    `models.Model.save`; None when nothing is before them."""
    container = sym.container.split(".") if sym.container else []
    if len(prefix) <= len(container):
        return None
    cut = len(prefix) - len(container)
    return prefix[:cut], prefix[cut:], container


def _module_before(sym: Symbol, prefix: list[str]) -> list[str] | None:
    """The parts of `prefix` naming a module when the parts after them are the definition's
    container chain itself (`demo::net` of `demo::net::Conn`); None otherwise."""
    split = _module_split(sym, prefix)
    return split[0] if split is not None and split[1] == split[2] else None


def _package_qualifies(snap: Snapshot, path: str, sym: Symbol, prefix: list[str]) -> str | None:
    """'qualified' when the prefix is a package as code names it, then the container chain
    (`Bindings.package_names`): `cobra.Command` for the root's Go `package cobra`,
    `doc.GenMarkdown` for doc/md_docs.go."""
    module = _module_before(sym, prefix)
    if module is None:
        return None
    names = of_path(path).package_names(snap, path)
    return "qualified" if names is not None and ends_with(names, module) else None


def _crate_qualifies(path: str, sym: Symbol, prefix: list[str], walks: Walks) -> str | None:
    """'qualified' when the prefix is a module path from a crate's name, then the container
    chain: `demo::net::Conn` (or `crate::net::Conn`) for src/net.rs of the Rust crate whose
    Cargo.toml names it `demo` (`Scopes.module_files`), and `demo::bail` for a `#[macro_export]`
    macro of any of its files."""
    module = _module_before(sym, prefix)
    if module is None:
        return None
    if path in walks.scopes.module_files(module):
        return "qualified"
    # a `#[macro_export]` macro is named at its crate's root (`demo::bail` of src/macros.rs)
    root = exported_at(walks.snap, walks.scopes, path, sym) if len(module) == 1 else None
    return "qualified" if root is not None and root in walks.scopes.module_files(module) else None


def _qualifies_through_reexport(path: str, sym: Symbol, prefix: list[str], walks: Walks) -> str | None:
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


def find_exact(snap: Snapshot, query: str, kind: str | None = None, path: str | None = None,
               walks: Walks | None = None) -> list[Hit]:
    """The definitions `query` names exactly; `walks`: what lookups of the same snapshot found
    before (a `focus` list's names share it), else a new one's."""
    parts = name_parts(query)
    simple, prefix = parts[-1], parts[:-1]
    hits: list[Hit] = []
    if walks is None or walks.crates != ("::" in query):
        walks = Walks(snap, crates="::" in query)
    for p, sym in snap.definitions(simple):
        if kind and sym.kind != kind:
            continue
        if not path_ok(p, path):
            continue
        rules = of_path(p)
        how = (_qualifies(p, sym, prefix) or _package_qualifies(snap, p, sym, prefix)
               or (_crate_qualifies(p, sym, prefix, walks) if rules.modules_from_crates else None)
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
                if (sym.qualified == name and (not kind or sym.kind == kind) and path_ok(p, path)
                        and (p, sym.line, sym.start_byte) not in found):
                    hits.append((p, sym, "qualified"))
    rank_of = snap.rank_of
    hits.sort(key=lambda h: (h[2] != "exact", -rank_of(h[0]), h[0], h[1].line, h[1].start_byte))
    return hits


def _near_names(ctx: CallContext, snap: Snapshot) -> NearNames:
    key = ("near names", snap.fingerprint)
    found = ctx.handle.memo.get(key)
    if found is None:
        # the near-name table (and difflib) only for a name nothing defines exactly
        from context_tools.query.near_names import NearNames

        found = ctx.handle.memo[key] = NearNames.of_snapshot(snap)
    return found


def find_fuzzy(ctx: CallContext, snap: Snapshot, query: str, kind: str | None, path: str | None) -> list[Hit]:
    simple = name_parts(query)[-1]
    near = _near_names(ctx, snap).near(simple.lower())
    hits: list[Hit] = []
    found = snap.definitions_of(near)
    for name in near:
        for p, sym in found[name]:
            if (not kind or sym.kind == kind) and path_ok(p, path):
                hits.append((p, sym, "fuzzy"))
    order = {n: i for i, n in enumerate(near)}
    rank_of = snap.rank_of
    low = simple.lower()

    def tier(name: str) -> int:
        """The name in another case, a name containing the query, a close spelling."""
        lowered = name.lower()
        return 0 if lowered == low else 1 if low in lowered else 2

    # the name as written before its other cases: `attrs.define` lists the function `define`
    # before a class `Define`; within a tier by their file's rank, as exact matches are, so that
    # the library's `teardown_request` comes before a test's `app_teardown` (name order put it
    # 24th of flask's 35 names containing `teardown`)
    hits.sort(key=lambda h: (h[1].name != simple, tier(h[1].name), -rank_of(h[0]), order[h[1].name], h[0],
                             h[1].line))
    return hits


def definition(path: str, sym: Symbol, how: str, modules: Callable[[str], str], **more: object) -> Definition:
    """How a definition is shown; `more`: what the hierarchy adds (`Definition.inherited_from`,
    `chain`, `overrides`)."""
    if sym.condition:
        more["condition"] = sym.condition
    return Definition(sym.name, sym.qualified, sym.kind, path, sym.line, sym.end_line, sym.signature,
                      modules(path), how, **more)  # type: ignore[arg-type]


def modules_of(snap: Snapshot) -> Callable[[str], str]:
    """The module shown for a definition's file: a Rust file's path in its crate (`demo::net`,
    indexer.lang.rust.paths; its manifests are read only when such a file is shown), else the
    dotted path-based name (`module_name`)."""
    scopes = Scopes(snap)

    def module(path: str) -> str:
        if not of_path(path).modules_from_crates:
            return module_name(path)
        return scopes.crate_module(path) or module_name(path)

    return module


def other_kinds(snap: Snapshot, input: Filters) -> str:
    """What a kind filter missed: the kinds the name is defined as (`--kind classes`, `--kind
    func`: kinds are the extraction's words, not a closed list to refuse others by)."""
    if not input.kind:
        return ""
    kinds = sorted({sym.kind for _, sym, _ in find_exact(snap, input.name, None, input.path)})
    return f"; {input.name!r} is defined as: {', '.join(kinds)}" if kinds else ""
