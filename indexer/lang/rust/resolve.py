"""Rust `mod` declarations and `use` paths -> module files of the tree.

A module is a file plus the directory its child modules live in: a crate root
(lib.rs, main.rs, src/bin/x.rs, tests/x.rs, a `[[bin]] path`, ...) and a mod.rs keep
children beside themselves; any other a/foo.rs keeps them in a/foo/; `#[path = "..."]`
names the file outright, and that file keeps its children beside itself (`ModuleTree`).
`use` paths walk from the crate root (`crate::`), the current module (`self::`), its
parents (`super::`: the module declaring it, which for a `#[path]` file is not the one its
folders suggest) or a crate of the tree's own workspace, through the modules' `mod`
declarations, and resolve to the deepest module file that exists; each path of a group,
nested groups expanded, is walked on its own (`use crate::{net::{self, conn::Conn},
Config}`: net.rs, net/conn.rs, the root). Inline `mod m { ... }` blocks are modules inside
their file: a `super::` inside one first climbs out to the file's own module; a path walks
into one when it declares file modules (`mod m { mod n; }`: m/n.rs).

A binary is a crate of its own: `crate::` in src/main.rs, src/bin/x.rs, src/bin/y/main.rs
or a `[[bin]] path` file (and the modules in the folder beside such a root, unless that is
the library's folder: there a module of src/main.rs is one main.rs declares and lib.rs does
not) is its own root; the library is reached by its crate name.

The edition decides what a bare path means: from 2018 on, a child module of the current
module or else another crate; in 2015 (a Cargo.toml without `edition`), a path from the
crate root unless it names a crate the package depends on, an `extern crate` of the root
or the standard library. `extern crate x;` itself is an edge to x's root when x is a crate
of the tree's workspace, else external. A path walks on through a module's `extern crate x
as y;` into x when it sees it: a `pub` one from anywhere, a private one from inside that
module, a restricted one (`pub(crate)`) from inside its crate.
"""

from __future__ import annotations

import posixpath
from functools import partial
from typing import Callable, Iterable, Mapping, NamedTuple

from indexer.contract.decode import Undecodable, decode_toml
from indexer.lang.rust.visibility import CrateView
from indexer.manifests.cargo import TABLES, bin_targets, lib_crate
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, normalize, parent

DIR_OWNERS = ("mod.rs", "lib.rs", "main.rs")
TARGET_DIRS = ("tests", "examples", "benches")
STANDARD_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})
_EXTERN_HOPS = 4  # `extern crate` re-exports followed along one path

Sees = Callable[[str, str], bool]  # (an `extern crate`'s visibility, its module file) -> seen by the path walking


def _pub_only(visibility: str, module_file: str) -> bool:
    """What a path sees of another crate's modules: what they re-export with `pub`."""
    return visibility == "pub"


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


def use_leaves(spec: str, names: tuple[str, ...], aliases: tuple[str, ...]) -> list[tuple[list[str], str]]:
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
    return [p for p, _ in use_leaves(spec, names, ())]


def use_bindings(spec: str, names: tuple[str, ...] = (), aliases: tuple[str, ...] = ()) -> tuple[tuple[str, str], ...]:
    """(name in the module it comes from, name in the importing file) of each name a `use`
    brings in, the importing file's name being its alias if it has one: `crate::{net::{self as
    n, Conn}, *}` -> (net, n), (Conn, Conn), (*, *); `net::Conn` -> (Conn, Conn); spec
    "a::b" with aliases ("c",) -> (b, c). A `self` is the module before it; a path ending at
    `crate`, `self` or `super` brings in no name."""
    out = []
    for path, alias in use_leaves(spec, names, aliases):
        leaf = path[-1] if path[-1] != "self" or len(path) < 2 else path[-2]
        if leaf not in ("crate", "self", "super"):
            out.append((leaf, alias or leaf))
    return tuple(dict.fromkeys(out))


