"""Second views of a source whose parse has errors, for the grammars that stumble on a
construct the language allows (`indexer.lang.grammars.parse` keeps the second tree only when it
has fewer bytes in errors).

A view has the same length and lines as the source, so every offset and name read from the
source still holds; what it changes is only what the parser is shown.

Each language's view is its package's `retry.py` (`Language.retry`); what they share is here.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang import ancestry

_NOT_LINE_BREAK = re.compile(rb"[^\r\n]")


def blanked(chunk: bytes) -> bytes:
    """`chunk` as spaces of the same length, its line breaks kept: what a view shows of a
    construct it hides, so every offset and line still holds."""
    return _NOT_LINE_BREAK.sub(b" ", chunk)


def in_error(root: Node, at: int) -> bool:
    """Whether the node at `at` is an ERROR or stands in one (places asked in order:
    `ancestry.held_at`)."""
    return ancestry.held_at(root, at, at, "error", _is_error)


def _is_error(node: Node) -> bool:
    return node.is_error
