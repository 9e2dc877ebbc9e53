"""Bash import statements -> `ImportSpec`s as written (indexer.lang.import_specs).
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.import_specs import Handler, line_of, unquote
from indexer.model import ImportSpec


def _bash_source(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = caps["spec"][0]
    # the grammar splits a word at a backquote after its start (`/usr/lib/`arch`/x.sh` is two
    # arguments); the shell reads what touches it as one word
    end, after = spec.end_byte, spec.next_named_sibling
    while after is not None and after.start_byte == end:
        end, after = after.end_byte, after.next_named_sibling
    text = data[spec.start_byte:end].decode("utf-8", "replace")
    return [ImportSpec("bash_source", unquote(text), line_of(node))]


HANDLERS: dict[str, Handler] = {
    "import.bash_source": _bash_source,
}
