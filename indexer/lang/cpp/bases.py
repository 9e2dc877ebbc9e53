"""C++: the bases each class and struct declares in its base clause (`BlobFacts.bases`), as
written without template arguments, access specifiers or `virtual`: `class A : public Base,
private ns::C<int>` -> `Base`, `ns::C`. A base that is a type parameter of the class's
template (`template <typename T> struct S : T`) or a `decltype` is none."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.ancestry import parent
from indexer.lang.declared_bases import BaseRules, line_of, spelled

_TYPES = frozenset({"type_identifier", "qualified_identifier", "template_type"})


def _declared(node: Node, data: bytes) -> list[tuple[str, int, str]]:
    out = []
    parameters = _template_parameters(node, data)
    for clause in node.named_children:
        if clause.type == "base_class_clause":
            out += [(name, line_of(t), "") for t in clause.named_children if t.type in _TYPES
                    and (name := spelled(t, data, ("template_argument_list",))) not in parameters]
    return out


def _template_parameters(node: Node, data: bytes) -> set[str]:
    """The type parameters of the template declaring the class (`template <typename T>`: T)."""
    holder = parent(node)
    parameters = holder.child_by_field_name("parameters") if holder is not None and holder.type == "template_declaration" else None
    return {spelled(n, data) for p in (parameters.named_children if parameters is not None else ())
            for n in p.named_children if n.type == "type_identifier"}


RULES = BaseRules("cpp", ("class_specifier", "struct_specifier"), _declared)
