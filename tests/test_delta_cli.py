"""`rennet delta` and `rennet call delta.build`: the registry row's CLI face, the result
contract on stdout, typed one-line errors with exit 1."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parents[1]


def rennet(*args: str, home: Path) -> subprocess.CompletedProcess:
    return run_cli(*args, home=home, timeout=120)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    b = RepoBuilder(root / "repo")
    fork = b.commit({"app.py": "def run():\n    return 1\n", "tests/test_app.py": "def test_run():\n    pass\n"})
    v1 = b.commit({"app.py": "def run():\n    return 2\n"}, branch="feature", parents=[fork])
    b.tag("v1", v1)
    b.checkout(fork)
    b.commit({"app.py": "def run():\n    return 3\n", "yarn.lock": "# lock\n"}, branch="feature", parents=[fork])
    return root


def test_rennet_delta_json_prints_the_result_contract(repo):
    out = repo / "out"
    proc = rennet("delta", "--repo", str(repo / "repo"), "--base", "main", "--head", "feature",
                  "--previous-base", "main", "--previous-head", "v1", "--out", str(out), "--no-index", "--json",
                  home=repo / "home")
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    assert reply["ok"] is True and reply["command"] == "delta.build"
    data = reply["data"]
    assert data["range"]["base_ref"] == "main" and data["schema"] == "rennet.delta/1"
    assert [f["path"] for f in data["files"]] == ["app.py", "yarn.lock"]
    assert data["files"][1]["noise"] == {"class": "lockfile", "rule": "lockfile:yarn.lock"}
    assert data["successor"]["counts"]["changed"] == 1
    assert data["dossier"]["unknown"] == "not_requested"
    assert reply["page"] == {"total": 2, "returned": 2, "truncated": False, "cursor": None}
    assert reply["freshness"]["pinned_oid"] == data["range"]["head_oid"]
    assert (out / "noise-offer.json").is_file() and (out / "packet.json").is_file()
    assert data["offer"] == str(out / "noise-offer.json")


def test_rennet_delta_human_output(repo):
    proc = rennet("delta", "--repo", str(repo / "repo"), "--base", "main", "--head", "feature", "--no-index",
                  home=repo / "home")
    assert proc.returncode == 0, proc.stderr
    assert "app.py" in proc.stdout and "lockfile" in proc.stdout and "noise offer:" in proc.stdout
    assert "successor of" not in proc.stdout  # no previous patchset given


def test_rennet_delta_human_output_gives_the_successor_account(repo):
    proc = rennet("delta", "--repo", str(repo / "repo"), "--base", "main", "--head", "feature", "--no-index",
                  "--previous-base", "main", "--previous-head", "v1", home=repo / "home")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "successor of" in x)
    assert line.endswith("carried 0  moved 0  changed 1  dropped 0  new 1"), line  # app.py changed, yarn.lock new


def test_unknown_rev_is_one_typed_line_and_exit_1(repo):
    proc = rennet("delta", "--repo", str(repo / "repo"), "--base", "nope", "--head", "feature", "--no-index",
                  home=repo / "home")
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("rennet: unknown_rev:") and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_call_face_gives_the_same_data(repo):
    args = {"repo": str(repo / "repo"), "base": "main", "head": "feature", "index": False,
            "out": str(repo / "out2")}
    proc = rennet("call", "delta.build", json.dumps(args), home=repo / "home")
    assert proc.returncode == 0, proc.stderr
    via_call = json.loads(proc.stdout)["data"]
    proc = rennet("delta", "--repo", str(repo / "repo"), "--base", "main", "--head", "feature", "--no-index",
                  "--out", str(repo / "out2"), "--json", home=repo / "home")
    assert json.loads(proc.stdout)["data"] == via_call
    bad = rennet("call", "delta.build", json.dumps({**args, "bogus": 1}), home=repo / "home")
    assert bad.returncode == 1 and json.loads(bad.stdout)["error"]["code"] == "bad_input"
