"""What a hostile MCP client (or an agent a file steered) is told, checked with the real server
and the MCP SDK's own client: every answer that tells the freshness of a commit a checkout has
checked out says `dirty` while its working tree differs, as each answer read from it says, and
every answer validates against its tool's own `outputSchema`."""

from __future__ import annotations

import pygit2
import pytest

from context_tools.faces.dispatch import Executor
from tests.mcp_clients import Scratch, python_prepared, text_of  # noqa: F401 - fixture
from tests.schema_checks import checked_validator


def _checkout(folder) -> str:
    """A repository with one commit checked out (its index written, as `git clone` leaves it)."""
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(folder / "repo")
    builder.commit({"app.py": "def handler():\n    return 1\n", "lib.py": "def helper():\n    return 2\n"})
    builder.repo.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    return str(builder.path)


def test_every_freshness_of_a_checked_out_commit_says_dirty_while_the_working_tree_differs(scratch_server: Scratch):
    """docs/worktree.md: an answer read from the commit a checkout is on, while its working tree
    differs, is `dirty`, not `current`. `repo_snapshots` listed that rev `current`,
    `workspace_status` the member `current`, and a workspace answer's own freshness `current`
    beside a member's `dirty`: an agent asking whether what it reads is what it edits was told
    yes."""
    repo = _checkout(scratch_server.place("dirty-freshness"))
    user = Executor("python", store=str(scratch_server.store), receipts=False)
    assert user.run("workspace.create", {"name": "dirty-freshness"}).ok
    assert user.run("workspace.add", {"name": "dirty-freshness", "repo": repo, "rev": "HEAD"}).ok

    async def asked(client):
        tools = {t.name: checked_validator(t.output_schema) for t in (await client.list_tools()).tools}
        calls = {"context_symbol": {"repo": repo, "name": "handler"},
                 "repo_snapshots": {"repo": repo},
                 "workspace_status": {"name": "dirty-freshness"},
                 "context_overview": {"workspace": "dirty-freshness"}}
        answers = {}
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            body = text_of(result)
            assert result.is_error is False and result.structured_content == body, body
            tools[name].validate(body)
            answers[name] = body
        return answers

    def statuses(answers: dict) -> dict[str, object]:
        (member,) = answers["workspace_status"]["data"]["members"]
        (rev,) = answers["repo_snapshots"]["data"]["revs"]
        return {"symbol": answers["context_symbol"]["freshness"]["status"], "snapshots": rev["status"],
                "member": member["freshness"], "counted": answers["workspace_status"]["data"]["counts"],
                "workspace": answers["context_overview"]["freshness"]["status"]}

    assert scratch_server.run(lambda c: c.call_tool("repo_index", {"repo": repo})).is_error is False
    clean = {"current": 1, "stale": 0, "unknown": 0, "dirty": 0}
    assert statuses(scratch_server.run(asked)) == {"symbol": "current", "snapshots": "current", "member": "current",
                                                   "counted": clean, "workspace": "current"}
    with open(f"{repo}/app.py", "a", encoding="utf-8") as edited:
        edited.write("\n\ndef uncommitted():\n    return 3\n")
    answers = scratch_server.run(asked)
    assert statuses(answers) == {"symbol": "dirty", "snapshots": "dirty", "member": "dirty",
                                 "counted": {**clean, "current": 0, "dirty": 1}, "workspace": "dirty"}
    assert "repo: dirty" in answers["context_overview"]["freshness"]["reason"]


@pytest.mark.parametrize("unchecked", ["bare", "no index"])
def test_a_repository_with_no_checkout_to_compare_keeps_its_commits_freshness(scratch_server: Scratch, unchecked):
    """A bare repository, or one whose commits were made without a checkout (no index), has no
    working tree to differ: its rev is `current` wherever it is listed."""
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(scratch_server.place(f"no-checkout-{unchecked.replace(' ', '-')}") / "repo",
                          bare=unchecked == "bare")
    builder.commit({"app.py": "def handler():\n    return 1\n"})
    repo = str(builder.path)

    async def asked(client):
        assert (await client.call_tool("repo_index", {"repo": repo})).is_error is False
        return text_of(await client.call_tool("repo_snapshots", {"repo": repo}))

    assert [r["status"] for r in scratch_server.run(asked)["data"]["revs"]] == ["current"]
