"""What one file's imports bind and pass on: the imports an edge resolves, the names a file
calls a definition by (`local_names`), the files re-exporting a definition (`relays`), the
sites of a definition under another name (`alias_sites`), and whether a file's imports reach
one of the definitions (`imports_any`). Each language's rules are asked of its bindings
(indexer/lang/bindings.py) by the import's kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from indexer.lang.bindings import Bindings, Gate, Scopes, of_import

if TYPE_CHECKING:
    from indexer.model import ImportSpec, Occurrence
    from indexer.store.snapshot import Snapshot

RELAY_HOPS = 4  # re-exports followed from a defining file: `pkg` -> `pkg.api` -> `pkg.api._client` is two


def reexported(spec: ImportSpec) -> Iterator[tuple[str, str]]:
    """(name in the imported file, name the importing file offers its own importers) for each
    name the import passes on. A Python, Rust or other import binds what it imports, under its
    alias if it has one (`from a import b as c` offers b as c); a JS or TS one offers only what
    it exports (`export { b as c } from`, an imported binding named by `export { x }`), never
    what a plain `import` binds. A `*` offers every name as is (`from a import *`, `export *
    from`); a namespace (`import * as ns`, `export * as ns from`) offers none of them. A PHP
    `use` or C# `using` offers nothing (`Bindings.file_own`)."""
    return of_import(spec.kind).reexports(spec)


def star_passes(snap: Snapshot, spec: ImportSpec, target: str) -> Callable[[str], bool]:
    """Which names a `*` import of the file at `target` passes on (`Bindings.star_passes`)."""
    return of_import(spec.kind).star_passes(snap, spec, target)


def target_binds(snap: Snapshot, spec: ImportSpec, target: str) -> Iterable[tuple[str, str]]:
    """(name in the file at `target`, the importing file's name for it) for each name the import
    resolved to it binds (`Bindings.target_binds`)."""
    return of_import(spec.kind).target_binds(snap, spec, target)


def alias_sites(snap: Snapshot, offers: Iterable[tuple[str, str]], simple: str, gate: Gate,
                scopes: Scopes, default_export: Callable[[str, str], bool],
                sites_in: Callable[[str, str], list[Occurrence]],
                any_case_in: Callable[[str, str], list[Occurrence]]) -> list[tuple[str, Occurrence, bool, bool]]:
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
    passed over (`gate`). A file's `default_export` name is no use of the definition. `binding`
    marks a site on the line of the import binding the name there (`const W = require(...)`'s
    W, which the extractor holds the definition of a variable). A file's sites are read through
    `sites_in` (`any_case_in` for a name matched in any case), which bound what is read."""
    # (file, its name for the definition) -> the rules matching it in any case, None when exact
    found: dict[tuple[str, str], Bindings | None] = {}
    binds: set[tuple[str, str, int]] = set()  # (file, name, line of an import binding it)
    for path, name in offers:
        if name != simple and not default_export(path, name):
            found.setdefault((path, name), None)
        for edge in snap.importers(path):
            if of_import(edge.kind).includes(edge.kind) or not gate.passes(edge):  # an include names nothing
                continue
            for spec in snap.specs_of_edge(edge):
                rules = of_import(spec.kind)
                any_case = rules.any_case(spec)
                for local in rules.local_names(snap, spec, edge.target, name):
                    if local == simple and not any_case:
                        continue
                    found[(edge.source, local)] = found.get((edge.source, local)) or (rules if any_case else None)
                    binds.add((edge.source, local, spec.line))
                    if rules.project_wide(spec.kind):
                        found.update(((p, local), None) for p in scopes.projects.sharing(edge.source, local))
    out = []
    for (path, local), case_free in sorted(found.items(), key=lambda item: item[0]):
        if case_free is not None:  # the spellings other than the asked name's own (the references' pass finds those)
            spelled = [o for o in any_case_in(path, local) if o.name != simple]
            out += [(path, o, True, False) for o in case_free.case_free_sites(snap, path, spelled)]
        else:
            out += [(path, o, True, (path, local, o.line) in binds) for o in sites_in(path, local)]
    return out


def relays(snap: Snapshot, starts: Iterable[tuple[str, str]], gate: Gate) -> dict[str, frozenset[str]]:
    """Files that re-export a definition, each with the names it offers it under, given the
    defining files and the definition's name in each (`starts`): `from .app import Flask` in a
    package `__init__.py`, `export { route } from "./router"`, or, from a file that does, up
    to `RELAY_HOPS` re-exports away (`pkg/__init__.py: from .api import Client` over
    `pkg/api/__init__.py: from ._client import Client`): importing one of them reaches the
    definition too. A re-export may rename it (`from .structures import MARK_GEN as mark`
    offers `mark`, not `MARK_GEN`; the next file looks for `mark`), see `reexported`. Each
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
    found_relays: dict[str, frozenset[str]] = {}
    for _ in range(RELAY_HOPS):  # read at each walk: tests narrow it
        found: dict[str, set[str]] = {}
        for target in sorted(frontier):
            names = frontier[target]
            for edge in snap.importers(target):
                if edge.source in seen or not gate.passes(edge):
                    continue
                edge_rules = of_import(edge.kind)
                if edge_rules.includes(edge.kind) and edge_rules.relays_includes(edge.source):
                    found.setdefault(edge.source, set()).update(names)  # a header passes on all it includes
                    continue
                for spec in snap.specs_of_edge(edge):
                    rules = of_import(spec.kind)
                    if rules.package_binds_module(edge.source, spec, target):
                        found.setdefault(edge.source, set()).update(names)  # one attribute deeper
                    for inner, outer in rules.reexports(spec):
                        if inner == "*":
                            found.setdefault(edge.source, set()).update(
                                filter(rules.star_passes(snap, spec, target), names))
                        elif inner in names:
                            found.setdefault(edge.source, set()).add(outer)
                        else:
                            continue
                        gate.offer(edge.source, spec)
        if not found:
            break
        seen |= found.keys()
        found_relays.update((path, frozenset(names)) for path, names in found.items())
        frontier = found
    return found_relays


