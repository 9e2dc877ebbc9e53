"""Workspaces: three fixture repositories with cross-repository edges, composed by reference."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from context_tools.faces.context import StoreHandle
from context_tools.faces.dispatch import Executor
from context_tools.faces.registry import load_packs
from corpora.gitbuild import RepoBuilder
from indexer.fleet import workspace

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fleet(tmp_path):
    """acme-lib declares the Python distribution acme-utils and the crate acme-core; gokit declares the
    Go module github.com/acme/gokit and the npm package @acme/widgets; webapp depends on and imports them."""
    lib = RepoBuilder(tmp_path / "acme-lib")
    lib.commit({
        "pyproject.toml": '[project]\nname = "acme-utils"\nversion = "1.2.0"\ndependencies = ["requests>=2"]\n',
        "acme_utils/__init__.py": "def slugify(text):\n    return text.lower()\n",
        "Cargo.toml": '[package]\nname = "acme-core"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub fn parse(s: &str) -> usize { s.len() }\n",
    })
    kit = RepoBuilder(tmp_path / "gokit")
    kit.commit({
        "go.mod": "module github.com/acme/gokit\n\ngo 1.21\n",
        "log/log.go": "package log\n\nvar Level = 1\n",
        "js/package.json": '{"name": "@acme/widgets", "version": "2.1.0"}',
        "js/button.js": "export const Button = 1;\n",
    })
    app = RepoBuilder(tmp_path / "webapp")
    app.commit({
        "pyproject.toml": '[project]\nname = "webapp"\nversion = "0.1"\ndependencies = ["Acme.Utils>=1.0", "flask"]\n',
        "webapp/__init__.py": "",
        "webapp/views.py": "import acme_utils\nfrom acme_utils import slugify\nimport flask\n\n\ndef page(t):\n"
                           "    return slugify(t)\n",
        "go.mod": "module github.com/acme/webapp\n\ngo 1.21\n\nrequire github.com/acme/gokit v1.0.0\n",
        "cmd/main.go": 'package main\n\nimport (\n\t"fmt"\n\t"github.com/acme/gokit/log"\n)\n\nfunc main() { fmt.Println(log.Level) }\n',
        "web/package.json": '{"name": "webui", "version": "1.0.0"}',
        "web/index.js": "import {Button} from '@acme/widgets/button';\nconsole.log(Button);\n",
        "rs/Cargo.toml": '[package]\nname = "webapp-rs"\nversion = "0.1.0"\n\n[dependencies]\nacme-core = "0.1"\n',
        "rs/src/main.rs": "use acme_core::parse;\n\nfn main() { println!(\"{}\", parse(\"x\")); }\n",
    })
    kit.repo.remotes.create("origin", "https://git.example.invalid/acme/gokit.git")
    return {"acme-lib": lib, "gokit": kit, "webapp": app}


@pytest.fixture
def run(tmp_path):
    home = tmp_path / "store"
    executor = Executor("cli", store=str(home), table=load_packs(["context_tools.faces.packs.fleet"]))

    def call(command: str, **input):
        reply = executor.run(command, input)
        return reply.envelope

    call.home = home
    call.store = lambda: StoreHandle(home).store
    return call


def _edges(envelope) -> set[tuple]:
    return {(e["source"], e["target"], e["ecosystem"], e["package"], tuple(e["kinds"]))
            for e in envelope["data"]["edges"]}


EXPECTED_EDGES = {
    ("webapp", "acme-lib", "pypi", "acme-utils", ("dependency", "import")),
    ("webapp", "gokit", "go", "github.com/acme/gokit", ("dependency", "import")),
    ("webapp", "gokit", "npm", "@acme/widgets", ("import",)),
    ("webapp", "acme-lib", "cargo", "acme-core", ("dependency", "import")),
}


def test_three_members_with_cross_edges(fleet, run):
    assert run("workspace.create", name="fleet")["ok"]
    for name, builder in fleet.items():
        out = run("workspace.add", name="fleet", repo=str(builder.path), rev="main")
        assert out["ok"], out
        assert out["data"]["member"]["name"] == name
        assert out["freshness"]["status"] == "current"
    status = run("workspace.status", name="fleet")
    assert status["ok"]
    assert _edges(status) == EXPECTED_EDGES
    py = next(e for e in status["data"]["edges"] if e["ecosystem"] == "pypi")
    # the manifest dependency plus the two import lines of views.py
    assert py["count"] == 3
    assert {(v["path"], v["line"]) for v in py["evidence"]} == {("pyproject.toml", 0), ("webapp/views.py", 1),
                                                                ("webapp/views.py", 2)}
    assert py["manifest"] == "pyproject.toml"
    members = {m["name"]: m for m in status["data"]["members"]}
    assert set(members) == {"acme-lib", "gokit", "webapp"}
    assert all(m["freshness"] == "current" for m in members.values())
    assert status["data"]["counts"] == {"current": 3, "stale": 0, "unknown": 0, "dirty": 0, "partial": 0}
    assert members["gokit"]["packages"] == ["go:github.com/acme/gokit", "npm:@acme/widgets"]
    assert members["gokit"]["remote_url"] == "https://git.example.invalid/acme/gokit.git"
    assert members["webapp"]["remote_url"]["unknown"] == "not_applicable"  # no remote set: none claimed
    for name, builder in fleet.items():
        head = str(builder.repo.references["refs/heads/main"].target)
        assert members[name]["pinned_oid"] == head
        assert members[name]["path"] == os.path.realpath(builder.path)
        assert len(members[name]["fingerprint"]) == 64
    assert status["page"] == {"total": 3, "returned": 3, "truncated": False, "cursor": None}


def test_members_api_and_composition_by_reference(fleet, run):
    run("workspace.create", name="fleet")
    for builder in fleet.values():
        run("workspace.add", name="fleet", repo=str(builder.path), rev="main")
    store = run.store()
    found = workspace.members(store, "fleet")
    assert [m.name for m in found] == ["acme-lib", "gokit", "webapp"]
    for m in found:
        snap = workspace.member_snapshot(store, m)
        assert (snap.oid, snap.fingerprint) == (m.oid, m.fingerprint)
        assert m.rev == "main" and m.path == snap.repo_path
    # A member's map is read through its snapshot, never stored in the workspace.
    lib = next(m for m in found if m.name == "acme-lib")
    assert [p for p, _ in workspace.member_snapshot(store, lib).definitions("slugify")] == ["acme_utils/__init__.py"]
    raw = store.kv("workspaces").get(b"ws|fleet")
    assert b"slugify" not in raw and b"Level" not in raw and b"Button" not in raw
    record = msgspec.msgpack.decode(raw)
    assert set(record) == {"name", "created_at", "updated_at", "members", "edges"}
    ov = workspace.workspace_overview(store, "fleet")
    assert {(e.source, e.target, e.ecosystem, e.package, e.kinds) for e in ov.edges} == EXPECTED_EDGES
    assert [s.freshness.status for s in ov.members] == ["current"] * 3


def test_staleness_after_a_member_branch_moves_and_re_pin(fleet, run):
    run("workspace.create", name="fleet")
    for builder in fleet.values():
        run("workspace.add", name="fleet", repo=str(builder.path), rev="main")
    moved = fleet["gokit"].commit({"log/extra.go": "package log\n\nvar Extra = 2\n"})
    status = run("workspace.status", name="fleet")
    members = {m["name"]: m for m in status["data"]["members"]}
    assert members["gokit"]["freshness"] == "stale"
    assert members["gokit"]["current_oid"] == moved
    assert members["gokit"]["pinned_oid"] != moved
    assert members["webapp"]["freshness"] == "current"
    assert status["data"]["counts"] == {"current": 2, "stale": 1, "unknown": 0, "dirty": 0, "partial": 0}
    again = run("workspace.add", name="fleet", repo=str(fleet["gokit"].path), rev="main")
    assert again["data"]["replaced"] is True
    assert again["data"]["member"]["pinned_oid"] == moved
    assert again["data"]["members"] == 3
    status = run("workspace.status", name="fleet")
    assert status["data"]["counts"] == {"current": 3, "stale": 0, "unknown": 0, "dirty": 0, "partial": 0}
    # sync re-pins whatever moved, and only that
    webapp_before = members["webapp"]["pinned_oid"]
    moved_app = fleet["webapp"].commit({"webapp/more.py": "import acme_utils\n"})
    synced = run("workspace.sync", name="fleet")
    assert [(m["member"], m["old_oid"], m["new_oid"]) for m in synced["data"]["repinned"]] == [
        ("webapp", webapp_before, moved_app)]
    assert run("workspace.status", name="fleet")["data"]["counts"] == {"current": 3, "stale": 0, "unknown": 0, "dirty": 0, "partial": 0}
    py = next(e for e in run("workspace.status", name="fleet")["data"]["edges"] if e["ecosystem"] == "pypi")
    assert py["count"] == 4  # the new module's import is an edge site of the re-pinned snapshot
    # a member whose repository is gone is unknown, not current and not an error
    shutil.rmtree(fleet["acme-lib"].path)
    status = run("workspace.status", name="fleet")
    members = {m["name"]: m for m in status["data"]["members"]}
    assert members["acme-lib"]["freshness"] == "unknown"
    assert members["acme-lib"]["current_oid"]["unknown"] == "not_applicable"



def test_sync_leaves_an_unknown_member_as_it_is_and_remove_keeps_the_snapshot(fleet, run):
    """`workspace sync` re-pins stale members only; `workspace remove` drops the member, never
    its snapshot; a member whose pinned snapshot the store lacks is unknown, not current."""
    from indexer.store.records import load_stored_record, snapshot_key

    lib = fleet["acme-lib"]
    lib.commit({"acme_utils/extra.py": "x = 1\n"}, branch="topic")
    run("workspace.create", name="fleet")
    run("workspace.add", name="fleet", repo=str(lib.path), rev="topic")
    for name in ("gokit", "webapp"):
        run("workspace.add", name="fleet", repo=str(fleet[name].path), rev="main")
    store = run.store()
    pinned = {m.name: m for m in workspace.members(store, "fleet")}
    lib.repo.references.delete("refs/heads/topic")  # acme-lib's rev no longer resolves: unknown
    moved = fleet["gokit"].commit({"log/extra.go": "package log\n\nvar Extra = 2\n"})
    synced = run("workspace.sync", name="fleet")
    assert synced["ok"], synced
    assert [(m["member"], m["new_oid"]) for m in synced["data"]["repinned"]] == [("gokit", moved)]
    assert workspace.members(store, "fleet")[0] == pinned["acme-lib"]
    out = run("workspace.remove", name="fleet", repo="acme-lib")
    assert out["ok"] and load_stored_record(store, pinned["acme-lib"].oid) is not None
    web = pinned["webapp"]
    with store.env.begin(write=True) as txn:  # the store lost the member's snapshot
        txn.delete(snapshot_key(web.oid, web.extractor_version), db=store.snapshots)
    members = {m["name"]: m for m in run("workspace.status", name="fleet")["data"]["members"]}
    assert members["webapp"]["freshness"] == "unknown" and members["gokit"]["freshness"] == "current"


def test_add_remove_list(fleet, run):
    run("workspace.create", name="fleet")
    run("workspace.create", name="other")
    for builder in fleet.values():
        run("workspace.add", name="fleet", repo=str(builder.path), rev="main")
    listed = run("workspace.list")
    assert [(w["name"], w["members"], w["edges"]) for w in listed["data"]["workspaces"]] == [("fleet", 3, 4), ("other", 0, 0)]
    out = run("workspace.remove", name="fleet", repo="gokit")  # by member name
    assert out["ok"] and out["data"]["removed"]["name"] == "gokit" and out["data"]["members"] == 2
    assert _edges(out) == {("webapp", "acme-lib", "pypi", "acme-utils", ("dependency", "import")),
                           ("webapp", "acme-lib", "cargo", "acme-core", ("dependency", "import"))}
    out = run("workspace.remove", name="fleet", repo=str(fleet["webapp"].path))  # by path
    assert out["ok"] and out["data"]["removed"]["name"] == "webapp" and out["data"]["edges"] == []
    missing = run("workspace.remove", name="fleet", repo="webapp")
    assert missing["error"]["code"] == "not_found"
    listed = run("workspace.list")
    assert [(w["name"], w["members"], w["edges"]) for w in listed["data"]["workspaces"]] == [("fleet", 1, 0), ("other", 0, 0)]
    # a member name clash needs --member; with it, both are members
    clone = Path(str(fleet["webapp"].path) + "-copy") / "acme-lib"
    shutil.copytree(fleet["acme-lib"].path, clone)
    clash = run("workspace.add", name="fleet", repo=str(clone))
    assert clash["error"]["code"] == "already_exists"
    ok = run("workspace.add", name="fleet", repo=str(clone), member="acme-lib-fork")
    assert ok["ok"] and ok["data"]["members"] == 2


def test_bad_input_is_typed(fleet, run, tmp_path):
    assert run("workspace.create", name="fleet")["ok"]
    assert run("workspace.create", name="fleet")["error"]["code"] == "already_exists"
    assert run("workspace.create", name="no spaces")["error"]["code"] == "bad_input"
    assert run("workspace.status", name="nope")["error"]["code"] == "not_found"
    assert run("workspace.add", name="nope", repo=str(fleet["gokit"].path))["error"]["code"] == "not_found"
    assert run("workspace.add", name="fleet", repo=str(tmp_path / "absent"))["error"]["code"] == "not_a_repository"
    assert run("workspace.add", name="fleet", repo=str(fleet["gokit"].path), rev="no-such")["error"]["code"] == "unknown_rev"
    assert run("workspace.list")["data"]["workspaces"][0]["members"] == 0  # nothing half-added


def test_cli_verbs_and_exit_codes(fleet, tmp_path):
    home = tmp_path / "cli-store"

    def rennet(*args):
        return subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *args, "--store", str(home)],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)

    assert rennet("workspace", "create", "fleet").returncode == 0
    # one member is added by the verb; the others in-process, into the same store, as the verb adds them
    executor = Executor("cli", store=str(home), table=load_packs(["context_tools.faces.packs.fleet"]))
    first, *rest = fleet.values()
    done = rennet("workspace", "add", "fleet", str(first.path), "--rev", "main", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    for builder in rest:
        assert executor.run("workspace.add", {"name": "fleet", "repo": str(builder.path), "rev": "main"}).envelope["ok"]
    status = rennet("workspace", "status", "fleet", "--json")
    assert status.returncode == 0
    assert _edges(json.loads(status.stdout)) == EXPECTED_EDGES
    human = rennet("workspace", "status", "fleet")
    assert "webapp -> acme-lib  pypi:acme-utils" in human.stdout
    failed = rennet("workspace", "remove", "fleet", "nobody")
    assert failed.returncode == 1 and "not_found" in failed.stderr
    assert rennet("workspace", "list", "--json").returncode == 0


def test_cross_edges_take_the_longest_module_cap_their_evidence_and_never_loop(tmp_path, run):
    """A Go import is claimed by the longest module path a member declares, an import the
    member's own resolution calls unresolved is no edge, a member depending on its own
    package (`pkg[extra]`) has no edge to itself, the first manifest in path order names the
    package, and evidence is the first EVIDENCE_CAP sites in order with the count of all."""
    RepoBuilder(tmp_path / "root").commit({"go.mod": "module github.com/acme\n\ngo 1.21\n", "root.go": "package acme\n"})
    RepoBuilder(tmp_path / "kit").commit({
        "go.mod": "module github.com/acme/kit\n\ngo 1.21\n", "log/log.go": "package log\n\nvar Level = 1\n",
        "pyproject.toml": '[project]\nname = "acme-utils"\n[project.optional-dependencies]\nall = ["acme-utils[fast]"]\n',
        "a/setup.cfg": "[metadata]\nname = acme_utils\n",
        "acme_utils/__init__.py": "X = 1\n",
    })
    RepoBuilder(tmp_path / "app").commit({
        "go.mod": "module github.com/acme/app\n\ngo 1.21\n\nrequire github.com/acme/kit v1.0.0\n",
        "main.go": 'package main\n\nimport (\n\t"github.com/acme/kit/log"\n\t"github.com/acme/app/gone"\n)\n\n'
                   "func main() { _ = log.Level; gone.X() }\n",
        "pyproject.toml": '[project]\nname = "app"\ndependencies = ["acme-utils"]\n',
        "app/__init__.py": "", "app/uses.py": "".join(f"import acme_utils  # {i}\n" for i in range(7)),
    })
    assert run("workspace.create", name="w")["ok"]
    for name in ("root", "kit", "app"):
        assert run("workspace.add", name="w", repo=str(tmp_path / name))["ok"]
    edges = {(e["source"], e["target"], e["ecosystem"]): e for e in run("workspace.status", name="w")["data"]["edges"]}
    assert set(edges) == {("app", "kit", "go"), ("app", "kit", "pypi")}
    assert edges[("app", "kit", "go")]["kinds"] == ["dependency", "import"]
    py = edges[("app", "kit", "pypi")]
    assert (py["package"], py["manifest"], py["count"]) == ("acme_utils", "a/setup.cfg", 8)
    assert [(v["path"], v["line"]) for v in py["evidence"]] == [("app/uses.py", n) for n in range(1, 6)]


def test_member_names_order_and_removal_of_a_member_whose_repository_is_gone(fleet, run):
    from indexer.store.records import load_stored_record

    assert run("workspace.create", name="w" * 64)["ok"]
    assert run("workspace.create", name="w" * 65)["error"]["code"] == "bad_input"
    run("workspace.create", name="fleet")
    kit = fleet["gokit"]
    # a workspace that does not exist fails the add before anything is indexed
    assert run("workspace.add", name="nope", repo=str(kit.path))["error"]["code"] == "not_found"
    head = str(kit.repo.references["refs/heads/main"].target)
    assert load_stored_record(run.store(), head) is None
    assert run("workspace.add", name="fleet", repo=str(kit.path), member="no spaces")["error"]["code"] == "bad_input"
    kit.repo.remotes.create("a-mirror", "https://mirror.example.invalid/gokit.git")
    assert run("workspace.add", name="fleet", repo=str(kit.path), member="kit")["ok"]
    for name in ("webapp", "acme-lib"):
        assert run("workspace.add", name="fleet", repo=str(fleet[name].path))["ok"]
    again = run("workspace.add", name="fleet", repo=str(kit.path))  # re-pinned: it keeps the name it was given
    assert again["data"]["replaced"] is True and again["data"]["member"]["name"] == "kit"
    assert again["data"]["member"]["remote_url"] == "https://git.example.invalid/acme/gokit.git"  # origin first
    assert [m.name for m in workspace.members(run.store(), "fleet")] == ["acme-lib", "kit", "webapp"]
    shutil.rmtree(fleet["webapp"].path)  # removed by the path it was recorded at, though no repository is there
    out = run("workspace.remove", name="fleet", repo=str(fleet["webapp"].path))
    assert out["ok"] and out["data"]["removed"]["name"] == "webapp"
    assert workspace._default_member_name("/srv/git/lib.git") == "lib"
    assert workspace._default_member_name("/srv/git/.hidden repo") == "hidden-repo"
    assert workspace._default_member_name("/srv/.git") == "git"


def test_an_unreadable_workspace_row_is_store_corrupt_and_hides_no_other(fleet, run):
    run("workspace.create", name="fleet")
    run("workspace.add", name="fleet", repo=str(fleet["gokit"].path))
    store = run.store()
    raw = msgspec.msgpack.decode(store.kv("workspaces").get(b"ws|fleet"))
    raw["name"] = "pinless"
    raw["members"][0]["oid"] = "main"  # a member pinned to no commit OID
    store.kv("workspaces").put(b"ws|pinless", msgspec.msgpack.encode(raw))
    store.kv("workspaces").put(b"ws|garbled", b"\xc1 not msgpack")
    assert run("workspace.status", name="pinless")["error"]["code"] == "store_corrupt"
    assert run("workspace.status", name="garbled")["error"]["code"] == "store_corrupt"
    assert [w["name"] for w in run("workspace.list")["data"]["workspaces"]] == ["fleet"]


def test_sync_says_which_members_it_could_not_re_pin_and_why(fleet, run):
    """`workspace sync` re-pins the members that moved and names those it cannot re-pin, a
    member whose rev or repository is gone, with the reason that says how it is added again,
    in its reply and on its human line (was: "re-pinned 1 of 3 members", the gone member left
    without a word)."""
    from context_tools.faces.packs.fleet import SyncData, render_workspace
    from indexer.contract.result import Result

    run("workspace.create", name="fleet")
    for name in ("acme-lib", "gokit", "webapp"):
        run("workspace.add", name="fleet", repo=str(fleet[name].path), rev="main")
    shutil.rmtree(fleet["acme-lib"].path)
    moved = fleet["gokit"].commit({"log/extra.go": "package log\n\nvar Extra = 2\n"})
    synced = run("workspace.sync", name="fleet")
    assert synced["ok"], synced
    assert [(m["member"], m["new_oid"]) for m in synced["data"]["repinned"]] == [("gokit", moved)]
    left = synced["data"]["not_repinned"]
    assert [(m["member"], m["freshness"]) for m in left] == [("acme-lib", "unknown")]
    assert "`rennet workspace remove fleet acme-lib`" in left[0]["reason"]
    shown = render_workspace(Result(data=msgspec.convert(synced["data"], type=SyncData))).splitlines()
    assert shown[0] == "workspace fleet: re-pinned 1 of 3 members, 1 not re-pinned"
    assert any(line.startswith("  acme-lib: not re-pinned (unknown): repository not readable") for line in shown), shown


@pytest.mark.parametrize("member", [None, "lib"])
def test_a_member_name_clash_is_refused_before_anything_is_indexed(run, tmp_path, member):
    """A repository whose member name (its folder's, or the one given) another member has is
    refused before it is indexed: the clash costs no parse and leaves no snapshot, pin, path or
    blob facts behind (was: indexed first, its snapshot and rev pin kept, then refused)."""
    one = RepoBuilder(tmp_path / "one" / "lib")
    one.commit({"lib/a.py": "def alpha():\n    return 1\n"})
    two = RepoBuilder(tmp_path / "two" / "lib")
    two.commit({"lib/b.py": "def beta():\n    return 2\n", "lib/c.py": "from lib.b import beta\n"})
    assert run("workspace.create", name="ws")["ok"]
    assert run("workspace.add", name="ws", repo=str(one.path), member=member)["ok"]
    store = run.store()

    def rows() -> dict[str, list[tuple[bytes, bytes]]]:  # every table but the ledger's receipts
        out = {}
        with store.env.begin() as txn:
            for table, _ in txn.cursor():
                if not bytes(table).startswith(b"kv:ledger"):
                    db = store.env.open_db(bytes(table), txn=txn, create=False)
                    out[bytes(table).decode()] = [(bytes(k), bytes(v)) for k, v in txn.cursor(db=db)]
        return out

    before = rows()
    clash = run("workspace.add", name="ws", repo=str(two.path), member=member)
    assert clash["error"]["code"] == "already_exists", clash
    assert "has a member named 'lib' already" in clash["error"]["message"]
    assert rows() == before
