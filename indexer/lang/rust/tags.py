"""Rust's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.rust.bases import bases
from indexer.lang.rust.imports import first_paths
from indexer.lang.tags_hooks import Facts, TagsHooks


def _signature_kind(node: Node, captured: str, name: Node) -> str:
    """A function an `extern` block declares is a function; a trait's signatures are methods."""
    body = node.parent
    return "function" if body is not None and body.parent is not None and body.parent.type == "foreign_mod_item" else ""


# rustdoc's names of the primitive types that have no name in code
_PRIMITIVES = {"unit_type": "unit", "never_type": "never", "pointer_type": "pointer", "function_type": "fn"}
# how deep the type of an impl's head is read for a name; deeper, it gives none
_NESTING = 64
_SPELLED = ("array_type", "tuple_type", "dynamic_type", "bounded_type", "reference_type", *_PRIMITIVES)


def _type_scope(node: Node) -> str:
    """The scope an impl for a type written as `node` gives its items: a reference what it
    refers to (`&&'a mut B<T>`: B), a trait object its trait (`dyn Fn(u8) + Send`: Fn), a
    parenthesized type its content, and a type without a name rustdoc's name of its
    primitive: `[T]` a slice, `[T; N]` an array, `(A, B)` a tuple."""
    for _ in range(_NESTING):
        kind = node.type
        inner: Node | None = None
        if kind in ("type_identifier", "primitive_type"):
            return node.text.decode("utf-8", "replace") if node.text is not None else ""
        if kind == "array_type":
            return "array" if node.child_by_field_name("length") is not None else "slice"
        if kind in _PRIMITIVES:
            return _PRIMITIVES[kind]
        if kind == "tuple_type":
            named = node.named_children
            if len(named) != 1 or any(child.type == "," for child in node.children):
                return "tuple"
            inner = named[0]
        elif kind in ("scoped_type_identifier",):
            inner = node.child_by_field_name("name")
        elif kind in ("generic_type", "reference_type"):
            inner = node.child_by_field_name("type")
        elif kind == "dynamic_type":
            inner = node.child_by_field_name("trait")
            if inner is not None and inner.type == "function_type":  # `dyn Fn(u8) -> u8`
                inner = inner.child_by_field_name("trait")
        elif kind == "bounded_type":
            inner = node.named_children[0] if node.named_child_count else None
        if inner is None:
            return ""
        node = inner
    return ""


def _finish(root: Node, data: bytes, facts: Facts) -> None:
    facts.imports = first_paths(facts.imports)
    facts.bases = bases(root, data)


HOOKS = TagsHooks(
    kinds={"struct_item": "struct", "enum_item": "enum", "union_item": "struct", "type_item": "type",
           "function_item": "function", "function_signature_item": "method", "trait_item": "trait",
           "mod_item": "module", "macro_definition": "macro", "const_item": "constant",
           "static_item": "variable"},
    kind_rules={"function_signature_item": _signature_kind},
    scope_spelled=dict.fromkeys(_SPELLED, _type_scope),
    storage_fields=True,
    keyword_kinds=True,
    finish=_finish,
)
