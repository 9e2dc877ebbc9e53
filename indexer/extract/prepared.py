"""Importing this module sets grammar languages' extraction up in the process
(`blob.prepare`): those `worker_start.PREPARE_ENV` names, else every one. The MCP server's
forkserver preloads it (indexer/worker_start.py), so each worker it forks starts with those
tags queries compiled, where each would otherwise compile again every language it meets, on
every index.
"""

from __future__ import annotations

import os

from indexer.extract.blob import prepare
from indexer.lang.registry import GRAMMAR_LANGUAGES
from indexer.worker_start import PREPARE_ENV

_named = os.environ.get(PREPARE_ENV)
prepare(sorted(GRAMMAR_LANGUAGES if _named is None else GRAMMAR_LANGUAGES.intersection(_named.split(","))))
