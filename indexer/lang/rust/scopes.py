"""Rust: which bindings are local, and which sites name them (indexer.lang.local_scopes)."""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.local_scopes import AT_NODE, BLOCK, Collector, LocalScopes, visible_from

_RUST_MACRO = re.compile(rb"[ \t]*!(?!=)")  # `load!(...)` names a macro


_RUST_PATH = re.compile(rb"[ \t]*::")  # `load::x` starts a path


def _rust_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier that is not a path's segment (`a::load`, `load::x`) nor a macro's name
    (`load!(...)`)."""
    if data[start - 2:start] == b"::" or node.type != "identifier":
        return False
    return not (_RUST_MACRO.match(data, end) or _RUST_PATH.match(data, end))


_RUST_PATTERNS = frozenset({"tuple_pattern", "slice_pattern", "or_pattern", "reference_pattern", "ref_pattern",
                            "mut_pattern", "captured_pattern", "closure_parameters"})


def _rust_names(node: Node, data: bytes) -> list[Node]:
    """The names a Rust pattern binds: `x`, `(a, mut b)`, `Some(c)`, `P { d, e: f }`, `g @ 1..=5`,
    a closure's `|h, i: T|`; not paths, literals, nor a name starting upper-case (a constant or
    a unit variant: `None`, `MAX`, which a pattern compares with)."""
    out = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in ("identifier", "shorthand_field_identifier"):
            first = data[current.start_byte:current.start_byte + 1]
            if first.islower() or first == b"_":
                out.append(current)
        elif kind in _RUST_PATTERNS:
            stack.extend(current.named_children)
        elif kind == "match_pattern":  # its pattern; past it, the guard
            if current.named_child_count:
                stack.append(current.named_children[0])
        elif kind == "tuple_struct_pattern":
            stack.extend(current.named_children[1:])  # the first is the path
        elif kind == "struct_pattern":
            stack.extend(child for child in current.named_children if child.type == "field_pattern")
        elif kind in ("field_pattern", "parameter"):
            found = current.child_by_field_name("pattern")
            if found is None and kind == "field_pattern":
                found = current.child_by_field_name("name")  # `P { d }`
            if found is not None:
                stack.append(found)
    return out


def _rust_binding(c: Collector, caps: dict[str, list[Node]]) -> None:
    site = caps["local.bind.pattern"][0]
    scope = c.add_scope(caps["local.block"][0], BLOCK)
    visible = visible_from(caps, site)
    for name in _rust_names(site, c.data):
        c.add(AT_NODE, name, scope, visible)


def _rust_parameters(c: Collector, params: Node, scope: int) -> None:
    """A Rust function's parameters, patterns included (not `self`)."""
    data = c.data
    for node in params.named_children:
        if node.type == "parameter":
            pattern = node.child_by_field_name("pattern")
            if pattern is not None:
                for name in _rust_names(pattern, data):
                    c.add(AT_NODE, name, scope, name.end_byte)


SCOPES = LocalScopes(
    definitions={"function_item": (BLOCK, True, "", ("parameters",))},
    parameters=_rust_parameters,
    handlers={"pattern": _rust_binding},
    check=_rust_name,
)
