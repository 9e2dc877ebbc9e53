"""Rust `mod` declarations and `use` paths -> module files of the tree.

A module is a file plus the directory its child modules live in: a crate root
(lib.rs, main.rs, src/bin/x.rs, tests/x.rs, ...) and a mod.rs keep children beside
themselves; any other a/foo.rs keeps them in a/foo/; `#[path = "..."]` names the file
outright. `use` paths walk from the crate root (`crate::`), the current module (`self::`),
its parents (`super::`) or a crate of the tree's own workspace, and resolve to the deepest
module file that exists; each path of a group, nested groups expanded, is walked on its own
(`use crate::{net::{self, conn::Conn}, Config}`: net.rs, net/conn.rs, the root). Inline
`mod m { ... }` blocks are modules inside their file: a `super::` inside one first climbs
out to the file's own module.

The edition decides what a bare path means: from 2018 on, a child module of the current
module or else another crate; in 2015 (a Cargo.toml without `edition`), a path from the
crate root unless it names a crate the package depends on, an `extern crate` of the root
or the standard library. `extern crate x;` itself is an edge to x's root when x is a crate
of the tree's workspace, else external.
"""

from __future__ import annotations

import posixpath
import tomllib
from typing import Callable, Mapping, NamedTuple

from indexer.model import BlobFacts, ImportSpec
from indexer.manifests_cargo import TABLES, lib_crate
from indexer.resolve_tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, normalize, parent

DIR_OWNERS = ("mod.rs", "lib.rs", "main.rs")
TARGET_DIRS = ("tests", "examples", "benches")
STANDARD_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})


def _segments(path: str) -> list[str]:
    return [s.strip() for s in path.split(" as ")[0].split("::") if s.strip()]


def _tree_leaves(tree: str) -> list[tuple[list[str], str]]:
    """The paths of one use tree, nested groups expanded, each with the alias written after it
    ("" for none): `a::{b, c::{self, D as E}}` -> ([a, b], ""), ([a, c, self], ""), ([a, c,
    D], "E"). An empty group names its own path."""
    tree = tree.strip()
    opening = tree.find("{")
    if opening < 0:
        alias = tree.split(" as ")[1].strip() if " as " in tree else ""
        return [(_segments(tree), alias)]
    prefix = _segments(tree[:opening])
    depth, item, items = 0, "", []
    for ch in tree[opening + 1 :]:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            break
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    items.append(item)
    return [(prefix + p, a) for i in items if i.strip() for p, a in _tree_leaves(i)] or [(prefix, "")]


def _use_leaves(spec: str, names: tuple[str, ...], aliases: tuple[str, ...]) -> list[tuple[list[str], str]]:
    """Every path of a `use` with its alias. As the extractor encodes it, a group item's alias
    lists the aliases of the paths it names joined by "," (`b::{c as d, x}` -> "d,"), and a
    `use` without a group has its one alias alone (`use a::b as c`: spec "a::b", aliases ("c",));
    an alias written in the tree itself (`D as E`) counts when the encoding gives none."""
    spec = spec.strip().rstrip(";")
    if not names:
        leaves = [(p, a) for p, a in _tree_leaves(spec) if p]
        if len(leaves) == 1 and aliases and aliases[0]:
            leaves = [(leaves[0][0], aliases[0])]
        return leaves
    prefix = _segments(spec)
    out = []
    for i, name in enumerate(names):
        given = aliases[i].split(",") if i < len(aliases) and aliases[i] else []
        for k, (path, alias) in enumerate(_tree_leaves(name)):
            if prefix + path:
                out.append((prefix + path, (given[k] if k < len(given) else "") or alias))
    return out


def use_paths(spec: str, names: tuple[str, ...] = ()) -> list[list[str]]:
    """Every path a `use` names, as the extractor encodes it (spec before the group, its items
    as names) or written out: `crate::a::{b, c::{self, D}}` -> [crate, a, b], [crate, a, c,
    self], [crate, a, c, D]; `a::b as c` -> [a, b]; `a::*` -> [a, *]."""
    return [p for p, _ in _use_leaves(spec, names, ())]


def use_bindings(spec: str, names: tuple[str, ...] = (), aliases: tuple[str, ...] = ()) -> tuple[tuple[str, str], ...]:
    """(name in the module it comes from, name in the importing file) of each name a `use`
    brings in, the importing file's name being its alias if it has one: `crate::{net::{self as
    n, Conn}, *}` -> (net, n), (Conn, Conn), (*, *); `net::Conn` -> (Conn, Conn); spec
    "a::b" with aliases ("c",) -> (b, c). A `self` is the module before it; a path ending at
    `crate`, `self` or `super` brings in no name."""
    out = []
    for path, alias in _use_leaves(spec, names, aliases):
        leaf = path[-1] if path[-1] != "self" or len(path) < 2 else path[-2]
        if leaf not in ("crate", "self", "super"):
            out.append((leaf, alias or leaf))
    return tuple(dict.fromkeys(out))


