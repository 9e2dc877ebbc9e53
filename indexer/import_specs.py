"""Import statements found by the queries (`@import.<handler>`) -> `ImportSpec`s as written.

Each handler reads one matched node; resolution to files of the tree happens at snapshot
assembly. Kinds: python js go rust_mod rust_use rust_extern java c_include c_system_include
ruby_require php_require php_use csharp_using bash_source.

Encodings worth knowing:
- python: `spec` is the dotted module without leading dots, `level` the number of dots,
  `names` what a from-import imports (`("*",)` for a wildcard).
- js: `names` are the imported names (`"default"`, `"*"` for a namespace or re-export-all).
- rust_use: `use crate::a::{b, c}` -> spec "crate::a", names ("b", "c");
  `use a::b::*` -> spec "a::b", names ("*",); `use a::b as c` -> spec "a::b"; a group's items
  are compact use trees without aliases or comments (`{d::{self as e, F}}` -> "d::{self,F}");
  `level` is the number of inline `mod m { ... }` blocks around the `use` (what `self::` and
  `super::` start from).
- rust_extern: `extern crate serde_json as json;` -> spec "serde_json", names ("json",).
- rust_mod: `mod b;` -> spec "b"; inside inline `mod a { ... }` -> spec "a::b", level 1;
  `#[path = "x/y.rs"] mod b;` -> names ("x/y.rs",).
- ruby_require: `require "x"` and `autoload :X, "x"` as spec "x" (a load-path name);
  `require_relative "x"` and paths built from `__dir__` / `__FILE__` as "./x" (beside the file).
- php_require: a literal path; `__DIR__ . "/x.php"` is recorded as "./x.php".
- php_use: one spec per name, a group `use A\\{B, C}` as "A\\B" and "A\\C"; `names` is
  ("function",) or ("const",) for `use function` / `use const`, () for a class or namespace.
"""

from __future__ import annotations

import re
from typing import Callable

from tree_sitter import Node

from indexer.model import ImportSpec


