"""Rust's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.rust.bases import bases
from indexer.lang.rust.imports import first_paths
from indexer.lang.tags_hooks import Facts, TagsHooks


def _finish(root: Node, data: bytes, facts: Facts) -> None:
    facts.imports = first_paths(facts.imports)
    facts.bases = bases(root, data)


HOOKS = TagsHooks(
    kinds={"struct_item": "struct", "enum_item": "enum", "union_item": "struct", "type_item": "type",
           "function_item": "function", "function_signature_item": "method", "trait_item": "trait",
           "mod_item": "module", "macro_definition": "macro", "const_item": "constant",
           "static_item": "variable"},
    storage_fields=True,
    finish=_finish,
)
