"""What a reviewing agent, and one asking across a workspace, meets over MCP: a workspace it
cannot list, a field named as another tool names it, a packet summary that lists the first
files, a whitespace hunk beside a real change, and a private module's names in the public API.
Each through the MCP SDK's client, against the shared scratch server (`tests/conftest.py`),
or the Python face where the store must hold no workspace."""

from __future__ import annotations

import json
from pathlib import Path

from context_tools import Client
from corpora.gitbuild import RepoBuilder
from tests.mcp_clients import python_prepared, text_of  # noqa: F401 - fixture


def _calls(scratch_server, calls: list[tuple[str, dict]]) -> list[dict]:
    async def work(client):
        return [text_of(await client.call_tool(name, args)) for name, args in calls]

    return scratch_server.run(work)


def test_a_workspace_miss_names_the_workspaces_no_tool_lists(scratch_server, tmp_path):
    """Was: `no workspace 'x' (see `rennet workspace list`)`, a command no agent tool runs, so an
    agent could not learn the names. Now the miss names the store's workspaces; a store holding
    none says a workspace is made at a terminal, which no agent tool does."""
    repo = scratch_server.place("ws-miss") / "repo"
    RepoBuilder(repo).commit({"a.py": "def f():\n    return 1\n"})
    python = Client(str(scratch_server.store))
    assert python.envelope("workspace.create", name="review-shop")["ok"]
    status, symbol = _calls(scratch_server, [
        ("workspace_status", {"name": "review-shop-x"}),
        ("context_symbol", {"workspace": "review-shop-x", "name": "f"}),
    ])
    for miss in (status, symbol):
        assert miss["error"]["code"] == "not_found", miss
        assert "'review-shop'" in miss["error"]["message"], miss
        assert "rennet workspace list" not in miss["error"]["message"], miss
    empty = Client(str(tmp_path / "store")).envelope("workspace.status", name="shop")
    assert empty["error"]["code"] == "not_found", empty
    assert empty["error"]["message"] == (
        "no workspace 'shop'; this store holds none: a workspace is made at a terminal (`rennet workspace "
        "create NAME`, then `rennet workspace add NAME REPO`); no agent tool makes one"), empty


def test_a_field_the_tool_does_not_take_is_refused_naming_those_it_does(scratch_server):
    """Was: `Object contains unknown field `workspace`` alone, for `workspace_status`, whose field
    is `name` while every context tool's is `workspace`; `symbol` for `context_references`'s
    `name` the same. Now the refusal names the tool's fields, those its schema shows an agent
    (not `dossier_build`'s tracker settings, refused over MCP)."""
    status, references, dossier = _calls(scratch_server, [
        ("workspace_status", {"workspace": "shop"}),
        ("context_references", {"repo": str(scratch_server.place("fields")), "symbol": "f"}),
        ("dossier_build", {"base": "main", "jira": "x"}),
    ])
    assert status["error"]["code"] == "bad_input", status
    assert status["error"]["message"].endswith("unknown field `workspace`; it takes: name, limit, cursor"), status
    assert references["error"]["code"] == "bad_input", references
    assert "; it takes: name, repo, rev, workspace, " in references["error"]["message"], references
    assert "worktree" not in references["error"]["message"]  # a read tool's, off this server
    taken = dossier["error"]["message"].split("; it takes: ")[1].split(", ")
    assert "refresh" in taken and "jira_url" not in taken and "github_allow" not in taken, dossier


def _branch(path: Path) -> RepoBuilder:
    """A base of 34 files, one Python module of two functions among them, and a head changing
    each file: the module with a real change in one function and a blank line between them."""
    module = "def a():\n    return 1\n" + "\n" * 2 + "".join(f"X{i} = {i}\n" for i in range(20)) + \
        "\n\ndef b():\n    return 2\n"
    builder = RepoBuilder(path)
    builder.commit({"pkg/core.py": module, **{f"pkg/f{i:02}.txt": f"line {i}\n" for i in range(33)}})
    changed = module.replace("return 1", "return 10").replace("\n\ndef b", "\n\n\ndef b")
    builder.commit({"pkg/core.py": changed, **{f"pkg/f{i:02}.txt": f"line {i} changed\n" for i in range(33)}},
                   branch="topic", parents=[str(builder.repo.references["refs/heads/main"].target)])
    return builder


