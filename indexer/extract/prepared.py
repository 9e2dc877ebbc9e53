"""Importing this module sets every grammar language's extraction up in the process
(`blob.prepare`). The MCP server's forkserver preloads it (indexer/worker_start.py), so each
worker it forks starts with every tags query compiled, where each would otherwise compile
again every language it meets, on every index.
"""

from __future__ import annotations

from indexer.extract.blob import prepare
from indexer.lang.registry import GRAMMAR_LANGUAGES

prepare(sorted(GRAMMAR_LANGUAGES))
