"""Ruby: the bases each class and module declares (`BlobFacts.bases`): its superclass (`class
A < Base::Thing` -> `Base::Thing`), and the modules an `include`, `extend` or `prepend` with no
receiver names in its body, each with that relation (`include M2, M3` -> `M2`, `M3`). A
superclass that is not a constant (`Struct.new(...)`) is none, nor are the calls of a block or
method inside the body (`included do ... end`); `self` is the class around (`class NoArgument <
self` in `class Switch`). A module's `included`, `extended` or `prepended` hook that mixes
modules into what it is handed (`def self.included(base) base.extend ClassMethods`, `base.send
:include, Shell`) records them as the module's with the relation `hook:` and the one named
(`hook:extend`): not the module's own ancestors, but those of what includes it (instance and
singleton methods are one set in the map)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.class_kinds import HOOKED
from indexer.lang.declared_bases import BaseRules, line_of, spelled

_CONSTANTS = frozenset({"constant", "scope_resolution"})
_SUPERCLASSES = _CONSTANTS | {"self"}  # `class NoArgument < self`: the class around (RULES.around)
_MIXINS = frozenset({"include", "extend", "prepend"})
# A module's hooks Ruby runs on what includes, extends or prepends it, handing it over
_HOOKS = frozenset({"included", "extended", "prepended"})
_SENDS = frozenset({"send", "__send__", "public_send"})  # `base.send :include, M`


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _hooks(body: Node, data: bytes) -> list[Node]:
    """The hooks a module body defines: `def self.included(base)`, or `def included(base)` in
    its `class << self`."""
    found = []
    for n in body.named_children:
        if n.type == "singleton_method":
            target, name = n.child_by_field_name("object"), n.child_by_field_name("name")
            if target is not None and target.type == "self" and name is not None and _text(name, data) in _HOOKS:
                found.append(n)
        elif n.type == "singleton_class":
            value, inner = n.child_by_field_name("value"), n.child_by_field_name("body")
            if value is not None and value.type == "self" and inner is not None:
                found += [m for m in inner.named_children if m.type == "method"
                          and (name := m.child_by_field_name("name")) is not None and _text(name, data) in _HOOKS]
    return found


def _handed(hook: Node, data: bytes) -> list[tuple[str, int, str]]:
    """The modules a hook mixes into what it is handed, in statements of its body: `base.extend
    ClassMethods`, `base.include(M)`, `base.send :include, Shell` (the relation each names)."""
    params = hook.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_children else None
    body = hook.child_by_field_name("body")
    if first is None or first.type != "identifier" or body is None:
        return []
    handed = _text(first, data)
    out = []
    for call in body.named_children:
        if call.type != "call":
            continue
        receiver, method = call.child_by_field_name("receiver"), call.child_by_field_name("method")
        arguments = call.child_by_field_name("arguments")
        if receiver is None or method is None or arguments is None or receiver.type != "identifier" or (
                _text(receiver, data) != handed):
            continue
        relation, given = _text(method, data), arguments.named_children
        if relation in _SENDS and given and given[0].type == "simple_symbol":
            relation, given = _text(given[0], data)[1:], given[1:]
        if relation in _MIXINS:
            out += [(spelled(n, data), line_of(n), HOOKED + relation) for n in given if n.type in _CONSTANTS]
    return out


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
    if body is not None and node.type == "module":
        for hook in _hooks(body, data):
            out += _handed(hook, data)
    return out


RULES = BaseRules("ruby", ("class", "module"), _declared, lexical=True, around="self")
