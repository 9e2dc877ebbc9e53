"""Ruby: which bindings are local, and which sites name them (indexer.lang.local_scopes).

A `def`, and a `class`, `module` or `class << x` body, is a scope gate: nothing bound outside
it is seen inside. A block (`do |x| ... end`, `{ |x| ... }`) and a lambda see the locals
around them, and what they bind is theirs. A local is bound by an assignment to a bare name
(`x = 1`, `x ||= 1`, `a, *b = list`), `rescue => e`, `for x in`, and the parameters of a
method, block or lambda; it is a local from there to the end of its scope, as Ruby's parser
decides (after `x = 1 if false`, a bare `x` is the local, nil), whatever block of an `if` or
`while` holds the assignment. A bare name no binding before it makes local is a method call."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.local_scopes import AT_NODE, BLOCK, INNERMOST, Collector, LocalScopes, barrier

# Method parameters, each naming its variable in the field `name` (a plain one is the identifier)
_NAMED_PARAMETERS = frozenset({"optional_parameter", "splat_parameter", "hash_splat_parameter", "block_parameter",
                               "keyword_parameter"})
_GATE = (BLOCK, True, "", ())


def _ruby_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """A bare identifier: not a method's name after `.`, `&.` or `::`, nor one called with
    parentheses or arguments (`foo(x)`, `foo x`: a call's method), which Ruby calls whatever
    local is so named."""
    if node.type != "identifier" or (start and data[start - 1] in b".:"):
        return False
    parent = node.parent
    return parent is None or parent.type != "call" or parent.child_by_field_name("method") != node


def _bind_parameter(c: Collector, node: Node, scope: int) -> None:
    kind = node.type
    if kind == "identifier":
        c.add(AT_NODE, node, scope, node.start_byte)
    elif kind in _NAMED_PARAMETERS:
        name = node.child_by_field_name("name")
        if name is not None and name.type == "identifier":
            c.add(AT_NODE, name, scope, name.start_byte)
    elif kind == "destructured_parameter":  # `|a, (b, c)|`
        for child in node.named_children:
            _bind_parameter(c, child, scope)


def _parameters(c: Collector, params: Node, scope: int) -> None:
    """A method's parameters (`a`, `b = 1`, `*c`, `d:`, `**e`, `&f`)."""
    for node in params.named_children:
        _bind_parameter(c, node, scope)


def _block(c: Collector, caps: dict[str, list[Node]]) -> None:
    """A block or lambda: a scope seeing the locals around it, binding its parameters."""
    node = caps["local.scope.block"][0]
    scope = c.add_scope(node, BLOCK)
    params = node.child_by_field_name("parameters")
    if params is not None:
        _parameters(c, params, scope)


def _assigned(c: Collector, caps: dict[str, list[Node]]) -> None:
    """A name an assignment, `rescue => e` or `for x in` binds in the innermost scope around it."""
    site = caps["local.bind.assign"][0]
    c.add(INNERMOST, site, -1, site.start_byte)


SCOPES = LocalScopes(
    definitions={"method": (BLOCK, True, "", ("parameters",)), "singleton_method": (BLOCK, True, "", ("parameters",)),
                 "class": _GATE, "module": _GATE},
    parameters=_parameters,
    handlers={"barrier": barrier, "block": _block, "assign": _assigned},
    check=_ruby_name,
)
