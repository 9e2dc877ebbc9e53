"""A file table committed to a repository and indexed into a store of its own: what the
context-tool tests ask their questions of. `index_files` makes one in a folder the caller
owns (the `indexed_files` fixture of tests/conftest.py: in the test's tmp_path); `Indexed`
makes one per test process, when first asked, in a scratch folder removed at exit, for the
module-scoped tests that share it. `definitions` and `sites` are the two questions asked
most, as tuples to compare."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from corpora.gitbuild import RepoBuilder


class Asked(NamedTuple):
    """A client of the store and the repository its questions are about."""

    client: Any  # context_tools.Client
    repo: str

    def call(self, command: str, **args: Any) -> Any:
        """`command` asked of the repository (at its pinned main unless `rev` is given)."""
        return self.client.call(command, repo=self.repo, **args)


def index_files(root: Path, files: dict[str, Any], message: str = "files") -> Asked:
    """`files` committed at main in `root`/repo and indexed into `root`/store."""
    import context_tools
    from indexer import api

    RepoBuilder(root / "repo").commit(files, message=message)
    with api.open_store(root / "store") as store:
        api.index(str(root / "repo"), "main", store=store, workers=1)
    return Asked(context_tools.Client(store=str(root / "store")), str(root / "repo"))


def fingerprint_indexed(store: Path, repo: Path | str, rev: str) -> str:
    """The fingerprint of `rev` indexed into `store` in this process, by one worker: a store to
    start from, a reference, or an index after a fault, where the index's face (its process,
    output and exit) is not what a test is about."""
    from indexer import api
    from indexer.store.database import Store

    with Store.open(store) as opened:
        return api.index(str(repo), rev, store=opened, workers=1).fingerprint


def facts_stored(store: Path) -> int:
    """How many blobs' facts the store at `store` holds."""
    from indexer.store.database import Store

    with Store.open(store) as opened, opened.env.begin(db=opened.facts) as txn:
        return txn.stat(opened.facts)["entries"]


def indexed(files: dict[str, Any], prefix: str, message: str = "files") -> tuple[str, str]:
    """(repository path, store path) of `files` committed and indexed at main, in a scratch
    folder removed when the test process ends."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, root, True)
    asked = index_files(root, files, message)
    return asked.repo, str(root / "store")


class Indexed:
    """A file table committed and indexed at main (`indexed`) once per test process, when
    first asked: the client a module's questions go to, and the snapshot's record."""

    def __init__(self, files: dict[str, Any], prefix: str, message: str = "files") -> None:
        self._made = (files, prefix, message)

    @cached_property
    def paths(self) -> tuple[str, str]:
        """(repository path, store path)."""
        return indexed(*self._made)

    def asked(self) -> Asked:
        """The client and repository path: what `definitions` and `sites` ask."""
        import context_tools

        repo, store = self.paths
        return Asked(context_tools.Client(store=store), repo)

    def fixture(self) -> Any:
        """A module-scoped pytest fixture of `asked()`, named by the module attribute it is
        bound to (`shop = REPO.fixture()`): the fixture each module asking one repository has."""
        import pytest

        @pytest.fixture(scope="module")
        def asked() -> Asked:
            return self.asked()

        return asked

    def record(self) -> Any:
        """The snapshot record at main."""
        from indexer.api import open_store, snapshot

        repo, store_path = self.paths
        with open_store(store_path) as store:
            return snapshot(repo, "main", store=store).record


def definitions(asked: Asked, name: str, **more) -> list[tuple[str, str, int, str]]:
    """(path, qualified, line, match) of each definition `context.symbol` finds of `name` in
    the client's repository, with no near-name fallback; [] when it finds none."""
    from indexer.contract.errors import NotFound

    try:
        result = Asked(*asked).call("context.symbol", name=name, fuzzy=False, **more)
    except NotFound:
        return []
    return [(d.path, d.qualified, d.line, d.match) for d in result.data.definitions]


def sites(asked: Asked, name: str, *fields: str, **more) -> list[tuple]:
    """(path, line, resolution) of each reference site `context.references` finds of `name`, in
    the answer's order; or, with `fields` named, those attributes of each site, where
    "qualified" is the qualified name of the definition the site was resolved to (None if
    none)."""
    result = Asked(*asked).call("context.references", name=name, **more)
    named = fields or ("path", "line", "resolution")
    definitions = result.data.definitions

    def field(site: Any, attribute: str) -> Any:
        if attribute == "qualified":
            return definitions[site.definition].qualified if site.definition is not None else None
        return getattr(site, attribute)

    return [tuple(field(s, f) for f in named) for s in result.data.sites]


class NotedSites:
    """An annotated site fixture (tests/fixtures/sites/<fixture>, a `site:` comment beside each
    line saying which sites it holds) and its index, made when first asked: what a site test
    module starts from. `app()` is the module's fixture of the client, `each_site_test()` the
    test that each noted name's sites are exactly where the comments say."""

    def __init__(self, fixture: str, prefix: str, message: str) -> None:
        from tests.annotated import FIXTURES, load, noted_sites

        self.case = load(FIXTURES / "sites" / fixture, keys=("site:",))
        self.repo = Indexed(self.case.files, prefix, message=message)
        self.noted = noted_sites(self.case)

    def app(self) -> Any:
        import pytest

        repo = self.repo

        @pytest.fixture(scope="module")
        def app() -> Asked:
            return repo.asked()

        return app

    def each_site_test(self) -> Any:
        import pytest

        noted = self.noted

        @pytest.mark.parametrize("name", sorted(noted))
        def test_each_site_is_where_its_comment_says(app: Asked, name: str) -> None:
            assert sorted(sites(app, name)) == noted[name]

        return test_each_site_is_where_its_comment_says


class ImportGraph(NamedTuple):
    """What a snapshot says of its imports: the edges as (source, target), the imports that
    landed nowhere as (path, spec, status), and each file's fan-in, files with none left out."""

    edges: set[tuple[str, str]]
    unresolved: set[tuple[str, str, str]]
    fan_in: dict[str, int]


def import_graph(root: Path, files: dict[str, Any]) -> ImportGraph:
    """`files` committed and indexed in `root` (index_files), and its snapshot's imports."""
    from indexer.api import open_store, snapshot

    asked = index_files(root, files)
    with open_store(root / "store") as store:
        record = snapshot(asked.repo, "main", store=store, index_if_absent=False).record
    return ImportGraph({(e.source, e.target) for e in record.edges},
                       {(u.path, u.spec, u.status) for u in record.unresolved},
                       {path: n for path, n in record.fan_in.items() if n})