def child_files(folder: str) -> tuple[str, str]:
    """Where a module whose files would be in `folder` (its parent's folder, then its name)
    may be, the first that exists being it: folder.rs, then folder/mod.rs."""
    return folder + ".rs", folder + "/mod.rs"


# How many `mod` declarations below its crate root a file's module path is looked for: a
# file deeper keeps the name its path gives it.
MODULE_DEPTH = 12

_ROOTS_BESIDE = ("lib.rs", "main.rs")  # a library and a binary whose modules share one folder


class Module(NamedTuple):
    """A module as paths walk it: its file, the folder its child modules' files are in, and
    the inline `mod m { ... }` blocks of the file it is inside of, outermost first."""

    file: str
    directory: str
    inline: tuple[str, ...] = ()


class _Start(NamedTuple):
    """Where a path begins: a module and the segments left to walk from it."""

    at: Module
    rest: list[str]


class ModuleTree:
    """Module paths -> files, as a module's `mod` declarations place its children: a
    `#[path = "x.rs"]` child is that file (beside the declaring file, or inside the folder of
    the inline modules it is declared in), whose own children are then its siblings (rustc
    reads a `#[path]` file as a mod.rs); any other child is name.rs or name/mod.rs in the
    module's folder, declared or not (a `mod` inside a macro or `cfg_if!` is not seen); an
    inline module that declares file modules is walked into. What resolution and the
    qualified lookups of context tools both walk: `exists` says whether the tree holds a
    path, `imports_of` gives a file's import facts (read once per file)."""

    def __init__(self, exists: Callable[[str], bool], imports_of: Callable[[str], Iterable[ImportSpec]]) -> None:
        self.exists = exists
        self.imports_of = imports_of
        self._declared: dict[str, dict[str, str]] = {}
        self._outermost: dict[str, frozenset[str]] = {}
        self._inline: dict[str, frozenset[str]] = {}

    def declarations(self, file: str) -> dict[str, str]:
        """The file's `mod` declarations: "a::b" (b inside inline a) -> its `#[path]`, "" for none."""
        found = self._declared.get(file)
        if found is None:
            found = self._declared[file] = {imp.spec: imp.names[0] if imp.names else ""
                                            for imp in self.imports_of(file) if imp.kind == "rust_mod"}
        return found

    def outermost(self, file: str) -> frozenset[str]:
        """The modules the file's declarations start with: `b` of `mod b;`, `a` of "a::b"."""
        found = self._outermost.get(file)
        if found is None:
            found = self._outermost[file] = frozenset(k.partition("::")[0] for k in self.declarations(file))
        return found

    def child(self, at: Module, name: str, attr: str | None = None) -> Module | None:
        """The module `name` inside `at`. `attr` is one declaration's own `#[path]` ("" for
        none), given for a `mod` resolved as itself: a module declared again under another
        `#[cfg]` with another `#[path]` is each declaration's file, not the last one's."""
        # on every segment of every `use` path: the memos are read inline
        file, directory, inline = at
        key = "::".join((*inline, name)) if inline else name
        if attr is None:
            declared = self._declared.get(file)
            if declared is None:
                declared = self.declarations(file)
            attr = declared.get(key)
        if attr:
            target = normalize(join(directory if inline else parent(file), attr))
            return Module(target, parent(target)) if target and self.exists(target) else None
        folder = f"{directory}/{name}" if directory else name
        if attr is not None or not file.endswith(_ROOTS_BESIDE) or not self._beside_declares(at, name):
            for candidate in child_files(folder):
                if self.exists(candidate):
                    return Module(candidate, folder)
        inner = self._inline.get(file)
        if inner is None:
            inner = self._inline_modules(file)
        return Module(file, folder, (*inline, name)) if key in inner else None

    def _inline_modules(self, file: str) -> frozenset[str]:
        """The inline modules of the file that declare file modules: "a" and "a::b" of "a::b::c"."""
        found = self._inline.get(file)
        if found is None:
            found = self._inline[file] = frozenset(
                "::".join(parts[:i]) for parts in (k.split("::") for k in self.declarations(file))
                for i in range(1, len(parts)))
        return found

    def _beside_declares(self, at: Module, name: str) -> bool:
        """Is `at` a lib.rs or main.rs whose counterpart beside it (the other crate of the
        folder) declares `name`? Then name.rs there is that crate's module, not this one's."""
        own = posixpath.basename(at.file)
        if own not in _ROOTS_BESIDE or at.inline or at.directory != parent(at.file):
            return False
        beside = join(at.directory, _ROOTS_BESIDE[_ROOTS_BESIDE.index(own) - 1])  # the other one
        return self.exists(beside) and name in self.declarations(beside)

    def walk(self, at: Module, segments: Iterable[str]) -> tuple[Module, int]:
        """The deepest module along `segments` from `at`, and how many segments it took."""
        taken = 0
        for seg in segments:
            seg = seg.strip()
            hit = self.child(at, seg) if seg not in ("self", "*", "") else None
            if hit is None:
                break
            at, taken = hit, taken + 1
        return at, taken

    def extern_crate(self, module_file: str, name: str, sees: Sees | None = None) -> str | None:
        """The crate (its name as code writes it) that an `extern crate` of the module file
        binds to `name`: `facade_inner` for `inner` after `pub extern crate facade_inner as inner;`.
        `sees` (visibility, module file) says which of them the path asking sees; None, all
        (a crate root's own, which bind into every module of the crate)."""
        for imp in self.imports_of(module_file):
            if imp.kind == "rust_extern" and name in (imp.aliases or (imp.spec,)) and (
                    sees is None or sees(imp.visibility, module_file)):
                return imp.spec.replace("-", "_")
        return None

    def through_externs(self, end: Module, rest: list[str], roots: Callable[[str], Iterable[str]], sees: Sees
                        ) -> list[tuple[Module, list[str]]]:
        """Past a module, on along the `extern crate`s it declares: `facade::inner::Thing`
        where facade's root says `pub extern crate facade_inner as inner;` walks on in
        facade_inner, from each root `roots` gives the crate (a crate of the tree), a few
        crates deep at most. A private `extern crate` binds its name in its own module alone:
        `sees` (visibility, module file) says which the path sees in the crate it starts in,
        and in every crate past it only a `pub` one is seen. Each module reached, with the
        segments left after it."""
        ends = [(end, rest, False)]  # the module, the segments left, whether a hop left the first crate
        for _ in range(_EXTERN_HOPS):
            moved, after = False, []
            for at, left, hopped in ends:
                crate = self.extern_crate(at.file, left[0], _pub_only if hopped else sees) if (
                    left and not at.inline) else None
                libs = list(roots(crate)) if crate is not None else []
                for lib in libs:
                    deeper, taken = self.walk(Module(lib, parent(lib)), left[1:])
                    after.append((deeper, left[1 + taken:], True))
                moved = moved or bool(libs)
                if not libs:
                    after.append((at, left, hopped))
            ends = after
            if not moved:
                break
        return [(at, left) for at, left, _ in ends]

    def path_to(self, root: str, file: str) -> list[str] | None:
        """The module path from the crate root `root` to the module file `file` (`["net",
        "pool"]`), following the declarations of the modules on the way whose files or
        folders hold `file`; None when no declaration reaches it within MODULE_DEPTH. A
        declaration leading back to a module on the way (`#[path = "lib.rs"] mod again;`) is
        not followed: a module cannot hold itself (rustc refuses such circular modules)."""
        start = Module(root, parent(root))
        return self._search(start, file, MODULE_DEPTH, frozenset((start,)), {})

    def _search(self, at: Module, file: str, depth: int, way: frozenset[Module],
                failed: dict[Module, int]) -> list[str] | None:
        # `failed` holds the most depth each module was searched with in vain: `#[path]`
        # declarations can make every file of a folder declare every other, and each module
        # searched again on every way to it made the search grow as the factorial of them.
        if depth == 0 or failed.get(at, 0) >= depth:
            return None
        level = len(at.inline)
        names = sorted({parts[level] for parts in (k.split("::") for k in self.declarations(at.file))
                        if tuple(parts[:level]) == at.inline})  # declared here, or inline modules declaring deeper
        for name in names:
            hit = self.child(at, name)
            if hit is None or hit in way:
                continue
            if hit.file == file and not hit.inline:
                return [name]
            if file.startswith(hit.directory + "/"):
                deeper = self._search(hit, file, depth - 1, way | {hit}, failed)
                if deeper is not None:
                    return [name, *deeper]
        failed[at] = depth
        return None


