"""A Python module's `__all__`, where its source spells it out: the names `from m import *`
binds (every name not starting with an underscore when a module has none).

Read from the module's top-level statements, in order:

    __all__ = ["a", "b"]          also a tuple, `"a", "b"`, or annotated (`__all__: list[str] = ...`)
    __all__ += ["c"]              a list or a tuple
    __all__.extend(["d"])
    __all__.append("e")

each of plain string literals (a `r` or `u` prefix is plain; a bytes or f-string, an escape
or an implicit concatenation is not). Anything else that binds or changes
`__all__` in the module's scope makes it unknown (None), as the value then depends on what
runs: a value that is no such literal (`__all__ = base.__all__ + [...]`, `[*a, "x"]`), another
method (`remove`, `insert`), `del __all__`, `from m import __all__`, a `+=` or a method call
before any assignment, and any write under a top-level `if`, `try`, `for`, `while` or `with`
(`if sys.version_info ...: __all__ = [...]`). Reads (`print(__all__)`), another module's
`__all__` (`base.__all__`) and what a function or class body does are not writes of the
module's own; a function's `global __all__` is not followed. A module with no write of
`__all__` gets None too: the caller falls back to the underscore rule either way.
"""

from __future__ import annotations

import re

from tree_sitter import Node

_NAME = re.compile(rb"__all__")
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})
_SEQUENCES = frozenset({"list", "tuple", "expression_list"})


def dunder_all(root: Node, data: bytes) -> list[str] | None:
    """The names of the module's `__all__` (in the order written, as many times as written),
    or None when it has none or it is not read (see the module's docstring)."""
    if b"__all__" not in data:
        return None
    writing: dict[int, Node] = {}  # top-level statements writing `__all__`, by start byte
    for m in _NAME.finditer(data):
        node = root.descendant_for_byte_range(m.start(), m.end())
        if node is None or node.type != "identifier" or node.start_byte != m.start() or node.end_byte != m.end():
            continue  # in a string, a comment, a longer name
        statement = _module_write(node)
        if statement is not None:
            writing[statement.start_byte] = statement
    names: list[str] | None = None
    for _, statement in sorted(writing.items()):
        update = _literal_update(statement, data)
        if update is None:
            return None
        how, values = update
        if how == "=":
            names = values
        elif names is None:
            return None  # extended before it is bound: a NameError, or set some way not read
        else:
            names = names + values
    return names


def _module_write(ident: Node) -> Node | None:
    """The top-level statement holding `ident` (an identifier `__all__`) when it binds or
    changes the module's `__all__` there, else None."""
    parent = ident.parent
    if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == ident:
        return None  # `base.__all__`: another object's
    writes = False
    child, node = ident, parent
    while node is not None and node.type != "module":
        if node.type in _SCOPES:
            return None
        writes = writes or _binds(node, child)
        child, node = node, node.parent
    return child if writes and node is not None else None


def _binds(node: Node, child: Node) -> bool:
    """Does `node` bind or change what its `child` (holding an identifier `__all__`) names?"""
    kind = node.type
    if kind == "assignment":
        return node.child_by_field_name("left") == child and node.child_by_field_name("right") is not None
    if kind in ("augmented_assignment", "for_statement"):
        return node.child_by_field_name("left") == child
    if kind == "named_expression":  # even in a comprehension, `:=` binds in the module
        return node.child_by_field_name("name") == child
    if kind == "attribute":  # `__all__.extend(...)`: any method called on it
        outer = node.parent
        return (node.child_by_field_name("object") == child and outer is not None and outer.type == "call"
                and outer.child_by_field_name("function") == node)
    return kind in ("delete_statement", "import_from_statement", "import_statement", "as_pattern_target", "ERROR")


def _literal_update(statement: Node, data: bytes) -> tuple[str, list[str]] | None:
    """("=", names) for an assignment of a literal, ("+", names) for a literal extension,
    None for any other statement."""
    parts = _named(statement) if statement.type == "expression_statement" else []
    if len(parts) != 1:
        return None
    node = parts[0]
    kind = node.type
    if kind in ("assignment", "augmented_assignment"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "identifier":
            return None
        if kind == "augmented_assignment":
            operator = node.child_by_field_name("operator")
            if operator is None or operator.type != "+=" or right.type == "expression_list":
                return None
        values = _strings(right, data)
        return None if values is None else ("=" if kind == "assignment" else "+", values)
    if kind == "call":
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or function.type != "attribute" or arguments is None or arguments.type != "argument_list":
            return None
        method = function.child_by_field_name("attribute")
        args = _named(arguments)
        if method is None or len(args) != 1:
            return None
        name = _text(method, data)
        if name == "append":
            value = _string(args[0], data)
            return None if value is None else ("+", [value])
        if name == "extend":
            values = _strings(args[0], data)
            return None if values is None else ("+", values)
    return None


def _strings(node: Node, data: bytes) -> list[str] | None:
    if node.type not in _SEQUENCES:
        return None
    values = []
    for item in _named(node):
        value = _string(item, data)
        if value is None:
            return None
        values.append(value)
    return values


def _string(node: Node, data: bytes) -> str | None:
    """The value of a plain string literal, None for any other node."""
    if node.type != "string":
        return None
    value = ""
    for part in node.children:
        if part.type == "string_start":
            if set(_text(part, data).rstrip("'\"").lower()) - {"r", "u"}:
                return None  # bytes or f-string
        elif part.type == "string_content":
            if part.named_child_count:
                return None  # an escape sequence
            value += _text(part, data)
        elif part.type != "string_end":
            return None  # an f-string's field
    return value


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "comment"]


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")
