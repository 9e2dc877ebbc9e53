"""What a Rust `use` binds and which paths reach a crate's modules, as the references and symbol
queries ask it (indexer/lang/bindings.py).

A `use` keeps the last segments of what it imports in the path it walks (`pub use net::Conn;`
is spec "net::Conn", no names; a group item may be "conn::{self,Conn}", its aliases beside
it): the names and the local names they get are read out of the use tree. It passes a name on
only to the paths its visibility reaches (`pub use` to all, a private one to the modules
inside its own: `CrateView`). A qualified name may start at a crate's name (`demo::net::Conn`):
`RustCrates` finds the module files it names, reading the tree's Cargo manifests on first need.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterable

from indexer.contract.decode import Undecodable, decode_toml
from indexer.lang.bindings_base import Bindings, PathView, SiteSyntax, every_name
from indexer.lang.rust.globs import is_variant_of
from indexer.lang.rust.visibility import CrateView, head_of, module_folder
from indexer.lang.site_lines import c_like
from indexer.resolve.tree import join, parent

if TYPE_CHECKING:
    from indexer.lang.rust.paths import RustModulePaths
    from indexer.lang.rust.resolve import ModuleTree
    from indexer.model import ImportSpec
    from indexer.store.snapshot import Snapshot


# a field's declaration: its visibility and name, then its type behind a reference, `Box`, `Arc`
# or `Rc`, a trait object's trait
_FIELD = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?[A-Za-z_]\w*\s*:\s*(?:(?:Box|Arc|Rc)\s*<\s*)?&?\s*(?:'\w+\s+)?"
                    r"(?:mut\s+)?(?:(?:impl|dyn)\s+)?(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)")


# a function's name, and what its `->` names after its parameters
_FN = re.compile(r"\bfn\s+[A-Za-z_]\w*\s*")
_RESULT = re.compile(r"\s*->\s*&?\s*(?:'\w+\s+)?(?:mut\s+)?(?:(?:impl|dyn)\s+)?(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)")


def _closing(text: str, at: int, opening: str, closing: str) -> int:
    """The index past the bracket closing the one at `at`, -1 when the text does not close it
    (a `->` inside angle brackets, `Fn() -> u8`, is no closing one)."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing and not (closing == ">" and text[i - 1:i] == "-"):
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


