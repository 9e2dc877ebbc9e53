r"""PHP: the bases each class, interface, trait and enum declares (`BlobFacts.bases`), as
written: `class A extends Base implements I, \Countable { use T1, T2; }` -> `Base`, `I`,
`\Countable`, and the traits `T1`, `T2` (relation `use`)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.declared_bases import BaseRules, line_of, spelled

_CLAUSES = frozenset({"base_clause", "class_interface_clause"})
_NAMES = frozenset({"name", "qualified_name"})


def _declared(node: Node, data: bytes) -> list[tuple[str, int, str]]:
    out = []
    for clause in node.named_children:
        if clause.type in _CLAUSES:
            out += [(spelled(n, data), line_of(n), "") for n in clause.named_children if n.type in _NAMES]
    body = node.child_by_field_name("body")
    for use in body.named_children if body is not None else ():
        if use.type == "use_declaration":
            out += [(spelled(n, data), line_of(n), "use") for n in use.named_children if n.type in _NAMES]
    return out


RULES = BaseRules("php", ("class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"),
                  _declared)
