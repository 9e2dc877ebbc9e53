"""Python's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.python.bases import bases
from indexer.lang.python.dunder_all import dunder_all
from indexer.lang.python.module_variables import module_variables
from indexer.lang.tags_hooks import Facts, TagsHooks


def _finish(root: Node, data: bytes, facts: Facts) -> None:
    facts.dunder_all = dunder_all(root, data)
    facts.bases = bases(root, data, facts.class_starts)


HOOKS = TagsHooks(
    kinds={"class_definition": "class", "function_definition": "function", "assignment": "variable"},
    class_types=frozenset({"class_definition"}),
    ends_at_code=True,
    variables=module_variables,
    finish=_finish,
)