class RustBindings(Bindings):
    language = "rust"
    modules_from_crates = True
    instance_names = frozenset({"self"})
    bare_needs_import = True

    def binds(self, spec: ImportSpec) -> Iterable[tuple[str, str]]:
        if spec.kind != "rust_use":
            return super().binds(spec)
        from indexer.lang.rust.resolve import use_bindings  # the resolver's reading, loaded only when asked

        return use_bindings(spec.spec, spec.names, spec.aliases)

    def star_passes(self, snap: Snapshot, spec: ImportSpec, target: str) -> Callable[[str], bool]:
        """A glob of an enum the file at `target` defines (`use crate::kind::Kind::*;`) passes on
        its variants alone (`rust.globs`); a glob of a module its items, not what they hold (an
        enum's variants, a type's methods), unless the module itself brings such a name in."""
        if spec.kind != "rust_use":
            return every_name
        from indexer.lang.rust.globs import glob_paths, globbed_names

        facts = snap.core_facts(target) if glob_paths(spec) else None
        if facts is None:
            return every_name
        names = globbed_names(spec, facts.symbols)
        if names is not None:
            return names.__contains__
        held = {s.name for s in facts.symbols if s.container} - {s.name for s in facts.symbols if not s.container}
        if not held:
            return every_name
        brought: set[str] = set()
        imports = snap.import_facts(target)
        for own in imports.imports if imports is not None else ():
            if own.kind != "rust_use":
                continue
            bound = [local for _, local in self.binds(own)]
            if "*" in bound:  # the module passes on a glob of its own: what it brings is not read here
                return every_name
            brought.update(bound)
        return lambda name: name not in held or name in brought

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        return "rust:pub" if signature.lstrip().startswith("pub") else None

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        """`a::b::name` a path, `x.name` a field or method of `x`, `P { name: v }` a struct
        literal's key, anything else bare."""
        return c_like(line, col, name, paths=True)

    def typings(self, name: str) -> list[re.Pattern[bytes]]:
        """`let x: T`, `let x = T::new(...)`, `let x = T { ... }`, `let mut x = a::T(...)`, and
        a parameter `x: &T`, `x: &'a mut a::T`, `x: impl Tr`, `x: &mut dyn Tr` (the trait)."""
        n = re.escape(name.encode())
        t = rb"&?\s*(?:'\w+\s+)?(?:mut\s+)?(?:(?:impl|dyn)\s+)?(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)"
        return [re.compile(rb"\blet\s+(?:mut\s+)?" + n + rb"\s*:\s*" + t),
                re.compile(rb"\blet\s+(?:mut\s+)?" + n + rb"\s*=\s*&?(?:mut\s+)?(?:[A-Za-z_]\w*::)*"
                           rb"([A-Z]\w*)\s*(?:::|\{|\()"),
                re.compile(rb"[(,]\s*(?:mut\s+)?" + n + rb"\s*:\s*" + t)]

    def result_type(self, signature: str) -> str | None:
        """`pub fn new(id: impl Into<Id>) -> Self {`: Self (the caller's type); `fn get(&self) ->
        &'a Arg`: Arg; `-> Result<Self, E>`: Result. None with no `->` after the parameters."""
        head = _FN.search(signature)
        if head is None:
            return None
        at = head.end()
        if signature[at:at + 1] == "<":
            at = _closing(signature, at, "<", ">")
        if at < 0 or signature[at:at + 1] != "(":
            return None
        at = _closing(signature, at, "(", ")")
        found = _RESULT.match(signature, at) if at >= 0 else None
        return found.group(1) if found is not None else None

    def field_type(self, signature: str) -> str | None:
        """`pub cmd: &'a Command,`, `inner: Box<dyn Write>`, `pub(crate) p: a::Parser<'a>`: the
        type, behind a reference, `Box`, `Arc` or `Rc`."""
        found = _FIELD.match(signature)
        return found.group(1) if found is not None else None

    def bound_typings(self, generic: str) -> list[re.Pattern[bytes]]:
        """`<S: Serializer>`, `<'de, D: Deserializer<'de>>`, `where S: Serializer + Clone` and a
        `where` clause's line `    S: Serializer,`: the bounds up to the clause's end."""
        g = re.escape(generic.encode())
        return [re.compile(rb"(?:^|[<,(]|\bwhere)\s*" + g + rb"\s*:(?!:)\s*([^,>{=;)]+)")]

    def bounds_of(self, written: bytes) -> list[str]:
        """`?Sized + ser::Serializer<'a> + 'static`: Serializer."""
        found = []
        for part in written.split(b"+"):
            m = re.match(rb"\s*(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)", part)
            if m is not None:
                found.append(m.group(1).decode())
        return found

    def binds_module(self, spec: ImportSpec, target: str) -> bool:
        """A `use` lands on the module its path walks to: what it binds is that module or an
        item of it, reached through it either way."""
        return True

    def binds_bare(self, spec: ImportSpec, name: str) -> bool:
        """A `use` binds a bare name by naming it (or its alias) or through a glob, which
        passes on what `star_passes` says; `mod m;` and `extern crate x as y` bind theirs."""
        return self.binds_local(spec, name) or spec.kind == "rust_use" and any(
            inner == "*" for inner, _ in self.binds(spec))

    def binds_local(self, spec: ImportSpec, local: str) -> bool:
        """A `use` binds the last segment of each path (or its alias), `extern crate x as y` y,
        `mod m;` m."""
        if spec.kind == "rust_use":
            return any(bound == local for _, bound in self.binds(spec))
        if spec.kind == "rust_extern":
            return (spec.aliases[0] if spec.aliases else spec.spec) == local
        return spec.kind == "rust_mod" and spec.spec.rpartition("::")[2] == local

    def passes_on(self, spec: ImportSpec, view: PathView, path: str, viewer: str, head: str) -> bool:
        return spec.kind != "rust_use" or view.sees(spec.visibility, path, viewer, head)

    def path_head(self, spec: ImportSpec) -> str:
        return head_of(spec.spec, spec.names)

    def star_items(self, snap: Snapshot, spec: ImportSpec, target: str, wanted: str) -> list[str]:
        """A glob of an enum the file at `target` defines brings in its variants, which are no
        top-level items of that file (`Kind.Small` through `pub use crate::kind::Kind::*;`)."""
        if spec.kind != "rust_use":
            return []
        from indexer.lang.rust.globs import glob_paths, globbed_variants

        facts = snap.core_facts(target) if glob_paths(spec) else None
        return globbed_variants(spec, facts.symbols, wanted) if facts is not None else []

    def inline_items(self, snap: Snapshot, path: str, spec: ImportSpec, wanted: str) -> list[str]:
        """The qualified names (`content.Content`) of the items of the file's own inline modules
        that the `use` brings in as `wanted`: `use self::content::Content;` (or, from 2018, `use
        content::Content;`) in the file that holds `mod content { pub enum Content ... }`; and
        the variants of the file's own enums that a glob of one brings in (`Kind.Small` through
        `use Kind::*;` or `use self::inner::Mode::*;`). The resolver reaches no other file for
        them (an edge to the importer itself is dropped)."""
        if spec.kind != "rust_use":
            return []
        from indexer.lang.rust.resolve import use_leaves

        wanted_paths, globbed = [], []
        for segments, alias in use_leaves(spec.spec, spec.names, spec.aliases):
            inside = segments[1:] if segments[0] == "self" else segments
            if len(inside) < 2 or spec.level or inside[0] in ("crate", "super"):
                continue
            if inside[-1] == "*":
                globbed.append(".".join(inside[:-1]))
            elif (alias or segments[-1]) == wanted:
                wanted_paths.append(".".join(inside))
        if not wanted_paths and not globbed:
            return []
        facts = snap.core_facts(path)
        symbols = facts.symbols if facts else ()
        defined = {s.qualified for s in symbols}
        enums = {s.qualified for s in symbols if s.kind == "enum"}.intersection(globbed)
        return [q for q in wanted_paths if q in defined] + sorted(
            s.qualified for s in symbols if s.name == wanted and is_variant_of(s, frozenset(enums)))


