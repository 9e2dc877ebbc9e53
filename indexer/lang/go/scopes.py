"""Go: which bindings are local, and which sites name them (indexer.lang.local_scopes)."""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.ancestry import parent as parent_of
from indexer.lang.local_scopes import AT_NODE, BLOCK, Collector, LocalScopes, block_binding, visible_from

_GO_KEY = re.compile(rb"[ \t]*:(?!=)")  # `T{name: v}`'s key, or a `case x:` / `a[i:j]` use


def _go_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """An identifier (no field, type or package name), not a composite literal's key
    (`T{name: name}`: a field)."""
    if node.type != "identifier":
        return False
    if _GO_KEY.match(data, end):
        parent = parent_of(node)
        if parent is not None and parent.type == "literal_element":
            keyed = parent_of(parent)
            return keyed is None or keyed.type != "keyed_element" or keyed.child_by_field_name("key") != parent
    return True


def _go_range(c: Collector, caps: dict[str, list[Node]]) -> None:
    """`for k, v := range m` and `case v := <-ch:` bind; with `=` they assign what is bound
    already."""
    site = caps["local.bind.range"][0]
    if b":=" in c.data[site.end_byte:caps["local.value"][0].start_byte]:
        c.add(AT_NODE, site, c.add_scope(caps["local.block"][0], BLOCK), visible_from(caps, site))


def _go_parameters(c: Collector, params: Node, scope: int) -> None:
    """A Go function's or method's parameters, named results and receiver: `a, b int`, `c ...T`."""
    if params.type != "parameter_list":
        return  # an unnamed result: `(x int) int`
    for node in params.named_children:
        if node.type in ("parameter_declaration", "variadic_parameter_declaration"):
            for name in node.named_children:  # the names, then the type (never an identifier)
                if name.type != "identifier":
                    break
                c.add(AT_NODE, name, scope, name.end_byte)


SCOPES = LocalScopes(
    definitions={"function_declaration": (BLOCK, False, "", ("parameters", "result")),
                 "method_declaration": (BLOCK, False, "", ("receiver", "parameters", "result"))},
    parameters=_go_parameters,
    handlers={"short": block_binding("local.bind.short"), "param": block_binding("local.bind.param"),
              "var": block_binding("local.bind.var"), "range": _go_range},
    check=_go_name,
)
