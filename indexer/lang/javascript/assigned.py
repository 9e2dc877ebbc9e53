"""Functions assigned to a property, as JavaScript spells a member outside a class body:
`obj.start = function start() {}`, `obj.start = () => {}`, `Foo.prototype.m = function () {}`
and `Foo.prototype = { m: function () {} }` are one symbol each, `start` held by `obj`, `m` by
`Foo` (indexer/extract/tags.py reads these rules as the language's tags hooks).

The shipped tags see two definitions in `obj.start = function start() {}`: the assignment's
`start` and the function expression's own name, which binds only inside its body. The second
is dropped wherever the first is made (an assignment's, a declarator's, a key's or a class
field's value), so a function defined inside is `obj.start.inner`, not `start.start.inner`.
What a module exports
(`exports.x`, `module.exports.x`, `module.exports = { x: ... }`) is the module's own: no
holder. A holder written through `this`, a call or a subscript is no name the index can
hold: the symbol stays where it is written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from indexer.lang import ancestry

if TYPE_CHECKING:
    from indexer.model import Occurrence

_FUNCTION_VALUES = frozenset({"function_expression", "generator_function"})
_EXPORTS = ("exports", "module.exports")
# A class field's node and the field naming it: JavaScript's, then TypeScript's.
_FIELDS = {"field_definition": "property", "public_field_definition": "name"}


def dotted(node: Node | None, data: bytes) -> list[str] | None:
    """The names of a dotted chain of identifiers (`a`, `a.b.c`, `this.x`); None for any other
    expression (a call, a subscript, `a?.b`)."""
    parts: list[str] = []
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier" or node.child_by_field_name("optional_chain"):
            return None
        parts.append(data[prop.start_byte:prop.end_byte].decode("utf-8", "replace"))
        node = node.child_by_field_name("object")
    if node is None or node.type not in ("identifier", "this"):
        return None
    parts.append(data[node.start_byte:node.end_byte].decode("utf-8", "replace"))
    return parts[::-1]


def holder(target: Node | None, data: bytes) -> str:
    """The container a property assigned on `target` is held by: `obj` -> "obj", `a.b` ->
    "a.b", `Foo.prototype` -> "Foo"; "" for the module's exports and for what no dotted name
    spells (`this`, a call, a subscript)."""
    parts = dotted(target, data)
    if not parts or parts[0] == "this" or ".".join(parts) in _EXPORTS:
        return ""
    kept = [p for p in parts if p != "prototype"]
    return ".".join(kept)


def assigned_scope(name: Node, data: bytes) -> str:
    """The holder of a property name a definition is made of: `obj.name = function () {}` ->
    "obj", `Foo.prototype.m = ...` -> "Foo", a key or method of `Foo.prototype = { m: ... }`
    -> "Foo";
    "" for any other property name (a class member's, an object literal's key elsewhere)."""
    parent = ancestry.parent(name)
    if parent is None:
        return ""
    if parent.type == "member_expression":
        assignment = ancestry.parent(parent)
        if assignment is None or assignment.type != "assignment_expression":
            return ""
        left = assignment.child_by_field_name("left")
        if left is None or left.start_byte != parent.start_byte or left.end_byte != parent.end_byte:
            return ""
        return holder(parent.child_by_field_name("object"), data)
    obj = ancestry.parent(parent) if parent.type in ("pair", "method_definition") else None
    if parent.type == "pair" or (obj is not None and obj.type == "object"):
        assignment = ancestry.parent(obj) if obj is not None else None
        if assignment is None or assignment.type != "assignment_expression":
            return ""
        left = assignment.child_by_field_name("left")
        parts = dotted(left, data)
        return holder(left.child_by_field_name("object"), data) if (
            left is not None and parts and len(parts) > 1 and parts[-1] == "prototype") else ""
    return ""


def _is_value_of_definition(function: Node, data: bytes) -> bool:
    """Is the function expression the value a definition is made of: an assignment to a name or
    a property, a declarator's value, an object key's value (the shipped tags' patterns)?"""
    parent = ancestry.parent(function)
    if parent is None:
        return False
    kind = parent.type
    if kind == "assignment_expression":
        right = parent.child_by_field_name("right")
        left = parent.child_by_field_name("left")
        return (right is not None and right.start_byte == function.start_byte and left is not None
                and (left.type == "identifier" or (left.type == "member_expression" and _property_named(left)
                                                   and dotted(left, data) != ["module", "exports"])))
    if kind == "variable_declarator":
        value = parent.child_by_field_name("value")
        target = parent.child_by_field_name("name")
        return value is not None and value.start_byte == function.start_byte and target is not None and target.type == "identifier"
    if kind == "pair":
        value = parent.child_by_field_name("value")
        key = parent.child_by_field_name("key")
        return value is not None and value.start_byte == function.start_byte and key is not None and key.type == "property_identifier"
    if kind in _FIELDS and function.type == "function_expression":
        # `static make = function Make() {}`: the field is the method (the queries' pattern)
        value = parent.child_by_field_name("value")
        key = parent.child_by_field_name(_FIELDS[kind])
        return (value is not None and value.start_byte == function.start_byte and key is not None
                and key.type in ("property_identifier", "private_property_identifier"))
    return False


def _property_named(member: Node) -> bool:
    prop = member.child_by_field_name("property")
    return prop is not None and prop.type == "property_identifier"


def expression_name(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str] | None:
    """A function expression's own name is no definition where the expression is the value of
    one (`obj.start = function start() {}`: the symbol is the property's); any other
    identifier names what it names."""
    parent = ancestry.parent(node)
    if parent is not None and parent.type in _FUNCTION_VALUES and _is_value_of_definition(parent, data):
        return None
    return start, name


def exports_property(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str] | None:
    """`module.exports = function () {}` names no property `exports` of the module: the module
    as a whole is its default export (a named function there keeps its own name)."""
    if name != "exports":
        return start, name
    parent = ancestry.parent(node)
    if parent is not None and parent.type == "member_expression" and dotted(parent, data) == ["module", "exports"]:
        assignment = ancestry.parent(parent)
        if assignment is not None and assignment.type == "assignment_expression":
            return None
    return start, name
