"""Go import statements -> `ImportSpec`s as written (indexer.lang.import_specs): the path, and
the name it is imported under when one is written (`f "fmt"`, `. "strings"`, `_ "embed"`) as
its one alias.
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.import_specs import Handler, line_of, node_text, unquote
from indexer.model import ImportSpec


def _go(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    name = node.child_by_field_name("name")
    aliases = (node_text(name, data),) if name is not None else ()
    return [ImportSpec("go", unquote(node_text(caps["spec"][0], data)), line_of(node), aliases=aliases)]


HANDLERS: dict[str, Handler] = {
    "import.go": _go,
}
