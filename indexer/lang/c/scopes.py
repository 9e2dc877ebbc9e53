"""C (and C++, which adds its class scopes: indexer.lang.cpp.scopes): which bindings are local, and which sites name them (indexer.lang.local_scopes)."""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.local_scopes import AT_NODE, BLOCK, BLOCK_FUNCTION, Collector, LocalScopes

_EXTERN = re.compile(rb"\bextern\b")


def _c_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier (no field or type name), not a qualified name's last part (`ns::load`)."""
    return node.type == "identifier" and data[start - 2:start] != b"::"


_C_WRAPPERS = frozenset({"init_declarator", "pointer_declarator", "array_declarator", "parenthesized_declarator",
                         "attributed_declarator", "reference_declarator"})


def _c_declared(node: Node, parameter: bool = False) -> list[Node]:
    """The name a C or C++ declarator declares: `x`, `*x`, `x[3]`, `x = 1`, `&x`, `(*cb)(int)`,
    `auto [a, b]`; none for a prototype in a block (`int f(int);`: the function outside) or a
    qualified name."""
    current = node
    for _ in range(8):
        kind = current.type
        if kind == "identifier":
            return [current]
        if kind == "structured_binding_declarator":
            return [child for child in current.named_children if child.type == "identifier"]
        if kind == "function_declarator":
            inner = current.child_by_field_name("declarator")
            if inner is None or (not parameter and inner.type != "parenthesized_declarator"):
                return []
            current = inner
            continue
        if kind not in _C_WRAPPERS:
            return []
        inner = current.child_by_field_name("declarator")
        if inner is None:  # a reference or parenthesized declarator holds it unnamed
            inner = current.named_children[-1] if current.named_child_count else None
        if inner is None:
            return []
        current = inner
    return []


def _c_local(c: Collector, caps: dict[str, list[Node]]) -> None:
    """A declaration in a block; `extern int x;` names the global `x`, no local. `extern` is
    looked for among the specifiers alone, before the first declarator: searched up to each
    site, a declaration of thousands of names was read the square of their number of times."""
    site = caps["local.bind.decl"][0]
    decl = caps.get("local.decl")
    if decl:
        first = decl[0].child_by_field_name("declarator")
        end = site.start_byte if first is None else min(first.start_byte, site.start_byte)
        if _EXTERN.search(c.data, decl[0].start_byte, end):
            return
    scope = c.add_scope(caps["local.block"][0], BLOCK)
    for name in _c_declared(site):
        c.add(AT_NODE, name, scope, name.end_byte)


def _c_parameter(c: Collector, caps: dict[str, list[Node]]) -> None:
    scope = c.add_scope(caps["local.block"][0], BLOCK)
    for name in _c_declared(caps["local.bind.param"][0], parameter=True):
        c.add(AT_NODE, name, scope, name.end_byte)


def _c_parameters(c: Collector, params: Node, scope: int) -> None:
    """A C or C++ function definition's parameters (with a default value too, in C++)."""
    for node in params.named_children:
        if node.type in ("parameter_declaration", "optional_parameter_declaration"):
            declarator = node.child_by_field_name("declarator")
            if declarator is not None:
                for name in _c_declared(declarator, parameter=True):
                    c.add(AT_NODE, name, scope, name.end_byte)


# A C or C++ function's scope is its definition (tags.py's span), its parameters its declarator's.
SCOPES = LocalScopes(
    definitions={"function_declarator": BLOCK_FUNCTION},
    parameters=_c_parameters,
    handlers={"decl": _c_local, "param": _c_parameter},
    check=_c_name,
)
