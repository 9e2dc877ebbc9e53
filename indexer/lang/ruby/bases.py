"""Ruby: the bases each class and module declares (`BlobFacts.bases`): its superclass (`class
A < Base::Thing` -> `Base::Thing`), and the modules an `include`, `extend` or `prepend` with no
receiver names in its body, each with that relation (`include M2, M3` -> `M2`, `M3`). A
superclass that is not a constant (`Struct.new(...)`) is none, nor are the calls of a block or
method inside the body (`included do ... end`); `self` is the class around (`class NoArgument <
self` in `class Switch`)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.declared_bases import BaseRules, line_of, spelled

_CONSTANTS = frozenset({"constant", "scope_resolution"})
_SUPERCLASSES = _CONSTANTS | {"self"}  # `class NoArgument < self`: the class around (RULES.around)
_MIXINS = frozenset({"include", "extend", "prepend"})


def _declared(node: Node, data: bytes) -> list[tuple[str, int, str]]:
    out = []
    superclass = node.child_by_field_name("superclass")
    for n in superclass.named_children if superclass is not None else ():
        if n.type in _SUPERCLASSES:
            out.append((spelled(n, data), line_of(n), ""))
    body = node.child_by_field_name("body")
    for call in body.named_children if body is not None else ():
        method = call.child_by_field_name("method") if call.type == "call" else None
        if method is None or call.child_by_field_name("receiver") is not None:
            continue
        relation = data[method.start_byte:method.end_byte].decode("utf-8", "replace")
        arguments = call.child_by_field_name("arguments")
        if relation in _MIXINS and arguments is not None:
            out += [(spelled(n, data), line_of(n), relation) for n in arguments.named_children if n.type in _CONSTANTS]
    return out


RULES = BaseRules("ruby", ("class", "module"), _declared, lexical=True, around="self")
