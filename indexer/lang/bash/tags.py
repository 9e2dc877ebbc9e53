"""Bash's tags hooks (indexer.lang.tags_hooks)."""

from indexer.lang.tags_hooks import TagsHooks

HOOKS = TagsHooks(kinds={"function_definition": "function", "variable_assignment": "variable"})
