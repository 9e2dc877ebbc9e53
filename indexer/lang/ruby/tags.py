"""Ruby's tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.declared_bases import finish_reading
from indexer.lang.ruby.bases import RULES
from indexer.lang.tags_hooks import TagsHooks
from indexer.model import Occurrence

# Calls that make a class or module of the constant they are assigned to
_MAKERS = {("Class", "new"): "class", ("Struct", "new"): "class", ("Data", "define"): "class",
           ("Module", "new"): "module"}


def _maker(recv: Node, fn: Node, data: bytes) -> str | None:
    """`X = Struct.new(...)`: which maker, if any (ruby/queries.scm)."""
    return _MAKERS.get((data[recv.start_byte:recv.end_byte].decode("utf-8", "replace"),
                        data[fn.start_byte:fn.end_byte].decode("utf-8", "replace")))


def _symbol(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str]:
    """`attr_reader :owner` defines `owner`: a definition site no identifier leaf stands for."""
    row, col = node.start_point
    sites.append(Occurrence(name[1:], row + 1, col + 1, "definition"))
    return start + 1, name[1:]


HOOKS = TagsHooks(
    # (a constant assignment is a constant, or a class `Struct.new` makes: its capture says which)
    kinds={"method": "function", "singleton_method": "method", "alias": "method", "class": "class",
           "singleton_class": "class", "module": "module"},
    name_rules={"simple_symbol": _symbol},
    scope_openers=frozenset({"singleton_class"}),
    maker=_maker,
    method_hosts=frozenset({"module"}),  # a module's functions are its methods
    finish=finish_reading(RULES),
)
