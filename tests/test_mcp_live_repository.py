"""A long-lived server while the repository and the store change beside it, as in a working day:
the developer rewrites and prunes history, moves the checkout, fetches a partial clone's blobs,
runs `rennet store gc`. Each answer after the change must be what a server started afresh
gives, never one the server kept from before it (`context_tools/query/pinned.py`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pygit2

from context_tools import Client
from corpora.gitbuild import RepoBuilder
from tests.mcp_clients import python_prepared, text_of  # noqa: F401  # the fixture, for the servers started here
from tests.test_missing_blobs import partial_clone


def _calls(scratch_server, calls: list[tuple[str, dict]]) -> list[dict]:
    async def work(client):
        return [text_of(await client.call_tool(name, args)) for name, args in calls]

    return scratch_server.run(work)


def _prune(repo: Path, oids: list[str]) -> None:
    """Remove loose objects, as `git gc --prune=now` removes those a rewrite left unreachable."""
    for oid in oids:
        (repo / ".git" / "objects" / oid[:2] / oid[2:]).unlink()


def test_a_read_of_a_pinned_commit_pruned_since_says_so_and_how_to_refresh(scratch_server):
    """Was: `missing_objects: blob 094b09b4cf7e is missing from the object database` after a
    reset, an amend and a `git gc --prune=now` removed the commit HEAD was pinned to: nothing an
    agent could act on. Now the error says the pinned commit left the repository, what HEAD
    names now and the tool call that indexes it."""
    path = scratch_server.place("pruned") / "repo"
    builder = RepoBuilder(path)
    first = builder.commit({"a.py": "def f():\n    return 1\n", "pruned.txt": ""})
    second = builder.commit({"a.py": "def f():\n    return 2\n"})
    repo = {"repo": str(path)}
    indexed, before = _calls(scratch_server, [("repo_index", repo), ("context_file", {**repo, "path": "a.py"})])
    assert indexed["data"]["oid"] == second and before["ok"], before
    git = pygit2.Repository(str(path))
    commit = git[second].peel(pygit2.Commit)
    blob = str(commit.tree["a.py"].id)
    git.references.create("refs/heads/main", pygit2.Oid(hex=first), force=True)
    _prune(path, [second, str(commit.tree.id), blob])
    after, references, refreshed, again = _calls(scratch_server, [
        ("context_file", {**repo, "path": "a.py"}),
        ("context_references", {**repo, "name": "f", "include_definitions": True}),
        ("repo_index", repo),
        ("context_file", {**repo, "path": "a.py"}),
    ])
    # what the store holds still answers, from the pinned snapshot
    assert references["freshness"]["status"] == "stale" and references["data"]["definitions"], references
    assert after["error"]["code"] == "missing_objects", after
    assert after["error"]["message"] == (
        f"blob {blob[:12]} is missing from the object database, and so is the commit {second[:12]} that HEAD was "
        f"pinned to when it was indexed (a history rewritten, then pruned, or another repository at its path): "
        f"its files' lines cannot be read; HEAD names {first[:12]} now: call the `repo_index` tool with rev "
        f"'HEAD', then ask again"), after
    assert refreshed["data"]["oid"] == first
    assert again["freshness"]["status"] == "current" and again["data"]["content"]["lines"][1] == "    return 1", again


def test_a_kept_snapshot_of_a_repository_moved_away_is_not_served(scratch_server):
    """Was: once read, a repository whose folder was moved or deleted went on being answered from
    the server's memo, `unknown` ("HEAD no longer resolves in the repository") for the revs read
    before and `not_a_repository` for any other; a file's lines `missing_objects`. Now every rev
    says what a fresh open does, and the folder put back is read again."""
    place = scratch_server.place("moved")
    path = place / "repo"
    RepoBuilder(path).commit({"a.py": "def f():\n    return 1\n", "moved.txt": ""})
    repo = {"repo": str(path)}
    _calls(scratch_server, [("repo_index", repo), ("repo_index", {**repo, "rev": "main"})])
    before = _calls(scratch_server, [("context_symbol", {**repo, "name": "f"})])[0]
    assert before["freshness"]["status"] == "current", before
    os.rename(path, place / "elsewhere")
    gone = _calls(scratch_server, [("context_symbol", {**repo, "name": "f"}),
                                   ("context_symbol", {**repo, "rev": "main", "name": "f"}),
                                   ("context_file", {**repo, "path": "a.py"})])
    for answer in gone:
        assert answer["error"]["code"] == "not_a_repository", answer
        assert answer["error"]["message"].startswith(f"{path} does not exist"), answer
    os.rename(place / "elsewhere", path)
    back = _calls(scratch_server, [("context_symbol", {**repo, "name": "f"})])[0]
    assert back["freshness"]["status"] == "current" and back["data"]["definitions"], back


def test_a_kept_snapshot_dropped_by_a_store_gc_is_not_indexed(scratch_server):
    """Was: a snapshot read under its OID, then left held by no pin (its branch indexed again on)
    and dropped by a `rennet store gc` beside the server, went on answering from the memo where
    the store held what the call read, and `store_error` ("the snapshot record ... left the store
    while it was read") elsewhere. Now it is `not_indexed`, saying which call indexes it."""
    path = scratch_server.place("collected") / "repo"
    builder = RepoBuilder(path)
    first = builder.commit({"a.py": "def f():\n    return 1\n", "collected.txt": ""})
    repo = {"repo": str(path)}
    at_first = {**repo, "rev": first}
    _calls(scratch_server, [("repo_index", {**repo, "rev": "main"})])
    before = _calls(scratch_server, [("context_overview", at_first), ("context_symbol", {**at_first, "name": "f"})])
    assert all(answer["ok"] for answer in before), before
    builder.commit({"a.py": "def f():\n    return 2\n"})
    _calls(scratch_server, [("repo_index", {**repo, "rev": "main"})])
    gc = Client(str(scratch_server.store)).envelope("store.gc")
    assert any(d.startswith(first) for d in gc["data"]["dropped"]), gc
    for answer in _calls(scratch_server, [("context_overview", at_first), ("context_symbol", {**at_first, "name": "f"})]):
        assert answer["error"]["code"] == "not_indexed", answer
        # in the agent's words alone: its read tools never index, and the CLI's command is no tool of its
        assert "; this tool only reads and never indexes: index it first with the `repo_index` tool" in (
            answer["error"]["message"]), answer
        assert "rennet index" not in answer["error"]["message"], answer


def test_a_partial_snapshot_given_way_to_the_complete_one_is_read_afresh(scratch_server):
    """Was: a partial clone's snapshot, once read, went on answering `partial` (and finding none of
    the missing files' symbols) after its blobs were fetched and `repo_index` replaced it with the
    complete snapshot of the same commit, which `repo_snapshots` listed as `current`."""
    place = scratch_server.place("completed")
    files = {"pkg/a.py": "def alpha_completed():\n    return 1\n",
             "pkg/b.py": "def beta_completed():\n    return 2\n"}
    _, part, oid = partial_clone(place, files)
    repo = {"repo": str(part)}
    asked = [("context_symbol", {**repo, "name": name, "fuzzy": False}) for name in ("alpha_completed", "beta_completed")]
    indexed, present, missing = _calls(scratch_server, [("repo_index", repo), *asked])
    assert indexed["freshness"]["status"] == "partial", indexed
    assert present["freshness"]["status"] == "partial", present
    assert missing["error"]["code"] == "not_found", missing  # pkg/b.py's blob is not at hand
    subprocess.run(["git", "-C", str(part), "reset", "-q", "--hard", oid], check=True, capture_output=True)
    whole, *after = _calls(scratch_server, [("repo_index", repo), *asked])
    assert whole["freshness"]["status"] == "current" and whole["data"]["oid"] == oid, whole
    for answer, path in zip(after, ("pkg/a.py", "pkg/b.py")):
        assert answer["freshness"]["status"] == "current", answer
        assert [d["path"] for d in answer["data"]["definitions"]] == [path], answer


def test_a_kept_partial_snapshot_dropped_by_a_store_gc_is_not_indexed(scratch_server):
    """A partial snapshot kept is checked against the record the store holds now: once a `rennet
    store gc` dropped it (its branch indexed again on), it is `not_indexed`, as a complete one is,
    never served from the memo."""
    place = scratch_server.place("partial-collected")
    files = {"pkg/a.py": "def alpha_collected():\n    return 1\n",
             "pkg/b.py": "def beta_collected():\n    return 2\n"}
    _, part, oid = partial_clone(place, files)
    at_first = {"repo": str(part), "rev": oid, "name": "alpha_collected", "fuzzy": False}
    indexed, before = _calls(scratch_server, [("repo_index", {"repo": str(part)}), ("context_symbol", at_first)])
    assert before["freshness"]["status"] == "partial", before
    git = pygit2.Repository(str(part))
    sig = pygit2.Signature("t", "t@example.com")
    git.create_commit("HEAD", sig, sig, "on", git[oid].peel(pygit2.Commit).tree_id, [git.head.target])
    _calls(scratch_server, [("repo_index", {"repo": str(part)})])
    gc = Client(str(scratch_server.store)).envelope("store.gc")
    assert any(d.startswith(oid) for d in gc["data"]["dropped"]), gc
    (after,) = _calls(scratch_server, [("context_symbol", at_first)])
    assert after["error"]["code"] == "not_indexed", after


def test_a_worktree_servers_kept_checkout_moved_away_is_opened_afresh(worktree_server, tmp_path):
    """Was: a `--worktree` server kept the checkout's repository object from its first call, so a
    read after the folder was moved away answered `internal_error: GitError: head reference does
    not exist`. Now it says `not_a_repository`, as a first call does, and reads the folder put
    back."""
    from tests.test_worktree import make_checkout

    checkout = make_checkout(tmp_path)
    ask = ("context_symbol", {"repo": str(checkout), "name": "old_helper"})
    assert _calls(worktree_server, [ask])[0]["freshness"]["status"] == "worktree"
    os.rename(checkout, tmp_path / "elsewhere")
    gone = _calls(worktree_server, [ask])[0]
    assert gone["error"]["code"] == "not_a_repository", gone
    os.rename(tmp_path / "elsewhere", checkout)
    back = _calls(worktree_server, [ask])[0]
    assert back["freshness"]["status"] == "worktree" and back["data"]["definitions"], back


def test_a_kept_workspace_member_moved_away_is_not_read(scratch_server):
    """Was: a workspace member read once went on answering from the server's memo after its folder
    was moved away, `unknown` ("HEAD no longer resolves in the repository; served from the
    pinned snapshot") with its definitions, where `workspace_status` said "repository not
    readable". Now a read says what a first one does: the member was not read."""
    place = scratch_server.place("member-moved")
    path = place / "repo"
    RepoBuilder(path).commit({"a.py": "def member_moved():\n    return 1\n"})
    python = Client(str(scratch_server.store))
    assert python.envelope("workspace.create", name="live-moved")["ok"]
    assert python.envelope("workspace.add", name="live-moved", repo=str(path))["ok"]
    ask = ("context_symbol", {"workspace": "live-moved", "name": "member_moved"})
    before = _calls(scratch_server, [ask])[0]
    assert before["freshness"]["status"] == "current" and before["data"]["definitions"], before
    os.rename(path, place / "elsewhere")
    gone = _calls(scratch_server, [ask])[0]
    assert gone["error"] == {"code": "not_found", "message": "no definition of 'member_moved' in workspace "
                             "'live-moved' (members: repo (not read: not_a_repository))"}, gone
