r"""PHP import statements -> `ImportSpec`s as written (indexer.lang.import_specs).

- php_require: a literal path; `__DIR__ . "/x.php"` is recorded as "./x.php".
- php_use, php_use_function, php_use_const: one spec per name, a group `use A\{B, C}` as
  "A\B" and "A\C", the kind saying what it imports (a class or namespace; `use function`;
  `use const`); no `names` (the spec is the whole name); `aliases` the one name the file
  gives it: `use A\B as C` and `use A\{B as C}` -> spec "A\B", aliases ("C",).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.import_specs import Handler, aliases_of, compact_text, line_of, node_text, unquote
from indexer.model import ImportSpec


def _php_string(node: Node, data: bytes) -> str | None:
    if node.type in ("string", "encapsed_string"):
        return "".join(node_text(c, data) for c in node.named_children if c.type == "string_content") \
            if node.named_child_count else unquote(node_text(node, data))
    return None


def _php_require(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    if not node.named_child_count:
        return []
    arg = node.named_children[0]
    if arg.type == "parenthesized_expression" and arg.named_child_count:
        arg = arg.named_children[0]
    spec = _php_string(arg, data)
    if spec is None and arg.type == "binary_expression":
        left, right = arg.child_by_field_name("left"), arg.child_by_field_name("right")
        tail = _php_string(right, data) if right is not None else None
        base = _php_dir(left, data) if left is not None else None
        if base is not None and tail:
            spec = base + "/" + tail.lstrip("/")
    return [ImportSpec("php_require", spec, line_of(node))] if spec else []


_PHP_DIRNAME = re.compile(r"dirname\((__DIR__|__FILE__|dirname\(__FILE__\))(?:,(\d))?\)")


def _php_dir(node: Node, data: bytes) -> str | None:
    """The directory an include path is built from, relative to the file: `__DIR__` ->
    ".", `dirname(__DIR__)` -> "..", `dirname(__DIR__, 2)` -> "../..", and the same
    followed by `. DIRECTORY_SEPARATOR`. None for anything else."""
    while node.type == "binary_expression":  # a loop, not recursion: the chain may be long
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if right is None or left is None or node_text(right, data) != "DIRECTORY_SEPARATOR":
            return None
        node = left
    text = compact_text(node, data)
    if text in ("__DIR__", "dirname(__FILE__)"):
        return "."
    m = _PHP_DIRNAME.fullmatch(text)
    if m is None:
        return None
    # each dirname climbs one level from the file's own directory (`dirname(__FILE__)` is it)
    levels = int(m.group(2) or 1) - (m.group(1) == "__FILE__")
    return "/".join([".."] * levels) or "."


def _php_use_kind(node: Node, default: str = "php_use") -> str:
    """The kind of import the node's own keyword says (`use function a\\b;`, `use
    A\\{function b}`: "php_use_function"; `const`: "php_use_const"), else `default`."""
    kind = next((c.type for c in node.children if c.type in ("function", "const")), None)
    return f"php_use_{kind}" if kind else default


def _php_use(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    out = []
    prefix = ""
    clauses: list[Node] = []
    group_kind = _php_use_kind(node)
    for child in node.named_children:
        if child.type == "namespace_name":
            prefix = compact_text(child, data)
        elif child.type == "namespace_use_clause":
            clauses.append(child)
        elif child.type == "namespace_use_group":
            clauses.extend(c for c in child.named_children if c.type == "namespace_use_clause")
    if clauses and not prefix:
        # the grammar hangs `use function a\f, a\g;`'s keyword on the first clause: it says
        # the kind of every clause, as only a group's own clauses say their own
        group_kind = _php_use_kind(clauses[0], group_kind)
    for clause in clauses:
        target = next((c for c in clause.named_children if c.type in ("qualified_name", "name")), None)
        if target is None:
            continue
        name = compact_text(target, data).lstrip("\\")
        alias = node_text(clause.child_by_field_name("alias"), data)
        out.append(ImportSpec(_php_use_kind(clause, group_kind), f"{prefix}\\{name}" if prefix else name,
                              line_of(clause),
                              aliases=aliases_of([name.rsplit("\\", 1)[-1]], [alias]) if alias else ()))
    return out


HANDLERS: dict[str, Handler] = {
    "import.php_require": _php_require,
    "import.php_use": _php_use,
}
