"""C#: the bases each class, struct, interface and record declares in its base list
(`BlobFacts.bases`), as written without type arguments or `global::`: `class A : Base,
IList<int>` -> `Base`, `IList`. Which is the base class and which an interface is the kind of
what each resolves to (context_tools/query/symbols/hierarchy.py)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.declared_bases import BaseRules, line_of, spelled

_TYPES = frozenset({"identifier", "qualified_name", "generic_name", "alias_qualified_name",
                    "primary_constructor_base_type"})


def _declared(node: Node, data: bytes) -> list[tuple[str, int, str]]:
    out = []
    for clause in node.named_children:
        if clause.type != "base_list":
            continue
        for t in clause.named_children:
            if t.type == "primary_constructor_base_type":  # `record B(int X) : A(X)`: the type before its arguments
                t = t.named_children[0] if t.named_children else t
            if t.type in _TYPES:
                name = spelled(t, data, ("type_argument_list", "argument_list"))
                out.append((name.removeprefix("global::"), line_of(t), ""))
    return out


RULES = BaseRules("csharp", ("class_declaration", "struct_declaration", "interface_declaration",
                             "record_declaration"), _declared)
