"""What an agent pays and meets over MCP as it works through a task from a cold start: paging a
name's sites to the end, asking the Repo Map for more than the reply ceiling holds, naming a
method as its language's documentation writes it, guessing a release's tag. Each through the
MCP SDK's client, against the shared scratch server (`tests/conftest.py`)."""

from __future__ import annotations

from pathlib import Path

from corpora.gitbuild import RepoBuilder
from tests.mcp_clients import checkout, indexed_calls, python_prepared, text_of  # noqa: F401 - fixture


def _pages(scratch_server, repo: Path, tool: str, args: dict) -> list[dict]:
    """Every page of one query, each cursor passed back as an agent does, to the last."""
    async def work(client):
        indexed = await client.call_tool("repo_index", {"repo": str(repo)})
        assert not indexed.is_error, indexed
        pages, cursor = [], None
        while True:
            page = text_of(await client.call_tool(tool, {"repo": str(repo), **args, **({"cursor": cursor} if cursor
                                                                                        else {})}))
            assert page.get("ok"), page  # a spilled reply is {head, note, path, bytes}
            pages.append(page)
            cursor = page["page"]["cursor"]
            if not cursor:
                return pages

    return scratch_server.run(work)


def test_a_page_of_sites_after_the_first_does_not_send_the_definitions_again(scratch_server):
    """Was: every page of `context_references` carried the definitions its sites were resolved
    against, the same list each time (on flask, `references app`: 3,079 bytes of 13 definitions
    on each of 21 pages, 40% of a page under the 8 kB ceiling). Now the first page carries them
    and a later page says they are there; so its sites fill the room they took."""
    defining = {f"pkg/m{i}.py": f"def run(x):\n    return x\n\n\nclass C{i}:\n    def run(self):\n        return {i}\n"
                for i in range(6)}
    calling = {f"pkg/use{i}.py": "from pkg.m0 import run\n\n\n" + "".join(f"run({j})\n" for j in range(12))
               for i in range(4)}
    repo = checkout(scratch_server.place("pages-of-sites") / "repo", {**defining, **calling})
    pages = _pages(scratch_server, repo, "context_references", {"name": "run", "limit": 10})
    assert len(pages) > 3
    first = pages[0]["data"]["definitions"]
    assert len(first) == 12 and first[0]["sites"] >= 48, first
    for page in pages[1:]:
        assert page["data"]["definitions"] == {
            "unknown": "not_recorded",
            "reason": "the definitions are on the first page, which each site's `definition` indexes"}, page
        assert page["data"]["definitions_total"] == 12
    sites = [s for p in pages for s in p["data"]["sites"]]
    assert len(sites) == pages[0]["page"]["total"] == len({(s["path"], s["line"], s["col"]) for s in sites})
    assert all(s["definition"] < 12 for s in sites if "definition" in s)


def test_a_map_asked_for_more_than_the_ceiling_holds_comes_back_fitted_not_spilled(scratch_server):
    """Was: `context_map` with a budget past what an 8 kB reply holds (the schema offers up to
    64k; on flask `"budget": "8k"` made a reply of 8,615 bytes) was spilled to a file: a reply of
    8,150 bytes holding 7,298 of the map's text cut short, and a second read of the file. Now the
    map is fitted to what the reply holds, as a page of items is, and its cursor, passed back with
    the budget as asked, pages on to the last file."""
    files = {f"pkg/mod{i:02d}.py": "".join(f"def handler_{i:02d}_{j:02d}(request, response, context, options=None):\n"
                                          f"    return {j}\n\n\n" for j in range(12))
             for i in range(40)}
    repo = checkout(scratch_server.place("wide-map") / "repo", files)
    pages = _pages(scratch_server, repo, "context_map", {"budget": "16k"})
    first = pages[0]["data"]
    assert 256 <= first["budget"] < 16384 and first["bytes"] <= first["budget"], first
    assert len(pages) > 1
    paths = [f["path"] for p in pages for f in p["data"]["files"]]
    assert sorted(paths) == sorted(files) and len(paths) == pages[0]["page"]["total"]


