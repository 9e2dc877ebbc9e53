"""Importing this module sets grammar languages' extraction up in the process
(`blob.prepare`): those `worker_start.PREPARE_ENV` names, else those the HEAD trees of the
repositories holding, or under, the `worker_start.ROOTS_ENV` folders name, else every one.
The MCP server's forkserver preloads it (indexer/worker_start.py), so each worker it forks
starts with those tags queries compiled, where each would otherwise compile again every
language it meets, on every index. The trees are walked here, in the forkserver, not on a
thread of the host's.
"""

from __future__ import annotations

import os

from indexer.extract.blob import prepare
from indexer.lang.registry import GRAMMAR_LANGUAGES
from indexer.worker_start import PREPARE_ENV, ROOTS_ENV


def _languages() -> frozenset[str]:
    named = os.environ.get(PREPARE_ENV)
    if named is not None:
        return GRAMMAR_LANGUAGES.intersection(named.split(","))
    roots = os.environ.get(ROOTS_ENV)
    if roots is None:
        return GRAMMAR_LANGUAGES
    import json

    from indexer.git.head_languages import head_languages

    try:
        dirs = json.loads(roots)
    except ValueError:
        return GRAMMAR_LANGUAGES
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        return GRAMMAR_LANGUAGES
    found = head_languages(dirs)
    return GRAMMAR_LANGUAGES if found is None else GRAMMAR_LANGUAGES.intersection(found)


prepare(sorted(_languages()))