def test_a_packet_summary_says_where_the_files_it_leaves_out_are(scratch_server):
    """Was: a summary of its first 30 files answered a page `truncated: true, cursor: null`, no
    word of where the other files were (the page's cursor is how every other tool pages on), and
    a signal file's whitespace-only hunks were counted in the noise class's `hunks` with no file
    named for them. Now `files_elsewhere` says the rest are in packet.json, and a signal file
    lists its `noise_hunks`."""
    repo = _branch(scratch_server.place("summary") / "repo").path
    (summary,) = _calls(scratch_server, [("delta_packet", {"repo": str(repo), "base": "main", "head": "topic"})])
    data, page = summary["data"], summary["page"]
    assert (page["total"], page["returned"], page["truncated"], page["cursor"]) == (34, 30, True, None), page
    assert data["files_elsewhere"] == ("the other 4 files are listed in packet.json (`packet_path`), in this order, "
                                       "with their hunks; no call of this tool pages them"), data
    module = next(f for f in data["files"] if f["path"] == "pkg/core.py")
    assert module["hunks"] == 2 and module["noise_hunks"] == 1, module
    # a signal file's `noise` and a file's `old_path` where it is its path are left out: a
    # page spends its bytes on files (was: both on every file, `null` and the path again)
    assert "noise" not in module and "old_path" not in module and module["status"] == "modified", module
    assert "noise_hunks" not in next(f for f in data["files"] if f["path"] == "pkg/f00.txt")
    (whitespace,) = [c for c in data["noise"] if c["class"] == "whitespace_only"]
    assert whitespace["hunks"] == sum(f.get("noise_hunks", 0) for f in data["files"]) == 1, data["noise"]


def test_a_private_modules_names_are_no_public_api(scratch_server):
    """Was: `def helper()` in `pkg/_impl.py` (a module PEP 8 calls internal: its name starts with an
    underscore) listed as public API added, basis `python:no_leading_underscore`, as were names of
    a `_vendor` package. Now a module or package named so holds no public API; `__init__.py` is
    no private module. Nor does a test file, or a file in a test folder (was: `test_run` of
    `tests/test_api.py` and `make_app` of `tests/helpers.py` listed as public API added)."""
    builder = RepoBuilder(scratch_server.place("private") / "repo")
    builder.commit({"pkg/__init__.py": ""})
    builder.commit({"pkg/__init__.py": "def top():\n    pass\n", "pkg/_impl.py": "def helper():\n    pass\n",
                    "pkg/_vendor/six.py": "def moves():\n    pass\n", "pkg/api.py": "def run():\n    pass\n",
                    "tests/test_api.py": "def test_run():\n    pass\n", "tests/helpers.py": "def make_app():\n    pass\n",
                    "web/api.spec.ts": "export function check() {}\n"},
                   branch="topic", parents=[str(builder.repo.references["refs/heads/main"].target)])
    repo = str(builder.path)
    _, _, novelty = _calls(scratch_server, [
        ("repo_index", {"repo": repo, "rev": "main"}), ("repo_index", {"repo": repo, "rev": "topic"}),
        ("context_novelty", {"repo": repo, "base": "main", "head": "topic", "section": "public_api"})])
    assert [(i["path"], i["qualified"]) for i in novelty["data"]["items"]] == [
        ("pkg/__init__.py", "top"), ("pkg/api.py", "run")], novelty["data"]