def child_files(directory: str, name: str) -> tuple[str, str]:
    """Where a module's child module `name` may be, the first that exists being it, given the
    folder its children live in: name.rs, then name/mod.rs."""
    return join(directory, name + ".rs"), join(directory, name, "mod.rs")


def extern_crates(facts: BlobFacts | None) -> frozenset[str]:
    """The names `extern crate` declarations of a file bring in (the crate's and its alias)."""
    if facts is None:
        return frozenset()
    return frozenset(name for imp in facts.imports if imp.kind == "rust_extern" for name in (imp.spec, *imp.aliases))


class _Package(NamedTuple):
    """What a Cargo.toml tells resolution about the crates in its directory."""

    edition: str
    dependencies: frozenset[str]  # the names its code uses for them (renames included), underscored
    lib: str  # its library crate's root file (`[lib] path`, else src/lib.rs), held by the tree or not


def _dependency_names(doc: dict) -> frozenset[str]:
    targets = doc.get("target") if isinstance(doc.get("target"), dict) else {}
    tables = [doc, *(t for t in targets.values() if isinstance(t, dict))]
    return frozenset(name.replace("-", "_") for t in tables for table, _ in TABLES
                     if isinstance(t.get(table), dict) for name in t[table])


def _workspace_edition(docs: dict[str, dict], directory: str) -> str | None:
    """`[workspace.package] edition` of the nearest manifest at or above `directory` that has a workspace."""
    d = directory
    while True:
        workspace = docs.get(d, {}).get("workspace")
        if isinstance(workspace, dict):
            shared = workspace.get("package")
            edition = shared.get("edition") if isinstance(shared, dict) else None
            return edition if isinstance(edition, str) else None
        if not d:
            return None
        d = parent(d)


def _edition(doc: dict, docs: dict[str, dict], directory: str) -> str:
    pkg = doc.get("package")
    if not isinstance(pkg, dict):
        return "2021"  # a virtual workspace manifest: no crate of its own
    edition = pkg.get("edition")
    if isinstance(edition, str):
        return edition
    if isinstance(edition, dict) and edition.get("workspace") is True:
        return _workspace_edition(docs, directory) or "2021"
    return "2015"  # Cargo's default when the key is absent


