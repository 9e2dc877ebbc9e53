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
  `#[path = "x/y.rs"] mod b;` -> names ("x/y.rs",); `#[cfg_attr(unix, path = "u.rs")] mod b;`
  -> names ("", "u.rs"): the plain `#[path]` or "" (none), then each `cfg_attr`'s path.
- rust_path: a path in code (an expression, a type, an attribute) that starts at a name which
  may be a crate's, or at `crate`, `self` or `super`, used without a `use`:
  `other::build::Builder::new()` -> spec "other::build::Builder", the path before its last
  segment (what it names there); `level` as a `use`'s. Not a `use`'s path, nor one starting
  at a capitalized name (a type: `Vec::new`) or a standard crate. The resolver gives an edge
  only where the path reaches a module of the tree; each spelling is kept once per file, at
  its first line. A macro's arguments are a token tree the grammar does not parse: the same
  paths are read from its tokens (`println!("{}", other::build::Builder::new())` ->
  "other::build::Builder"), a run of names joined by `::`, not one after `$` (`$crate::x`,
  a macro's own variable) or `::` (`::other::x`), nor one going on into generic arguments
  (`a::B::<T>::new`). A `macro_rules!` body is no invocation, and `quote!` (with
  `quote_spanned!`, `parse_quote!`) writes another crate's code: their paths are not read.
"""

from __future__ import annotations

from typing import NamedTuple

import msgspec
from tree_sitter import Node

from indexer.lang import ancestry
from indexer.lang.import_specs import Handler, compact_text, line_of, node_text, unquote
from indexer.model import ImportSpec


class _Blocks(NamedTuple):
    """The inline `mod` blocks on a way down the tree: the innermost's name, how many there
    are, the characters of their names, and the blocks above the innermost."""

    name: str
    depth: int
    chars: int
    above: _Blocks | None


# A `mod m;` inside more inline `mod` blocks than this, or whose blocks' names spell more
# characters, is not read: its spec spells every block around it, and a file may nest them
# far deeper, or name them far longer, than any crate does (each `mod` would spell out the
# whole way down: the square of the file). The rest of the file is read.
MOD_NESTING = 64
MOD_CHARS = 4096


def _rust_inline_modules(node: Node, data: bytes) -> _Blocks | None:
    """The inline `mod m { ... }` blocks around `node`: carried down the way to it, kept a
    node for the file (`ancestry.carried`), not walked up to the root from each node."""
    def blocks(above: _Blocks | None, at: Node) -> _Blocks | None:
        if at.type != "mod_item":
            return above
        name = node_text(at.child_by_field_name("name"), data)
        depth, chars = (above.depth, above.chars) if above is not None else (0, 0)
        return _Blocks(name, depth + 1, chars + len(name), above)

    return ancestry.carried(node, "rust inline modules", blocks, None)


def _names(blocks: _Blocks | None) -> list[str]:
    """The blocks' names, outermost first."""
    names = []
    while blocks is not None:
        names.append(blocks.name)
        blocks = blocks.above
    return names[::-1]


def _cfg_attr_path(attribute: Node, data: bytes) -> str | None:
    """The `path = "..."` a `#[cfg_attr(pred, path = "...")]` sets, None for any other."""
    args = attribute.child_by_field_name("arguments")
    if node_text(attribute.named_children[0], data) != "cfg_attr" or args is None:
        return None
    tokens = args.children
    for i in range(len(tokens) - 2):
        if (tokens[i].type == "identifier" and node_text(tokens[i], data) == "path"
                and tokens[i + 1].type == "=" and tokens[i + 2].type == "string_literal"):
            return unquote(node_text(tokens[i + 2], data))
    return None


def _rust_path_attributes(node: Node, data: bytes) -> tuple[str, ...]:
    """The `#[path = "..."]` among the attributes right above a `mod` declaration (its
    siblings read from its parent's children, `ancestry.place`), then the paths its
    `#[cfg_attr(pred, path = "...")]`s set, each a file of some build: ("x.rs",) for a plain
    one, ("", "unix.rs", "windows.rs") for two `cfg_attr`s and none ("" is the usual file)."""
    holder = ancestry.parent(node)
    if holder is None:
        return ()
    plain: str | None = None
    chosen: list[str] = []
    children, at = ancestry.place(node, holder)
    for before in range(at - 1, -1, -1):  # back from it, not a copy of every sibling before it
        sibling = children[before]
        if not sibling.is_named:
            continue
        if sibling.type not in ("attribute_item", "line_comment", "block_comment"):
            break
        attribute = sibling.named_children[0] if sibling.type == "attribute_item" and sibling.named_child_count else None
        if attribute is None or not attribute.named_child_count:
            continue
        if node_text(attribute.named_children[0], data) == "path":
            value = attribute.child_by_field_name("value")
            if value is not None and value.type == "string_literal" and plain is None:
                plain = unquote(node_text(value, data))
        elif (alternative := _cfg_attr_path(attribute, data)) is not None:
            chosen.insert(0, alternative)  # read bottom up: kept in the order written
    alternatives = [a for a in dict.fromkeys(chosen) if a and a != plain]
    if not alternatives:
        return (plain,) if plain is not None else ()
    return (plain or "", *alternatives)


def _rust_mod(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    blocks = _rust_inline_modules(node, data)
    if blocks is not None and (blocks.depth > MOD_NESTING or blocks.chars > MOD_CHARS):
        return []
    spec = "::".join([*_names(blocks), node_text(caps["spec"][0], data)])
    return [ImportSpec("rust_mod", spec, line_of(node), blocks.depth if blocks is not None else 0,
                       _rust_path_attributes(node, data))]


_RUST_COMMENTS = ("line_comment", "block_comment")
# A `use` whose groups nest deeper than this is not read: its readers here and the resolver's
# recurse a few frames a group, and a file's braces may nest far deeper than any crate writes
# them (a hostile one ran the index out of Python's stack). The rest of the file is read.
USE_NESTING = 64


def _nesting(node: Node, data: bytes) -> int:
    """How deep the braces of a `use` tree nest, counted over its text (no recursion)."""
    depth = deepest = 0
    for byte in data[node.start_byte:node.end_byte]:
        if byte == 0x7B:  # {
            depth += 1
            deepest = max(deepest, depth)
        elif byte == 0x7D:  # }
            depth -= 1
    return deepest


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
    if _nesting(caps["spec"][0], data) > USE_NESTING:
        return []
    blocks = _rust_inline_modules(node, data)
    specs = _rust_use_specs(caps["spec"][0], line_of(node), blocks.depth if blocks is not None else 0, data, "")
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


def _path_way(above: tuple[bool, int], node: Node) -> tuple[bool, int]:
    """(within a declaration holding no path in code, the `mod` blocks) of a way down to `node`."""
    within, depth = above
    kind = node.type
    if kind == "mod_item":
        return within or node.child_by_field_name("body") is None, depth + 1
    return within or kind in ("use_declaration", "extern_crate_declaration"), depth


def _rust_path(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    """A crate-qualified path in code (`node` its innermost part, whose path is one identifier)."""
    head = node_text(node.child_by_field_name("path"), data)
    if not head[:1].islower() or head in _STANDARD:
        return []
    outer = node
    while (up := ancestry.parent(outer)) is not None and up.type in _PATHS and up.child_by_field_name("path") == outer:
        outer = up
    # within a `use`, an `extern crate` or a `mod m;`: no path in code; else the inline modules
    # around it, which `self::` and `super::` start from
    within, depth = ancestry.carried(outer, "rust path", _path_way, (False, 0))
    if within:
        return []
    segments = compact_text(outer, data).split("::")
    if len(segments) < 2 or any("<" in s for s in segments):  # `a::B::<T>::new`: no plain path
        return []
    return [ImportSpec("rust_path", "::".join(segments[:-1]), line_of(outer), depth)]


_TOKEN_NAMES = frozenset({"identifier", "crate", "self", "super"})
# macros whose tokens are code written for another crate, a procedural macro's output
_TEMPLATES = frozenset({"quote", "quote_spanned", "parse_quote", "parse_quote_spanned"})


def _rust_macro_path(node: Node, caps: dict[str, list[Node]], data: bytes) -> list[ImportSpec]:
    """The crate-qualified paths among the tokens of a macro's arguments (`node` its token
    tree), as `_rust_path` reads them in code."""
    invoked = ancestry.parent(node)
    called = invoked.child_by_field_name("macro") if invoked is not None else None
    if called is not None and node_text(called, data).rsplit("::", 1)[-1] in _TEMPLATES:
        return []
    within, depth = ancestry.carried(node, "rust path", _path_way, (False, 0))
    if within:
        return []
    out: list[ImportSpec] = []
    trees = [node]
    while trees:
        tokens = trees.pop().children
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token.type == "token_tree":
                trees.append(token)
            if token.type not in _TOKEN_NAMES or i and tokens[i - 1].type in ("$", "::"):
                i += 1
                continue
            j = i + 1  # past the run's names and their `::`s
            while j + 1 < len(tokens) and tokens[j].type == "::" and tokens[j + 1].type in _TOKEN_NAMES:
                j += 2
            segments = [node_text(tokens[k], data) for k in range(i, j, 2)]
            going_on = j < len(tokens) and tokens[j].type == "::"  # `a::B::<T>`: no plain path
            if len(segments) >= 2 and not going_on and segments[0][:1].islower() and segments[0] not in _STANDARD:
                out.append(ImportSpec("rust_path", "::".join(segments[:-1]), line_of(token), depth))
            i = j
    return sorted(out, key=lambda spec: spec.line)


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
    "import.rust_macro_path": _rust_macro_path,
}