class RustCrates:
    """The tree's Cargo manifests, the roots of the crates each name calls and the module tree
    of its files, read on first need: a query written as Rust writes paths (`demo::Conn`) looks
    for crate names; each costs reading the tree's Cargo manifests (and its language column),
    which a dotted query of a tree with some Rust need not pay (`wanted`)."""

    def __init__(self, snap: Snapshot, wanted: bool = True) -> None:
        self.snap = snap
        self._wanted = wanted
        self._manifests: list[str] | None = None
        self._roots: dict[str, list[str]] = {}
        self._tree: ModuleTree | None = None
        self._paths: RustModulePaths | None = None
        self._folders: dict[str, str] = {}

    def crate_files(self, module: list[str]) -> list[str]:
        """The file of the Rust module `module` names when its first part is a crate's name as
        code writes it (`crate_roots`): `demo` is the crate root (src/lib.rs, or src/main.rs
        for the package's binary), `demo::net` its child module, walked as `use` resolution
        walks it (rust.resolve.ModuleTree: a `#[path]` file, else src/net.rs or src/net/mod.rs,
        through inline modules that declare file modules), and on through a module's `extern
        crate` aliases as `use` resolution follows them (`facade::inner` is the root of
        facade_inner after facade's `pub extern crate facade_inner as inner;`; a private one
        is seen from inside its module alone: by `crate::` here). `crate` is every crate's root.
        Empty when no crate is so named, or the query is not written with `::`."""
        roots = self.crate_roots(module[0]) if self._wanted else []
        if not roots:
            return []
        from indexer.lang.rust.resolve import Module

        tree = self.module_tree()
        view = self.crate_view()
        found = []
        for root in roots:
            viewer = root if module[0] == "crate" else ""  # the query's path: from the crate root or no module

            def sees(visibility: str, module_file: str) -> bool:
                return view.sees(visibility, module_file, viewer, module[0])
            at, taken = tree.walk(Module(root, parent(root)), module[1:])  # a root's children are beside it
            for end, left in tree.through_externs(at, module[1 + taken:], self.crate_roots, sees):
                if not left and not end.inline:
                    found.append(end.file)
        return sorted(set(found))

    def module_tree(self) -> ModuleTree:
        """The Rust module tree of the snapshot, its files' `mod` declarations read as walked."""
        if self._tree is None:
            from indexer.lang.rust.paths import snapshot_modules  # loaded only when a crate is named

            self._tree = snapshot_modules(self.snap)
        return self._tree

    def crate_view(self) -> CrateView:
        """Which Rust paths stay in their crate: a bare one naming no crate of the tree does;
        and the modules inside a module file's, a crate root's being all of its folder."""
        return CrateView(lambda name: bool(self.crate_roots(name)), self.module_folder)

    def module_folder(self, path: str) -> str:
        """The folder of the module file's children: a crate root's own folder, whatever its
        name (a `[[bin]] path` file, tests/x.rs: their manifests tell, read on first need),
        else as its name gives it (`visibility.module_folder`)."""
        found = self._folders.get(path)
        if found is None:
            found = module_folder(path)
            if found != parent(path):  # no lib.rs, main.rs nor mod.rs: a root only by its manifest
                if self._paths is None:
                    from indexer.lang.rust.paths import RustModulePaths

                    self._paths = RustModulePaths(self.snap)
                crate_path = self._paths.of(path)
                if crate_path is not None and "::" not in crate_path:
                    found = parent(path)
            self._folders[path] = found
        return found

    def crate_roots(self, name: str) -> list[str]:
        """The root files of the tree's crates called `name` (`crate_roots`)."""
        found = self._roots.get(name)
        if found is None:
            if self._manifests is None:  # a pass over the paths, for a tree with Rust only
                self._manifests = [p for p in self.snap.paths if p == "Cargo.toml" or p.endswith("/Cargo.toml")
                                   ] if self.snap.holds_language("rust") else []
            found = self._roots[name] = crate_roots(self.snap, self._manifests, name)
        return found


