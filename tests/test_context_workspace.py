"""The context tools across a workspace: three fixture repositories, each item tagged with its member,
one page and cursor over the members, and freshness for the workspace as a whole."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import context_tools
from context_tools.faces.dispatch import Executor
from context_tools.query.workspace_scope import UNREAD_MEMBER
from corpora.gitbuild import RepoBuilder
from tests.mcp_clients import python_prepared, run_stdio, text_of  # noqa: F401 - fixture
from tests.test_context_world import PY, ROOT, cli_env


@pytest.fixture
def fleet(tmp_path):
    """`slugify` is defined in acme-lib (Python, distribution acme-utils) and in gokit (JavaScript,
    npm package @acme/widgets); webapp imports acme-utils and uses slugify, and requires the Go module."""
    lib = RepoBuilder(tmp_path / "acme-lib")
    lib.commit({
        "pyproject.toml": '[project]\nname = "acme-utils"\nversion = "1.2.0"\n',
        "acme_utils/__init__.py": "def slugify(text):\n    return text.lower()\n\n\nclass Config:\n    pass\n",
        "acme_utils/text.py": "from acme_utils import slugify\n\n\ndef title(t):\n    return slugify(t).title()\n",
    })
    kit = RepoBuilder(tmp_path / "gokit")
    kit.commit({
        "go.mod": "module github.com/acme/gokit\n\ngo 1.21\n",
        "log/log.go": "package log\n\nvar Level = 1\n\nfunc Log(msg string) string { return msg }\n",
        "js/package.json": '{"name": "@acme/widgets", "version": "2.1.0"}',
        "js/text.js": "export function slugify(s) {\n  return s.toLowerCase();\n}\n",
        "js/button.js": "import { slugify } from './text';\nexport const Button = slugify('B');\n",
    })
    app = RepoBuilder(tmp_path / "webapp")
    app.commit({
        "pyproject.toml": '[project]\nname = "webapp"\nversion = "0.1"\ndependencies = ["acme-utils>=1.0"]\n',
        "webapp/__init__.py": "",
        "webapp/views.py": "from acme_utils import slugify\n\n\ndef page(t):\n    return slugify(t)\n\n\n"
                           "def other(t):\n    return slugify(t) + slugify(t)\n",
        "go.mod": "module github.com/acme/webapp\n\ngo 1.21\n\nrequire github.com/acme/gokit v1.0.0\n",
        "cmd/main.go": 'package main\n\nimport "github.com/acme/gokit/log"\n\nfunc main() { log.Log("x") }\n',
        "webapp/vendor/six.py": "PY3 = True\n",  # vendored: left out of the map
    })
    return {"acme-lib": lib, "gokit": kit, "webapp": app}


@pytest.fixture
def run(tmp_path, fleet):
    """An executor on a store holding the workspace `fleet` of the three repositories at main."""
    home = tmp_path / "store"
    executor = Executor("python", store=str(home))

    def call(command: str, **input):
        return executor.run(command, input).envelope

    assert call("workspace.create", name="fleet")["ok"]
    for builder in fleet.values():
        assert call("workspace.add", name="fleet", repo=str(builder.path), rev="main")["ok"]
    call.home = str(home)
    return call


def _heads(fleet) -> dict[str, str]:
    return {name: str(b.repo.references["refs/heads/main"].target) for name, b in fleet.items()}


def test_symbol_found_in_two_members_is_tagged_with_each(run, fleet):
    out = run("context.symbol", workspace="fleet", name="slugify")
    assert out["ok"], out
    defs = out["data"]["definitions"]
    assert [(d["member"], d["path"], d["kind"]) for d in defs] == [
        ("acme-lib", "acme_utils/__init__.py", "function"), ("gokit", "js/text.js", "function")]
    assert out["data"]["workspace"] == "fleet"
    assert out["page"] == {"total": 2, "returned": 2, "truncated": False, "cursor": None}
    fresh = out["freshness"]
    assert fresh["repo"] == "workspace:fleet" and fresh["rev"] == "main" and fresh["status"] == "current"
    assert fresh["current_oid"] == fresh["pinned_oid"] and len(fresh["pinned_oid"]) == 64
    heads = _heads(fleet)
    members = out["data"]["member_freshness"]["items"]
    assert [(m["member"], m["pinned_oid"], m["status"]) for m in members] == [
        (name, heads[name], "current") for name in ("acme-lib", "gokit", "webapp")]
    # a name defined in one member only: one item, of that member
    near = run("context.symbol", workspace="fleet", name="slugfy")  # no member defines it: near names
    assert near["data"]["fuzzy"] is True and {(d["member"], d["match"]) for d in near["data"]["definitions"]} == {
        ("acme-lib", "fuzzy"), ("gokit", "fuzzy")}
    assert run("context.symbol", workspace="fleet", name="slugfy", fuzzy=False)["error"]["code"] == "not_found"
    only = run("context.symbol", workspace="fleet", name="Config")
    assert [(d["member"], d["path"]) for d in only["data"]["definitions"]] == [("acme-lib", "acme_utils/__init__.py")]


def test_references_across_members(run):
    out = run("context.references", workspace="fleet", name="slugify", text=True)
    assert out["ok"], out
    sites = {(s["member"], s["path"], s["line"], s["resolution"]) for s in out["data"]["sites"]}
    assert sites == {
        ("acme-lib", "acme_utils/text.py", 1, "import"),
        ("acme-lib", "acme_utils/text.py", 5, "import"),
        ("gokit", "js/button.js", 1, "import"),
        ("gokit", "js/button.js", 2, "import"),
        # webapp defines no slugify: its sites import the package acme-lib declares and defines it in
        ("webapp", "webapp/views.py", 1, "import"),
        ("webapp", "webapp/views.py", 5, "import"),
        ("webapp", "webapp/views.py", 9, "import"),
    }
    views = [s for s in out["data"]["sites"] if s["path"] == "webapp/views.py"]
    assert views[1]["text"] == "return slugify(t)"  # text read from the member's own snapshot
    assert {(d["member"], d["path"]) for d in out["data"]["definitions"]} == {
        ("acme-lib", "acme_utils/__init__.py"), ("gokit", "js/text.js")}
    assert out["data"]["definitions_total"] == 2
    assert len(out["data"]["sites"]) == 8  # line 9 of views.py has two
    assert out["data"]["by_resolution"] == {"import": 8, "same_file": 0, "same_package": 0, "name_match": 0, "text": 0}
    # each site carries the index of its member's definition in the answer's definitions, in
    # order: acme-lib's sites first, then gokit's; webapp's, resolved across members, carry none
    index = {d["member"]: i for i, d in enumerate(out["data"]["definitions"])}
    assert [(s["member"], s.get("definition")) for s in out["data"]["sites"]] == [
        ("acme-lib", index["acme-lib"])] * 2 + [("gokit", index["gokit"])] * 2 + [("webapp", None)] * 4
    assert [d["sites"] for d in out["data"]["definitions"]] == [2, 2]
    assert out["data"]["definitions_attributed"] == 1  # each member's one definition told apart
    # across ecosystems too: webapp imports the Go module gokit declares, whose log package defines Log
    log = run("context.references", workspace="fleet", name="Log")
    assert [(s["member"], s["path"], s["resolution"]) for s in log["data"]["sites"]] == [
        ("webapp", "cmd/main.go", "import")]
    # a name with no definition anywhere still finds its sites by name, tagged name_match
    lower = run("context.references", workspace="fleet", name="lower")
    assert [(s["member"], s["path"], s["resolution"]) for s in lower["data"]["sites"]] == [
        ("acme-lib", "acme_utils/__init__.py", "name_match")]
    assert lower["data"]["definitions_total"] == 0
    # a qualified name is that definition: gokit's same-named function and its uses drop out
    qualified = run("context.references", workspace="fleet", name="acme_utils.slugify")
    assert {(s["member"], s["path"]) for s in qualified["data"]["sites"]} == {
        ("acme-lib", "acme_utils/text.py"), ("webapp", "webapp/views.py")}
    assert [d["member"] for d in qualified["data"]["definitions"]] == ["acme-lib"]
    # and are counted apart, summed over the members: gokit's two (the last member, webapp, has none)
    assert qualified["data"]["same_name_left_out"] == 2


def test_overview_lists_members_and_cross_edges(run, fleet):
    out = run("context.overview", workspace="fleet")
    assert out["ok"], out
    data = out["data"]
    heads = _heads(fleet)
    members = {m["name"]: m for m in data["members"]["items"]}
    assert list(members) == ["acme-lib", "gokit", "webapp"]
    for name, m in members.items():
        assert m["pinned_oid"] == heads[name] and m["rev"] == "main" and m["freshness"] == "current"
        assert len(m["fingerprint"]) == 64 and m["path"] == str(fleet[name].path.resolve())
    assert members["acme-lib"]["files"] == 3
    assert {lang["language"]: lang["files"] for lang in members["gokit"]["languages"]["items"]}["javascript"] == 2
    assert members["gokit"]["packages"] == ["go:github.com/acme/gokit", "npm:@acme/widgets"]
    edges = {(e["source"], e["target"], e["ecosystem"], e["package"]) for e in data["edges"]["items"]}
    assert edges == {("webapp", "acme-lib", "pypi", "acme-utils"), ("webapp", "gokit", "go", "github.com/acme/gokit")}
    assert data["totals"]["members"] == 3 and data["totals"]["cross_edges"] == 2
    assert data["totals"]["files"] == sum(m["files"] for m in members.values())
    # a member section merged over the members, each item tagged
    langs = run("context.overview", workspace="fleet", section="languages")
    assert {(i["member"], i["language"]) for i in langs["data"]["items"]} >= {
        ("acme-lib", "python"), ("gokit", "go"), ("gokit", "javascript"), ("webapp", "python")}
    # ranks are each member's own: top files interleave by rank position, every member's first first
    top = run("context.overview", workspace="fleet", section="top_files")["data"]["items"]
    assert [t["member"] for t in top[:3]] == ["acme-lib", "gokit", "webapp"]
    edges_page = run("context.overview", workspace="fleet", section="edges", limit=1)
    assert edges_page["page"]["total"] == 2 and edges_page["page"]["truncated"] is True
    rest = run("context.overview", workspace="fleet", section="edges", limit=1, cursor=edges_page["page"]["cursor"])
    assert rest["ok"] and rest["page"]["truncated"] is False
    assert edges_page["data"]["items"] + rest["data"]["items"] == data["edges"]["items"]
    # members/edges sections belong to a workspace
    assert run("context.overview", repo=str(fleet["gokit"].path), section="members")["error"]["code"] == "bad_input"


def test_map_interleaves_members_by_rank(run):
    out = run("context.map", workspace="fleet", budget=65536)
    assert out["ok"], out
    files = out["data"]["files"]
    members = [f["member"] for f in files]
    assert members[:3] == ["acme-lib", "gokit", "webapp"]  # every member's best file first
    per_member = {m["member"]: m["files"] for m in out["data"]["members"]}
    assert out["page"]["total"] == sum(per_member.values()) == len(files)
    assert "webapp/vendor/six.py" not in [f["path"] for f in files]
    assert out["data"]["excluded_marked"] == sum(m["excluded_marked"] for m in out["data"]["members"]) == 1
    for name, count in per_member.items():
        ranks = [f["rank"] for f in files if f["member"] == name]
        assert len(ranks) == count and ranks == sorted(ranks, reverse=True)
    focused = run("context.map", workspace="fleet", focus=["js/text.js", "nowhere.py"])
    assert focused["data"]["focus_files"] == [{"member": "gokit", "path": "js/text.js"}]
    assert focused["data"]["unmatched_focus"] == ["nowhere.py"]
    assert {m["member"]: m["ranking"] for m in focused["data"]["members"]} == {
        "acme-lib": "pagerank", "gokit": "personalized_pagerank", "webapp": "pagerank"}


def test_file_of_a_member(run, fleet):
    out = run("context.file", workspace="fleet", path="js/text.js")  # only gokit has it
    assert out["ok"], out
    assert out["data"]["member"] == "gokit" and out["data"]["content"]["lines"][0].startswith("export function")
    assert out["freshness"]["member"] == "gokit" and out["freshness"]["pinned_oid"] == _heads(fleet)["gokit"]
    both = run("context.file", workspace="fleet", path="pyproject.toml")
    assert both["error"]["code"] == "bad_input" and "acme-lib, webapp" in both["error"]["message"]
    chosen = run("context.file", workspace="fleet", path="pyproject.toml", member="webapp")
    assert chosen["data"]["member"] == "webapp" and "webapp" in chosen["data"]["content"]["lines"][1]
    assert run("context.file", workspace="fleet", path="go.mod", member="nobody")["error"]["code"] == "not_found"
    assert run("context.file", workspace="fleet", path="absent.txt")["error"]["code"] == "not_found"
    assert run("context.file", repo=str(fleet["gokit"].path), path="go.mod", member="gokit")["error"]["code"] == "bad_input"


def test_member_branch_moves_workspace_stale_still_pinned(run, fleet):
    pinned = _heads(fleet)["webapp"]
    moved = fleet["webapp"].commit({"webapp/slug.py": "def slugify(t):\n    return t\n"})
    out = run("context.symbol", workspace="fleet", name="slugify")
    assert out["ok"]
    # still served from the pinned snapshots: webapp's new definition is not there
    assert [d["member"] for d in out["data"]["definitions"]] == ["acme-lib", "gokit"]
    fresh = out["freshness"]
    assert fresh["status"] == "stale" and "webapp" in fresh["reason"] and "workspace sync fleet" in fresh["reason"]
    assert fresh["current_oid"] != fresh["pinned_oid"]
    members = {m["member"]: m for m in out["data"]["member_freshness"]["items"]}
    assert members["webapp"]["status"] == "stale"
    assert (members["webapp"]["pinned_oid"], members["webapp"]["current_oid"]) == (pinned, moved)
    assert members["gokit"]["status"] == "current"
    ov = run("context.overview", workspace="fleet")
    assert ov["freshness"]["status"] == "stale" and ov["data"]["totals"]["stale"] == 1
    # a member whose branch is gone is unknown, and the workspace with it, by the order one answer
    # follows: what moved can be told, what is gone cannot; the reason still names the moved one
    fleet["gokit"].repo.references["refs/heads/main"].rename("refs/heads/trunk")
    both = run("context.symbol", workspace="fleet", name="slugify")
    assert both["freshness"]["status"] == "unknown" and "unknown" in both["freshness"]["current_oid"]
    assert "gokit" in both["freshness"]["reason"] and "stale (webapp)" in both["freshness"]["reason"]
    assert "workspace sync fleet" in both["freshness"]["reason"]
    assert {m["member"]: m["status"] for m in both["data"]["member_freshness"]["items"]}["gokit"] == "unknown"


def test_unknown_when_a_member_rev_no_longer_resolves(run, fleet):
    fleet["acme-lib"].repo.references["refs/heads/main"].rename("refs/heads/trunk")
    out = run("context.symbol", workspace="fleet", name="slugify")
    assert out["ok"] and out["freshness"]["status"] == "unknown" and "acme-lib" in out["freshness"]["reason"]
    assert [d["member"] for d in out["data"]["definitions"]] == ["acme-lib", "gokit"]  # served from its pin


def test_a_member_whose_repository_is_gone_is_unknown_and_the_rest_answer(run, fleet):
    import shutil

    shutil.rmtree(fleet["gokit"].path)
    out = run("context.symbol", workspace="fleet", name="slugify")
    assert out["ok"], out
    assert [d["member"] for d in out["data"]["definitions"]] == ["acme-lib"]
    members = {m["member"]: m for m in out["data"]["member_freshness"]["items"]}
    assert members["gokit"]["status"] == "unknown" and "not read" in members["gokit"]["reason"]
    # and why, by the rule every member follows: its repository cannot be read
    assert f"repository not readable at {fleet['gokit'].path}" in members["gokit"]["reason"]
    assert out["freshness"]["status"] == "unknown" and "unknown" in out["freshness"]["current_oid"]
    ov = run("context.overview", workspace="fleet")
    gone = next(m for m in ov["data"]["members"]["items"] if m["name"] == "gokit")
    assert gone["files"]["unknown"] == "not_assessed" and gone["freshness"] == "unknown"
    assert gone["languages"] == {"items": [], "unknown": gone["files"]}  # one type: always {items, unknown}
    assert run("context.file", workspace="fleet", path="go.mod", member="gokit")["error"]["code"] == "not_a_repository"


def test_an_agent_face_reads_no_member_outside_its_roots(run, fleet):
    """The user registers a workspace; an agent's client only names it. A member outside the
    server's roots, or outside the roots the client declared, is not read: unknown, saying why,
    and the members inside answer. A member another call read stays refused."""
    from context_tools.faces.roots import Roots

    served = Executor("mcp", store=run.home, roots=Roots.of([fleet["acme-lib"].path, fleet["webapp"].path]))
    out = served.run("context.symbol", {"workspace": "fleet", "name": "slugify"}).envelope
    assert out["ok"], out
    assert [d["member"] for d in out["data"]["definitions"]] == ["acme-lib"]
    members = {m["member"]: m for m in out["data"]["member_freshness"]["items"]}
    assert members["gokit"]["status"] == "unknown" and "outside the roots this server serves" in members["gokit"]["reason"]
    assert members["acme-lib"]["status"] == "current"
    # a client declaring gokit's folder does not widen the server's roots to it
    declared = served.run("context.symbol", {"workspace": "fleet", "name": "slugify"},
                          client_roots=[str(fleet["gokit"].path)]).envelope
    error = declared["error"]  # no member lies under both: none was looked in, and it says so
    assert error["code"] == "not_found" and "acme-lib (not read: forbidden)" in error["message"], error
    assert "gokit (not read: forbidden)" in error["message"] and "webapp (not read: forbidden)" in error["message"]

    wide = Executor("mcp", store=run.home, roots=Roots.of([Path(fleet["gokit"].path).parent]))
    everyone = wide.run("context.symbol", {"workspace": "fleet", "name": "slugify"}).envelope
    assert [d["member"] for d in everyone["data"]["definitions"]] == ["acme-lib", "gokit"]
    narrowed = wide.run("context.symbol", {"workspace": "fleet", "name": "slugify"},
                        client_roots=[str(fleet["gokit"].path)]).envelope  # acme-lib is in the memo now
    assert [d["member"] for d in narrowed["data"]["definitions"]] == ["gokit"]
    members = {m["member"]: m for m in narrowed["data"]["member_freshness"]["items"]}
    assert members["acme-lib"]["status"] == "unknown" and "the roots the client declared" in members["acme-lib"]["reason"]


def test_a_member_outside_the_roots_tells_nothing_of_its_repository(run, fleet):
    """A member outside an agent face's roots is not read at all: its freshness says `unknown`
    and why, but neither what its rev resolves to now nor that it moved (was: its repository's
    refs were read, and its current commit told to the agent in `current_oid` and the reason)."""
    from context_tools.faces.roots import Roots

    moved = fleet["gokit"].commit({"js/more.js": "export const more = 1;\n"})
    served = Executor("mcp", store=run.home, roots=Roots.of([fleet["acme-lib"].path, fleet["webapp"].path]))
    out = served.run("context.symbol", {"workspace": "fleet", "name": "slugify"}).envelope
    assert out["ok"], out
    gokit = {m["member"]: m for m in out["data"]["member_freshness"]["items"]}["gokit"]
    assert gokit["status"] == "unknown" and "outside the roots this server serves" in gokit["reason"]
    assert moved[:12] not in json.dumps(out)
    assert gokit["current_oid"]["unknown"] == "not_assessed"


def test_the_roots_an_mcp_client_declares_narrow_a_workspaces_members(run, fleet):
    """A workspace call names no path, yet each member it reads is one: the server asks the
    client's roots for it too, and reads only the members under them."""
    import anyio
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def roots(context):
        return types.ListRootsResult(roots=[types.Root(uri=Path(fleet["gokit"].path).as_uri())])

    params = StdioServerParameters(command=PY, args=["-m", "context_tools.faces.cli", "mcp", "--root", "/"],
                                   env=cli_env(run.home), cwd=str(ROOT))

    async def work():
        async with Client(params, list_roots_callback=roots, mode="legacy") as client:
            return text_of(await client.call_tool("context_symbol", {"workspace": "fleet", "name": "slugify"}))

    out = anyio.run(work)
    assert [d["member"] for d in out["data"]["definitions"]] == ["gokit"], out
    members = {m["member"]: m for m in out["data"]["member_freshness"]["items"]}
    assert members["acme-lib"]["status"] == "unknown" and "the roots the client declared" in members["acme-lib"]["reason"]


