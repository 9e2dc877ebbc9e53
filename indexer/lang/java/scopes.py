"""Java: which bindings are local, and which sites name them (indexer.lang.local_scopes)."""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.local_scopes import AT_NODE, BLOCK, BLOCK_FUNCTION, Collector, LocalScopes, barrier, block_binding

# Definitions (tags.py's def node types) that are scopes: (kind, barrier, the field of their
# region or "" for all of them, the fields holding their parameters). A C or C++ function's
# scope is its definition (tags.py's span), its parameters its declarator's.
_JAVA_TYPES = ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration")


_JAVA_CALL = re.compile(rb"[ \t]*\(")  # `load(x)` calls a method: methods are another namespace


def _java_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier that is not a member (`a.x`, `a.f()`), a method's name (`f(x)`), an
    annotation (`@X`) nor a method reference's name (`A::x`)."""
    if data[start - 1] in b".@:" or node.type != "identifier":
        return False
    return not _JAVA_CALL.match(data, end)


def _java_parameters(c: Collector, params: Node, scope: int) -> None:
    """A Java method's or constructor's parameters: `int a`, `String... b`."""
    for node in params.named_children:
        kind = node.type
        if kind == "formal_parameter":
            name = node.child_by_field_name("name")
        elif kind == "spread_parameter":
            declarator = next((n for n in node.named_children if n.type == "variable_declarator"), None)
            name = declarator.child_by_field_name("name") if declarator is not None else None
        else:
            continue
        if name is not None:
            c.add(AT_NODE, name, scope, name.end_byte)


SCOPES = LocalScopes(
    definitions={**dict.fromkeys(_JAVA_TYPES, (BLOCK, True, "", ())),
                 "method_declaration": BLOCK_FUNCTION, "constructor_declaration": BLOCK_FUNCTION},
    parameters=_java_parameters,
    handlers={"barrier": barrier, "decl": block_binding("local.bind.decl"),
              "param": block_binding("local.bind.param")},
    check=_java_name,
)
