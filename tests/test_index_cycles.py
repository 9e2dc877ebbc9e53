"""What an index built is freed by reference counting as its call ends, whether it succeeded or
failed: nothing of it is left in a reference cycle. An index runs with the cyclic collector
paused and hands its survivors to the oldest generation (indexer/pipeline/collector.py), so
a cycle kept what it held (the facts table, a pool's results, the repository's open packs)
until a full collection, which a resident server waiting for its next call rarely reaches.

Each test pauses the collector as the index does, then collects with DEBUG_SAVEALL and looks
only at what is Rennet's own (`tests.cycles`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import context_tools
from corpora.fixtures import build_polyglot, polyglot_files
from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.contract.errors import MissingObjects
from indexer.lang.registry import LANGUAGES
from indexer.pipeline.collector import collector_paused
from tests.cycles import left_in_cycles


@pytest.fixture
def paused() -> Iterator[None]:
    """The collector paused for the whole test, as an index pauses it: only `left_in_cycles`
    collects, so that no pass running meanwhile frees a cycle before it is looked for."""
    with collector_paused():
        yield


def test_an_index_of_every_language_leaves_nothing_in_cycles(tmp_path, paused):
    repo = build_polyglot(tmp_path / "repo").path
    with api.open_store(tmp_path / "first") as store:  # the modules an index loads, loaded
        api.index(str(repo), store=store, workers=1)
    left_in_cycles()
    with api.open_store(tmp_path / "store") as store:  # every file parsed, every resolver built
        report = api.index(str(repo), store=store, workers=1)
    assert report.reused_blobs == 0 and set(LANGUAGES) <= set(report.languages)
    del report
    assert left_in_cycles() == []


def test_a_reindex_and_reads_through_the_faces_leave_nothing_in_cycles(tmp_path, paused):
    """A re-index from a stored snapshot, and reads that walk Rust's crates, through the Python
    face as the MCP server runs them (its answers weighed for its cache)."""
    files = polyglot_files()
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit(files)
    client = context_tools.Client(store=str(tmp_path / "store"))
    repo = str(tmp_path / "repo")

    def calls() -> None:
        client.call("repo.index", repo=repo)
        client.call("context.symbol", repo=repo, name="Shape")  # walks Rust's module trees
        client.call("context.map", repo=repo)

    calls()
    builder.commit({path: f"{text}\n// {len(text)}\n" for path, text in files.items()
                    if isinstance(text, str) and path.endswith((".rs", ".ts", ".go"))})
    left_in_cycles()
    calls()
    assert left_in_cycles() == []


def test_an_index_failing_midway_leaves_nothing_in_cycles(tmp_path, paused):
    """A blob damaged in the object database fails the index as a worker of its pool reads it,
    the other files' facts parsed or on their way."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit(polyglot_files())
    damaged = str(builder.repo.revparse_single("main:rust/src/lib.rs").id)
    place = Path(builder.repo.path) / "objects" / damaged[:2] / damaged[2:]
    data = place.read_bytes()
    place.chmod(0o644)
    place.write_bytes(data[: len(data) // 2])
    del builder
    for home in ("first", "store"):  # the first loads what a failed index loads
        left_in_cycles()
        with api.open_store(tmp_path / home) as store, pytest.raises(MissingObjects):
            api.index(str(tmp_path / "repo"), store=store, workers=2)
    assert left_in_cycles() == []
