"""A folder whose repository was replaced by another: the store knows a repository by its
folder's path, so the first one's pins stay under it. What the store says of them."""

from __future__ import annotations

import shutil
import subprocess

import context_tools
from context_tools.faces.packs.store import render_list
from corpora.gitbuild import RepoBuilder
from indexer import api


def test_a_folder_holding_another_repository_is_told_in_freshness_and_store_list(tmp_path):
    """The first repository's `main` and `v1` stay pinned under the folder's path once another
    repository is put there. Answers read from them say the repository does not hold the pinned
    commit (was: `main moved from X to Y since it was pinned`, of a commit that repository never
    had), and `store list` marks each repository there that does not hold a listed commit
    (`holds_commit`), where a fresh clone of the first, holding it, is marked as holding it."""
    path = tmp_path / "proj"
    first = RepoBuilder(path)
    old = first.commit({"a.py": "def alpha():\n    return 1\n"})
    subprocess.run(["git", "-C", str(path), "tag", "v1"], check=True)
    shutil.copytree(path, tmp_path / "saved")  # the first repository, to be put back as a clone later
    home = str(tmp_path / "store")
    with api.open_store(home) as store:
        api.index(str(path), "main", store=store)
        api.index(str(path), "v1", store=store)
    shutil.rmtree(path)
    other = RepoBuilder(path)
    new = other.commit({"b.py": "def beta():\n    return 2\n"})
    client = context_tools.Client(store=home)

    main = client.call("context.overview", repo=str(path), rev="main").freshness
    assert (main.status, main.pinned_oid, main.current_oid) == ("stale", old, new)
    assert "moved from" not in main.reason and f"does not hold the pinned commit {old[:12]}" in main.reason
    assert "or the folder now holds another repository" in main.reason
    v1 = client.call("context.overview", repo=str(path), rev="v1").freshness
    assert v1.status == "unknown" and f"does not hold the pinned commit {old[:12]} either" in v1.reason

    def holds() -> list[bool | None]:
        row, = client.call("store.list").data.snapshots
        return [r.holds_commit for r in row.repos]

    assert holds() == [False]
    assert f"commit not in {str(path)[:20]}" in render_list(client.call("store.list"))
    shutil.rmtree(path)
    shutil.copytree(tmp_path / "saved", path)  # the first repository back: its commit is there again
    assert holds() == [True]
    again = client.call("context.overview", repo=str(path), rev="v1").freshness
    assert again.status == "current"
