"""Rust: the bases each type declares (`BlobFacts.bases`), as written: `impl fmt::Display for
Conn` -> Conn's base `fmt::Display` (the trait's default methods become Conn's members
through it), `trait Reader: Source + io::Read` -> Reader's bases `Source` and `io::Read` (a
supertrait's default methods are its). A trait's or type's arguments are no part of it
(`Iterator<Item = u8>` is `Iterator`); a lifetime bound is no base; an impl for what is not a
named type (`&dyn T`, a tuple) records none. The class is the type's qualified name in its
file: inside inline `mod m { ... }` blocks, `m.Conn`, as the impl's methods have it.

Resolution (`RustBases`): a trait defined in the file is the file's; one a `use` binds
(`use crate::greet::Greet as G;` for `G`, `use std::fmt;` for `fmt::Display`) lands where
the use's edges do, on the file defining it when they reach several, as does a path through
a module the file declares (`net::Greet` over `mod net;`); a name a glob `use`
of a module reaches a file defining is that file's (a glob of an enum, `use
crate::kind::Kind::*;`, brings in its variants, no trait); a path (`crate::greet::Greet`, `other::Greet`) is
where its own edge lands (a `rust_path` import); any other single name is the prelude's
(`Clone`, `Iterator`): external, as is a path into a crate outside the tree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from indexer.model import Base

if TYPE_CHECKING:
    from indexer.lang.file_imports import FileImports
    from indexer.model import ImportSpec
    from indexer.resolve.hierarchy import Defines, SymbolsOf

_TYPE_NAMES = frozenset({"type_identifier", "scoped_type_identifier"})


def bases(root: Node, data: bytes) -> list[Base]:
    """The declared bases of the file's impls and traits (not those inside function bodies),
    in document order."""
    found: list[Base] = []
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, container = stack.pop()
        for child in node.named_children:
            if child.type == "mod_item":
                body = child.child_by_field_name("body")
                name = child.child_by_field_name("name")
                if body is not None and name is not None:
                    stack.append((body, _join(container, _text(name, data))))
            elif child.type == "impl_item":
                trait, target = child.child_by_field_name("trait"), _named(child.child_by_field_name("type"))
                path = _path(trait, data) if trait is not None else None
                if path and trait is not None and target is not None:
                    found.append(Base(_join(container, _last(target, data)), path, trait.start_point[0] + 1))
            elif child.type == "trait_item":
                name, bounds = child.child_by_field_name("name"), child.child_by_field_name("bounds")
                if name is not None and bounds is not None:
                    cls = _join(container, _text(name, data))
                    found += [Base(cls, p, b.start_point[0] + 1) for b in bounds.named_children
                              if (p := _path(b, data))]
    found.sort(key=lambda b: b.line)
    return found


def _named(node: Node | None) -> Node | None:
    """The named type an impl is for: `Conn`, `a::Conn`, `Vec<T>`, `&Conn`, `&mut Conn`."""
    while node is not None and node.type in ("reference_type", "generic_type"):
        node = node.child_by_field_name("type")
    return node if node is not None and node.type in _TYPE_NAMES else None


def _path(node: Node, data: bytes) -> str | None:
    """A trait as written, without its arguments: `fmt::Display`, `Iterator` of `Iterator<Item = u8>`."""
    if node.type == "generic_type":
        node = node.child_by_field_name("type") or node
    if node.type not in _TYPE_NAMES:
        return None
    return "".join(_text(node, data).split())


def _last(node: Node, data: bytes) -> str:
    name = node.child_by_field_name("name") if node.type == "scoped_type_identifier" else node
    return _text(name or node, data)


def _join(container: str, name: str) -> str:
    return f"{container}.{name}" if container else name


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


class RustBases:
    """Resolution of the traits one file's types declare (`file`): the names its `use` and
    `mod` items bind, its paths in code and what its glob `use`s reach, read once for all of
    them. `symbols`: what a file a glob reaches defines (a glob of an enum brings in its
    variants, never a trait)."""

    def __init__(self, file: FileImports, defines: Defines, symbols: SymbolsOf) -> None:
        self.file = file
        self.defines = defines
        self.symbols = symbols
        self._bound: tuple[dict[str, _Bound], dict[str, _Bound]] | None = None
        self._globbed: list[str] | None = None
        self._paths: dict[str, list[ImportSpec]] | None = None

    def resolve(self, spec: str) -> tuple[str, str, str]:
        """(status, the file defining it, its name there) of a trait `spec` a type of the file
        declares ("" for both where it is not resolved)."""
        parts = spec.split("::")
        head, name = parts[0], parts[-1]
        path, defines = self.file.path, self.defines
        if len(parts) == 1 and defines(path, name):
            return "resolved", path, name
        # `mod net;` binds net in the file's own module: `net::Greet`, never a bare name
        bound = self.bound()[0 if len(parts) == 1 else 1].get(head)
        if bound is not None:
            imp, segments = bound
            wanted = segments[-1] if len(parts) == 1 else name
            targets = self.file.targets(imp)
            if not targets:
                return self.file.status(imp), "", ""
            return "resolved", next((t for t in targets if defines(t, wanted)), targets[0]), wanted
        if len(parts) > 1:  # `crate::greet::Greet`, `other::Greet`: the path's own edge (`rust_path`)
            for imp in self.paths().get("::".join(parts[:-1]), ()):
                targets = self.file.targets(imp)
                if targets:
                    return "resolved", next((t for t in targets if defines(t, name)), targets[0]), name
        if len(parts) == 1:
            found = next((t for t in self.globbed() if defines(t, name)), None)
            if found is not None:
                return "resolved", found, name
            return "external", "", ""  # the prelude's: `Clone`, `Iterator`, `Default`
        return "unresolved" if head in ("crate", "self", "super") else "external", "", ""

    def bound(self) -> tuple[dict[str, _Bound], dict[str, _Bound]]:
        """The first item binding each name, as a bare name sees them (`use` items) and as a
        path's first segment does (`mod` items too)."""
        from indexer.lang.rust.resolve import use_leaves

        if self._bound is None:
            bare: dict[str, _Bound] = {}
            first: dict[str, _Bound] = {}
            for imp in self.file.imports:
                if imp.kind == "rust_use":
                    leaves = use_leaves(imp.spec, imp.names, imp.aliases)
                elif imp.kind == "rust_mod" and not imp.level:
                    leaves = [([imp.spec], "")]
                else:
                    continue
                for segments, alias in leaves:
                    local = alias or (segments[-2] if segments[-1] == "self" and len(segments) > 1 else segments[-1])
                    if local != "*":
                        if imp.kind == "rust_use":
                            bare.setdefault(local, (imp, segments))
                        first.setdefault(local, (imp, segments))
            self._bound = bare, first
        return self._bound

    def paths(self) -> dict[str, list[ImportSpec]]:
        """The file's paths in code (`rust_path`), by the module each names."""
        if self._paths is None:
            self._paths = {}
            for imp in self.file.imports:
                if imp.kind == "rust_path":
                    self._paths.setdefault(imp.spec, []).append(imp)
        return self._paths

    def globbed(self) -> list[str]:
        """The files the file's glob `use`s of modules reach, in path order."""
        from indexer.lang.rust.globs import glob_paths, globbed_names

        if self._globbed is None:
            self._globbed = sorted({e.target for imp in self.file.imports if imp.kind == "rust_use" and glob_paths(imp)
                                    for e in self.file.edges_of(imp) if globbed_names(imp, self.symbols(e.target)) is None})
        return self._globbed


# an item binding a name: the import, and the path it binds the name to
_Bound = tuple["ImportSpec", list[str]]
