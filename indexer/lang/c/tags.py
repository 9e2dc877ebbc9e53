"""C's tags hooks (indexer.lang.tags_hooks); C++ extends them (indexer.lang.cpp.tags)."""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.c.imports import missed_includes
from indexer.lang.import_specs import import_order
from indexer.lang.tags_hooks import Facts, TagsHooks
from indexer.model import Occurrence

KINDS: dict[str, str | None] = {
    "struct_specifier": "struct", "union_specifier": "struct", "enum_specifier": "enum",
    "type_definition": "type", "function_declarator": "function", "preproc_def": "macro",
    "preproc_function_def": "macro",
    "declaration": None,  # shipped `union` pattern on a declaration; ours takes the union itself
}

_MACRO_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


def needs_body(def_node: Node, captured: str) -> str | None:
    """A specifier is a definition only with a body (`struct S;` is a declaration)."""
    return "" if def_node.child_by_field_name("body") is not None else None


def _function_declarator(def_node: Node, captured: str) -> str | None:
    """`log_msg msg(loc, name);` in a body declares a variable built by a constructor."""
    return None if _in_block(def_node) else ""


def _in_block(declarator: Node) -> bool:
    """A C/C++ declarator declared by a statement inside a function body."""
    declaration = declarator.parent
    if declaration is None or declaration.type != "declaration":
        return False
    block = declaration.parent
    return block is not None and block.type == "compound_statement"


def _macro_name(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str] | None:
    """`#define NAME value` read as a generic directive: NAME is the first word of its argument."""
    word = _MACRO_NAME.match(name)
    if word is None:
        return None
    row, col = node.start_point
    sites.append(Occurrence(word.group(1), row + 1, col + 1 + word.start(1), "definition"))
    return start + word.start(1), word.group(1)


def _missed_includes(root: Node, data: bytes, facts: Facts) -> None:
    missed = missed_includes(root, data, facts.imports)
    if missed:
        facts.imports = sorted(facts.imports + missed, key=import_order)


HOOKS = TagsHooks(
    kinds=KINDS,
    kind_rules={**dict.fromkeys(("struct_specifier", "union_specifier", "enum_specifier"), needs_body),
                "function_declarator": _function_declarator},
    name_rules={"preproc_arg": _macro_name},
    storage_fields=True,
    hoisting=True,
    finish=_missed_includes,
)
