"""JavaScript's tags hooks (indexer.lang.tags_hooks); TypeScript's extend them."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.javascript.assigned import assigned_scope, exports_property, expression_name
from indexer.lang.javascript.bases import CLASSES, bases
from indexer.lang.javascript.imports import es_module, js_exports
from indexer.lang.tags_hooks import Facts, TagsHooks

KINDS: dict[str, str | None] = {
    "class_declaration": "class", "class": "class", "method_definition": "method",
    "field_definition": "method", "public_field_definition": "method",  # ours: function-valued fields
    "function_declaration": "function", "function_expression": "function",
    "generator_function": "function", "generator_function_declaration": "function",
}


def _exports(root: Node, data: bytes, facts: Facts) -> None:
    facts.imports, facts.exported_as = js_exports(root, data, facts.imports)
    facts.es_module = es_module(root, data)
    facts.bases = bases(root, data, facts.class_starts)


HOOKS = TagsHooks(kinds=KINDS, finish=_exports,
                  # property-assigned functions (indexer/lang/javascript/assigned.py)
                  name_rules={"identifier": expression_name, "property_identifier": exports_property},
                  scope_rules={"property_identifier": assigned_scope}, named_holders=True,
                  variables_hold_fields=True,  # `var Box = class { size = 0; }`: `Box.size`
                  class_types=CLASSES)
