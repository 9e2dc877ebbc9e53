"""A repository committed from a file table and indexed into a store of its own, once per
test process, in a scratch folder removed at exit: what module-scoped context-tool tests ask
questions of."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

from corpora.gitbuild import RepoBuilder


def indexed(files: dict[str, Any], prefix: str, message: str = "files") -> tuple[str, str]:
    """(repository path, store path) of `files` committed and indexed at main."""
    from indexer import api

    root = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, root, True)
    RepoBuilder(root / "repo").commit(files, message=message)
    store = api.open_store(root / "store")
    api.index(str(root / "repo"), "main", store=store)
    store.close()
    return str(root / "repo"), str(root / "store")