class RustResolver:
    def __init__(self, tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> None:
        self.tree = tree
        self.facts = facts
        docs: dict[str, dict] = {}
        for path in tree.by_name.get("Cargo.toml", []):
            try:
                docs[parent(path)] = tomllib.loads(read(path).decode("utf-8", "replace"))
            except (tomllib.TOMLDecodeError, OSError):
                docs[parent(path)] = {}
        self.crates: dict[str, str] = {}  # crate name (underscored) -> its lib root file
        self.packages: dict[str, _Package] = {}
        for directory, doc in sorted(docs.items()):
            crate = lib_crate(doc)
            lib = join(directory, crate[1] if crate else "src/lib.rs")
            if crate is not None and lib in tree:
                self.crates.setdefault(crate[0], lib)
            self.packages[directory] = _Package(_edition(doc, docs, directory), _dependency_names(doc), lib)
        self._manifest_dirs: dict[str, str | None] = {}

    # -- crate and module structure ------------------------------------------------------
    def _manifest_dir(self, path: str) -> str | None:
        """The folder of the nearest Cargo.toml at or above the file's; memoized per folder
        (crate root, edition and dependencies all ask it of the same importer)."""
        here = parent(path)
        if here not in self._manifest_dirs:
            d = here
            while d not in self.packages and d:
                d = parent(d)
            self._manifest_dirs[here] = d if d in self.packages else None
        return self._manifest_dirs[here]

    def crate_root(self, path: str) -> str | None:
        manifest = self._manifest_dir(path)
        if manifest is not None:
            return self._root_in(manifest, path)
        d = parent(path)
        while True:  # no Cargo.toml: the nearest lib.rs / main.rs above
            hit = self.tree.first_existing((join(d, "lib.rs"), join(d, "main.rs")))
            if hit:
                return hit
            if not d:
                return None
            d = parent(d)

    def _root_in(self, crate_dir: str, path: str) -> str | None:
        rel = path[len(crate_dir) + 1 :] if crate_dir else path
        parts = rel.split("/")
        if rel == "build.rs":
            return path
        if parts[:2] == ["src", "bin"] and len(parts) >= 3:
            own = join(crate_dir, "src/bin", parts[2])
            return own if len(parts) == 3 else self.tree.first_existing((join(own, "main.rs"),))
        if parts[0] in TARGET_DIRS and len(parts) >= 2:
            own = join(crate_dir, parts[0], parts[1])
            return own if len(parts) == 2 else self.tree.first_existing((join(own, "main.rs"),))
        if rel == "src/main.rs":
            return path
        # a `[lib] path` root (lib/wire.rs) keeps its children beside it, as src/lib.rs does
        lib = self.packages[crate_dir].lib if crate_dir in self.packages else join(crate_dir, "src/lib.rs")
        return self.tree.first_existing((lib, join(crate_dir, "src/main.rs")))

    def module_dir(self, path: str) -> str:
        if posixpath.basename(path) in DIR_OWNERS or self.crate_root(path) == path:
            return parent(path)
        return path[: -len(".rs")]

    def child(self, directory: str, name: str) -> str | None:
        return self.tree.first_existing(child_files(directory, name))

    def parent_module(self, directory: str, root: str) -> tuple[str, str] | None:
        up = parent(directory)
        if directory == parent(root) or not directory:
            return None
        if up == parent(root):
            return root, up
        hit = self.tree.first_existing((up + ".rs", join(up, "mod.rs")))
        return (hit, up) if hit else None

    def edition(self, path: str) -> str:
        manifest = self._manifest_dir(path)
        return self.packages[manifest].edition if manifest is not None else "2021"

    def _is_extern(self, name: str, importer: str, root: str) -> bool:
        """Does a 2015 bare path starting with `name` name another crate?"""
        if name in STANDARD_CRATES or name in self.crates:
            return True
        manifest = self._manifest_dir(importer)
        if manifest is not None and name in self.packages[manifest].dependencies:
            return True
        return name in extern_crates(self.facts.get(root))

    # -- resolution ----------------------------------------------------------------------
    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        if imp.kind == "rust_mod":
            return self._declared(importer, imp)
        if imp.kind == "rust_extern":
            lib = self.crates.get(imp.spec.replace("-", "_"))
            return (lib,) if lib else EXTERNAL
        # each path of the use tree goes as deep as modules exist along it:
        # `use crate::{net::{self, http::Client}, Config}` -> net.rs, net/http.rs, lib.rs
        outcomes = [self._use(importer, path, imp.level) for path in use_paths(imp.spec, imp.names)]
        files = tuple(dict.fromkeys(t for o in outcomes if not isinstance(o, str) for t in o))
        if files:
            return files
        return UNRESOLVED if UNRESOLVED in outcomes or not outcomes else EXTERNAL

    def _declared(self, importer: str, imp: ImportSpec) -> Outcome:
        """`mod b;`, maybe inside inline modules (spec "a::b"), maybe with `#[path = ...]`."""
        *inline, name = [s for s in imp.spec.strip().rstrip(";").split("::") if s] or [""]
        if imp.names:
            # the path is relative to the file's directory; inside inline modules, to the
            # directory the file's own children live in, then one per inline module
            base = join(self.module_dir(importer), *inline) if inline else parent(importer)
            target = normalize(join(base, imp.names[0]))
            return (target,) if target and target in self.tree else UNRESOLVED
        hit = name and self.child(join(self.module_dir(importer), *inline), name)
        return (hit,) if hit else UNRESOLVED

    def _use(self, importer: str, segments: list[str], level: int) -> Outcome:
        start = self._start(importer, segments, level)
        if isinstance(start, str):
            return start
        if len(start) == 1:
            return start  # a module of this file itself
        (file, directory), rest = start
        return (self._walk(file, directory, rest)[0],)

    def _walk(self, file: str, directory: str, segments: list[str]) -> tuple[str, str]:
        for seg in segments:
            seg = seg.strip()
            hit = self.child(directory, seg) if seg not in ("self", "*", "") else None
            if not hit:
                break
            file, directory = hit, join(directory, seg)
        return file, directory

    def _start(self, importer: str, segments: list[str],
               level: int) -> Outcome | tuple[tuple[str, str], list[str]]:
        """Where a path begins: ((module file, its children's directory), segments left), or
        (importer,) for an inline module of the importer itself, or a status."""
        if segments[0] == "self" and segments[1:2] == ["super"]:
            segments = segments[1:]  # `self::super::x` is `super::x`
        head, rest = segments[0], segments[1:]
        root = self.crate_root(importer)
        if head in ("crate", "self", "super") and root is None:
            return UNRESOLVED
        if head == "crate":
            return (root, parent(root)), rest
        if head == "self":
            return (importer,) if level else ((importer, self.module_dir(importer)), rest)
        if head == "super":
            supers = 1
            while rest and rest[0] == "super":
                supers, rest = supers + 1, rest[1:]
            if supers < level:
                return (importer,)  # still inside an inline module of this file
            current = (importer, self.module_dir(importer))
            for _ in range(supers - level):
                up = self.parent_module(current[1], root)
                if up is None:
                    return UNRESOLVED
                current = up
            return current, rest
        if head in self.crates:
            lib = self.crates[head]
            return (lib, parent(lib)), rest
        if root is not None and self.edition(importer) == "2015":
            # 2015: a bare path starts at the crate root, unless it names another crate
            return EXTERNAL if self._is_extern(head, importer, root) else ((root, parent(root)), segments)
        # 2018 paths may start with a child module of the current (file) module
        directory = self.module_dir(importer)
        hit = None if level else self.child(directory, head)
        if hit:
            return (hit, join(directory, head)), rest
        return EXTERNAL
