"""Go: the bases each type declares (`BlobFacts.bases`), as written: a struct's embedded
fields (`type Server struct { Base; *http.Server; List[T] }` -> `Base`, `http.Server`,
`List`) and an interface's embedded interfaces (`type RW interface { Reader; io.Writer }`
-> `Reader`, `io.Writer`); Go promotes their fields and methods. A type's arguments are no
part of it, and a constraint's union, `~T` or `*T` term is no base. An alias of a struct or
interface literal (`type A = struct { Base }`) is that type, with its bases. Only the file's
top-level types: a type declared in a function body has no name outside it.

Resolution (`GoBases`): a bare name is the package's, found in the file defining it
among the files of the folder declaring the same package (the file's own first), else, an
exported one, what a dot import (`import . "a/b"`) reaches defining it; a qualified one
(`http.Server`) is what the import binding its package name reaches (its alias, else the
package clause the files it reaches agree on, `import_clause`, else the path's last
segment), on the file defining the name (else the package's first file). A predeclared
interface (`error`, `any`, `comparable`) is external, as is a base an import outside the
tree binds, and a bare exported name where a dot import reaches outside the tree; any other
is unresolved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

from tree_sitter import Node

from indexer.model import Base

if TYPE_CHECKING:
    from indexer.lang.file_imports import FileImports
    from indexer.model import ImportSpec
    from indexer.resolve.hierarchy import Defines

_PREDECLARED = frozenset({"error", "any", "comparable"})


def bases(root: Node, data: bytes) -> list[Base]:
    """The declared bases of the file's top-level structs and interfaces, in document order."""
    found: list[Base] = []
    for decl in root.named_children:
        if decl.type != "type_declaration":
            continue
        for spec in decl.named_children:
            name, value = spec.child_by_field_name("name"), spec.child_by_field_name("type")
            if spec.type not in ("type_spec", "type_alias") or name is None or value is None:
                continue
            cls = _text(name, data)
            if value.type == "struct_type":
                fields = next((c for c in value.named_children if c.type == "field_declaration_list"), None)
                embedded = [f.child_by_field_name("type") for f in (fields.named_children if fields else ())
                            if f.type == "field_declaration" and f.child_by_field_name("name") is None]
            elif value.type == "interface_type":
                embedded = [e.named_children[0] for e in value.named_children
                            if e.type == "type_elem" and e.named_child_count == 1]
            else:
                continue
            for node in embedded:
                written = _written(node, data)
                if written:
                    found.append(Base(cls, written, node.start_point[0] + 1))  # type: ignore[union-attr]
    return found


def _written(node: Node | None, data: bytes) -> str:
    """`Base`, `http.Server` of `*http.Server` (the `*` is the field's, beside its type),
    `List` of `List[T]`; "" for anything else: in an interface, a pointer, slice or other type
    literal is a constraint's type term, never an embedded interface."""
    if node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None or node.type not in ("type_identifier", "qualified_type"):
        return ""
    return "".join(_text(node, data).split())


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


class GoBases:
    """Resolution of the bases of one file's types (`file`), each import's package name and
    the dot imports read once for all of them; `package(path)` the files of a file's package,
    `package_name(path)` a file's package clause."""

    def __init__(self, file: FileImports, defines: Defines, package: Callable[[str], tuple[str, ...]],
                 package_name: Callable[[str], str]) -> None:
        self.file = file
        self.defines = defines
        self.package = package
        self.package_name = package_name
        self._named: dict[str, ImportSpec] | None = None
        self._dotted: list[tuple[ImportSpec, list[str]]] | None = None

    def resolve(self, spec: str) -> tuple[str, str, str]:
        """(status, the file defining it, its name there) of a base `spec` a type of the file
        declares ("" for both where it is not resolved)."""
        path, defines = self.file.path, self.defines
        head, _, name = spec.rpartition(".")
        if not head:
            found = next((p for p in (path, *self.package(path)) if defines(p, name)), None)
            if found is not None:
                return "resolved", found, name
            if name in _PREDECLARED:
                return "external", "", ""
            # `import . "a/b"` declares the package's exported names in the file's block
            dotted = self.dotted() if name[:1].isupper() else []
            found = next((t for _, targets in dotted for t in targets if defines(t, name)), None)
            if found is not None:
                return "resolved", found, name
            # else it may be a name of a dot-imported package outside the tree
            return next((self.file.status(imp) for imp, targets in dotted if not targets), "unresolved"), "", ""
        imp = self.named().get(head)
        if imp is None:
            return "unresolved", "", ""
        targets = self.file.targets(imp)
        if not targets:
            return self.file.status(imp), "", ""
        return "resolved", next((t for t in targets if defines(t, name)), targets[0]), name

    def named(self) -> dict[str, ImportSpec]:
        """The first import binding each package name in the file."""
        if self._named is None:
            self._named = {}
            for imp in self.file.imports:
                if imp.kind == "go":
                    clause = import_clause(map(self.package_name, self.file.targets(imp)))
                    self._named.setdefault(bound_name(imp, clause), imp)
        return self._named

    def dotted(self) -> list[tuple[ImportSpec, list[str]]]:
        """The file's dot imports, each with the files it reaches."""
        if self._dotted is None:
            self._dotted = [(imp, self.file.targets(imp)) for imp in self.file.imports
                            if imp.kind == "go" and imp.aliases == (".",)]
        return self._dotted


def import_clause(clauses: Iterable[str]) -> str:
    """The package clause of the files an import reaches (`clauses`, one a file), which names
    the package it binds: the one they agree on. A file whose clause was not read says nothing,
    and an external test package's (`x_test`) is never an importable package's; "" where they
    disagree otherwise (Go builds no such package: an honest unknown, not a guess)."""
    found = ""
    for clause in clauses:
        if clause and not clause.endswith("_test") and clause != found:
            if found:
                return ""
            found = clause
    return found


def bound_name(imp: ImportSpec, clause: str) -> str:
    """The name a Go import binds its package to in the file: its alias (`f "a/b"`), else the
    package clause of the files it reaches, else the name goimports assumes of its path
    (ImportPathToAssumedName): its last segment, a major version suffix `/v2` aside, `go-`
    dropped, up to the first character no identifier holds (`yaml.v3` yaml, `kafka-go`
    kafka); "" for a dot or blank import."""
    if imp.aliases:
        alias = imp.aliases[0]
        return "" if alias in (".", "_") else alias
    if clause:
        return clause
    segments = imp.spec.rstrip("/").split("/")
    last = segments[-1]
    if len(segments) > 1 and last[:1] == "v" and last[1:].isdigit():
        last = segments[-2]
    last = last.removeprefix("go-")
    end = next((i for i, ch in enumerate(last) if not (ch == "_" or ch.isalpha() or ch.isdecimal())), len(last))
    return last[:end]
