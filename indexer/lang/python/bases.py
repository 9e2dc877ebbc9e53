"""Python: the bases each class declares (`BlobFacts.bases`), as written: `class App(web.Base,
Generic[T], metaclass=Meta)` -> `web.Base` and `Generic`; a keyword argument (`metaclass=`)
is no base, a subscript's own arguments are not either, and a base that is not a dotted name
(a call, `**kw`) is not recorded."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.tags_hooks import holds_one
from indexer.model import Base

_SCOPES = frozenset({"class_definition", "function_definition"})


def bases(root: Node, data: bytes, class_starts: list[int] | None = None) -> list[Base]:
    """The declared bases of every class of the tree, in document order. With `class_starts`
    (where every class definition starts, sorted), only the subtrees holding one are walked."""
    if class_starts is not None and not class_starts:
        return []
    return [b for node, qualified in _classes(root, data, class_starts)
            for b in _declared(node, qualified, data)]


def _classes(root: Node, data: bytes, class_starts: list[int] | None) -> list[tuple[Node, str]]:
    found: list[tuple[Node, str]] = []
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, container = stack.pop()
        for child in reversed(node.children):
            if not holds_one(child, class_starts):
                continue
            inner = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
            if inner is None:
                continue
            if inner.type in _SCOPES:
                name = inner.child_by_field_name("name")
                body = inner.child_by_field_name("body")
                if name is None:
                    continue
                qualified = f"{container}.{_text(name, data)}" if container else _text(name, data)
                if inner.type == "class_definition":
                    found.append((inner, qualified))
                if body is not None:
                    stack.append((body, qualified))
            elif inner.named_child_count and inner.type not in ("expression_statement", "return_statement"):
                stack.append((inner, container))
    found.sort(key=lambda t: t[0].start_byte)
    return found


def _declared(node: Node, qualified: str, data: bytes) -> list[Base]:
    arguments = node.child_by_field_name("superclasses")
    if arguments is None:
        return []
    out = []
    for arg in arguments.named_children:
        if arg.type == "subscript":  # Generic[T], Mapping[str, int]: the generic itself
            arg = arg.child_by_field_name("value") or arg
        dotted = _dotted(arg, data) if arg.type in ("identifier", "attribute") else None
        if dotted is not None:
            out.append(Base(qualified, dotted, arg.start_point[0] + 1))
    return out


def _dotted(node: Node, data: bytes) -> str | None:
    """A name or a chain of attributes on a name (`a.b.C`) as its names joined by dots, with
    nothing of what stands between them in the source (spaces, a backslash-newline, a comment);
    None for anything else (`f().C`)."""
    names = []
    while node.type == "attribute":
        attribute = node.child_by_field_name("attribute")
        node = node.child_by_field_name("object")  # type: ignore[assignment]
        if node is None or attribute is None:
            return None
        names.append(_text(attribute, data))
    if node.type != "identifier":
        return None
    names.append(_text(node, data))
    return ".".join(reversed(names))


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")
