"""Java import statements -> `ImportSpec`s as written (indexer.lang.import_specs).
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.import_specs import Handler, compact_text, line_of
from indexer.model import ImportSpec


def _java(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = ""
    wildcard = False
    for child in node.named_children:
        if child.type in ("scoped_identifier", "identifier"):
            spec = compact_text(child, data)
        elif child.type == "asterisk":
            wildcard = True
    if not spec:
        return []
    return [ImportSpec("java", spec + ".*" if wildcard else spec, line_of(node))]


HANDLERS: dict[str, Handler] = {
    "import.java": _java,
}