def extern_crates(facts: BlobFacts | None) -> frozenset[str]:
    """The names `extern crate` declarations of a file bring in (the crate's and its alias)."""
    if facts is None:
        return frozenset()
    return frozenset(name for imp in facts.imports if imp.kind == "rust_extern" for name in (imp.spec, *imp.aliases))


def module_declarations(facts: BlobFacts) -> frozenset[tuple[str, tuple[str, ...]]]:
    """The `mod` declarations of a file (spec and `#[path]`), which other files' paths walk through."""
    return frozenset((imp.spec, imp.names) for imp in facts.imports if imp.kind == "rust_mod")


class _Package(NamedTuple):
    """What a Cargo.toml tells resolution about the crates in its directory."""

    edition: str
    dependencies: frozenset[str]  # the names its code uses for them (renames included), underscored
    lib: str  # its library crate's root file (`[lib] path`, else src/lib.rs), held by the tree or not
    bins: tuple[str, ...]  # the root files `[[bin]] path` places, held by the tree


def target_roots(doc: dict, directory: str, exists: Callable[[str], bool]) -> list[tuple[str, str]]:
    """(crate name as code writes it, root file) of the crates a manifest's `[lib]` and
    `[[bin]]` tables name, roots the tree holds: the library's (`lib_crate`), and each
    binary's, at its `path` or else src/bin/<name>.rs or src/bin/<name>/main.rs (src/main.rs
    for one named as the package). Auto-discovered targets (src/main.rs, src/bin/x.rs) are
    `auto_target`'s."""
    found = []
    crate = lib_crate(doc)
    if crate is not None and exists(join(directory, crate[1])):
        found.append((crate[0], join(directory, crate[1])))
    pkg = table if isinstance(table := doc.get("package"), dict) else {}
    for name, path in bin_targets(doc):
        places = [path] if path else [f"src/bin/{name}.rs", f"src/bin/{name}/main.rs"] + (
            ["src/main.rs"] if name == pkg.get("name") else [])
        root = next((join(directory, p) for p in places if exists(join(directory, p))), None)
        # a path the tree holds climbs above no root: it normalizes
        if root is not None and (at := normalize(root)) is not None:
            found.append((name.replace("-", "_"), at))
    return found