def test_a_method_named_as_documentation_or_a_test_runner_writes_it_is_found(scratch_server):
    """Was: `Client#fetch`, as Ruby's and JSDoc's documentation name a method, and a pytest node id
    as a test run prints it (`tests/test_client.py::TestClient::test_fetch[1-2]`) were no
    qualified names: the first answered near names of `Client#fetch`'s whole spelling (on rack,
    `Rack::Request#params` found nothing; on express, `Router#route` nothing), the second near
    names by which another `fetch` could come first. Now `#` before a member is a separator, and
    a node id's path is its module's parts, its parameters dropped."""
    repo = checkout(scratch_server.place("doc-names") / "repo", {
        "pkg/client.py": "class Client:\n    def fetch(self, url):\n        return url\n\n\ndef fetch(url):\n    return 1\n",
        "pkg/use.py": "from pkg.client import Client\n\n\ndef go():\n    return Client().fetch('/')\n",
        "tests/test_client.py": ("import pytest\n\n\nclass TestClient:\n    @pytest.mark.parametrize('a,b', [(1, 2)])\n"
                                 "    def test_fetch(self, a, b):\n        assert a < b\n"),
    })
    member, sites, node, private = indexed_calls(scratch_server, repo, [
        ("context_symbol", {"name": "Client#fetch"}),
        ("context_references", {"name": "Client#fetch"}),
        ("context_symbol", {"name": "tests/test_client.py::TestClient::test_fetch[1-2]"}),
        ("context_symbol", {"name": "#fetch", "fuzzy": False}),  # a JavaScript private name's `#` stays
    ])
    assert member.get("ok") and not member["data"]["fuzzy"], member
    assert [(d["qualified"], d["match"]) for d in member["data"]["definitions"]] == [("Client.fetch", "exact")]
    assert [d["qualified"] for d in sites["data"]["definitions"]] == ["Client.fetch"], sites
    assert [(s["path"], s["resolution"]) for s in sites["data"]["sites"]] == [("pkg/use.py", "import")], sites
    assert not node["data"]["fuzzy"], node
    assert [(d["qualified"], d["path"]) for d in node["data"]["definitions"]] == [
        ("TestClient.test_fetch", "tests/test_client.py")], node
    assert private["error"]["code"] == "not_found", private


def test_a_release_guessed_with_another_prefix_names_the_tags_that_hold_it(scratch_server):
    """Was: `rev: v1.2.0` where the release is tagged `1.2.0` (or `pkg-1.2.0`) was `unknown_rev`
    naming the repository's branches alone, so an agent guessed again (on flask, tagged
    `flask-3.0.3`, `v3.0.3` named `main` and nothing more). Now it names the tags holding the
    version, whole: `1.2` or `1.2.01` names none of them."""
    builder = RepoBuilder(scratch_server.place("release-tags") / "repo")
    first = builder.commit({"pkg/a.py": "def f():\n    return 1\n"})
    builder.commit({"pkg/a.py": "def f():\n    return 2\n"})
    builder.tag("1.2.0", first)
    builder.tag("pkg-1.2.0", first)
    builder.tag("1.2.01", first)
    guessed, short = indexed_calls(scratch_server, builder.path, [
        ("context_symbol", {"name": "f", "rev": "v1.2.0"}),
        ("context_symbol", {"name": "f", "rev": "v1.2"}),
    ])
    assert guessed["error"] == {"code": "unknown_rev", "message": "unknown revision 'v1.2.0'; tags holding 1.2.0: "
                                "1.2.0, pkg-1.2.0; the repository's branches: main"}, guessed
    assert short["error"]["message"] == "unknown revision 'v1.2'; the repository's branches: main", short


def test_near_names_come_by_their_files_rank_within_each_tier(scratch_server):
    """Was: the near names of a name nothing defines came in name order, so on flask `teardown`
    listed tests' local `app_teardown1`, `child_teardown1`, ... before `Scaffold.teardown_request`
    (24th of 35). Now the names containing it come by their file's rank, as exact matches do,
    the names equal but for case still first."""
    repo = checkout(scratch_server.place("near-by-rank") / "repo", {
        "pkg/core.py": "def teardown_request(f):\n    return f\n",
        **{f"pkg/use{i}.py": "from pkg.core import teardown_request\n" for i in range(3)},
        "tests/test_core.py": "def a_teardown():\n    pass\n\n\ndef b_teardown():\n    pass\n",
        "tests/test_case.py": "def Teardown():\n    pass\n",
    })
    near, = indexed_calls(scratch_server, repo, [("context_symbol", {"name": "teardown"})])
    assert near.get("ok") and near["data"]["fuzzy"], near
    assert [d["qualified"] for d in near["data"]["definitions"]] == [
        "Teardown", "teardown_request", "a_teardown", "b_teardown"], near


