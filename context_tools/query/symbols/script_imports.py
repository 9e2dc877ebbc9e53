"""The definition a JavaScript or TypeScript file's import binds a name to: the one top-level
definition, of the kinds asked, in the file the import resolves to or in a file that file's
re-exports pass the name on from (`import { computed } from "../internal"` where internal.ts
says `export * from "./api/computed"`), followed as the map follows re-exports
(`imports.relays`). What `ScriptTypes` reads an imported `const`'s declaration from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from context_tools.query.symbols.imports import relays
from indexer.lang.bindings import Scopes, of_import

if TYPE_CHECKING:
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot


def imported_definition(snap: Snapshot, path: str, name: str, kinds: tuple[str, ...]) -> tuple[str, Symbol] | None:
    """(file, definition) of the one top-level definition of a kind in `kinds` that the file's
    import binding `name` reaches, under the name the import asks for; None when no import of
    the file binds the name, when it reaches none, or more than one."""
    wanted: list[tuple[str, str]] = []  # (file the import resolves to, the name it asks of it)
    for edge in snap.imports(path):
        for spec in snap.specs_of_edge(edge):
            wanted += [(edge.target, inner) for inner, local in of_import(spec.kind).binds(spec) if local == name]
    if not wanted:
        return None
    found = []
    for inner in {inner for _, inner in wanted}:
        for def_path, sym in snap.definitions(inner):
            if sym.kind not in kinds or sym.container or sym.name != inner:
                continue
            offered = relays(snap, [(def_path, inner)], Scopes(snap, crates=False).gate())
            reach = {def_path: frozenset({inner}), **offered}
            if any(inner in reach.get(target, ()) for target, asked in wanted if asked == inner):
                found.append((def_path, sym))
    return found[0] if len(found) == 1 else None
