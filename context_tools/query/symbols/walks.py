"""The files a module path names and where the re-exports of a name lead: `Walks` finds them
once for all the definitions one lookup checks (`models.Model` for django/db/models/base.py's
Model, imported by django/db/models/__init__.py; `pkg.s.Thing` after pkg/__init__.py's `from .
import sub as s`; `demo::net::Conn` from a Rust crate's name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from context_tools.query.symbols import imports
from context_tools.query.symbols.imports import reexported, star_passes
from context_tools.query.symbols.names import ends_with, module_parts
from indexer.lang.bindings import PathView, Scopes, of_import, of_language, of_path

if TYPE_CHECKING:
    from indexer.store.snapshot import Snapshot


class Walks:
    """What exact lookups of one snapshot find once for all the definitions they check (one
    lookup's, or a `focus` list's): the files of each module part (one pass over the path list
    each, and the modules files of its leading parts bind), the modules a crate's name reaches
    (`Scopes.module_files`), and where the re-exports of each (module part, name) lead
    (`reexport_walk`)."""

    def __init__(self, snap: Snapshot, crates: bool = True) -> None:
        self.snap = snap
        self.crates = crates
        # crate names are looked for in a query written as Rust writes paths (`demo::Conn`):
        # each costs reading the tree's Cargo manifests (and its language column), which a
        # dotted query of a tree with some Rust need not pay
        self.scopes = Scopes(snap, crates)
        self._files: dict[tuple[str, ...], list[str]] = {}
        self._modules: dict[tuple[str, ...], list[str]] = {}
        self._named: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}
        self._reached: dict[tuple[tuple[str, ...], str], dict[tuple[str, str], bool]] = {}
        self._deepest: int | None = None

    def deepest(self) -> int:
        """The most segments a path of the snapshot has. No module path has more parts, so a
        longer module (`a.a.a...`, as a client may send one) needs no pass over the paths to
        find that none ends with it."""
        if self._deepest is None:
            self._deepest = max((p.count("/") + 1 for p in self.snap.paths), default=0)
        return self._deepest

    def files_of(self, module: list[str]) -> list[str]:
        """The files whose module path ends with `module` (`pytest` for src/pytest/__init__.py),
        and the module files it names from a crate's name (`Scopes.module_files`), sorted."""
        key = tuple(module)
        found = self._files.get(key)
        if found is None:
            # a module path's parts are its path's segments: they stand in it joined by slashes
            joined = "/".join(module)
            tails = {p for p in self.snap.paths if joined in p and ends_with(module_parts(p), module)
                     } if len(module) <= self.deepest() else set()
            found = self._files[key] = sorted(tails.union(self.scopes.module_files(module)))
        return found

    def module_files(self, module: list[str]) -> list[str]:
        """The files `module` names as code reaches them, sorted: those whose module path ends
        with it (`files_of`), and the module a file of its leading parts binds to its last part,
        under an alias or not (`Bindings.bound_modules`: `pkg.s` is pkg/sub.py after
        pkg/__init__.py's `from . import sub as s` or `import pkg.sub as s`, `api.sub` after
        api/__init__.py's `from pkg import sub`), or a submodule of a package so bound
        (`api.sub.inner`). The bindings are looked for only when no file has the module path
        itself: `synth.p601.m24065` is that file, and its leading parts are never read (each
        one a pass over the paths, `synth` matching a quarter of 100,000 of them). Each leading
        part is read once."""
        key = tuple(module)
        found = self._modules.get(key)
        if found is None:
            files = set(self.files_of(module))
            for outer in self.module_files(module[:-1]) if len(module) > 1 and not files else ():
                rules = of_path(outer)
                files.update(rules.bound_modules(self.snap, outer, module[-1],
                                                 lambda dotted: self.modules_named(rules.language, dotted)))
                files.update(rules.submodule(self.snap, outer, module[-1]))
            found = self._modules[key] = sorted(files)
        return found

    def modules_named(self, language: str, dotted: list[str]) -> frozenset[str]:
        """The files of `language` that are module `dotted` under some root (`Bindings.modules_named`)."""
        key = (language, tuple(dotted))
        found = self._named.get(key)
        if found is None:
            found = self._named[key] = of_language(language).modules_named(self.snap.paths, dotted)
        return found

    def reached(self, module: list[str], name: str) -> dict[tuple[str, str], bool]:
        """(file, name it defines at the top) -> renamed on the way, for each definition that
        the files of `module` define or re-export as `name` to code outside them
        (`reexport_walk`)."""
        key = (tuple(module), name)
        found = self._reached.get(key)
        if found is None:
            found = self._reached[key] = reexport_walk(self.snap, self.module_files(module), name, module,
                                                       self.scopes.path_view())
        return found


