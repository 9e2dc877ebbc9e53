"""Python: which bindings are local, and which sites name them (indexer.lang.local_scopes)."""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang import ancestry
from indexer.lang.local_scopes import (
    CLASS,
    COMPREHENSION,
    FUNCTION,
    INNERMOST,
    PAST_COMPREHENSIONS,
    Collector,
    LocalScopes,
    name_at,
)
from indexer.model import ImportSpec

_PY_KEYWORD_ARGUMENT = re.compile(rb"[ \t]*=(?!=)")  # `f(load=1)`: a parameter's name, no use


def _python_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """Not an attribute (`obj.load`) nor a keyword argument's name (`f(load=1)`); a binding
    followed by `=` (`load = 1`, `def f(load=1)`) is one of `LocalSites.sites`, found first.
    `gap` is where the site before this one ends: what lies between is whitespace, brackets,
    operators, literals or comments, and only when a `.` there is followed by whitespace or a
    comment alone may the site be an attribute written apart from its dot (`obj.\n    load`,
    `obj.  # c`), which the tree then settles (a parent is found from the root: rare, and not
    cheap)."""
    before = data[start - 1]
    if before == 46:  # "."
        return False
    try:
        after = data[end]
    except IndexError:  # the last byte of the file
        return True
    if after == 61:  # "="
        if data[end + 1:end + 2] != b"=":
            return False
    elif (after == 32 or after == 9) and _PY_KEYWORD_ARGUMENT.match(data, end):
        return False
    if before in _SPACE:
        dot = data.rfind(b".", gap, start)
        if dot >= 0:
            tail = data[dot + 1:start]
            if tail.isspace() or b"#" in tail:
                parent = ancestry.parent(node)
                return parent is None or parent.type != "attribute" or parent.child_by_field_name("attribute") != node
    return True


_SPACE = frozenset(b" \t\r\n\\")


_PY_NAMED_PARAMETERS = frozenset({"default_parameter", "typed_default_parameter"})


_PY_WRAPPED_PARAMETERS = frozenset({"typed_parameter", "list_splat_pattern", "dictionary_splat_pattern"})


def _py_parameters(c: Collector, params: Node, scope: int = -1) -> None:
    """The names a parameter list binds: `a`, `b=1`, `*args`, `c: T`, `d: T = 1`, `**kw`."""
    near = c.near
    for param in params.named_children:
        node: Node | None = param
        kind = param.type
        if kind in _PY_NAMED_PARAMETERS:
            node = param.child_by_field_name("name")
            kind = node.type if node is not None else ""
        while node is not None and kind in _PY_WRAPPED_PARAMETERS:
            node = node.named_children[0] if node.named_child_count else None
            kind = node.type if node is not None else ""
        if node is not None and kind == "identifier":
            near.append((node.start_byte, node.end_byte))


def _py_lambda(c: Collector, caps: dict[str, list[Node]]) -> None:
    node = caps["local.scope.lambda"][0]
    c.add_scope(node, FUNCTION, region=caps["local.body"][0])
    params = node.child_by_field_name("parameters")
    if params is not None:
        _py_parameters(c, params)


def _py_comprehension(c: Collector, caps: dict[str, list[Node]]) -> None:
    # its first iterable is evaluated in the scope around it
    c.add_scope(caps["local.scope.comprehension"][0], COMPREHENSION, hole=caps["local.hole"][0])


_PY_TARGETS = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list",
                         "parenthesized_expression", "list_splat_pattern", "list_splat"})


def _py_pattern(c: Collector, caps: dict[str, list[Node]]) -> None:
    """The names an assignment or loop target binds: `x`, `x, (y, *z)`; not `a.b` or `a[i]`."""
    stack = [caps["local.bind.pattern"][0]]
    near = c.near
    while stack:
        current = stack.pop()
        kind = current.type
        if kind == "identifier":
            near.append((current.start_byte, current.end_byte))
        elif kind in _PY_TARGETS:
            stack.extend(current.named_children)


def _py_name(c: Collector, caps: dict[str, list[Node]]) -> None:
    site = caps["local.bind.name"][0]
    c.near.append((site.start_byte, site.end_byte))


def _py_walrus(c: Collector, caps: dict[str, list[Node]]) -> None:
    c.add(PAST_COMPREHENSIONS, caps["local.bind.walrus"][0])  # PEP 572: the enclosing function's


def _py_global(c: Collector, caps: dict[str, list[Node]]) -> None:
    site = caps["local.bind.global"][0]
    c.named.append((INNERMOST, site.start_byte, name_at(c.data, site.start_byte, site.end_byte, {})))


def _import(c: Collector, node: Node, specs: list[ImportSpec]) -> None:
    """The names a Python import binds, where it stands: settled, not local (the sites are
    uses of what it imports, which the import edge resolves). At column 0 it is at module
    level."""
    if not node.start_point[1]:
        return
    at = node.start_byte
    for spec in specs:
        if spec.names:
            names = [spec.local(i) for i in range(len(spec.names)) if spec.names[i] != "*"]
        else:
            names = [spec.aliases[0] if spec.aliases else spec.spec.split(".")[0]]
        for name in names:
            c.named.append((INNERMOST, at, name))


SCOPES = LocalScopes(
    definitions={"function_definition": (FUNCTION, False, "body", ("parameters",)),
                 "class_definition": (CLASS, False, "body", ())},
    nested=frozenset({"function_definition", "class_definition"}),
    parameters=_py_parameters,
    handlers={"lambda": _py_lambda, "comprehension": _py_comprehension,
              "name": _py_name, "pattern": _py_pattern, "walrus": _py_walrus, "global": _py_global},
    check=_python_name,
    module_level_at_line_start=True,
    on_import=_import,
)