def imports_any(snap: Snapshot, path: str, bound: dict[str, set[str]], whole: Callable[[str, str], bool],
                reached: set[str], gate: Gate) -> bool:
    """Does the file import one of the files `bound` maps so as to bind one of the names it
    maps it to: `from ._models import Headers` reaches Headers.get, `from ._models import
    Request` does not (a `get` there is some other one, a dict's); so does an import of `*`
    passing the name, `import * as ns from`, or one of a kind that names nothing (a Go
    package, a C header) to a file defining the name or re-exporting it as itself (`reached`).
    An import of a module itself (`import httpx`, `from . import tools`, `const m =
    require(...)`) reaches what the module offers as its attributes (`whole`), and so does an
    import of a kind that names nothing to a file offering a member's class, in a file naming
    the class (`use demo::Builder;` over lib.rs's `pub use build::Builder;`, then
    `Builder::new`). A Rust relay's importer must see its `use` (`gate`)."""
    for edge in snap.imports(path):
        if not of_import(edge.kind).lists_names:
            # a file offering a member's class (a Rust `pub use builder::Builder;`) reaches the
            # member for an importer naming the class, as a Python import of the module does
            if (edge.target in reached or edge.target in bound and whole(path, edge.target)) and gate.passes(edge):
                return True
            continue
        names = bound.get(edge.target)
        if names and any(binds_one(snap, spec, edge.target, names, lambda: whole(path, edge.target))
                         for spec in snap.specs_of_edge(edge)):
            return True
    return False


def binds_one(snap: Snapshot, spec: ImportSpec, target: str, names: set[str], whole: Callable[[], bool]) -> bool:
    """Does the named import `spec` of the file at `target` bind one of `names`, or the module
    itself when what it offers is reached as an attribute (`whole`)?"""
    rules = of_import(spec.kind)
    if not spec.names:  # a JS module bound whole (`const m = require(...)`), not imported for effect
        return rules.binds_whole(spec) and whole() or any(
            inner in names for inner, _ in rules.target_binds(snap, spec, target))
    if rules.binds_module(spec, target):
        return whole()
    if rules.default_binds_whole(snap, spec, target) and whole():
        return True
    for inner, _ in rules.binds(spec):
        if inner in names or (inner == "*" and _passes_any(rules.star_passes(snap, spec, target), names)):
            return True
    return False


def _passes_any(passes: Callable[[str], bool], names: set[str]) -> bool:
    return any(passes(name) for name in names if name)