def _text(node: Node | None, data: bytes) -> str:
    if node is None:
        return ""
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _compact(node: Node | None, data: bytes) -> str:
    return "".join(_text(node, data).split())


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] in "\"'`<" and text[-1] in "\"'`>":
        return text[1:-1]
    return text


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _python(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    out = []
    for name in node.children_by_field_name("name"):
        target = name.child_by_field_name("name") if name.type == "aliased_import" else name
        out.append(ImportSpec("python", _compact(target, data), _line(node)))
    return out


def _python_from(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    module = node.child_by_field_name("module_name")
    level = 0
    spec = ""
    if module is not None and module.type == "relative_import":
        for child in module.children:
            if child.type == "import_prefix":
                level = _text(child, data).count(".")
            elif child.type == "dotted_name":
                spec = _compact(child, data)
    else:
        spec = _compact(module, data)
    names = []
    for child in node.children:
        if child.type == "wildcard_import":
            names.append("*")
    for name in node.children_by_field_name("name"):
        target = name.child_by_field_name("name") if name.type == "aliased_import" else name
        names.append(_compact(target, data))
    return [ImportSpec("python", spec, _line(node), level, tuple(names))]


def _js_names(node: Node, data: bytes) -> tuple[str, ...]:
    names: list[str] = []
    for child in node.named_children:
        if child.type == "import_clause":
            for part in child.named_children:
                if part.type == "identifier":
                    names.append("default")
                elif part.type == "namespace_import":
                    names.append("*")
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        if spec.type == "import_specifier":
                            names.append(_text(spec.child_by_field_name("name"), data))
        elif child.type == "export_clause":
            for spec in child.named_children:
                if spec.type == "export_specifier":
                    names.append(_text(spec.child_by_field_name("name"), data))
        elif child.type == "namespace_export":
            names.append("*")
    if node.type == "export_statement" and not names:
        names.append("*")  # `export * from "x"`
    return tuple(names)


def _js(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = _unquote(_text(caps["spec"][0], data))
    names = _js_names(node, data) if node.type in ("import_statement", "export_statement") else ()
    return [ImportSpec("js", spec, _line(node), 0, names)]


def _go(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("go", _unquote(_text(caps["spec"][0], data)), _line(node))]


def _rust_inline_modules(node: Node, data: bytes) -> list[str]:
    """The inline `mod m { ... }` blocks around `node`, outermost first."""
    names = []
    parent = node.parent
    while parent is not None:
        if parent.type == "mod_item":
            names.append(_text(parent.child_by_field_name("name"), data))
        parent = parent.parent
    return names[::-1]


def _rust_path_attribute(node: Node, data: bytes) -> str | None:
    """The `#[path = "..."]` among the attributes right above a `mod` declaration."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        attribute = sibling.named_children[0] if sibling.type == "attribute_item" and sibling.named_child_count else None
        if attribute is not None and attribute.named_child_count and _text(attribute.named_children[0], data) == "path":
            value = attribute.child_by_field_name("value")
            if value is not None and value.type == "string_literal":
                return _unquote(_text(value, data))
        sibling = sibling.prev_named_sibling
    return None


def _rust_mod(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    inline = _rust_inline_modules(node, data)
    spec = "::".join([*inline, _text(caps["spec"][0], data)])
    path = _rust_path_attribute(node, data)
    return [ImportSpec("rust_mod", spec, _line(node), len(inline), (path,) if path is not None else ())]


_RUST_COMMENTS = ("line_comment", "block_comment")


def _rust_use_tree(node: Node, data: bytes) -> str:
    """A use tree as compact text without its aliases (`load as load_config` imports `load`;
    the alias is a local name) and comments, which compacting would glue into its names."""
    if node.type == "use_as_clause":
        return _rust_use_tree(node.child_by_field_name("path"), data)
    if node.type == "use_list":
        return "{" + ",".join(_rust_use_items(node, data)) + "}"
    if node.type == "scoped_use_list":
        path, items = node.child_by_field_name("path"), node.child_by_field_name("list")
        group = _rust_use_tree(items, data) if items is not None else "{}"
        return f"{_compact(path, data)}::{group}" if path is not None else group
    return _compact(node, data)


def _rust_use_items(group: Node | None, data: bytes) -> tuple[str, ...]:
    if group is None:
        return ()
    return tuple(_rust_use_tree(i, data) for i in group.named_children if i.type not in _RUST_COMMENTS)


def _rust_use(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    arg = caps["spec"][0]
    line = _line(node)
    depth = len(_rust_inline_modules(node, data))
    if arg.type == "scoped_use_list":
        names = _rust_use_items(arg.child_by_field_name("list"), data)
        return [ImportSpec("rust_use", _compact(arg.child_by_field_name("path"), data), line, depth, names)]
    if arg.type == "use_list":
        return [ImportSpec("rust_use", "", line, depth, _rust_use_items(arg, data))]
    if arg.type == "use_wildcard":
        path = arg.named_children[0] if arg.named_child_count else None
        return [ImportSpec("rust_use", _compact(path, data), line, depth, ("*",))]
    if arg.type == "use_as_clause":
        return [ImportSpec("rust_use", _compact(arg.child_by_field_name("path"), data), line, depth)]
    return [ImportSpec("rust_use", _compact(arg, data), line, depth)]


def _rust_extern(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    alias = node.child_by_field_name("alias")
    names = (_text(alias, data),) if alias is not None else ()
    return [ImportSpec("rust_extern", _text(caps["spec"][0], data), _line(node), 0, names)]


def _java(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    spec = ""
    wildcard = False
    for child in node.named_children:
        if child.type in ("scoped_identifier", "identifier"):
            spec = _compact(child, data)
        elif child.type == "asterisk":
            wildcard = True
    if not spec:
        return []
    return [ImportSpec("java", spec + ".*" if wildcard else spec, _line(node))]


def _c_include(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("c_include", _unquote(_text(caps["spec"][0], data)), _line(node))]


def _c_system_include(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("c_system_include", _unquote(_text(caps["spec"][0], data)), _line(node))]


# An `#include` line as the preprocessor sees it (leading blanks, `#  include`).
INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"][^<>"\n]+[>"])', re.M)
# Where an `#include`-looking line is text, not a directive.
NOT_DIRECTIVE = frozenset({"comment", "string_literal", "raw_string_literal", "char_literal",
                           "preproc_def", "preproc_function_def"})


def missed_includes(root: Node, data: bytes, found: list[ImportSpec]) -> list[ImportSpec]:
    """`#include` lines the query did not see: tree-sitter leaves one inside a class body
    as an opaque preproc_call (boost scoped_ptr.hpp) and one after a line it cannot parse
    (`__has_include(<version>)`, a `/* c */\\` continuation in a #define) inside an ERROR.
    A line-based scan, skipping lines the query found and lines inside comments and strings."""
    seen = {i.line for i in found if i.kind in ("c_include", "c_system_include")}
    out: list[ImportSpec] = []
    line, at = 1, 0
    for m in INCLUDE_LINE.finditer(data):
        line += data.count(b"\n", at, m.start())
        at = m.start()
        if line in seen or not _is_directive(root, data.index(b"#", m.start())):
            continue
        spec = m.group(1).decode("utf-8", "replace")
        kind = "c_system_include" if spec[0] == "<" else "c_include"
        out.append(ImportSpec(kind, _unquote(spec), line))
    return out


def _is_directive(root: Node, hash_at: int) -> bool:
    node: Node | None = root.descendant_for_byte_range(hash_at, hash_at + 1)
    while node is not None:
        if node.type in NOT_DIRECTIVE:
            return False
        node = node.parent
    return True


_TYPE_ARGUMENTS = re.compile(r"<[^<>]*>")


def _csharp_using(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    # `using A.B;`, `using static A.B;`, `global using A;`, `using X = A.B;`: the last name.
    spec = ""
    for child in node.named_children:
        if child.type in ("identifier", "qualified_name", "generic_name", "alias_qualified_name"):
            spec = _compact(child, data)
    # `using M = A.Maybe<B.Info>;` names the type A.Maybe: its arguments are no part of the
    # path the resolver looks up (innermost first, for nested ones)
    while "<" in spec:
        spec, count = _TYPE_ARGUMENTS.subn("", spec)
        if not count:
            break
    return [ImportSpec("csharp_using", spec, _line(node))] if spec else []


# The file's own directory, as Ruby code spells it when it builds a path to require.
_RUBY_HERE = frozenset({"__dir__", "File.dirname(__FILE__)", "File.dirname__FILE__",
                        "File.expand_path(File.dirname(__FILE__))", "File.expand_path(__dir__)"})


def _beside(rel: str) -> str:
    return rel if rel.startswith(("./", "../")) else "./" + rel


def _ruby_literal(node: Node, data: bytes) -> str | None:
    if node.type == "string" and all(c.type == "string_content" for c in node.named_children):
        return "".join(_text(c, data) for c in node.named_children)
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
            and _compact(parts[0], data)[2:-1] in _RUBY_HERE and parts[1].type == "string_content":
        if _text(parts[1], data).startswith("/"):
            return "." + _text(parts[1], data)
    if node.type == "string":
        return _compact(node, data)[1:-1]  # interpolated otherwise: kept as written, resolves nowhere
    if node.type == "binary" and _text(node.child_by_field_name("operator"), data) == "+" \
            and _compact(node.child_by_field_name("left"), data) in _RUBY_HERE:
        rest = _ruby_literal(node.child_by_field_name("right"), data)
        return "." + rest if rest is not None and rest.startswith("/") else None
    if node.type != "call" or _text(node.child_by_field_name("receiver"), data) != "File":
        return None
    method = _text(node.child_by_field_name("method"), data)
    args = node.child_by_field_name("arguments")
    args = args.named_children if args is not None else []
    if method == "join" and len(args) >= 2 and _compact(args[0], data) in _RUBY_HERE:
        rest = [_ruby_literal(a, data) for a in args[1:]]
        return _beside("/".join(rest)) if None not in rest else None
    if method == "expand_path" and len(args) == 2:
        rel, base = _ruby_literal(args[0], data), _compact(args[1], data)
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
    if _text(caps["fn"][0], data) == "require_relative":
        spec = _beside(spec)
    return [ImportSpec("ruby_require", spec, _line(node))]


def _php_string(node: Node, data: bytes) -> str | None:
    if node.type in ("string", "encapsed_string"):
        return "".join(_text(c, data) for c in node.named_children if c.type == "string_content") \
            if node.named_child_count else _unquote(_text(node, data))
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
    return [ImportSpec("php_require", spec, _line(node))] if spec else []


_PHP_DIRNAME = re.compile(r"dirname\((__DIR__|__FILE__|dirname\(__FILE__\))(?:,(\d))?\)")


def _php_dir(node: Node, data: bytes) -> str | None:
    """The directory an include path is built from, relative to the file: `__DIR__` ->
    ".", `dirname(__DIR__)` -> "..", `dirname(__DIR__, 2)` -> "../..", and the same
    followed by `. DIRECTORY_SEPARATOR`. None for anything else."""
    while node.type == "binary_expression":  # a loop, not recursion: the chain may be long
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if right is None or left is None or _text(right, data) != "DIRECTORY_SEPARATOR":
            return None
        node = left
    text = _compact(node, data)
    if text in ("__DIR__", "dirname(__FILE__)"):
        return "."
    m = _PHP_DIRNAME.fullmatch(text)
    if m is None:
        return None
    # each dirname climbs one level from the file's own directory (`dirname(__FILE__)` is it)
    levels = int(m.group(2) or 1) - (m.group(1) == "__FILE__")
    return "/".join([".."] * levels) or "."


def _php_use_kind(node: Node, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    """("function",) / ("const",) when the node's own keyword says so (`use function a\\b;`,
    `use A\\{function b}`), else `default`."""
    kind = next((c.type for c in node.children if c.type in ("function", "const")), None)
    return (kind,) if kind else default


def _php_use(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    out = []
    prefix = ""
    clauses: list[Node] = []
    group_kind = _php_use_kind(node)
    for child in node.named_children:
        if child.type == "namespace_name":
            prefix = _compact(child, data)
        elif child.type == "namespace_use_clause":
            clauses.append(child)
        elif child.type == "namespace_use_group":
            clauses.extend(c for c in child.named_children if c.type == "namespace_use_clause")
    for clause in clauses:
        target = next((c for c in clause.named_children if c.type in ("qualified_name", "name")), None)
        if target is None:
            continue
        name = _compact(target, data).lstrip("\\")
        out.append(ImportSpec("php_use", f"{prefix}\\{name}" if prefix else name, _line(clause),
                              names=_php_use_kind(clause, group_kind)))
    return out


def _bash_source(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    return [ImportSpec("bash_source", _unquote(_text(caps["spec"][0], data)), _line(node))]


HANDLERS: dict[str, Callable[[Node, dict[str, list[Node]], bytes], list[ImportSpec]]] = {
    "import.python": _python,
    "import.python_from": _python_from,
    "import.js": _js,
    "import.go": _go,
    "import.rust_mod": _rust_mod,
    "import.rust_use": _rust_use,
    "import.rust_extern": _rust_extern,
    "import.java": _java,
    "import.c_include": _c_include,
    "import.c_system_include": _c_system_include,
    "import.csharp_using": _csharp_using,
    "import.ruby": _ruby,
    "import.php_require": _php_require,
    "import.php_use": _php_use,
    "import.bash_source": _bash_source,
}
