"""JavaScript and TypeScript: the bases each class or interface declares (`BlobFacts.bases`),
as written: `class A extends web.Base implements I, J<T>` -> `web.Base`, `I`, `J`; `interface
K extends L` -> `L`. A type's arguments are no bases, nor an expression that is not a dotted
name (`extends mixin(B)`). A base named by a constant the file's top declares as a dotted name
(`const Renamed = Base;`, `const Model = db.Model;`) is what that name is:
`class A extends Renamed` -> `Base`, followed three aliases deep."""

from __future__ import annotations

from msgspec import structs
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
    aliases = _aliases(root, data) if found else {}
    return [structs.replace(b, base=_unaliased(b.base, aliases)) for b in found] if aliases else found


ALIAS_HOPS = 3  # the aliases of aliases a base is followed through (`const B = A; const C = B;`), at most
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})


def _aliases(root: Node, data: bytes) -> dict[str, str]:
    """The constants the program's top declares with a dotted name as their whole value
    (`const Renamed = Base;`, `export const Model = db.Model;`), each by its name. A `let` or
    `var` may be assigned again before the class statement runs (`let B = A; B = mixin(B);`):
    none; nor a name declared more than once there."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for child in root.named_children:
        declaration = child.child_by_field_name("declaration") if child.type == "export_statement" else child
        if declaration is None or declaration.type not in _DECLARATIONS:
            continue
        if declaration.type != "lexical_declaration" or data[declaration.start_byte:declaration.start_byte + 5] != b"const":
            seen.update(_text(n, data) for d in declaration.named_children
                        if d.type == "variable_declarator" and (n := d.child_by_field_name("name")) is not None)
            continue
        for declarator in declaration.named_children:
            name = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
            if name is None or name.type != "identifier":
                continue
            spelled = _text(name, data)
            value = declarator.child_by_field_name("value")
            if spelled in seen:
                found.pop(spelled, None)
            elif value is not None and value.type in ("identifier", "member_expression") and _dotted(value):
                found[spelled] = "".join(_text(value, data).split())
            seen.add(spelled)
    return found


def _unaliased(base: str, aliases: dict[str, str]) -> str:
    """The base with its alias followed (`Renamed` -> `Base`; `Renamed.Inner` -> `Base.Inner`)."""
    for _ in range(ALIAS_HOPS):
        head, dot, rest = base.partition(".")
        target = aliases.get(head)
        if target is None or target == head:
            break
        base = target + dot + rest
    return base


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
