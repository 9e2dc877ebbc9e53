"""Rust import statements -> `ImportSpec`s as written (indexer.lang.import_specs).

- rust_use: `use crate::a::{b, c}` -> spec "crate::a", names ("b", "c"); `use a::b::*` ->
  spec "a::b", names ("*",); `use a::b as c` -> spec "a::b", no names, aliases ("c",). A
  group's items are compact use trees without aliases or comments (`{d::{self as e, F}}` ->
  "d::{self,F}"), each a name of `names` (resolve_rust.use_paths expands them into paths).
  An item's alias is the aliases of the paths it names, in the order use_paths expands them,
  joined by "," ("" for a path kept as is; an identifier holds no comma): `use a::{b::{c as
  d, x}, e as f, g}` -> spec "a", names ("b::{c,x}", "e", "g"), aliases ("d,", "f", "");
  `use a::{b as c, d, e::f as g}` -> names ("b", "d", "e::f"), aliases ("c", "", "g"). A use
  tree whose braces come first is one import per item, each as a `use` of its own: `use
  {crate::a::X, std::fmt}` -> "crate::a::X" and "std::fmt"; `use ::{a::b}` -> "::a::b". A
  path's alias is the name the file gives its last segment (`self as k` names the module
  before it k); `x as x` is no alias. `level` is the number of inline `mod m { ... }` blocks
  around the `use` (what `self::` and `super::` start from). `visibility` is the `use`'s
  modifier, compact (`pub`, `pub(crate)`, `pub(in crate::a)`), "" when private.
- rust_extern: `extern crate serde_json as json;` -> spec "serde_json", aliases ("json",);
  `visibility` as a `use`'s (`pub extern crate x as y;` re-exports y, a private one binds it
  in its own module).
- rust_mod: `mod b;` -> spec "b"; inside inline `mod a { ... }` -> spec "a::b", level 1;
  `#[path = "x/y.rs"] mod b;` -> names ("x/y.rs",).
- rust_path: a path in code (an expression, a type, an attribute) that starts at a name which
  may be a crate's, or at `crate`, `self` or `super`, used without a `use`:
  `other::build::Builder::new()` -> spec "other::build::Builder", the path before its last
  segment (what it names there); `level` as a `use`'s. Not a `use`'s path, nor one starting
  at a capitalized name (a type: `Vec::new`) or a standard crate. The resolver gives an edge
  only where the path reaches a module of the tree; each spelling is kept once per file, at
  its first line.
"""

from __future__ import annotations

import msgspec
from tree_sitter import Node

from indexer.lang.import_specs import Handler, compact_text, line_of, node_text, unquote
from indexer.model import ImportSpec


def _rust_inline_modules(node: Node, data: bytes) -> list[str]:
    """The inline `mod m { ... }` blocks around `node`, outermost first."""
    names = []
    parent = node.parent
    while parent is not None:
        if parent.type == "mod_item":
            names.append(node_text(parent.child_by_field_name("name"), data))
        parent = parent.parent
    return names[::-1]


def _rust_path_attribute(node: Node, data: bytes) -> str | None:
    """The `#[path = "..."]` among the attributes right above a `mod` declaration."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        attribute = sibling.named_children[0] if sibling.type == "attribute_item" and sibling.named_child_count else None
        if attribute is not None and attribute.named_child_count and node_text(attribute.named_children[0], data) == "path":
            value = attribute.child_by_field_name("value")
            if value is not None and value.type == "string_literal":
                return unquote(node_text(value, data))
        sibling = sibling.prev_named_sibling
    return None


def _rust_mod(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    inline = _rust_inline_modules(node, data)
    spec = "::".join([*inline, node_text(caps["spec"][0], data)])
    path = _rust_path_attribute(node, data)
    return [ImportSpec("rust_mod", spec, line_of(node), len(inline), (path,) if path is not None else ())]


_RUST_COMMENTS = ("line_comment", "block_comment")


def _rust_use_tree(node: Node | None, data: bytes) -> tuple[str, list[str]]:
    """A use tree as compact text without its aliases and comments (compacting would glue both
    into its names), and the alias of each path it names, in the order use_paths expands them
    ("" for a path kept as is): `conn::{self as k, A, B as C}` -> ("conn::{self,A,B}", ["k",
    "", "C"]). `load as load_config` imports `load`; the alias is the local name."""
    if node is None:  # a field a broken parse left out
        return "", [""]
    if node.type == "use_as_clause":
        text = _rust_use_tree(node.child_by_field_name("path"), data)[0]  # a plain path: no group
        alias = node_text(node.child_by_field_name("alias"), data)
        return text, ["" if alias == text.rsplit("::", 1)[-1] else alias]
    if node.type == "use_list":
        items = _rust_use_items(node, data)
        # an empty group names its own path (use_paths): one path, not renamed
        return "{" + ",".join(t for t, _ in items) + "}", [a for _, al in items for a in al] or [""]
    if node.type == "scoped_use_list":
        path, inner = node.child_by_field_name("path"), node.child_by_field_name("list")
        group, aliases = _rust_use_tree(inner, data) if inner is not None else ("{}", [""])
        return (f"{compact_text(path, data)}::{group}" if path is not None else group), aliases
    return compact_text(node, data), [""]


def _rust_use_items(group: Node | None, data: bytes) -> list[tuple[str, list[str]]]:
    if group is None:
        return []
    return [_rust_use_tree(i, data) for i in group.named_children if i.type not in _RUST_COMMENTS]


def _rust_group(line: int, depth: int, spec: str, group: Node | None, data: bytes) -> ImportSpec:
    """A `use` with a group: its items as names, each item's path aliases joined by "," as its alias."""
    items = _rust_use_items(group, data)
    aliases = tuple(",".join(al) if any(al) else "" for _, al in items)
    return ImportSpec("rust_use", spec, line, depth, tuple(t for t, _ in items), aliases if any(aliases) else ())