def test_target_errors_are_typed(run, fleet):
    both = run("context.symbol", workspace="fleet", repo=str(fleet["gokit"].path), name="slugify")
    assert both["error"]["code"] == "bad_input" and "not both" in both["error"]["message"]
    assert run("context.map", workspace="fleet", rev="main")["error"]["code"] == "bad_input"
    for command, extra in (("context.symbol", {"name": "x"}), ("context.references", {"name": "x"}),
                           ("context.overview", {}), ("context.map", {}), ("context.file", {"path": "go.mod"})):
        missing = run(command, workspace="nope", **extra)
        assert missing["error"]["code"] == "not_found", (command, missing)
        assert run(command, workspace="no spaces", **extra)["error"]["code"] == "bad_input"
    absent = run("context.symbol", workspace="fleet", name="NoSuchThing", fuzzy=False)
    assert absent["error"]["code"] == "not_found" and "acme-lib, gokit, webapp" in absent["error"]["message"]


def test_paging_across_members_with_a_cursor(run):
    whole = run("context.references", workspace="fleet", name="slugify")
    pages, cursor = [], None
    while True:
        out = run("context.references", workspace="fleet", name="slugify", limit=3, **({"cursor": cursor} if cursor else {}))
        assert out["ok"], out
        pages.append(out["data"]["sites"])
        cursor = out["page"]["cursor"]
        if not cursor:
            break
    assert [len(p) for p in pages] == [3, 3, 2]
    assert [s for p in pages for s in p] == whole["data"]["sites"]
    assert {s["member"] for s in pages[0]} != {s["member"] for s in pages[-1]}  # the page crosses members
    first = run("context.symbol", workspace="fleet", name="slugify", limit=1)
    second = run("context.symbol", workspace="fleet", name="slugify", limit=1, cursor=first["page"]["cursor"])
    assert [d["member"] for d in first["data"]["definitions"] + second["data"]["definitions"]] == ["acme-lib", "gokit"]
    # a cursor of one workspace query is not valid for another
    other = run("context.symbol", workspace="fleet", name="Config", cursor=first["page"]["cursor"])
    assert other["error"]["code"] == "bad_cursor"
    mapped = run("context.map", workspace="fleet", budget=256)
    assert mapped["page"]["truncated"] is True
    nxt = run("context.map", workspace="fleet", budget=256, cursor=mapped["page"]["cursor"])
    assert nxt["ok"] and nxt["data"]["files"][0] != mapped["data"]["files"][0]


