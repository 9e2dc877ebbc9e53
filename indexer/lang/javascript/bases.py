"""JavaScript and TypeScript: the bases each class or interface declares (`BlobFacts.bases`),
as written: `class A extends web.Base implements I, J<T>` -> `web.Base`, `I`, `J`; `interface
K extends L` -> `L`. A type's arguments are no bases, nor an expression that is not a dotted
name (`extends mixin(B)`)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.tags_hooks import holds_one
from indexer.model import Base

CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "interface_declaration"})
_SCOPES = CLASSES | {"function_declaration", "generator_function_declaration", "internal_module", "module"}
_NAMES = frozenset({"identifier", "type_identifier", "member_expression", "nested_type_identifier"})
_CLAUSES = frozenset({"class_heritage", "extends_clause", "implements_clause", "extends_type_clause"})


def bases(root: Node, data: bytes, class_starts: list[int] | None = None) -> list[Base]:
    """The declared bases of every named class and interface of the tree, in document order.
    With `class_starts` (where every class and interface declaration starts, sorted), only the
    subtrees holding one are walked."""
    found: list[Base] = []
    if class_starts is not None and not class_starts:
        return found
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, container = stack.pop()
        for child in reversed(node.children):
            if not holds_one(child, class_starts):
                continue
            if child.type in _SCOPES and (name := child.child_by_field_name("name")) is not None:
                qualified = f"{container}.{_text(name, data)}" if container else _text(name, data)
                if child.type in CLASSES:
                    found += [Base(qualified, b, line) for b, line in _declared(child, data)]
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append((body, qualified))
            elif child.named_child_count:
                stack.append((child, container))
    found.sort(key=lambda b: b.line)
    return found


def _declared(node: Node, data: bytes) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for clause in node.children:
        if clause.type in _CLAUSES:
            out += _named(clause, data)
    return out


def _named(clause: Node, data: bytes) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for n in clause.named_children:
        if n.type in ("extends_clause", "implements_clause"):
            out += _named(n, data)
            continue
        if n.type == "generic_type":  # J<T>: the generic itself
            n = n.child_by_field_name("name") or (n.named_children[0] if n.named_children else n)
        if n.type in _NAMES and _dotted(n):
            out.append(("".join(_text(n, data).split()), n.start_point[0] + 1))
    return out


def _dotted(node: Node) -> bool:
    """A name, or a chain of property accesses on one (`a.b.C`), nothing else (`f().C`)."""
    while node.type in ("member_expression", "nested_type_identifier"):
        inner = node.named_children[0] if node.named_children else None
        if inner is None:
            return False
        node = inner
    return node.type in ("identifier", "type_identifier")


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")
