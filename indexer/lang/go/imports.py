"""Go import statements -> `ImportSpec`s as written (indexer.lang.import_specs).
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.import_specs import Handler, line_of, node_text, unquote
from indexer.model import ImportSpec


def _go(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("go", unquote(node_text(caps["spec"][0], data)), line_of(node))]


HANDLERS: dict[str, Handler] = {
    "import.go": _go,
}