def test_a_packet_narrowed_to_paths_leaves_the_whole_one_where_it_was(scratch_server):
    """Was: `delta_packet` with `paths` wrote to the range's folder, over the whole packet, so the
    `packet_path` an agent had been given for the whole range then held the narrowed packet's one
    file. Now a narrowed packet has a folder of its own and the whole one stays."""
    repo = _branch(scratch_server.place("narrowed") / "repo").path
    whole, narrowed = _calls(scratch_server, [
        ("delta_packet", {"repo": str(repo), "base": "main", "head": "topic"}),
        ("delta_packet", {"repo": str(repo), "base": "main", "head": "topic", "paths": ["pkg/core.py"]})])
    assert narrowed["data"]["totals"]["files"] == 1, narrowed["data"]["totals"]
    assert narrowed["data"]["packet_path"] != whole["data"]["packet_path"]
    kept = json.loads(Path(whole["data"]["packet_path"]).read_text())
    assert len(kept["files"]) == 34, [f["path"] for f in kept["files"]]


def test_a_tracker_key_named_once_is_told_not_dropped_unsaid(scratch_server):
    """Was: `PROJ-7: bump Werkzeug` as a commit subject, with no prefix configured, was in no
    reference and no fact: an agent asked what the change claims to fix heard of `#12` alone.
    A key whose prefix is neither configured nor seen twice is still no reference (`UTF-8`,
    `ISO-8859-1` would be), but an `unconfirmed_key` fact names it; a key seen twice is a
    reference, and a prefix known not to be a tracker's (`SHA-256`) is neither."""
    builder = RepoBuilder(scratch_server.place("dossier-keys") / "repo")
    fork = builder.commit({"a.py": "A = 1\n"}, "initial")
    builder.commit({"a.py": "A = 2\n"}, "PROJ-7: bump Werkzeug", branch="fix-12-thing", parents=[fork])
    builder.commit({"a.py": "A = 3\n"}, "hash with SHA-256, see OPS-1 and OPS-2\n\nfixes #12", branch="fix-12-thing")
    (dossier,) = _calls(scratch_server, [
        ("dossier_build", {"repo": str(builder.path), "base": "main", "head": "fix-12-thing"})])
    data = dossier["data"]
    assert [r["id"] for r in data["references"]] == ["#12", "OPS-1", "OPS-2"], data["references"]
    told = [(f["ref"], f["message"]) for f in data["facts"] if f["code"] == "unconfirmed_key"]
    assert told == [("PROJ-7", "PROJ-7 reads as a tracker key, but its prefix is not configured (tracker_prefixes, "
                                "or Jira projects or Linear teams) and the change names no other key of it: not "
                                "taken for a reference")], data["facts"]


def test_a_packet_refused_for_its_arguments_names_them_as_the_tool_takes_them(scratch_server):
    """Was: "delta needs --head REV (or --worktree ...)" and "--previous-base and --previous-head
    go together", flags of `rennet delta`, to an agent whose tool takes `head` and
    `previous_base`. Now each names the field, the flag beside it for the CLI."""
    repo = str(_branch(scratch_server.place("packet-args") / "repo").path)
    no_head, half = _calls(scratch_server, [
        ("delta_packet", {"repo": repo, "base": "main"}),
        ("delta_packet", {"repo": repo, "base": "main", "head": "topic", "previous_head": "main"})])
    assert no_head["error"]["code"] == half["error"]["code"] == "bad_input", (no_head, half)
    assert no_head["error"]["message"].startswith("a packet needs `head` (--head REV)"), no_head
    assert half["error"]["message"].startswith("`previous_base` and `previous_head`"), half


