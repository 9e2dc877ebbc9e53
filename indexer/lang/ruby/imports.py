"""Ruby import statements -> `ImportSpec`s as written (indexer.lang.import_specs).

- ruby_require: `require "x"` and `autoload :X, "x"` as spec "x" (a load-path name);
  `require_relative "x"` and paths built from `__dir__` / `__FILE__` as "./x" (beside the file).
"""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.import_specs import Handler, compact_text, line_of, node_text
from indexer.model import ImportSpec

# The file's own directory, as Ruby code spells it when it builds a path to require.
_RUBY_HERE = frozenset({"__dir__", "File.dirname(__FILE__)", "File.dirname__FILE__",
                        "File.expand_path(File.dirname(__FILE__))", "File.expand_path(__dir__)"})


def _beside(rel: str) -> str:
    return rel if rel.startswith(("./", "../")) else "./" + rel


def _ruby_literal(node: Node | None, data: bytes) -> str | None:
    if node is not None and node.type == "string" and all(c.type == "string_content" for c in node.named_children):
        return "".join(node_text(c, data) for c in node.named_children)
    return None


def _ruby_path(node: Node, data: bytes) -> str | None:
    """What a `require` or `autoload` argument names: a literal as written (a load-path
    name), or a path built from the file's own location (`File.expand_path("x", __dir__)`,
    `File.join(__dir__, "x")`, `"#{__dir__}/x"`, `File.dirname(__FILE__) + "/x"`) as "./x"
    beside the file. An interpolated string comes back as written; None for any other
    expression."""
    literal = _ruby_literal(node, data)
    if literal is not None:
        return literal
    parts = node.named_children
    if node.type == "string" and len(parts) == 2 and parts[0].type == "interpolation" \
            and compact_text(parts[0], data)[2:-1] in _RUBY_HERE and parts[1].type == "string_content":
        if node_text(parts[1], data).startswith("/"):
            return "." + node_text(parts[1], data)
    if node.type == "string":
        return compact_text(node, data)[1:-1]  # interpolated otherwise: kept as written, resolves nowhere
    if node.type == "binary" and node_text(node.child_by_field_name("operator"), data) == "+" \
            and compact_text(node.child_by_field_name("left"), data) in _RUBY_HERE:
        rest = _ruby_literal(node.child_by_field_name("right"), data)
        return "." + rest if rest is not None and rest.startswith("/") else None
    if node.type != "call" or node_text(node.child_by_field_name("receiver"), data) != "File":
        return None
    method = node_text(node.child_by_field_name("method"), data)
    arguments = node.child_by_field_name("arguments")
    args = arguments.named_children if arguments is not None else []
    if method == "join" and len(args) >= 2 and compact_text(args[0], data) in _RUBY_HERE:
        pieces = [_ruby_literal(a, data) for a in args[1:]]
        joined = [p for p in pieces if p is not None]
        return _beside("/".join(joined)) if len(joined) == len(pieces) else None
    if method == "expand_path" and len(args) == 2:
        rel, base = _ruby_literal(args[0], data), compact_text(args[1], data)
        if rel is None:
            return None
        if base in _RUBY_HERE:
            return _beside(rel)
        if base == "__FILE__" and rel.startswith("../"):
            return _beside(rel[3:])  # relative to the file as if it were a directory: `..` is its own
    return None


def _ruby(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = _ruby_path(caps["spec"][0], data)
    if spec is None:
        return []
    if node_text(caps["fn"][0], data) == "require_relative":
        spec = _beside(spec)
    return [ImportSpec("ruby_require", spec, line_of(node))]


HANDLERS: dict[str, Handler] = {
    "import.ruby": _ruby,
}