def test_a_dirty_checkouts_freshness_gives_its_advice_once(scratch_server):
    """Was: an agent editing a checkout that a commit server reads got, on every reply, the
    advice of a `dirty` freshness twice: in its `reason` and again in `worktree.tree_oid`'s
    unknown beside it (131 bytes of each reply). Now the unknown says only that the working
    tree was not read."""
    repo = checkout(scratch_server.place("dirty-once") / "repo", {"pkg/a.py": "def f():\n    return 1\n"})
    (repo / "pkg" / "a.py").write_text("def f():\n    return 2\n")
    answer, = indexed_calls(scratch_server, repo, [("context_symbol", {"name": "f"})])
    fresh = answer["freshness"]
    assert fresh["status"] == "dirty" and fresh["reason"].endswith(
        "this server answers from commits; one started with `rennet mcp --worktree` answers from the working tree"), fresh
    assert fresh["worktree"]["tree_oid"] == {"unknown": "not_assessed", "reason": "the working tree was not read"}


def test_indexing_a_repository_of_many_images_answers_inline(scratch_server):
    """Was: `repo_index` listed every file it skipped, so a repository of 250 images answered an
    agent's first call with a spill (on 400 icons, a reply of 7,983 bytes of the list cut short,
    its freshness past the cut). Now an agent's reply lists the first 20, those skipped for a
    reason it may act on first (an LFS pointer never fetched), and `skipped_total` counts them
    all."""
    lfs = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 12345\n"
    repo = checkout(scratch_server.place("many-images") / "repo", {
        "src/app.py": "def f():\n    return 1\n", "zz/data.csv": lfs,
        **{f"assets/icon_{i:03d}.png": b"\x89PNG\r\n\x1a\n\x00" + bytes([i % 256]) * 40 for i in range(250)}})

    async def work(client):
        return text_of(await client.call_tool("repo_index", {"repo": str(repo)}))

    indexed = scratch_server.run(work)
    assert indexed.get("ok"), indexed
    data = indexed["data"]
    assert data["skipped_total"] == 251 and len(data["skipped"]) == 20, data
    assert data["skipped"][0] == {"path": "zz/data.csv", "reason": "lfs_pointer"}
    assert data["skipped"][1:] == [{"path": f"assets/icon_{i:03d}.png", "reason": "binary"} for i in range(19)]
    assert indexed["freshness"]["status"] == "current"


def test_a_name_missing_from_a_half_written_file_says_how_to_read_the_commit(worktree_server, tmp_path):
    """Was: on a `--worktree` server, a definition in a file the agent is half way through editing
    was `not_found`, naming the file and the lines that do not parse, with no next step. Now it
    says that `rev: HEAD` reads the last commit instead, as `context_references`' note does."""
    repo = checkout(tmp_path / "repo", {"pkg/helpers.py": "def split_path(name: str) -> list[str]:\n    return [name]\n"})
    (repo / "pkg" / "helpers.py").write_text('def split_path(name: str, sep: str = ".\n    return [name]\n')

    async def work(client):
        tree = text_of(await client.call_tool("context_symbol", {"repo": str(repo), "name": "split_path"}))
        sites = text_of(await client.call_tool("context_references", {"repo": str(repo), "name": "split_path"}))
        indexed = await client.call_tool("repo_index", {"repo": str(repo), "rev": "HEAD"})
        assert not indexed.is_error, indexed
        return tree, sites, text_of(await client.call_tool("context_symbol", {"repo": str(repo), "name": "split_path",
                                                                             "rev": "HEAD"}))

    tree, sites, commit = worktree_server.run(work)
    told = "pkg/helpers.py at lines 1-2; `rev: HEAD` reads the last commit instead"
    assert tree["error"]["code"] == "not_found" and tree["error"]["message"].endswith(told), tree
    assert sites["data"]["parse_errors"]["note"].endswith(told), sites
    assert [d["signature"] for d in commit["data"]["definitions"]] == ["def split_path(name: str) -> list[str]:"]