def test_cursor_after_sync_repins_is_bad_cursor(run, fleet):
    first = run("context.references", workspace="fleet", name="slugify", limit=2)
    cursor = first["page"]["cursor"]
    assert run("context.references", workspace="fleet", name="slugify", limit=2, cursor=cursor)["ok"]
    fleet["gokit"].commit({"js/more.js": "export const more = 1;\n"})
    # moved but not re-pinned: the cursor still pages the pinned snapshots
    assert run("context.references", workspace="fleet", name="slugify", limit=2, cursor=cursor)["ok"]
    sync = subprocess.run([PY, "-m", "context_tools.faces.cli", "workspace", "sync", "fleet", "--json"], cwd=ROOT,
                          env=cli_env(run.home), capture_output=True, text=True, timeout=120)
    assert sync.returncode == 0, sync.stderr
    assert [r["member"] for r in json.loads(sync.stdout)["data"]["repinned"]] == ["gokit"]
    stale_cursor = run("context.references", workspace="fleet", name="slugify", limit=2, cursor=cursor)
    assert stale_cursor["error"]["code"] == "bad_cursor"
    again = run("context.references", workspace="fleet", name="slugify", limit=2)
    assert again["ok"] and again["freshness"]["status"] == "current"
    assert again["freshness"]["fingerprint"] != first["freshness"]["fingerprint"]