def _rust_use(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    specs = _rust_use_specs(caps["spec"][0], line_of(node), len(_rust_inline_modules(node, data)), data, "")
    visibility = _rust_visibility(node, data)
    return [msgspec.structs.replace(spec, visibility=visibility) for spec in specs] if visibility else specs


def _rust_use_specs(arg: Node, line: int, depth: int, data: bytes, prefix: str) -> list[ImportSpec]:
    """The imports of a use tree: one, unless its braces come first (`use {crate::a::X,
    std::fmt};`, `use ::{serde::Serialize, log};`), where each item is read as a `use` of its own
    (`use crate::a::X;`, `use std::fmt;`, `use ::serde::Serialize;`): the paths of a group share
    no head to start from. `prefix` is the `::` before such braces."""
    if arg.type == "scoped_use_list" and arg.child_by_field_name("path") is None:
        inner, prefix = arg.child_by_field_name("list"), prefix or "::"
        if inner is None:
            return []
        arg = inner
    if arg.type == "use_list":
        return [spec for item in arg.named_children if item.type not in _RUST_COMMENTS
                for spec in _rust_use_specs(item, line, depth, data, prefix)]
    spec = _rust_use_spec(arg, line, depth, data)
    return [msgspec.structs.replace(spec, spec=prefix + spec.spec) if prefix else spec]


def _rust_visibility(node: Node, data: bytes) -> str:
    """A `use`'s visibility modifier, compact; "" for none and for `pub(self)` (private)."""
    modifier = next((c for c in node.named_children if c.type == "visibility_modifier"), None)
    text = " ".join(node_text(modifier, data).split()).replace("( ", "(").replace(" )", ")")
    return "" if text == "pub(self)" else text


def _rust_use_spec(arg: Node, line: int, depth: int, data: bytes) -> ImportSpec:
    if arg.type == "scoped_use_list":
        return _rust_group(line, depth, compact_text(arg.child_by_field_name("path"), data),
                           arg.child_by_field_name("list"), data)
    if arg.type == "use_wildcard":
        head = arg.named_children[0] if arg.named_child_count else None
        return ImportSpec("rust_use", compact_text(head, data), line, depth, ("*",))
    if arg.type == "use_as_clause":
        path, aliases = _rust_use_tree(arg, data)
        return ImportSpec("rust_use", path, line, depth, aliases=tuple(a for a in aliases if a))
    return ImportSpec("rust_use", compact_text(arg, data), line, depth)


def _rust_extern(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    alias = node.child_by_field_name("alias")
    aliases = (node_text(alias, data),) if alias is not None else ()
    return [ImportSpec("rust_extern", node_text(caps["spec"][0], data), line_of(node), aliases=aliases,
                       visibility=_rust_visibility(node, data))]


_PATHS = frozenset({"scoped_identifier", "scoped_type_identifier"})
_STANDARD = frozenset({"std", "core", "alloc", "proc_macro", "test"})


def _rust_path(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    """A crate-qualified path in code (`node` its innermost part, whose path is one identifier)."""
    head = node_text(node.child_by_field_name("path"), data)
    if not head[:1].islower() or head in _STANDARD:
        return []
    outer = node
    while (up := outer.parent) is not None and up.type in _PATHS and up.child_by_field_name("path") == outer:
        outer = up
    at = outer.parent
    depth = 0  # the inline modules around it, which `self::` and `super::` start from
    while at is not None:
        if at.type in ("use_declaration", "extern_crate_declaration") or at.type == "mod_item" and (
                at.child_by_field_name("body") is None):
            return []
        depth += at.type == "mod_item"
        at = at.parent
    segments = compact_text(outer, data).split("::")
    if len(segments) < 2 or any("<" in s for s in segments):  # `a::B::<T>::new`: no plain path
        return []
    return [ImportSpec("rust_path", "::".join(segments[:-1]), line_of(outer), depth)]


def first_paths(imports: list[ImportSpec]) -> list[ImportSpec]:
    """The file's imports, each crate-qualified path's spelling kept at its first line only."""
    seen: set[str] = set()
    out = []
    for spec in imports:
        if spec.kind == "rust_path":
            if spec.spec in seen:
                continue
            seen.add(spec.spec)
        out.append(spec)
    return out


HANDLERS: dict[str, Handler] = {
    "import.rust_mod": _rust_mod,
    "import.rust_use": _rust_use,
    "import.rust_extern": _rust_extern,
    "import.rust_path": _rust_path,
}