def reexport_walk(snap: Snapshot, starts: list[str], name: str, module: list[str], view: PathView
                  ) -> dict[tuple[str, str], bool]:
    """Where the re-exports of `name` by the files `starts` (a module's) lead: (file, the name
    it defines at the top) -> whether the name changed on the way, for each definition reached
    up to `RELAY_HOPS` away. `pytest.mark`: pytest/__init__.py's `from _pytest.mark import
    MARK_GEN as mark`, over _pytest/mark/__init__.py's `from .structures import MARK_GEN`,
    reaches (structures.py, MARK_GEN), renamed; `attrs.define` reaches (attr/_next_gen.py,
    define) over two imports of it. Each hop looks in the imported file for the name the
    importing one imports; a file defining it at the top ends its chain. A start defining it
    is reached too (a module bound under another name: `pkg.s.Thing` for pkg/sub.py's Thing
    after `from . import sub as s`), and still walked on. Only the starts and the files their
    re-exports reach are read. A Rust `use` passes the name on only when the path reaching it
    sees it (`view`, `Bindings.passes_on`): `demo::X` a `pub use` of the crate root,
    `crate::X` any `use` of it, `crate::a::X` a `pub(crate) use` of a.rs too, and each later
    hop what the previous file's `use` path sees. A `use` of an item of one of the file's own
    inline modules (`pub use self::content::Content;` beside `mod content { pub enum Content
    }`) reaches that item, under its qualified name in the file (`content.Content`,
    `Bindings.inline_items`), and a Rust glob of an enum its variant (`Kind.Small` over `pub use
    crate::kind::Kind::*;`, or kind.rs's own `pub use Kind::*;`: `Bindings.star_items`)."""
    # the query's own path: from inside no module, or from the whole crate for `crate::X`
    def viewer(p: str) -> str:
        return p if module == ["crate"] else ""
    # (file, the name looked for in it, renamed on the way, the file whose import reached it, and
    # the first segment of that import's path)
    frontier = sorted({(p, name, False, viewer(p), module[0]) for p in starts})
    seen = {(p, name) for p in starts}
    reached = {(p, local): renamed for p in starts for local, renamed in offered_as(snap, p, name)}
    for _ in range(imports.RELAY_HOPS):
        # (file, name looked for) -> renamed on some way there, the first way's importer and head
        found: dict[tuple[str, str], tuple[bool, str, str]] = {}
        for path, wanted, renamed, by, head in frontier:
            facts = snap.import_facts(path)
            # the imports that could pass `wanted` on, as the file's facts tell; only then its
            # edges (the first asked of a snapshot decodes every edge of it)
            passing = [(spec, inner, inner if inner != "*" else wanted)
                       for spec in (facts.imports if facts else ()) for inner, outer in reexported(spec)
                       if (inner == "*" or outer == wanted)
                       and of_import(spec.kind).passes_on(spec, view, path, by, head)]
            for spec, inner, before in passing:
                # an item of an inline module of the file itself: no edge
                for qualified in of_import(spec.kind).inline_items(snap, path, spec, wanted):
                    reached.setdefault((path, qualified), renamed or qualified.rpartition(".")[2] != wanted)
                for e in snap.edges_of_import(path, spec):
                    # an enum's variant a glob of the enum brings in: the chain ends at it
                    items = of_import(spec.kind).star_items(snap, spec, e.target, wanted) if inner == "*" else []
                    for qualified in items:
                        reached.setdefault((e.target, qualified), renamed)
                    if not items and (inner != "*" or star_passes(snap, spec, e.target)(wanted)):
                        key = (e.target, before)
                        was = found.get(key)
                        way = (path, of_import(spec.kind).path_head(spec)) if was is None else was[1:]
                        found[key] = ((was is not None and was[0]) or renamed or before != wanted, *way)
        frontier = []
        for (path, wanted), (renamed, by, head) in sorted(found.items()):
            if (path, wanted) in seen:
                continue
            seen.add((path, wanted))
            ends = offered_as(snap, path, wanted)
            reached.update(((path, local), renamed or again) for local, again in ends)
            if not ends:  # else the definition: the chain ends here
                frontier.append((path, wanted, renamed, by, head))
        if not frontier:
            break
    return reached


def offered_as(snap: Snapshot, path: str, name: str) -> list[tuple[str, bool]]:
    """(the top-level definition, renamed) that the file at `path` offers its importers as
    `name`: its own definition of the name (not renamed), or, in a file of a language that
    exports names under others (JS, TS), one it exports under that name
    (`BlobFacts.exported_as`: `export default class Gadget` offers Gadget as `default`, `export
    { Tool as Implement }` Tool as Implement). Its import facts are read only when it defines
    no such name."""
    if defines_at_top(snap, path, name):
        return [(name, False)]
    entry = snap.file(path)
    facts = snap.import_facts(path) if entry is not None and of_language(entry.language).renames_exports else None
    return [(local, True) for local, out in (facts.exported_as if facts else ()) if out == name
            and defines_at_top(snap, path, local)]


def defines_at_top(snap: Snapshot, path: str, name: str) -> bool:
    facts = snap.core_facts(path)
    return facts is not None and any(s.name == name and not s.container for s in facts.symbols)
