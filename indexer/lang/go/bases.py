"""Go: the bases each type declares (`BlobFacts.bases`), as written: a struct's embedded
fields (`type Server struct { Base; *http.Server; List[T] }` -> `Base`, `http.Server`,
`List`) and an interface's embedded interfaces (`type RW interface { Reader; io.Writer }`
-> `Reader`, `io.Writer`); Go promotes their fields and methods. A type's arguments are no
part of it, and a constraint's union or `~T` term is no base. Only the file's top-level
types: a type declared in a function body has no name outside it.

Resolution (`resolve_base`): a bare name is the package's, found in the file defining it
among the files of the folder declaring the same package (the file's own first); a
qualified one (`http.Server`) is what the import binding its package name reaches (its
alias, else the package clause of the files it reaches, else the path's last segment), on
the file defining the name. A predeclared interface (`error`, `any`, `comparable`) is
external, as is a base an import outside the tree binds; any other is unresolved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from tree_sitter import Node

from indexer.model import Base

if TYPE_CHECKING:
    from indexer.model import Edge, ImportSpec, UnresolvedImport
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
            if spec.type != "type_spec" or name is None or value is None:
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
    """`Base`, `http.Server` of `*http.Server`, `List` of `List[T]`; "" for anything else."""
    while node is not None and node.type in ("pointer_type", "generic_type"):
        node = node.child_by_field_name("type") or (node.named_children[0] if node.named_children else None)
    if node is None or node.type not in ("type_identifier", "qualified_type"):
        return ""
    return "".join(_text(node, data).split())


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def resolve_base(path: str, spec: str, imports: list[ImportSpec], edges: list[Edge],
                 unresolved: list[UnresolvedImport], defines: Defines,
                 package: Callable[[str], tuple[str, ...]], package_name: Callable[[str], str]
                 ) -> tuple[str, str, str]:
    """(status, the file defining it, its name there) of a base `spec` a type of the file at
    `path` declares ("" for both where it is not resolved); `package(path)` the files of the
    file's package, `package_name(path)` a file's package clause."""
    head, _, name = spec.rpartition(".")
    if not head:
        found = next((p for p in (path, *package(path)) if defines(p, name)), None)
        if found is not None:
            return "resolved", found, name
        return ("external" if name in _PREDECLARED else "unresolved"), "", ""
    for imp in imports:
        if imp.kind != "go":
            continue
        targets = sorted({e.target for e in edges if e.line == imp.line and e.spec == imp.spec})
        if bound_name(imp, package_name(targets[0]) if targets else "") != head:
            continue
        if not targets:
            status = next((u.status for u in unresolved if u.line == imp.line and u.spec == imp.spec), "external")
            return status, "", ""
        return "resolved", next((t for t in targets if defines(t, name)), targets[0]), name
    return "unresolved", "", ""


def bound_name(imp: ImportSpec, clause: str) -> str:
    """The name a Go import binds its package to in the file: its alias (`f "a/b"`), else the
    package clause of the files it reaches, else its path's last segment (a major version
    suffix `/v2` aside); "" for a dot or blank import."""
    if imp.aliases:
        alias = imp.aliases[0]
        return "" if alias in (".", "_") else alias
    if clause:
        return clause
    segments = imp.spec.rstrip("/").split("/")
    last = segments[-1]
    if len(segments) > 1 and last[:1] == "v" and last[1:].isdigit():
        last = segments[-2]
    return last.removeprefix("go-").split(".")[0]
