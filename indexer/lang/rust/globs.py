"""What a Rust glob `use` brings in: every public item of a module (`use crate::kind::*;`), or
the variants of an enum (`use crate::kind::Kind::*;`, `use Kind::*;`). Both resolve to the file
of the module the path walks to, so the edge alone does not tell them apart: the glob is of an
enum when that file defines an enum the path ends at (top-level, or inside an inline module:
`use crate::kind::inner::Kind::*` over kind.rs's `mod inner { pub enum Kind }`). A module and
a type share a namespace, so a module cannot be called as an enum of its own parent; only a
lower-case enum named like its own module (`pub enum kind` in kind.rs) would be misread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from indexer.model import ImportSpec, Symbol


def glob_paths(spec: ImportSpec) -> list[list[str]]:
    """The path before the `*` of each glob of a `use`: [crate, kind, Kind] of `use
    crate::kind::Kind::*;`, both of `use crate::{a::*, b::E::*};`."""
    from indexer.lang.rust.resolve import use_paths

    return [path[:-1] for path in use_paths(spec.spec, spec.names) if path and path[-1] == "*"]


def globbed_enums(spec: ImportSpec, symbols: Iterable[Symbol]) -> frozenset[str] | None:
    """The qualified names in a file defining `symbols` of the enums the globs of a `use`
    resolved to it are of (`Kind`, `inner.Mode`); None when one of them is a glob of the
    module, which brings in every name."""
    paths = glob_paths(spec)
    if not paths:
        return None
    enums = {tuple(s.qualified.split(".")) for s in symbols if s.kind == "enum"}
    of_enums: set[str] = set()
    for path in paths:
        enum = next((".".join(path[-k:]) for k in range(len(path), 0, -1) if tuple(path[-k:]) in enums), None)
        if enum is None:
            return None  # a module's glob: every name
        of_enums.add(enum)
    return frozenset(of_enums)


def globbed_names(spec: ImportSpec, symbols: Iterable[Symbol]) -> frozenset[str] | None:
    """The names the globs of a `use` resolved to a file defining `symbols` bring in: None for
    every name (a glob of the module), else the variants of the enums they are globs of."""
    listed = list(symbols)
    enums = globbed_enums(spec, listed)
    if enums is None:
        return None
    return frozenset(s.name for s in listed if is_variant_of(s, enums))


def globbed_variants(spec: ImportSpec, symbols: Iterable[Symbol], wanted: str) -> list[str]:
    """The qualified names (`Kind.Small`) of the variants named `wanted` that the globs of a
    `use` resolved to a file defining `symbols` bring in: none for a glob of the module, whose
    names are the file's top-level ones."""
    listed = list(symbols)
    enums = globbed_enums(spec, listed)
    return sorted({s.qualified for s in listed if s.name == wanted and is_variant_of(s, enums)}) if enums else []


def is_variant_of(sym: Symbol, enums: frozenset[str]) -> bool:
    return sym.kind == "enumerator" and sym.container in enums
