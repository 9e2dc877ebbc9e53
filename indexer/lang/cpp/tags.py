"""C++'s tags hooks: C's, and its classes, namespaces and conversion operators
(indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.ancestry import parent
from indexer.lang.c.tags import HOOKS as C_HOOKS
from indexer.lang.c.tags import KINDS as C_KINDS
from indexer.lang.c.tags import needs_body
from indexer.lang.cpp.bases import RULES
from indexer.lang.declared_bases import finish_reading
from indexer.model import Occurrence


def _function_definition(def_node: Node, captured: str, name: Node) -> str:
    """A class behind an export macro (`class API Foo {...}` read as a function definition)."""
    head = def_node.child_by_field_name("type")
    return "struct" if head is not None and head.type == "struct_specifier" else captured


def _conversion_name(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str]:
    """A C++ conversion operator's name as written, up to its parameter list: `operator bool`,
    `operator T*`, `operator const char *` (the node spans the parameters and qualifiers too)."""
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "abstract_function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if parameters is not None:
        end = parameters.start_byte
    else:  # `operator T const &() const` nests its parameters deeper: the name ends at the `(`
        found = data.find(b"(", node.start_byte, node.end_byte)
        end = found if found > 0 else node.end_byte
    return start, " ".join(data[node.start_byte:end].decode("utf-8", "replace").split())


def _conversion_scope(node: Node, data: bytes) -> str:
    """The scope an out-of-line conversion operator is written under: `ns::K::operator int`
    -> "ns::K::" (the grammar nests one qualified_identifier per `::`), else ""."""
    outer = node
    while (up := parent(outer)) is not None and up.type == "qualified_identifier":
        outer = up
    if outer is node:
        return ""
    return data[outer.start_byte:node.start_byte].decode("utf-8", "replace")


HOOKS = C_HOOKS._replace(
    kinds={**C_KINDS, "class_specifier": "class", "namespace_definition": "namespace",
           "alias_declaration": "type", "operator_cast": "function"},
    kind_rules={**C_HOOKS.kind_rules, "class_specifier": needs_body, "function_definition": _function_definition},
    name_rules={**C_HOOKS.name_rules, "operator_cast": _conversion_name},
    scope_rules={"operator_cast": _conversion_scope},
    qualified_name="qualified_identifier",
    finish=finish_reading(RULES, C_HOOKS.finish),
)