def test_a_moved_member_is_said_to_be_re_pinned_by_the_user_not_by_a_tool(scratch_server):
    """Was: over MCP a member whose branch moved said "(run `rennet workspace sync NAME` to
    re-pin)", in `workspace_status`, in each member's freshness and in the workspace's, a
    command no agent tool runs. Now it says that no agent tool re-pins a member, and what the
    user runs; the CLI's reason is as it was."""
    builder = RepoBuilder(scratch_server.place("ws-moved") / "repo")
    builder.commit({"a.py": "def f():\n    return 1\n"})
    python = Client(str(scratch_server.store))
    assert python.envelope("workspace.create", name="moved-shop")["ok"]
    assert python.envelope("workspace.add", name="moved-shop", repo=str(builder.path), rev="main")["ok"]
    builder.commit({"a.py": "def f():\n    return 2\n"})
    status, symbol = _calls(scratch_server, [
        ("workspace_status", {"name": "moved-shop"}),
        ("context_symbol", {"workspace": "moved-shop", "name": "f"})])
    told = "no agent tool re-pins a member: the user runs `rennet workspace sync moved-shop`)"
    reasons = [status["data"]["members"][0]["reason"], symbol["freshness"]["reason"],
               symbol["data"]["member_freshness"]["items"][0]["reason"]]
    assert all(r.endswith(told) for r in reasons), reasons
    cli = python.envelope("workspace.status", name="moved-shop")["data"]["members"][0]["reason"]
    assert cli.endswith("(run `rennet workspace sync moved-shop` to re-pin)"), cli


def test_a_refusal_names_the_fields_of_the_face_it_came_through(tmp_path):
    """A `--worktree` agent's read tools take `worktree`, so its refusal names it; the user's
    own faces name every field, those an agent is not shown too (`dossier.build`'s tracker)."""
    from context_tools.faces.dispatch import Executor
    from context_tools.faces.roots import Roots

    agent = Executor("mcp", store=str(tmp_path / "home"), roots=Roots.of([str(tmp_path)]), worktree=True)
    refused = agent.run("context.references", {"symbol": "f"}).envelope["error"]
    assert refused["code"] == "bad_input" and "worktree" in refused["message"].split("; it takes: ")[1].split(", ")
    user = Executor("python", store=str(tmp_path / "home")).run("dossier.build", {"jira": "x"}).envelope["error"]
    taken = user["message"].split("; it takes: ")[1].split(", ")
    assert user["code"] == "bad_input" and "jira_url" in taken and "github_allow" in taken, user


def test_a_workspace_miss_names_the_first_workspaces_and_counts_the_rest(tmp_path, monkeypatch):
    """Past NAMES_SHOWN (lowered to 2 for the test) the miss counts the workspaces it leaves out."""
    from indexer.fleet import workspace

    monkeypatch.setattr(workspace, "NAMES_SHOWN", 2)
    python = Client(str(tmp_path / "store"))
    for name in ("w-c", "w-a", "w-b"):
        assert python.envelope("workspace.create", name=name)["ok"]
    miss = python.envelope("workspace.status", name="nope")["error"]
    assert miss["message"].endswith("; this store holds 'w-a', 'w-b' and 1 more"), miss


def test_a_partial_members_advice_to_an_agent_is_that_the_user_adds_it_again():
    from indexer.fleet.workspace import member_advice

    agent, user = member_advice("shop", agent=True), member_advice("shop")
    assert agent.partial.startswith("no agent tool adds it again: the user fetches them") and "`rennet" in agent.partial
    assert user.partial == "fetch them and `rennet workspace add` it again for a complete snapshot"


