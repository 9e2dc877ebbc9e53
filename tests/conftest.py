"""Fixtures shared by the test modules."""

from __future__ import annotations

import compileall
import itertools
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator

import pytest

from tests import examples  # noqa: F401  # registers and loads the Hypothesis profile first
from tests.indexed import Asked, index_files

if TYPE_CHECKING:  # the MCP SDK they import costs a second: loaded by the fixtures that start a server
    from tests.mcp_clients import HttpServer, RawStdio, Scratch

ROOT = Path(__file__).resolve().parent.parent
# What the suite's child processes import from the checkout.
PACKAGES = ("indexer", "delta", "context_tools", "corpora", "benchmarks")


def pytest_configure(config: pytest.Config) -> None:
    """Compile the checkout's modules once when Python may not write their bytecode itself.

    Under PYTHONDONTWRITEBYTECODE every process the tests start (CLI runs, servers, pool workers)
    would compile each module it imports from the checkout again; an installed copy has them
    compiled by pip. Only the first pytest process compiles: xdist's workers start after it."""
    if sys.dont_write_bytecode and not hasattr(config, "workerinput"):
        for package in PACKAGES:
            compileall.compile_dir(ROOT / package, quiet=2, rx=re.compile(r"[/\\](polyglot|fixtures)[/\\]"))


@pytest.fixture
def indexed_files(tmp_path) -> Callable[..., Asked]:
    """Commit a file table at main and index it: `indexed_files(files)` -> the client and the
    repository to ask (each call a repository and a store of its own, under tmp_path)."""
    made = itertools.count()

    def make(files: dict[str, Any], message: str = "files") -> Asked:
        return index_files(tmp_path / f"indexed-{next(made)}", files, message)

    return make


@pytest.fixture(scope="session")
def synthetic_bundle(tmp_path_factory) -> Path:
    """The benchmarks' generated corpus (1,000 files, seed 0) indexed and exported once a test
    process: a bundle the tests that import it only read."""
    from corpora.synthetic import generate
    from indexer.api import index
    from indexer.fleet import bundle
    from indexer.store.database import Store
    from indexer.store.snapshot import load

    root = tmp_path_factory.mktemp("synthetic-bundle")
    repo = root / "syn.git"
    generate(repo, files=1000, seed=0)
    with Store.open(root / "origin") as store:
        index(str(repo), "HEAD", store)
        bundle.export(load(store, str(repo), "HEAD"), root / "s.rnb")
    return root / "s.rnb"


@pytest.fixture(scope="session")
def stdio_server() -> Iterator[Callable[[Callable[[Any], Awaitable[Any]]], Any]]:
    """`run_stdio(world.store, work)` (tests/mcp_clients.py) for the tests of any module that only
    send calls to a plain server of the default root over the world's store: one server a test
    process, each `work(client)` in its one session. Its forkserver prepares Python's queries
    alone, as tests/mcp_clients.py's `python_prepared` has them: the world's other files are
    compiled by the worker that meets them, to the same answers."""
    from indexer.worker_start import PREPARE_ENV
    from tests.mcp_clients import held_stdio
    from tests.test_context_world import build_world

    with held_stdio(build_world().store, tempfile.gettempdir(), {PREPARE_ENV: "python"}) as run:
        yield run


@pytest.fixture(scope="session")
def scratch_root(tmp_path_factory) -> Path:
    """The one root of the shared servers whose tests index repositories of their own, each in a
    folder of its own under it (`Scratch.place`)."""
    return tmp_path_factory.mktemp("scratch")  # short: the paths of errors are cut past a length


@pytest.fixture(scope="session")
def scratch_server(scratch_root: Path, tmp_path_factory) -> Iterator[Scratch]:
    """One spawned server (a `tests.mcp_clients.Scratch`) for the tests of any module that index
    repositories of their own under its root and read them back: a server start each spared,
    each test in its own folder of the root. Python's queries prepared alone, as above."""
    from indexer.worker_start import PREPARE_ENV
    from tests.mcp_clients import Scratch, held_stdio

    store = tmp_path_factory.mktemp("scratch-store")
    with held_stdio(str(store), str(scratch_root), {PREPARE_ENV: "python"}) as run:
        yield Scratch(scratch_root, store, run)


@pytest.fixture(scope="session")
def raw_stdio(scratch_root: Path, tmp_path_factory) -> Iterator[RawStdio]:
    """One server written raw lines (a `tests.mcp_clients.RawStdio`) for the tests of the stdio
    wire of any module, serving the scratch root over a store of its own: each test's lines a
    batch, each repository it indexes in a folder of its own under the root."""
    from indexer.worker_start import PREPARE_ENV
    from tests.mcp_clients import RawStdio

    server = RawStdio(str(tmp_path_factory.mktemp("raw-stdio") / "store"), "--root", str(scratch_root),
                      env={PREPARE_ENV: "python"})
    try:
        yield server
    finally:
        if server.proc.poll() is None:
            server.close()


@pytest.fixture(scope="session")
def http_server() -> Iterator[HttpServer]:
    """`rennet mcp --http 127.0.0.1:0` (a `tests.mcp_clients.HttpServer`) over the world's store,
    serving the temporary folder every fixture lives in, for the tests of any module that send
    it calls: each in sessions (or requests of no session) of its own, each that indexes in a
    folder of its own. Every request it held is let go before its test ends."""
    from indexer.worker_start import PREPARE_ENV
    from tests.mcp_clients import HttpServer
    from tests.test_context_world import build_world

    server = HttpServer("127.0.0.1", 0, build_world().store, tempfile.gettempdir(), {PREPARE_ENV: "python"})
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def worktree_server(tmp_path_factory) -> Iterator[Scratch]:
    """One `--worktree` server (a `tests.mcp_clients.Scratch`) serving the temporary folder every
    fixture lives in, over a store of its own, for the tests of any module that send it calls
    about checkouts of their own (each a repository the others do not name)."""
    from indexer.worker_start import PREPARE_ENV
    from tests.mcp_clients import Scratch, held_stdio

    store = tmp_path_factory.mktemp("worktree-server-store")
    root = Path(tempfile.gettempdir())
    with held_stdio(str(store), str(root), {PREPARE_ENV: "python"}, options=("--worktree",)) as run:
        yield Scratch(root, store, run)


@pytest.fixture
def server_temp() -> Iterator[Path]:
    """An empty folder for a server's temporary files (its TMPDIR), to see what it leaves there:
    under the system's own, since multiprocessing puts a forkserver's socket in it, whose path
    must fit a socket's address (108 bytes), which a test's tmp_path under xdist outgrows."""
    folder = Path(tempfile.mkdtemp(prefix="rennet-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
