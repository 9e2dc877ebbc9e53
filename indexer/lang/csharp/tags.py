"""C#'s tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.csharp.bases import RULES
from indexer.lang.declared_bases import finish_reading
from indexer.lang.tags_hooks import TagsHooks


def _record(def_node: Node, captured: str, name: Node) -> str:
    """`record struct P(...)` is a value type; the grammar has one node for both."""
    return "struct" if any(child.type == "struct" for child in def_node.children) else ""


def _spelled(def_node: Node, name_node: Node, data: bytes) -> str:
    """A member whose name is not one identifier, named as C++ names its own: `~Shape` for a
    destructor; for an operator, its `operator` keyword and what follows up to the parameters,
    spaces collapsed: `operator ==`, `operator int`, `operator Shape<T>` (a class's conversion
    operators differ only by the type they convert to)."""
    if def_node.type == "destructor_declaration":
        return "~" + data[name_node.start_byte:name_node.end_byte].decode("utf-8", "replace")
    parameters = def_node.child_by_field_name("parameters")
    end = parameters.start_byte if parameters is not None else name_node.end_byte
    return "operator " + " ".join(data[name_node.end_byte:end].decode("utf-8", "replace").split())


HOOKS = TagsHooks(
    kinds={"class_declaration": "class", "interface_declaration": "interface",
           "method_declaration": "method", "namespace_declaration": "namespace",
           "file_scoped_namespace_declaration": "namespace", "struct_declaration": "struct",
           "enum_declaration": "enum", "record_declaration": "class",
           "constructor_declaration": "method", "property_declaration": "field",
           "delegate_declaration": "type", "destructor_declaration": "method",
           "operator_declaration": "method", "conversion_operator_declaration": "method",
           "indexer_declaration": "field", "event_declaration": "field",
           "local_function_statement": "function", "parameter": "field"},
    kind_rules={"record_declaration": _record},
    spelled=dict.fromkeys(("destructor_declaration", "operator_declaration", "conversion_operator_declaration"),
                          _spelled),
    storage_fields=True,  # `ID { get; }`: a C# constant says `const` (csharp/queries.scm)
    to_the_end=frozenset({"file_scoped_namespace_declaration"}),  # `namespace A;`
    finish=finish_reading(RULES),
)
