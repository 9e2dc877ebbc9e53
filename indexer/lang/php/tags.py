"""PHP's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer.lang.declared_bases import finish_reading
from indexer.lang.php.bases import RULES
from indexer.lang.tags_hooks import TagsHooks

if TYPE_CHECKING:
    from collections.abc import Sequence

    from indexer.lang.tags_hooks import Definition


def _end_at_the_next_namespace(defs: Sequence[Definition], end: int) -> None:
    """A PHP `namespace A;` holds what follows it up to the next namespace (a file may
    declare several), as a braced `namespace A { }` holds its body."""
    spaces = sorted((d for d in defs if d.kind == "namespace"), key=lambda d: d.start)
    for this, following in zip(spaces, spaces[1:]):
        if this.scope_end == end:
            this.scope_end = following.start


HOOKS = TagsHooks(
    kinds={"namespace_definition": "namespace", "interface_declaration": "interface",
           "trait_declaration": "trait", "class_declaration": "class", "property_declaration": "field",
           "function_definition": "function", "method_declaration": "method", "enum_declaration": "enum",
           "const_declaration": "constant", "enum_case": "enumerator",
           "property_promotion_parameter": "field"},
    storage_fields=True,  # a `$URL` property: PHP has `const` for constants
    hoisting=True,
    # PHP declares a named function or class in the current namespace wherever its declaration
    # runs: one written in a function body is no member of that function
    namespace_level=frozenset({"function_definition", "class_declaration", "interface_declaration",
                               "trait_declaration", "enum_declaration"}),
    bodiless_namespaces=True,
    finish_definitions=_end_at_the_next_namespace,
    finish=finish_reading(RULES),
)
