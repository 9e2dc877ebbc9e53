"""What a read built is freed by reference counting as its call ends: nothing of it is left in a
reference cycle. A resident server's reads run one after another with the collector rarely
reaching its oldest generation, so a cycle kept what a read held (a file's lines and facts, the
snapshot, the typings of its receivers) until a full collection.

Each read of the `context.*` tools runs once to load what it imports, then again with the
collector paused, through the Python face as the MCP server runs it, its answer cache given no
room: what a read keeps there is dropped as its call settles, so what it would leave in cycles
once dropped is looked for too (`tests.cycles`)."""

from __future__ import annotations

from typing import NamedTuple

import pygit2
import pytest

import context_tools
from corpora.fixtures import polyglot_files
from corpora.gitbuild import RepoBuilder
from indexer.pipeline.collector import collector_paused
from tests.cycles import left_in_cycles


class World(NamedTuple):
    client: context_tools.Client
    repo: str
    checkout: str


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    """A repository of every language with a second commit, a checkout of it with an edit of
    its working tree, and a workspace of both."""
    root = tmp_path_factory.mktemp("read-cycles")
    files = polyglot_files()
    builder = RepoBuilder(root / "repo")
    builder.commit(files)
    builder.commit({path: f"{text}\n// {len(text)}\n" for path, text in files.items()
                    if isinstance(text, str) and path.endswith((".rs", ".ts", ".go"))})
    checkout = root / "checkout"
    pygit2.clone_repository(str(root / "repo"), str(checkout))
    (checkout / "python/src/app/extra.py").write_text("from app.models import User\n\n\ndef make():\n    return User()\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RENNET_CACHE_BYTES", "0")
        client = context_tools.Client(store=str(root / "store"))
    for repo in (root / "repo", checkout):
        client.call("repo.index", repo=str(repo))
        client.call("repo.index", repo=str(repo), rev="HEAD~1")
    client.call("workspace.create", name="both")
    client.call("workspace.add", name="both", repo=str(root / "repo"), member="repo")
    client.call("workspace.add", name="both", repo=str(checkout), member="checkout")
    return World(client, str(root / "repo"), str(checkout))


READS = [
    ("context.references", {"name": "User"}),  # Python, Java, ... classes, and their receivers
    ("context.references", {"name": "Store", "text": True}),  # TypeScript's typed receivers
    ("context.references", {"name": "save", "include_definitions": True}),
    ("context.references", {"name": "User", "worktree": True}),
    ("context.references", {"name": "Store", "workspace": "both"}),
    ("context.file", {"path": "python/src/app/service.py"}),
    ("context.file", {"path": "rust/src/lib.rs", "section": "imports"}),
    ("context.file", {"path": "python/src/app/extra.py", "worktree": True}),
    ("context.symbol", {"name": "Shape"}),  # walks Rust's module trees
    ("context.symbol", {"name": "User", "hierarchy": True}),
    ("context.symbol", {"name": "Usr"}),  # near names
    ("context.symbol", {"name": "Shape", "workspace": "both"}),
    ("context.symbol", {"name": "make", "worktree": True}),
    ("context.overview", {}),
    ("context.overview", {"section": "packages"}),
    ("context.overview", {"workspace": "both"}),
    ("context.map", {}),
    ("context.map", {"focus": ["python/src/app/service.py"]}),
    ("context.map", {"worktree": True}),
    ("context.novelty", {"base": "HEAD~1"}),
    ("context.novelty", {"base": "HEAD~1", "section": "symbols"}),
    ("context.novelty", {"base": "HEAD", "worktree": True}),
]


@pytest.mark.parametrize(("command", "asked"), READS, ids=[f"{c}-{'-'.join(map(str, a.values()))}" for c, a in READS])
def test_a_read_leaves_nothing_in_cycles(world, command, asked):
    if "workspace" not in asked:
        asked = {"repo": world.checkout if asked.get("worktree") else world.repo, **asked}
    world.client.call(command, **asked)  # what it imports, imported
    with collector_paused():
        left_in_cycles()
        world.client.call(command, **asked)
        assert left_in_cycles() == []
