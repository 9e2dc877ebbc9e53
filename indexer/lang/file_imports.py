"""One file's imports and what each reaches, read once for all the bases its classes declare.

Resolving a base asks which files an import reaches, and why one reaches none; asked of the
file's edges and unresolved imports afresh for each base, a file of many imports and many
bases cost their product (a megabyte of source, minutes). Here each is grouped once a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer.model import by_import, import_key

if TYPE_CHECKING:
    from indexer.model import Edge, ImportSpec, UnresolvedImport

Key = tuple[int, str, str]


class FileImports:
    """The imports of the file at `path`, its edges by import (`model.import_key`), and the
    statuses of its imports that reach no file; `edges` and `unresolved` are the file's own."""

    def __init__(self, path: str, imports: list[ImportSpec], edges: list[Edge],
                 unresolved: list[UnresolvedImport]) -> None:
        self.path = path
        self.imports = imports
        self.edges = edges
        self._edges = by_import(edges)
        self._on_line: dict[tuple[int, str], set[str]] = {}
        for e in edges:
            if e.source == path:
                self._on_line.setdefault((e.line, e.kind), set()).add(e.target)
        self._targets: dict[Key, list[str]] = {}
        self._status: dict[Key, str] = {}
        self._status_at: dict[int, str] = {}
        for u in unresolved:
            self._status.setdefault((u.line, u.kind, u.spec), u.status)
            self._status_at.setdefault(u.line, u.status)

    def edges_of(self, imp: ImportSpec) -> list[Edge]:
        """The edges of the import: of its line, kind and text (another import on its line has
        edges of its own), in the file's order."""
        return self._edges.get(import_key(imp), [])

    def targets(self, imp: ImportSpec) -> list[str]:
        """The files the import reaches, in path order."""
        key = import_key(imp)
        found = self._targets.get(key)
        if found is None:
            found = self._targets[key] = sorted({e.target for e in self._edges.get(key, ())})
        return found

    def targets_on_line(self, line: int, kind: str) -> list[str]:
        """The files the file's imports of `kind` on `line` reach together, in path order."""
        return sorted(self._on_line.get((line, kind), ()))

    def status(self, imp: ImportSpec) -> str:
        """Why the import reaches no file: outside the tree (the default), or missing from it."""
        return self._status.get(import_key(imp), "external")

    def status_at(self, line: int) -> str:
        """The same, of the first import on `line` that reaches no file."""
        return self._status_at.get(line, "external")
