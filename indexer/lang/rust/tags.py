"""Rust's tags hooks (indexer.lang.tags_hooks)."""

from indexer.lang.tags_hooks import TagsHooks

HOOKS = TagsHooks(
    kinds={"struct_item": "struct", "enum_item": "enum", "union_item": "struct", "type_item": "type",
           "function_item": "function", "function_signature_item": "method", "trait_item": "trait",
           "mod_item": "module", "macro_definition": "macro", "const_item": "constant",
           "static_item": "variable"},
    storage_fields=True,
)