def auto_target(doc: dict, rel: str) -> str | None:
    """The crate name of an auto-discovered target whose root is at `rel` (relative to its
    manifest's folder): the package's for src/main.rs, x for src/bin/x.rs and src/bin/x/main.rs,
    and likewise for tests/, examples/ and benches/; None for any other file."""
    parts = rel.split("/")
    if rel == "src/main.rs":
        pkg = table if isinstance(table := doc.get("package"), dict) else {}
        name = pkg.get("name")
        return name.replace("-", "_") if isinstance(name, str) else None
    folder = parts[:2] == ["src", "bin"] and 2 or parts[0] in TARGET_DIRS and 1 or 0
    if not folder or len(parts) not in (folder + 1, folder + 2) or not rel.endswith(".rs"):
        return None
    if len(parts) == folder + 2 and parts[-1] != "main.rs":
        return None
    return parts[folder].removesuffix(".rs").replace("-", "_")


def _dependency_names(doc: dict) -> frozenset[str]:
    targets = table if isinstance(table := doc.get("target"), dict) else {}
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
        # What the resolver's parts are handed never reaches back to it: a method of its own
        # kept on one of them would make a cycle holding the facts past the index, until the
        # cyclic collector's rare full pass (the index runs with it paused).
        self.modules = ModuleTree(tree.paths.__contains__, partial(_imports_in, facts))
        docs: dict[str, dict] = {}
        for path in tree.by_name.get("Cargo.toml", []):
            try:
                docs[parent(path)] = decode_toml(read(path).decode("utf-8", "replace"))
            except (Undecodable, OSError):
                docs[parent(path)] = {}
        self.crates: dict[str, str] = {}  # crate name (underscored) -> its lib root file
        self.packages: dict[str, _Package] = {}
        for directory, doc in sorted(docs.items()):
            crate = lib_crate(doc)
            lib = join(directory, crate[1] if crate else "src/lib.rs")
            if crate is not None and lib in tree:
                self.crates.setdefault(crate[0], lib)
            bins = tuple(root for _, root in target_roots(doc, directory, tree.__contains__) if root != lib)
            self.packages[directory] = _Package(_edition(doc, docs, directory), _dependency_names(doc), lib, bins)
        self._manifest_dirs: dict[str, str | None] = {}
        self._path_loaded: dict[str, tuple[str, str]] | None = None
        self._roots: dict[str, str | None] = {}
        # package folder -> folder -> its binary root (its length, minus its place, itself)
        self._bins_by_folder: dict[str, dict[str, tuple[int, int, str]]] = {}
        self._bin_roots: dict[str, frozenset[str]] = {}  # package folder -> its binary roots

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
        """The root file of the crate the file is a module of; memoized per file (each of its
        `use`s and `mod`s asks it)."""
        if path not in self._roots:
            self._roots[path] = self._crate_root(path)
        return self._roots[path]

    def _crate_root(self, path: str) -> str | None:
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
        package = self.packages.get(crate_dir)
        lib = package.lib if package is not None else join(crate_dir, "src/lib.rs")
        # a `[[bin]] path` root, and the files in its folder or below it (not the library's folder)
        bins = package.bins if package is not None else ()
        owner = self._bin_owner(crate_dir, bins, lib, path) if bins else None
        if owner is not None:
            return owner
        main = join(crate_dir, "src/main.rs")
        if rel == "src/main.rs":
            return path
        if parts[0] == "src" and len(parts) > 1 and main in self.tree and self._binarys(lib, main, parts[1]):
            return main
        # a `[lib] path` root (lib/wire.rs) keeps its children beside it, as src/lib.rs does
        return self.tree.first_existing((lib, main))

    def _bin_owner(self, crate_dir: str, bins: tuple[str, ...], lib: str, path: str) -> str | None:
        """`path` when it is a `[[bin]] path` root, else the root whose folder holds it at some
        depth (not the library's folder, nor the root): of several, the longest path, the
        first listed of those. Each
        folder's own candidate is found once a package, so a file asks the folders above it,
        not every binary of a manifest that lists many."""
        best = self._bins_by_folder.get(crate_dir)
        if best is None:
            best = self._bins_by_folder[crate_dir] = {}
            for place, b in enumerate(bins):
                folder = parent(b)
                if folder and folder != parent(lib):
                    best[folder] = max(best.get(folder, (-1, 0, "")), (len(b), -place, b))
            self._bin_roots[crate_dir] = frozenset(bins)
        if path in self._bin_roots[crate_dir]:  # a root is its own, whatever holds it
            return path
        owner = (-1, 0, "")
        d = parent(path)
        while d:
            owner = max(owner, best.get(d, owner))
            d = parent(d)
        return owner[2] or None

    def _binarys(self, lib: str, main: str, name: str) -> bool:
        """Is src/<name>(.rs), and what is under src/<name>/, the binary src/main.rs's module,
        not the library's: the library is elsewhere (`[lib] path`, or none), or main.rs
        declares the module and the library root beside it does not?"""
        if parent(lib) != parent(main) or lib not in self.tree:
            return True
        name = name.removesuffix(".rs")
        return name in self.modules.declarations(main) and name not in self.modules.declarations(lib)

    def module_dir(self, path: str) -> str:
        if posixpath.basename(path) in DIR_OWNERS or self.crate_root(path) == path:
            return parent(path)
        return path[: -len(".rs")]

    def _loaded_by_path(self, path: str) -> bool:
        """Is the file some module's `#[path]` file (whose children are its siblings)? The
        declarations of every Rust file are read the first time it is asked, which is only
        when a module the file declares is not found where a file's children usually are
        (`_beside`) or has a file beside it too (`_own`), or a `super::` of the file does not
        climb to a module declaring it."""
        return path in self._path_declarers()

    def _path_declarers(self) -> dict[str, tuple[str, str]]:
        """`#[path]` file -> (the file declaring it, its module's folder): its parent module,
        when the declaration is not inside an inline module (the first in path order)."""
        if self._path_loaded is None:
            loaded: dict[str, tuple[str, str]] = {}
            for source in sorted(self.facts):
                if source.endswith(".rs") and source in self.tree:
                    for key, attr in self.modules.declarations(source).items():
                        inline = key.split("::")[:-1]
                        base = join(self.module_dir(source), *inline) if inline else parent(source)
                        target = normalize(join(base, attr)) if attr else None
                        if target is None:  # none, or a `#[path]` above the root: no file of the tree
                            continue
                        loaded.setdefault(target, (source, self.module_dir(source)) if not inline else ("", ""))
            self._path_loaded = loaded
        return self._path_loaded

    def _super_of(self, current: tuple[str, str], root: str) -> tuple[str, str] | None:
        """The parent module of the module (file, folder) `current`: the one declaring it.
        Climbing folders finds it unless a `#[path]` placed the module elsewhere: then the
        module found so does not declare it, and the file's declarer is looked up (every
        file's declarations read once; a declarer inside an inline module is not followed)."""
        up = self.parent_module(current[1], root)
        if up is not None and posixpath.basename(current[1]) in self.modules.outermost(up[0]):
            return up
        declarer = self._path_declarers().get(current[0]) if current[0] != root else None
        return declarer if declarer and declarer[0] else up

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
        if imp.kind == "rust_path":
            segments = _segments(imp.spec)
            if segments and segments[0] in ("crate", "self", "super"):
                found = self._use(importer, segments, imp.level)
                return () if isinstance(found, str) else found  # a path in code is no import to report
            return self._crate_path(importer, segments)
        # each path of the use tree goes as deep as modules exist along it:
        # `use crate::{net::{self, http::Client}, Config}` -> net.rs, net/http.rs, lib.rs
        outcomes = [self._use(importer, path, imp.level) for path in use_paths(imp.spec, imp.names)]
        files = tuple(dict.fromkeys(t for o in outcomes if not isinstance(o, str) for t in o))
        if files:
            return files
        return UNRESOLVED if UNRESOLVED in outcomes or not outcomes else EXTERNAL

    def _declared(self, importer: str, imp: ImportSpec) -> Outcome:
        """`mod b;`, maybe inside inline modules (spec "a::b"), maybe with `#[path = ...]`
        (relative to the file's folder; inside inline modules, to the folder the file's own
        children are in, then one per inline module: `ModuleTree.child`). With
        `#[cfg_attr(pred, path = ...)]`s, each of their files, and the usual one too when no
        plain `#[path]` is there: every build's module, as for a `mod` under a `#[cfg]`."""
        parts = [s for s in imp.spec.strip().rstrip(";").split("::") if s]
        if not parts:
            return UNRESOLVED
        files = []
        for attr in imp.names or ("",):  # `cfg_attr` paths: each the file of some build
            at = self._declared_from(self._own(importer, parts[0]), parts, attr)
            if at is None and (beside := self._beside(importer, parts[0])) is not None:
                at = self._declared_from(beside, parts, attr)
            if at is not None and not at.inline:
                files.append(at.file)
        return tuple(dict.fromkeys(files)) or UNRESOLVED

    def _declared_from(self, start: Module, parts: list[str], attr: str) -> Module | None:
        """The module a declaration (spec `parts`, its own `#[path]` `attr`) makes, from the
        importer's module `start`: the inline modules around it walked, then its own file."""
        at, taken = self.modules.walk(start, parts[:-1])
        return self.modules.child(at, parts[-1], attr) if taken == len(parts) - 1 else None

    def _own(self, importer: str, first: str) -> Module:
        """The importer's own module, as its child `first` is looked for from it: its children
        in its folder, or beside it when it is a `#[path]` file (rustc reads one as a mod.rs)
        declaring `first` and a file for `first` is there beside it, which the folder's would
        otherwise hide. Every Rust file's declarations are read (`_beside`) only then."""
        own = Module(importer, self.module_dir(importer))
        if first and own.directory != parent(importer) and any(
                self.modules.exists(c) for c in child_files(join(parent(importer), first))):
            return self._beside(importer, first) or own
        return own

    def _beside(self, importer: str, first: str) -> Module | None:
        """The importer's own module with its children beside it, as a `#[path]` file has
        them, for a path starting with `first` that was not found where a file's children
        are: when the file declares `first` and is some module's `#[path]` file (asked of
        every Rust file's declarations, once). None otherwise."""
        if first in self.modules.outermost(importer) and self._loaded_by_path(importer):
            return Module(importer, parent(importer))
        return None

    def _use(self, importer: str, segments: list[str], level: int) -> Outcome:
        start = self._start(importer, segments, level)
        if not isinstance(start, _Start):
            return start  # a status, or a module of this file itself
        at, rest = start
        end, taken = self.modules.walk(at, rest)
        if not taken and rest and at.file == importer and not at.inline and (beside := self._beside(importer, rest[0])):
            end = self.modules.walk(beside, rest)[0]  # `self::pool` in a `#[path]` file
            return (end.file,)
        return (self._through_externs(end, rest[taken:], importer, segments[0]).file,)

    def _through_externs(self, end: Module, rest: list[str], importer: str, head: str) -> Module:
        """Past a module, on along an `extern crate` it declares that the importer's path
        (starting at `head`) sees (`ModuleTree.through_externs`, `CrateView.sees`)."""
        def sees(visibility: str, module_file: str) -> bool:
            # made where asked (only past an `extern crate`), never kept: see __init__
            view = CrateView(self.crates.__contains__, self.module_dir)  # which paths stay in their crate
            return view.sees(visibility, module_file, importer, head)
        return self.modules.through_externs(end, rest, self._library, sees)[0][0]

    def _library(self, crate: str) -> tuple[str, ...]:
        lib = self.crates.get(crate)
        return (lib,) if lib else ()

    def _extern_root(self, module_file: str, name: str) -> str | None:
        """The root of the tree's crate that an `extern crate` of the module file binds to `name`."""
        crate = self.modules.extern_crate(module_file, name)
        return self.crates.get(crate) if crate is not None else None

    def _crate_path(self, importer: str, segments: list[str]) -> Outcome:
        """A path in code (`rust_path`) starting at a crate's name (`other::build::Builder`), used without a
        `use`: the deepest module of that crate of the tree it walks to, or of the crate an
        `extern crate` of the importer's crate root binds to the name; no edge at all (not even
        an unresolved import) where the name is no such crate: a local module, a variable, a
        crate outside the tree."""
        if not segments:
            return ()
        lib = self.crates.get(segments[0])
        if lib is None:
            root = self.crate_root(importer)
            lib = self._extern_root(root, segments[0]) if root is not None else None
        if lib is None:
            return ()
        end, taken = self.modules.walk(Module(lib, parent(lib)), segments[1:])
        return (self._through_externs(end, segments[1 + taken:], importer, segments[0]).file,)

    def _start(self, importer: str, segments: list[str], level: int) -> Outcome | _Start:
        """Where a path begins: (module, segments left), or (importer,) for an inline module
        of the importer itself, or a status."""
        if segments[0] == "self" and segments[1:2] == ["super"]:
            segments = segments[1:]  # `self::super::x` is `super::x`
        head, rest = segments[0], segments[1:]
        root = self.crate_root(importer)
        if head in ("crate", "self", "super") and root is None:
            return UNRESOLVED
        if head == "crate" and root is not None:
            return _Start(Module(root, parent(root)), rest)
        if head == "self":
            return (importer,) if level else _Start(self._own(importer, rest[0] if rest else ""), rest)
        if head == "super" and root is not None:
            supers = 1
            while rest and rest[0] == "super":
                supers, rest = supers + 1, rest[1:]
            if supers < level:
                return (importer,)  # still inside an inline module of this file
            current = (importer, self.module_dir(importer))
            for _ in range(supers - level):
                up = self._super_of(current, root)
                if up is None:
                    return UNRESOLVED
                current = up
            return _Start(Module(*current), rest)
        if head in self.crates:
            lib = self.crates[head]
            return _Start(Module(lib, parent(lib)), rest)
        if root is not None and self.edition(importer) == "2015":
            # 2015: a bare path starts at the crate root, unless it names another crate
            return EXTERNAL if self._is_extern(head, importer, root) else _Start(Module(root, parent(root)), segments)
        # 2018 paths may start with a child module of the current (file) module
        if level:
            return EXTERNAL
        hit = self.modules.child(self._own(importer, head), head)
        if hit is None and (beside := self._beside(importer, head)) is not None:
            hit = self.modules.child(beside, head)
        if hit is None and root is not None and (aliased := self._extern_root(root, head)) is not None:
            hit = Module(aliased, parent(aliased))  # a crate the root's `extern crate x as head;` binds
        return _Start(hit, rest) if hit is not None else EXTERNAL


