"""Rust's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.rust.bases import bases
from indexer.lang.rust.imports import first_paths
from indexer.lang.tags_hooks import Facts, TagsHooks


def _signature_kind(node: Node, captured: str, name: Node) -> str:
    """A function an `extern` block declares is a function; a trait's signatures are methods."""
    body = node.parent
    return "function" if body is not None and body.parent is not None and body.parent.type == "foreign_mod_item" else ""


def _finish(root: Node, data: bytes, facts: Facts) -> None:
    facts.imports = first_paths(facts.imports)
    facts.bases = bases(root, data)


HOOKS = TagsHooks(
    kinds={"struct_item": "struct", "enum_item": "enum", "union_item": "struct", "type_item": "type",
           "function_item": "function", "function_signature_item": "method", "trait_item": "trait",
           "mod_item": "module", "macro_definition": "macro", "const_item": "constant",
           "static_item": "variable"},
    kind_rules={"function_signature_item": _signature_kind},
    storage_fields=True,
    keyword_kinds=True,
    finish=_finish,
)
