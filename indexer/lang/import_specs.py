"""Import statements found by the queries (`@import.<handler>`) -> `ImportSpec`s as written.

Each handler reads one matched node; resolution to files of the tree happens at snapshot
assembly. Kinds: python js go rust_mod rust_use rust_extern java c_include c_system_include
ruby_require php_require php_use php_use_function php_use_const csharp_using
csharp_global_using bash_source.

Encodings worth knowing:
Every `names` holds names as the imported module has them; `aliases` (when any is renamed)
the `as` names beside them, "" for a name kept as is, or the one alias of a module imported
under another name (`import a.b as c`: no names, aliases ("c",)).

Each language's readers live in its package (`indexer/lang/<language>/imports.py`, its
`HANDLERS`, named by `Language.imports`); what they share is here.
"""

from __future__ import annotations

from functools import cache
from typing import Callable

from tree_sitter import Node

from indexer.lang.language import part
from indexer.lang.registry import LANGUAGES
from indexer.model import ImportSpec

# A reader of one matched import node: (the node, the match's captures, the source) -> specs.
Handler = Callable[[Node, dict[str, list[Node]], bytes], list[ImportSpec]]


def node_text(node: Node | None, data: bytes) -> str:
    if node is None:
        return ""
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def compact_text(node: Node | None, data: bytes) -> str:
    return "".join(node_text(node, data).split())


def unquote(text: str) -> str:
    if len(text) >= 2 and text[0] in "\"'`<" and text[-1] in "\"'`>":
        return text[1:-1]
    return text


def line_of(node: Node) -> int:
    return node.start_point[0] + 1


def aliases_of(names: list[str], aliases: list[str]) -> tuple[str, ...]:
    """The `aliases` of an ImportSpec: "" where a name is not renamed, () when none is."""
    out = tuple("" if a == n else a for n, a in zip(names, aliases))
    return out if any(out) else ()


@cache
def handlers(language: str) -> dict[str, Handler]:
    """The import-spec readers of `language`, by the capture key they read (`import.<kind>`)."""
    module = LANGUAGES[language].imports
    return part(module, "HANDLERS") if module else {}  # type: ignore[return-value]


def import_order(i: ImportSpec) -> tuple:
    """The order of a blob's imports: by line, then by everything else they hold."""
    return (i.line, i.kind, i.spec, i.level, i.names, i.aliases, i.exports, i.visibility)