def _imports_in(facts: Mapping[str, BlobFacts], path: str) -> Iterable[ImportSpec]:
    found = facts.get(path)
    return found.imports if found is not None else ()


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> RustResolver:
    return RustResolver(tree, facts, read)


def changes_others(name: str, before: Callable[[], BlobFacts | None], after: BlobFacts | None) -> bool:
    """Cargo.toml, and a file's `extern crate`s and `mod` declarations, change how other files'
    paths resolve (resolve.imports.to_resolve): a 2015 crate's bare paths start at its root
    unless an `extern crate` there names them; paths walk through a module's `mod` declarations
    (`#[path]`), and those of src/main.rs say whether a file beside it is the binary's or the
    library's; they walk on through an `extern crate` their visibility sees."""
    if name == "Cargo.toml":
        return True
    if not name.endswith(".rs"):
        return False
    old = _read_by_others(before())
    return old is None or old != _read_by_others(after)


def _read_by_others(facts: BlobFacts | None) -> tuple[frozenset[tuple[str, tuple[str, ...], str]],
                                                      frozenset[tuple[str, tuple[str, ...]]]] | None:
    if facts is None:
        return None
    externs = frozenset((imp.spec, imp.aliases, imp.visibility) for imp in facts.imports if imp.kind == "rust_extern")
    return externs, module_declarations(facts)
