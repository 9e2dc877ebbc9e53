"""Java: the bases each class, interface, enum and record declares (`BlobFacts.bases`), as
written without type arguments: `class A extends web.Base implements I, J<T>` -> `web.Base`,
`I`, `J`; `interface K extends L` -> `L`. Which is a superclass and which an interface is the
kind of what each resolves to (context_tools/query/symbols/hierarchy.py)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.declared_bases import BaseRules, line_of, spelled

_CLAUSES = frozenset({"superclass", "super_interfaces", "extends_interfaces"})
_TYPES = frozenset({"type_identifier", "scoped_type_identifier", "generic_type"})


def _declared(node: Node, data: bytes) -> list[tuple[str, int, str]]:
    out = []
    for clause in node.named_children:
        if clause.type not in _CLAUSES:
            continue
        items = [t for c in clause.named_children for t in (c.named_children if c.type == "type_list" else [c])]
        out += [(spelled(t, data, ("type_arguments",)), line_of(t), "") for t in items if t.type in _TYPES]
    return out


RULES = BaseRules("java", ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration"),
                  _declared)