def test_a_packet_of_the_working_tree_counts_what_differs_from_head_as_every_answer_does(worktree_server, tmp_path):
    """Was: a packet of main..the working tree, on a branch two files ahead of main with one file
    edited, said `worktree.changed: 3` (the range's files) under `base_oid` HEAD, where
    `context_symbol` of the same tree said 1, the paths that differ from HEAD, as the field means.
    Now the packet counts them as every answer read from the working tree does, and its reason
    says so. On the shared `--worktree` server, whose read tools answer from the working tree."""
    import pygit2

    builder = RepoBuilder(tmp_path / "repo")  # under the server's root, the temporary folder
    main = builder.commit({"pkg/a.py": "def a():\n    return 1\n"})
    builder.commit({"pkg/b.py": "def b():\n    return 2\n", "pkg/c.py": "def c():\n    return 3\n"},
                   branch="topic", parents=[main])
    repo = builder.repo
    repo.set_head("refs/heads/topic")
    repo.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)  # a checkout of topic, its index written
    (builder.path / "pkg" / "a.py").write_text("def a():\n    return 10\n")
    packet, symbol = _calls(worktree_server, [
        ("delta_packet", {"repo": str(builder.path), "base": "main", "worktree": True}),
        ("context_symbol", {"repo": str(builder.path), "name": "a", "worktree": True}),
    ])
    assert packet.get("data", {}).get("totals", {}).get("files") == 3, packet
    head = str(repo.head.target)
    assert "freshness" in symbol, symbol
    assert packet["freshness"]["worktree"]["base_oid"] == symbol["freshness"]["worktree"]["base_oid"] == head
    assert packet["freshness"]["worktree"]["changed"] == symbol["freshness"]["worktree"]["changed"] == 1, packet
    assert packet["freshness"]["reason"] == f"built from the working tree as it is now: 1 path differs from HEAD " \
                                           f"({head[:12]})", packet["freshness"]


def _broken_workspace(scratch_server, name: str) -> RepoBuilder:
    """A workspace `name` of two members: `shop`, whose `shop/cart.py` does not parse (returned),
    and `web`."""
    place = scratch_server.place(name)
    shop = RepoBuilder(place / "shop")
    shop.commit({"shop/cart.py": "def total(items):\n    return sum(items\n\n\ndef later():\n    return 1\n",
                 "shop/ok.py": "from shop.cart import total\n\n\ndef run():\n    return total([1])\n"})
    web = RepoBuilder(place / "web")
    web.commit({"web/app.py": "def serve():\n    return 2\n"})
    python = Client(str(scratch_server.store))
    assert python.envelope("workspace.create", name=name)["ok"]
    for builder in (shop, web):
        assert python.envelope("workspace.add", name=name, repo=str(builder.path), rev="main")["ok"]
    return shop


def test_a_workspace_map_names_the_files_of_its_page_that_do_not_parse(scratch_server):
    """Was: a workspace's map listed a member's file that does not parse with no word of it, where
    the member's own map names it in `parse_errors`. Now the workspace's names it too, with its
    member."""
    shop = _broken_workspace(scratch_server, "broken-ws")
    across, alone = _calls(scratch_server, [
        ("context_map", {"workspace": "broken-ws", "focus": ["shop/cart.py"]}),
        ("context_map", {"repo": str(shop.path), "rev": "main", "focus": ["shop/cart.py"]}),
    ])
    assert alone["data"]["parse_errors"] == ["shop/cart.py"], alone["data"]
    assert {"member": "shop", "path": "shop/cart.py"} in [{"member": f["member"], "path": f["path"]}
                                                          for f in across["data"]["files"]], across["data"]
    assert across["data"].get("parse_errors") == [{"member": "shop", "path": "shop/cart.py"}], across["data"]


def test_a_workspace_overview_counts_the_files_that_do_not_parse_as_a_members_own_does(scratch_server):
    """Was: a workspace's overview said nothing of a member's file that does not parse, where the
    member's own overview counts it in `totals.parse_errors`. Now each member's row counts them,
    and the workspace's totals sum them."""
    shop = _broken_workspace(scratch_server, "broken-overview")
    across, alone = _calls(scratch_server, [
        ("context_overview", {"workspace": "broken-overview"}),
        ("context_overview", {"repo": str(shop.path), "rev": "main"}),
    ])
    assert alone["data"]["totals"]["parse_errors"] == 1, alone["data"]["totals"]
    assert across["data"]["totals"].get("parse_errors") == 1, across["data"]["totals"]
    counts = {m["name"]: m.get("parse_errors") for m in across["data"]["members"]["items"]}
    assert counts == {"shop": 1, "web": 0}, counts
