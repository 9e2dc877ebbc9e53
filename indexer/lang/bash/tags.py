"""Bash's (and zsh's) tags hooks (indexer.lang.tags_hooks)."""

from __future__ import annotations

from tree_sitter import Node

from indexer.lang.ancestry import parent as parent_of
from indexer.lang.bash.top_variables import top_variables
from indexer.lang.tags_hooks import TagsHooks
from indexer.model import Occurrence


def _alias(node: Node, start: int, name: str, sites: list[Occurrence], skip: int = 0) -> tuple[int, str] | None:
    """An alias's name: the text of its `name=value` argument, from `skip` (past a quote) up to
    the `=`; none without one (`alias ll` prints, `-g` is an option)."""
    cut = name.find("=", skip)
    if cut <= skip:
        return None
    alias = name[skip:cut]
    row, col = node.start_point
    sites.append(Occurrence(alias, row + 1, col + 1 + skip, "definition"))
    return start + skip, alias


def _word_name(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str] | None:
    """A function's name as written; an alias's as `_alias` reads it."""
    parent = parent_of(node)
    if parent is not None and parent.type == "function_definition":
        return start, name
    return _alias(node, start, name, sites)


def _quoted_alias(node: Node, start: int, name: str, data: bytes, sites: list[Occurrence]) -> tuple[int, str] | None:
    """An alias whose whole argument is quoted (`alias 'la=ls -a'`, `alias "ll=ls -l"`): read
    inside the quotes (a `raw_string` keeps its quote, a `string`'s first `string_content`
    does not)."""
    return _alias(node, start, name, sites, 1 if node.type == "raw_string" else 0)


HOOKS = TagsHooks(kinds={"function_definition": "function", "variable_assignment": "variable"},
                  name_rules={"word": _word_name, "raw_string": _quoted_alias, "string_content": _quoted_alias},
                  variables=top_variables)
