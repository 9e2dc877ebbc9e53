"""What tree-sitter-rust is shown of a source: the items inside an item macro's braces as
items of the module where it stands.

A macro invocation at item position whose body is `{ ... }` (a crate's own `cfg_rt! {
pub mod runtime; }`, `cfg_if! { if #[cfg(unix)] { mod unix; } else { ... } }`) is, to the grammar, a
token tree: the `mod`, `use` and definitions written in it were never read, so whole module
trees went missing. Each such body is parsed on its own as a source; one that parses as items
alone, without error, is shown to the parser in place with the macro's braces blanked
(`cfg_rt!{}` stays as a macro invocation, its name a site as before), so its items stand in
the enclosing module. `cfg_if!`'s branches are each such a body, every branch shown: cfg is
not evaluated. Same length and lines, so every offset and name read from the source still
holds; a body that is not items alone (`bitflags! { pub struct F: u32 { ... } }`) is left a
token tree. Bodies inside a body shown are read the same way, `MACRO_NESTING` deep: the bodies
of one depth lie apart in the file, so the bytes parsed again are at most `MACRO_NESTING` times
the file's, in at most `MACRO_BODIES` parses, and a hostile file costs a few parses of itself.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang import grammars
from indexer.lang.retry_views import blanked

# How deep bodies inside bodies are read; a deeper one stays a token tree
MACRO_NESTING = 4
# How many bodies of a file are parsed again; the ones after stay token trees
MACRO_BODIES = 1024

# A `!` before a `{`: a file without one has no item macro with braces and costs nothing more
_BRACED_MACRO = re.compile(rb"!\s*\{")
# The children a body may hold to be shown as items: a statement of another kind (`x + 1`,
# `let`) means it is no list of items
_NOT_ITEMS = frozenset({"expression_statement", "let_declaration", "empty_statement"})
# The nodes whose children stand at item position
_ITEM_LISTS = frozenset({"source_file", "declaration_list"})
_WITH_ITEMS = frozenset({"mod_item", "impl_item", "trait_item", "foreign_mod_item"})
_BLANKS = b" \t"
_COMMENTS = frozenset({"line_comment", "block_comment"})


class _Reads:
    """How many more bodies of a file may be parsed again."""

    __slots__ = ("bodies",)

    def __init__(self) -> None:
        self.bodies = MACRO_BODIES

    def take(self) -> bool:
        if self.bodies <= 0:
            return False
        self.bodies -= 1
        return True


def parser_view(name: str, data: bytes) -> bytes:
    """`data` with the bodies of its item macros that hold items alone shown as those items."""
    if _BRACED_MACRO.search(data) is None:
        return data
    tree = grammars.parse_shown(name, data)
    if tree is None:
        return data
    view = bytearray(data)
    reads = _Reads()
    changed = False
    for node in _item_macros(tree.root_node):
        changed |= _show(name, data, node, 0, view, reads, 1)
    if not changed:  # `parse` takes the tree of `data` made above: the bodies' parses are not kept
        return data
    shown = bytes(view)
    return shown if grammars.parse_shown(name, shown) is not None else data


def _item_macros(root: Node) -> list[Node]:
    """The macro invocations with a `{ ... }` body at item position under `root`: among a
    source's items, an inline module's, an impl's, a trait's."""
    found: list[Node] = []
    lists = [root]
    while lists:
        for child in lists.pop().named_children:
            if child.type == "macro_invocation":
                body = child.children[-1] if child.child_count else None
                if body is not None and body.type == "token_tree" and _opens(body) == "{":
                    found.append(child)
            elif child.type in _WITH_ITEMS:
                body = child.child_by_field_name("body")
                if body is not None and body.type in _ITEM_LISTS:
                    lists.append(body)
    found.sort(key=lambda node: node.start_byte)
    return found


def _show(name: str, data: bytes, node: Node, offset: int, view: bytearray, reads: _Reads, depth: int) -> bool:
    """Show in `view` the body of the macro invocation `node` (of a tree of `data[offset:]`'s
    body) as its items, when it holds items alone; whether it did."""
    body = node.children[-1]
    start, end = offset + body.start_byte, offset + body.end_byte
    macro = node.child_by_field_name("macro")
    last = macro.child_by_field_name("name") if macro is not None and macro.type == "scoped_identifier" else macro
    if last is not None and last.text == b"cfg_if":
        branches = _cfg_if_branches(body)
        if branches is None:
            return False
        spans = [(offset + b.start_byte, offset + b.end_byte) for b in branches]
    else:
        spans = [(start, end)]
    if not any(data[at + 1:to - 1].strip() for at, to in spans):
        return False
    inner: list[tuple[int, list[Node]]] = []
    for at, to in spans:
        items = _items(name, data, at + 1, to - 1, reads)
        if items is None:
            return False
        inner.append((at + 1, items))
    if spans[0] != (start, end):  # cfg_if: all but the branches' items blanked
        kept = start + 1
        for at, to in spans:
            view[kept:at + 1] = blanked(data[kept:at + 1])
            kept = to - 1
        view[kept:end - 1] = blanked(data[kept:end - 1])
    head = offset + node.start_byte
    _open(data, view, start, end, macro.end_byte + offset if macro is not None else head, head)
    if depth < MACRO_NESTING:
        for at, items in inner:
            for child in items:
                _show(name, data, child, at, view, reads, depth + 1)
    return True


def _open(data: bytes, view: bytearray, start: int, end: int, bang: int, head: int) -> None:
    """The braces of a body at `start:end` as an empty `{}` of the invocation starting at
    `head`, the body's own bytes then standing after it; the closing brace blanked. Where no
    blank beside the `{` (as `view` shows it) can hold the `}`, the invocation is blanked whole."""
    view[end - 1:end] = b" "
    if start + 1 < end - 1 and view[start + 1] in _BLANKS:
        view[start + 1:start + 2] = b"}"
    elif start - 1 >= bang and view[start - 1] in _BLANKS:
        view[start - 1:start + 1] = b"{}"
    else:
        view[head:start + 1] = blanked(data[head:start + 1])


def _opens(tree: Node) -> str:
    """The bracket a token tree opens with (its first token: the tree's text may be long)."""
    return tree.children[0].type if tree.child_count else ""


def _cfg_if_branches(body: Node) -> list[Node] | None:
    """The `{ ... }` branches of a `cfg_if!` body (`if #[cfg(a)] { ... } else if #[cfg(b)] {
    ... } else { ... }`), None when the body is of another shape."""
    branches: list[Node] = []
    children = body.children[1:-1]
    for child in children:
        if child.type == "token_tree":
            if _opens(child) == "{":
                branches.append(child)
            elif _opens(child) != "[":
                return None
        elif child.type not in ("if", "else", "#") and not (child.type == "identifier" and child.text == b"else"):
            return None  # (the grammar has `else` an identifier here)
    return branches or None


def _items(name: str, data: bytes, start: int, end: int, reads: _Reads) -> list[Node] | None:
    """The item macros of `data[start:end]` parsed as a source, or None when it is not items
    alone, or past the file's bodies."""
    if end <= start or not data[start:end].strip():
        return []
    if not reads.take():
        return None
    tree = grammars.parse_fragment(name, data[start:end])
    if tree is None or tree.root_node.has_error:
        return None
    root = tree.root_node
    for child in root.named_children:
        if child.type in _NOT_ITEMS and not (child.type == "expression_statement" and _a_macro_call(child)):
            return None
    return _item_macros(root)


def _a_macro_call(statement: Node) -> bool:
    """Whether an expression statement is a macro call alone, comments aside (`m!(x) /* why */;`
    holds the comment as a second child)."""
    said = [child for child in statement.named_children if child.type not in _COMMENTS]
    return len(said) == 1 and said[0].type == "macro_invocation"
