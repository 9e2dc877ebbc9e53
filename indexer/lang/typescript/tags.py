"""TypeScript's and TSX's tags hooks: JavaScript's, with the kinds of TypeScript's declarations
(indexer.lang.tags_hooks)."""

from __future__ import annotations

from indexer.lang.javascript.tags import HOOKS as JS_HOOKS
from indexer.lang.javascript.tags import KINDS as JS_KINDS

HOOKS = JS_HOOKS._replace(kinds={
    **JS_KINDS,
    "abstract_class_declaration": "class", "interface_declaration": "interface",
    "type_alias_declaration": "type", "enum_declaration": "enum", "internal_module": "namespace",
    "module": "module", "function_signature": "function", "method_signature": "method",
    "abstract_method_signature": "method",
}, hoisting=True)  # constructor parameter properties are the class's fields (tags._HOISTED)