def crate_roots(snap: Snapshot, manifests: list[str], name: str) -> list[str]:
    """The root files of the crates that the Cargo.toml files `manifests` name `name`, each
    as its manifest places it, when the tree holds it (rust.resolve.target_roots): a library
    (`[lib] name`, else `[package] name` with hyphens made underscores: `demo`, `my_crate` for
    "my-crate"), a `[[bin]]`, the package's src/main.rs, and an auto-discovered binary
    src/bin/<name>.rs or src/bin/<name>/main.rs; every crate's root for `crate`. A manifest
    is parsed only when its text could name the crate or such a binary is there (a workspace
    of a thousand crates would pay parsing them all on every lookup)."""
    if not manifests:
        return []
    import re

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


def _auto_roots(snap: Snapshot) -> dict[str, list[str]]:
    """The roots of auto-discovered binaries (src/bin/x.rs, src/bin/x/main.rs), by the folder
    of the manifest they would be in: a pass over the paths, for `crate::` queries only."""
    found: dict[str, list[str]] = {}
    for p in snap.paths:
        if "src/bin/" in p and p.endswith(".rs"):
            head, _, rest = p.partition("src/bin/")
            if (not head or head.endswith("/")) and (rest.count("/") == 0 or rest.endswith("/main.rs") and rest.count("/") == 1):
                found.setdefault(head.rstrip("/"), []).append(p)
    return found
