"""JavaScript, TypeScript and TSX: which bindings are local, and which sites name them (indexer.lang.local_scopes)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang import ancestry
from indexer.lang.local_scopes import AT_NODE, BLOCK, FUNCTION, OF_FUNCTION, WITH, Collector, LocalScopes
from indexer.model import ImportSpec

_JS_NAMES = frozenset({"identifier", "shorthand_property_identifier"})


_JSX_NAMED = frozenset({"jsx_opening_element", "jsx_closing_element", "jsx_self_closing_element"})


def _js_name(node: Node, start: int, end: int, data: bytes, gap: int) -> bool:
    """A variable's identifier (not a property's or a type's), and not an intrinsic JSX
    element's name (`<div>`, `</label>`: a string, no variable)."""
    if node.type not in _JS_NAMES:
        return False
    if data[start:start + 1].islower() and _after_tag_open(data, start):
        parent = ancestry.parent(node)
        if parent is not None and parent.type in _JSX_NAMED:
            return False
    return True


def _after_tag_open(data: bytes, start: int) -> bool:
    """Does a tag's `<` or `</` stand before `start`, spaces between allowed (`< div>` is JSX's
    `<div>`)? Each name walks back over the spaces just before it alone: linear in the file."""
    k = start - 1
    while k >= 0 and data[k] in b" \t\r\n":
        k -= 1
    return k >= 0 and data[k] in b"</"


_JS_PATTERN_TYPES = frozenset({"object_pattern", "array_pattern", "formal_parameters"})


def _js_names(c: Collector, node: Node, how: int, scope: int = -1, declared: bool = False) -> None:
    """The names a binding pattern binds: `x`, `{a, b: c, d = 1, ...e}`, `[f, ...g]`, TypeScript
    parameters (`x: T`, `y?: U`); not keys, defaults or types. A declarator's (`declared`) are
    checked for a `require(...)` value at `Collector.finish`."""
    if declared:
        name_end = node.end_byte
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            start = current.start_byte
            c.binders.append((how, start, current.end_byte, scope, 0))
            if declared:
                c.required.append((start, name_end))
        elif kind in _JS_PATTERN_TYPES:
            stack.extend(current.named_children)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            found = current.child_by_field_name("left")
            if found is not None:
                stack.append(found)
        elif kind == "pair_pattern":
            found = current.child_by_field_name("value")
            if found is not None:
                stack.append(found)
        elif kind in ("required_parameter", "optional_parameter"):
            found = current.child_by_field_name("pattern")
            if found is not None:
                stack.append(found)
        elif kind == "rest_pattern":
            # its name, not a comment the grammar keeps beside it (`... /* c */ rest`)
            found = next((n for n in current.named_children if n.type != "comment"), None)
            if found is not None:
                stack.append(found)


def _js_function(c: Collector, caps: dict[str, list[Node]]) -> None:
    scope = c.add_scope(caps["local.scope.function"][0], FUNCTION, region=caps["local.body"][0])
    for params in caps.get("local.params", ()):
        _js_names(c, params, AT_NODE, scope)


def _js_with(c: Collector, caps: dict[str, list[Node]]) -> None:
    c.add_scope(caps["local.scope.with"][0], WITH, region=caps["local.body"][0])


def _js_let(c: Collector, caps: dict[str, list[Node]]) -> None:
    _js_names(c, caps["local.bind.let"][0], AT_NODE, c.add_scope(caps["local.block"][0], BLOCK), True)


def _js_var(c: Collector, caps: dict[str, list[Node]]) -> None:
    _js_names(c, caps["local.bind.var"][0], OF_FUNCTION, declared=True)


def _js_for(c: Collector, caps: dict[str, list[Node]]) -> None:
    """`for (const x of xs)`: the loop's own; `for (var x in o)`: the function's."""
    kind = caps["local.kind"][0].type
    if kind == "var":
        _js_names(c, caps["local.bind.for"][0], OF_FUNCTION)
    elif kind in ("let", "const"):
        _js_names(c, caps["local.bind.for"][0], AT_NODE, c.add_scope(caps["local.block"][0], BLOCK))


def _js_catch(c: Collector, caps: dict[str, list[Node]]) -> None:
    _js_names(c, caps["local.bind.catch"][0], AT_NODE, c.add_scope(caps["local.block"][0], BLOCK))


def _import(c: Collector, node: Node, specs: list[ImportSpec]) -> None:
    if node.type == "call_expression":  # `require(...)`, `import(...)`: a binding to it is settled
        c.require_calls.add(node.start_byte)


SCOPES = LocalScopes(
    nested=frozenset({"function_declaration", "generator_function_declaration", "class_declaration"}),
    handlers={"function": _js_function, "with": _js_with,
              "let": _js_let, "var": _js_var, "for": _js_for, "catch": _js_catch},
    check=_js_name,
    settling=True,
    on_import=_import,
)
