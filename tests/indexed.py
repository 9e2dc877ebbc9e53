"""A repository committed from a file table and indexed into a store of its own, once per
test process, in a scratch folder removed at exit: what module-scoped context-tool tests ask
questions of, and the two questions they ask most (definitions, reference sites) as tuples
to compare."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cached_property
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


class Indexed:
    """A file table committed and indexed at main (`indexed`) once per test process, when
    first asked: the client a module's questions go to, and the snapshot's record."""

    def __init__(self, files: dict[str, Any], prefix: str, message: str = "files") -> None:
        self._made = (files, prefix, message)

    @cached_property
    def paths(self) -> tuple[str, str]:
        """(repository path, store path)."""
        return indexed(*self._made)

    def asked(self) -> tuple[Any, str]:
        """(client, repository path): what `definitions` and `sites` ask."""
        import context_tools

        repo, store = self.paths
        return context_tools.Client(store=store), repo

    def record(self) -> Any:
        """The snapshot record at main."""
        from indexer.api import open_store, snapshot

        repo, store_path = self.paths
        with open_store(store_path) as store:
            return snapshot(repo, "main", store=store).record


def definitions(asked: tuple[Any, str], name: str, **more) -> list[tuple[str, str, int, str]]:
    """(path, qualified, line, match) of each definition `context.symbol` finds of `name` in
    the client's repository (`asked`: client, repository path), with no near-name fallback;
    [] when it finds none."""
    from indexer.contract.errors import NotFound

    client, repo = asked
    try:
        result = client.call("context.symbol", repo=repo, name=name, fuzzy=False, **more)
    except NotFound:
        return []
    return [(d.path, d.qualified, d.line, d.match) for d in result.data.definitions]


def sites(asked: tuple[Any, str], name: str, **more) -> list[tuple[str, int, str]]:
    """(path, line, resolution) of each reference site `context.references` finds of `name`."""
    client, repo = asked
    result = client.call("context.references", repo=repo, name=name, **more)
    return [(s.path, s.line, s.resolution) for s in result.data.sites]
