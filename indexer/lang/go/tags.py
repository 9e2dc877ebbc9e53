"""Go's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from bisect import bisect_right

from tree_sitter import Node

from indexer.lang import ancestry
from indexer.lang.go.bases import bases
from indexer.lang.go.build_constraints import go_build_ignored
from indexer.lang.tags_hooks import Facts, TagsHooks


def _type_spec(def_node: Node, captured: str, name: Node) -> str:
    """`type X struct {...}` is a struct, `type X interface {...}` an interface, any other a type;
    an alias as its type (`type X = struct {...}` a struct)."""
    value = def_node.child_by_field_name("type")
    value_type = value.type if value is not None else ""
    return {"struct_type": "struct", "interface_type": "interface"}.get(value_type, "type")


def _receiver_scope(name: Node, data: bytes) -> str:
    """The receiver's base type of a method whose receiver the query's forms leave out, one
    written in parentheses (`func (x *(T)) m()`, `func ((*T)) m()`); "" for any other name."""
    decl = ancestry.parent(name)
    receiver = decl.child_by_field_name("receiver") if decl is not None and decl.type == "method_declaration" else None
    param = next((c for c in receiver.named_children if c.type == "parameter_declaration"), None) if receiver else None
    node = param.child_by_field_name("type") if param is not None else None
    while node is not None and node.type in ("parenthesized_type", "pointer_type", "generic_type"):
        node = node.child_by_field_name("type") if node.type == "generic_type" else (
            node.named_children[0] if node.named_child_count else None)
    if node is None or node.type != "type_identifier":
        return ""
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _type_parameter_lists(root: Node) -> list[tuple[int, int]]:
    """The byte spans of the type parameter lists of the file's top-level types, in order (Go
    declares no generic type in a body)."""
    spans: list[tuple[int, int]] = []
    for decl in root.named_children:
        if decl.type == "type_declaration":
            for spec in decl.named_children:
                params = spec.child_by_field_name("type_parameters")
                if params is not None:
                    spans.append((params.start_byte, params.end_byte))
    return spans


def _finish(root: Node, data: bytes, facts: Facts) -> None:
    facts.build_ignored = go_build_ignored(data)
    facts.bases = bases(root, data)
    # A literal in a generic type's constraint (`type Pair[T interface{ M() }] ...`) declares no
    # member of the type: its fields and methods are locals, as in a generic function's signature.
    spans = _type_parameter_lists(root)
    if spans:
        starts = [start for start, _ in spans]
        facts.symbols = [s for s in facts.symbols
                         if not ((at := bisect_right(starts, s.start_byte) - 1) >= 0 and s.start_byte < spans[at][1])]


HOOKS = TagsHooks(
    kinds={"function_declaration": "function", "method_declaration": "method", "method_elem": "method",
           "const_spec": "constant", "var_spec": "variable"},
    kind_rules={"type_spec": _type_spec, "type_alias": _type_spec},
    scope_rules={"field_identifier": _receiver_scope},
    storage_fields=True,  # `ID`, `URL`: fields, whatever their case
    keyword_kinds=True,  # `var EOF = ...` is a variable: Go writes `const` for a constant
    selector_holders=True,  # `S.Sub.Deep`: a literal's members are the field's that it types
    body_fields_are_locals=True,  # a field of an anonymous struct in a body (a test's table), as ctags has it
    finish=_finish,
)