def test_every_face_answers_a_workspace_alike(run, monkeypatch):
    from tests.test_registry_faces import argv_for

    input = {"workspace": "fleet", "name": "slugify", "limit": 1}
    results = {"python": context_tools.Client(store=run.home).envelope("context.symbol", **input)}

    def cli(*args):
        p = subprocess.run([PY, "-m", "context_tools.faces.cli", *args], cwd=ROOT, env=cli_env(run.home),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    results["verb"] = cli(*argv_for("context.symbol", input), "--json")
    assert argv_for("context.symbol", input)[:5] == ["context", "symbol", "slugify", "--workspace", "fleet"]
    results["call"] = cli("call", "context.symbol", json.dumps(input))

    async def work(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"workspace", "repo"} <= set(tools["context_symbol"].input_schema["properties"])
        assert "member" in tools["context_file"].input_schema["properties"]
        return text_of(await client.call_tool("context_symbol", input))

    results["mcp"] = run_stdio(run.home, work)
    first = results["python"]
    assert first["ok"] and first["data"]["definitions"][0]["member"] == "acme-lib"
    for face, envelope in results.items():
        assert envelope == first, face
    monkeypatch.setenv("RENNET_HOME", run.home)
    typed = context_tools.call("context.symbol", workspace="fleet", name="slugify")
    assert [d.member for d in typed.data.definitions] == ["acme-lib", "gokit"]
    assert typed.freshness.repo == "workspace:fleet"
    human = subprocess.run([PY, "-m", "context_tools.faces.cli", "context", "symbol", "slugify", "--workspace", "fleet"],
                           cwd=ROOT, env=cli_env(run.home), capture_output=True, text=True, timeout=120)
    assert "acme-lib:acme_utils/__init__.py:1" in human.stdout and "gokit:js/text.js:1" in human.stdout


def test_member_freshness_is_bounded_and_puts_moved_members_first(tmp_path):
    from context_tools.query.workspace_scope import MEMBER_FRESHNESS_CAP

    executor = Executor("python", store=str(tmp_path / "store"))

    def call(command: str, **input):
        return executor.run(command, input).envelope

    assert call("workspace.create", name="many")["ok"]
    builders = {}
    for i in range(MEMBER_FRESHNESS_CAP + 2):
        b = builders[f"m{i:02d}"] = RepoBuilder(tmp_path / f"m{i:02d}")
        b.commit({f"pkg{i}/__init__.py": f"def shared():\n    return {i}\n"})
        assert call("workspace.add", name="many", repo=str(b.path), rev="main")["ok"]
    builders["m07"].commit({"pkg7/extra.py": "x = 1\n"})  # m07's branch moves: stale
    out = call("context.symbol", workspace="many", name="shared")
    assert out["ok"], out
    fresh = out["data"]["member_freshness"]
    assert fresh["total"] == MEMBER_FRESHNESS_CAP + 2 and fresh["truncated"] is True
    assert len(fresh["items"]) == MEMBER_FRESHNESS_CAP
    assert [(m["member"], m["status"]) for m in fresh["items"][:2]] == [("m07", "stale"), ("m00", "current")]
    assert out["freshness"]["status"] == "stale"
    assert out["page"]["total"] == MEMBER_FRESHNESS_CAP + 2  # every member's definition is still counted


def _workspace_calls(tmp_path: Path, workspace: str, members: tuple[str, ...], **add: str):
    """A call into an executor whose store (under tmp_path) holds `workspace`, the repositories
    tmp_path/member added to it (with `add`'s rev, if any)."""
    executor = Executor("python", store=str(tmp_path / "store"))

    def call(command: str, **input):
        return executor.run(command, input).envelope

    assert call("workspace.create", name=workspace)["ok"]
    for name in members:
        assert call("workspace.add", name=workspace, repo=str(tmp_path / name), **add)["ok"]
    return call


def test_a_site_is_import_resolved_across_members_only_through_a_package_defining_it(tmp_path):
    """A member's site counts as import-resolved when its file's external import names a
    package another member declares and defines the symbol in, under that manifest's folder:
    not when the symbol lives elsewhere in that member, nor through an import its own
    resolution calls unresolved (its own module path's prefix naming another member)."""
    RepoBuilder(tmp_path / "root").commit({"go.mod": "module github.com/acme\n\ngo 1.21\n",
                                           "root.go": "package acme\n\nfunc Helper() {}\n"})
    RepoBuilder(tmp_path / "lib").commit({"py/pyproject.toml": '[project]\nname = "libpkg"\n',
                                          "py/libpkg/__init__.py": "X = 1\n",
                                          "other/tools.py": "def helper():\n    return 1\n"})
    RepoBuilder(tmp_path / "app").commit({
        "go.mod": "module github.com/acme/app\n\ngo 1.21\n",
        "main.go": 'package main\n\nimport "github.com/acme/app/gone"\n\nfunc main() { gone.Helper() }\n',
        "app/__init__.py": "", "app/use.py": "import libpkg\n\nlibpkg.helper()\n"})
    call = _workspace_calls(tmp_path, "w", ("root", "lib", "app"))

    def sites(name: str) -> list[tuple]:
        out = call("context.references", workspace="w", name=name)
        return [(s["member"], s["path"], s["line"], s["resolution"]) for s in out["data"]["sites"]]

    assert sites("helper") == [("app", "app/use.py", 3, "name_match")]  # libpkg defines no helper under py/
    assert sites("Helper") == [("app", "main.go", 5, "name_match")]  # github.com/acme/app/gone is unresolved


def test_a_go_import_of_another_members_package_binds_its_package_clause(tmp_path):
    """kit's go-utils/ declares `package gutils`: app's `gutils.Do()` is what its import binds,
    and `utils.Do()` on a parameter named like the path's tail is no site of the package."""
    RepoBuilder(tmp_path / "kit").commit({"go.mod": "module github.com/acme/kit\n\ngo 1.21\n",
                                          "go-utils/do.go": "package gutils\n\nfunc Do() {}\n"})
    RepoBuilder(tmp_path / "app").commit({
        "go.mod": "module github.com/acme/app\n\ngo 1.21\n\nrequire github.com/acme/kit v1.0.0\n",
        "main.go": 'package main\n\nimport "github.com/acme/kit/go-utils"\n\nfunc main() {\n\tgutils.Do()\n}\n',
        "other.go": 'package main\n\nimport "github.com/acme/kit/go-utils"\n\nfunc f(utils T) {\n\tutils.Do()\n}\n'})
    call = _workspace_calls(tmp_path, "w", ("kit", "app"))
    out = call("context.references", workspace="w", name="Do")
    assert [(s["member"], s["path"], s["line"], s["resolution"]) for s in out["data"]["sites"]] == [
        ("app", "main.go", 6, "import"), ("app", "other.go", 6, "name_match")]


def test_workspace_freshness_takes_the_newest_index_time_and_binds_fingerprints():
    """The envelope's `indexed_at` is the newest member's; the cursor binding changes with a
    member's fingerprint though its OID stays (a re-index at another extractor version); the
    member freshness page is truncated only past its cap."""
    from context_tools.query import workspace_scope as scope
    from indexer.fleet.workspace import Member

    def opened(name: str, indexed_at: str) -> scope.OpenMember:
        fresh = scope.MemberFreshness(repo=f"/r/{name}", rev="main", pinned_oid="a" * 40, current_oid="a" * 40,
                                      status="current", reason="", indexed_at=indexed_at, fingerprint="f" * 64,
                                      member=name)
        member = Member(name, f"/r/{name}", "id", None, "main", "a" * 40, "f" * 64, "v", indexed_at)
        return scope.OpenMember(member, None, fresh)

    members = [opened("a", "2026-01-02T00:00:00Z"), opened("b", "2026-03-01T00:00:00Z"),
               opened("c", "2026-02-01T00:00:00Z")]
    assert scope._overall("w", members).indexed_at == "2026-03-01T00:00:00Z"
    one = [m.member for m in members]
    other = one[:2] + [Member(**{**one[2].__dict__, "fingerprint": "e" * 64})]
    assert scope.binding("w", one) != scope.binding("w", other)
    at_cap = [opened(f"m{i}", "2026-01-01T00:00:00Z") for i in range(scope.MEMBER_FRESHNESS_CAP)]
    page = scope.Scope("w", at_cap, "b", scope._overall("w", at_cap)).member_freshness
    assert (page.total, len(page.items), page.truncated) == (scope.MEMBER_FRESHNESS_CAP,) * 2 + (False,)


def test_across_members_exact_definitions_and_resolved_sites_come_first(tmp_path):
    """Definitions matched as written before those through a module path, whatever the member;
    every member's resolved sites before any member's name matches."""
    RepoBuilder(tmp_path / "alpha").commit({
        "a/mod.py": "def tool():\n    return 0\n",
        "caller.py": "def f(x):\n    return x.tool()\n",  # an untyped receiver: a name match
    })
    RepoBuilder(tmp_path / "beta").commit({"b.py": "class mod:\n    def tool(self):\n        return 1\n\n\nmod().tool()\n"})
    call = _workspace_calls(tmp_path, "pair", ("alpha", "beta"), rev="main")
    found = call("context.symbol", workspace="pair", name="mod.tool", fuzzy=False)["data"]["definitions"]
    assert [(d["member"], d["path"], d["match"]) for d in found] == [
        ("beta", "b.py", "exact"), ("alpha", "a/mod.py", "qualified")]
    sites = call("context.references", workspace="pair", name="tool")["data"]["sites"]
    assert [(s["member"], s["path"], s["resolution"]) for s in sites] == [
        ("beta", "b.py", "same_file"), ("alpha", "caller.py", "name_match")]


def test_a_workspace_answer_sums_each_members_unread_files_and_keeps_the_most_told_apart(tmp_path, monkeypatch):
    """Each member's sites are read within REFERENCE_SITES (3 here): alpha leaves ua.py unread,
    beta uc.py, and the answer counts both. alpha tells its two definitions of `f` apart, beta its
    one: `definitions_attributed` is the most any member told apart, whichever member is last.
    A qualified name no member defines is not found, as in one repository; name matches come
    in member order, each member's in its own order."""
    from context_tools.query.symbols import sites

    RepoBuilder(tmp_path / "alpha").commit({"a.py": "def f():\n    pass\n", "b.py": "def f():\n    pass\n",
                                            "ua.py": "from a import f\n\nf()\nf()\n",
                                            "n.py": "def run(o):\n    return o.g(), o.g()\n"})
    RepoBuilder(tmp_path / "beta").commit({"c.py": "def f():\n    pass\n", "uc.py": "from c import f\n\nf()\nf()\n",
                                           "m.py": "def run(o):\n    return o.g()\n"})
    call = _workspace_calls(tmp_path, "pair", ("alpha", "beta"), rev="main")
    monkeypatch.setattr(sites, "REFERENCE_SITES", 3)
    data = call("context.references", workspace="pair", name="f")["data"]
    assert [d["member"] for d in data["definitions"]] == ["alpha", "alpha", "beta"]
    assert data["files_unread"] == 2
    assert data["definitions_attributed"] == 2
    assert data["sites"] == []  # the definitions' own sites are left out; their users were not read
    # a qualified name no member defines has nothing to resolve against; a bare one is answered
    missing = call("context.references", workspace="pair", name="Nowhere.f")
    assert missing["error"]["code"] == "not_found", missing
    # name matches in member order, then each member's own order
    matched = call("context.references", workspace="pair", name="g")["data"]["sites"]
    assert [(s["member"], s["path"], s["col"], s["resolution"]) for s in matched] == [
        ("alpha", "n.py", 13, "name_match"), ("alpha", "n.py", 20, "name_match"), ("beta", "m.py", 13, "name_match")]


def test_the_status_and_overview_of_a_workspace_read_no_member_outside_the_roots(run, fleet):
    """`workspace.status` and the workspace's `context.overview` on an agent face: a member
    outside its roots is listed from what the workspace recorded of it, `unknown` saying why,
    with neither what its rev resolves to now, nor its files or packages, nor the edges naming
    it (was: its repository was read for the status, its moved commit told, and its snapshot's
    packages and edges shown). The CLI, which has no roots, reads every member."""
    from context_tools.faces.roots import Roots

    moved = fleet["gokit"].commit({"js/more.js": "export const more = 1;\n"})
    served = Executor("mcp", store=run.home, roots=Roots.of([fleet["acme-lib"].path, fleet["webapp"].path]))
    status = served.run("workspace.status", {"name": "fleet"}).envelope
    assert status["ok"], status
    members = {m["name"]: m for m in status["data"]["members"]}
    gokit = members["gokit"]
    assert gokit["freshness"] == "unknown" and "outside the roots this server serves" in gokit["reason"], gokit
    assert gokit["current_oid"] == {"unknown": "not_assessed", "reason": UNREAD_MEMBER}
    assert gokit["files"]["unknown"] == "not_assessed" and gokit["packages"] == []
    assert members["webapp"]["freshness"] == members["acme-lib"]["freshness"] == "current"
    assert status["data"]["counts"]["unknown"] == 1
    edges = status["data"]["edges"]
    assert [(e["source"], e["target"]) for e in edges] == [("webapp", "acme-lib")], edges
    overview = served.run("context.overview", {"workspace": "fleet"}).envelope
    assert overview["ok"], overview
    listed = {m["name"]: m for m in overview["data"]["members"]["items"]}
    assert listed["gokit"]["packages"] == [] and listed["acme-lib"]["packages"], listed
    assert [(e["source"], e["target"]) for e in overview["data"]["edges"]["items"]] == [("webapp", "acme-lib")]
    for answer in (status, overview):
        assert moved[:12] not in json.dumps(answer)
        assert "@acme/widgets" not in json.dumps(answer) and "github.com/acme/gokit" not in json.dumps(answer)

    cli = run("workspace.status", name="fleet")
    assert {m["name"]: m["freshness"] for m in cli["data"]["members"]}["gokit"] == "stale"
    assert sorted((e["source"], e["target"]) for e in cli["data"]["edges"]) == [("webapp", "acme-lib"),
                                                                                ("webapp", "gokit")]


def test_a_python_package_whose_distribution_name_is_computed_is_provided_by_its_import_name(tmp_path):
    """requests' setup.py computes its distribution's name at run time (`name=about["__title__"]`),
    so its member declares no package; an app that depends on and imports it still has its edge,
    and its sites resolve `import`, through the top-level package the member holds (`src/reqlib/`),
    which is what a Python import names (was: no edge, and the sites `name_match`). A test folder
    is no such package, and a declared distribution keeps its own manifest."""
    RepoBuilder(tmp_path / "reqlib").commit({
        "setup.py": 'about = {}\nexec(open("src/reqlib/__version__.py").read(), about)\n\n'
                    'from setuptools import setup\n\nsetup(name=about["__title__"], packages=["reqlib"], '
                    'package_dir={"": "src"})\n',
        "src/reqlib/__init__.py": "from reqlib.sessions import Session\n",
        "src/reqlib/__version__.py": '__title__ = "reqlib"\n',
        "src/reqlib/sessions.py": "class Session:\n    def get(self, url):\n        return url\n",
        "tests/__init__.py": "", "tests/test_sessions.py": "from reqlib import Session\n"})
    RepoBuilder(tmp_path / "app").commit({
        "pyproject.toml": '[project]\nname = "app"\nversion = "1"\ndependencies = ["reqlib>=2", "tests"]\n',
        "app/__init__.py": "",
        "app/fetch.py": "import reqlib\nimport tests\n\n\ndef fetch(url):\n    return reqlib.Session().get(url)\n"})
    call = _workspace_calls(tmp_path, "w", ("reqlib", "app"))
    status = call("workspace.status", name="w")
    edges = [(e["source"], e["target"], e["ecosystem"], e["package"], e["manifest"], e["kinds"], e["count"])
             for e in status["data"]["edges"]]
    assert edges == [("app", "reqlib", "pypi", "reqlib", "src/reqlib/__init__.py", ["dependency", "import"], 2)]
    sites = call("context.references", workspace="w", name="reqlib.Session")["data"]["sites"]
    assert [(s["member"], s["path"], s["line"], s["resolution"]) for s in sites if s["member"] == "app"] == [
        ("app", "app/fetch.py", 6, "import")]


def test_a_workspace_of_many_members_answers_an_agent_within_its_ceiling(tmp_path):
    """Over MCP, under the default ceiling of 8 kB, a workspace of eight members each of many
    languages: its overview (members, edges and members' freshness, each kept to what fits in a
    quarter of the ceiling, their cursors paging the rest) and its map at the default budget are
    read inline (were: both spilled to a file, every member's freshness in every reply); the
    members section pages on through its cursor."""
    files = {f"module_{i}.{ext}": body for i, (ext, body) in enumerate((
        ("py", "def f():\n    return 1\n"), ("js", "export function g() {}\n"), ("go", "package m\n\nfunc H() {}\n"),
        ("rs", "pub fn k() {}\n"), ("rb", "def m; end\n"), ("ts", "export const n = 1;\n"), ("c", "int p(void);\n"),
        ("java", "class Q {}\n"), ("md", "# notes\n"), ("toml", "a = 1\n"), ("json", "{}\n"), ("css", "a {}\n")))}
    names = tuple(f"member-with-a-long-name-{i}" for i in range(8))
    for i, name in enumerate(names):
        RepoBuilder(tmp_path / name).commit({**files, "pyproject.toml": f'[project]\nname = "pkg{i}"\n'
                                             f'dependencies = ["pkg{(i + 1) % 8}"]\n'})
    _workspace_calls(tmp_path, "many", names)

    async def work(client):
        overview = text_of(await client.call_tool("context_overview", {"workspace": "many"}))
        cursor = overview["data"]["members"]["cursor"] if "data" in overview else None
        rest: list[str] = []
        while cursor and len(rest) < 8:  # each page of the section as much as fits the ceiling
            page = text_of(await client.call_tool("context_overview", {
                "workspace": "many", "section": "members", "cursor": cursor}))
            rest += [m["name"] for m in page["data"]["items"]]
            cursor = page["page"]["cursor"]
        mapped = text_of(await client.call_tool("context_map", {"workspace": "many"}))
        return overview, rest, mapped

    overview, rest, mapped = run_stdio(str(tmp_path / "store"), work, root=str(tmp_path))
    for reply in (overview, mapped):
        assert "head" not in reply, reply.get("note")
        assert len(json.dumps(reply, separators=(",", ":")).encode()) <= 8192
        assert reply["data"]["member_freshness"]["total"] == 8
        kept = reply["data"]["member_freshness"]
        assert 1 <= len(kept["items"]) < 8 and kept["truncated"]  # fitted to its room, and said so
    members = overview["data"]["members"]
    assert 1 <= members["returned"] < 8 and members["truncated"] and members["total"] == 8
    assert overview["data"]["edges"]["total"] == 8
    assert [m["name"] for m in members["items"]] + rest == list(names)


def test_a_member_outside_the_roots_is_told_as_what_the_user_does(run, fleet):
    """The agent named a workspace, not the member's path: a member outside the roots says that
    no agent tool widens them and what the user does (a root holding it for the server, one the
    client declares), never "pass a path under one of them" (was: the refusal of a `repo` path
    the agent had passed)."""
    from context_tools.faces.roots import Roots

    served = Executor("mcp", store=run.home, roots=Roots.of([fleet["acme-lib"].path, fleet["webapp"].path]))
    gokit = str(Path(fleet["gokit"].path).resolve())
    out = served.run("context.symbol", {"workspace": "fleet", "name": "slugify"}).envelope
    status = served.run("workspace.status", {"name": "fleet"}).envelope
    told = [{m["member"]: m["reason"] for m in out["data"]["member_freshness"]["items"]}["gokit"],
            {m["name"]: m["reason"] for m in status["data"]["members"]}["gokit"], out["freshness"]["reason"]]
    for reason in told:
        assert "pass a path" not in reason and "`repo`" not in reason, reason
        assert f"its repository {gokit!r} is outside the roots this server serves" in reason, reason
        assert f"the user serves it with a root that holds it (`rennet mcp --root {gokit}`)" in reason, reason
    declared = served.run("context.symbol", {"workspace": "fleet", "name": "slugify"},
                          client_roots=[str(fleet["acme-lib"].path)]).envelope
    webapp = {m["member"]: m["reason"] for m in declared["data"]["member_freshness"]["items"]}["webapp"]
    assert "the roots the client declared" in webapp and "the user's client declares a root that holds it" in webapp
    assert "pass a path" not in webapp


def test_a_member_whose_repository_moved_away_says_how_it_is_added_again(run, fleet, tmp_path):
    """A member whose repository moved (or whose rev no longer resolves) says how the user adds
    it again: remove it, then add it from where it now is, at a rev that resolves; to an agent,
    that no agent tool does (were: "repository not readable at ..." and "HEAD no longer
    resolves", no advice). Adding the moved repository under the member's name, `--member`
    given, says to remove the gone member first (was: "pass --member to name this one")."""
    from context_tools.faces.roots import Roots

    moved = tmp_path / "gokit-moved"
    Path(fleet["gokit"].path).rename(moved)
    fleet["acme-lib"].repo.references["refs/heads/main"].rename("refs/heads/trunk")
    remedy = "`rennet workspace remove fleet {m}`, then `rennet workspace add fleet PATH --rev REV --member {m}`"
    status = {m["name"]: m["reason"] for m in run("workspace.status", name="fleet")["data"]["members"]}
    answer = run("context.symbol", workspace="fleet", name="slugify")
    told = {m["member"]: m["reason"] for m in answer["data"]["member_freshness"]["items"]}
    for member in ("gokit", "acme-lib"):
        assert remedy.format(m=member) in status[member], status[member]
        assert remedy.format(m=member) in told[member], told[member]
    agent = Executor("mcp", store=run.home, roots=Roots.of([tmp_path]))
    out = agent.run("context.symbol", {"workspace": "fleet", "name": "slugify"}).envelope
    gokit = {m["member"]: m["reason"] for m in out["data"]["member_freshness"]["items"]}["gokit"]
    assert "no agent tool re-adds a member: the user runs " + remedy.format(m="gokit") in gokit, gokit
    again = run("workspace.add", name="fleet", repo=str(moved), member="gokit", rev="main")
    assert again["error"]["code"] == "already_exists" and "pass --member" not in again["error"]["message"]
    assert "remove it first (`rennet workspace remove fleet gokit`)" in again["error"]["message"], again


def test_a_workspace_references_answer_finds_its_sites_once_for_all_its_pages(run, monkeypatch):
    """A face that lives on (an MCP server, a Client) pages through a workspace's sites without
    finding them again at every page, as it does one snapshot's (was: every page, and the same
    call asked again, read every member's sites anew). The pages still join into the whole
    answer."""
    from context_tools.query.symbols import references

    found: list[str] = []
    real = references.sites_of

    def counted(snap, *args, **kwargs):
        found.append(snap.repo_path)
        return real(snap, *args, **kwargs)

    monkeypatch.setattr(references, "sites_of", counted)
    whole = run("context.references", workspace="fleet", name="slugify")["data"]["sites"]
    assert len(found) == 3
    pages: list[dict] = []
    cursor = None
    while True:
        out = run("context.references", workspace="fleet", name="slugify", limit=2, **({"cursor": cursor} if cursor else {}))
        pages += out["data"]["sites"]
        cursor = out["page"]["cursor"]
        if cursor is None:
            break
    assert pages == whole and len(pages) > 2
    assert len(found) == 3  # the pages read the sites the first call found


def test_workspace_status_of_many_edges_fits_an_agents_ceiling(tmp_path):
    """Over MCP, workspace_status of twelve members each depending on three others (36 edges)
    keeps the edges that fit in half of the ceiling, saying how many there are and that more
    were left out (`edges_total`, `edges_truncated`), and its members page within the rest: read
    inline (was: spilled to a file whole, with no cursor to page on). The overview's `edges`
    section pages every edge."""
    names = tuple(f"svc{i:02d}" for i in range(12))
    for i, name in enumerate(names):
        deps = [names[(i + k) % 12] for k in (1, 2, 3)]
        RepoBuilder(tmp_path / name).commit({
            "pyproject.toml": f'[project]\nname = "{name}"\nversion = "1"\ndependencies = {json.dumps(deps)}\n',
            f"{name}/__init__.py": "".join(f"import {d}\n" for d in deps)})
    _workspace_calls(tmp_path, "many", names)

    async def work(client):
        status = text_of(await client.call_tool("workspace_status", {"name": "many"}))
        edges, cursor = [], None
        while True:
            page = text_of(await client.call_tool("context_overview", {
                "workspace": "many", "section": "edges", **({"cursor": cursor} if cursor else {})}))
            edges += page["data"]["items"]
            cursor = page["page"]["cursor"]
            if cursor is None:
                return status, edges

    status, edges = run_stdio(str(tmp_path / "store"), work, root=str(tmp_path))
    assert "head" not in status, status.get("note")
    assert len(json.dumps(status, separators=(",", ":")).encode()) <= 8192
    data = status["data"]
    assert data["edges_total"] == 36 and data["edges_truncated"] is True and 1 <= len(data["edges"]) < 36
    assert len(json.dumps(data["edges"], separators=(",", ":")).encode()) <= 4096
    assert data["edges"] == edges[:len(data["edges"])] and len(edges) == 36


def test_a_workspace_maps_focus_files_lead_it_whichever_member_holds_them(run):
    """A focus file leads a workspace's map as it leads one snapshot's, whichever member holds it
    (was: the members' files were interleaved by rank position, so the focus file of the third
    member came after the other members' best files, and at a small budget was not on the first
    page at all); the rest follow, interleaved as before, and every file is still on some page."""
    whole = run("context.map", workspace="fleet", budget=65536)["data"]["files"]
    focused = run("context.map", workspace="fleet", focus=["webapp/views.py", "js/text.js"], budget=65536)
    files = [(f["member"], f["path"]) for f in focused["data"]["files"]]
    assert files[:2] == [("gokit", "js/text.js"), ("webapp", "webapp/views.py")], files
    assert sorted(files) == sorted((f["member"], f["path"]) for f in whole)
    small = run("context.map", workspace="fleet", focus=["webapp/views.py"], budget=256)
    assert (small["data"]["files"][0]["member"], small["data"]["files"][0]["path"]) == ("webapp", "webapp/views.py")


def test_a_path_in_several_members_names_the_members_not_read_too(run, fleet):
    """A path several members hold asks for `member` naming them, and names the members that
    were not read (outside the roots, gone), which may hold it too (was: those read alone)."""
    from context_tools.faces.roots import Roots

    served = Executor("mcp", store=run.home, roots=Roots.of([fleet["acme-lib"].path, fleet["webapp"].path]))
    out = served.run("context.file", {"workspace": "fleet", "path": "pyproject.toml"}).envelope
    assert out["error"]["code"] == "bad_input", out
    assert out["error"]["message"] == ("pyproject.toml is in members acme-lib, webapp of workspace 'fleet': pass "
                                       "`member` (not read, so not looked in: gokit (forbidden))")


def test_a_cursor_of_a_workspace_whose_member_was_re_pinned_says_so(tmp_path):
    """A workspace answer's cursor handed out before a member was pinned to another snapshot
    (`workspace sync`): `bad_cursor` naming the workspace, that the pages are gone and to ask
    again without the cursor; and a rev named in the call is named in its own such error."""
    builder = RepoBuilder(tmp_path / "one")
    builder.commit({f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(3)})
    call = _workspace_calls(tmp_path, "ws", ("one",))
    first = call("context.symbol", workspace="ws", name="f", limit=1)
    assert first["page"]["cursor"]
    builder.commit({"m9.py": "def f9():\n    return 9\n"})
    assert call("workspace.sync", name="ws")["ok"]
    again = call("context.symbol", workspace="ws", name="f", limit=1, cursor=first["page"]["cursor"])
    assert again["error"] == {"code": "bad_cursor", "message": (
        "cursor was issued for another snapshot: a member of workspace 'ws' was pinned to another snapshot since "
        "the page it came from, and this call read the members as they are now; the pages the cursor was for are "
        "gone: repeat the query without a cursor to page what they hold now")}
    pinned = call("context.symbol", repo=str(builder.path), rev="main", name="f", limit=1)
    builder.commit({"m10.py": "def f10():\n    return 10\n"})
    call("repo.index", repo=str(builder.path), rev="main")
    moved = call("context.symbol", repo=str(builder.path), rev="main", name="f", limit=1,
                 cursor=pinned["page"]["cursor"])
    assert moved["error"]["code"] == "bad_cursor"
    assert moved["error"]["message"].startswith("cursor was issued for another snapshot: main was indexed again since")
