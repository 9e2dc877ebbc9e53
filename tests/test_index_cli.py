"""`rennet index` and `rennet snapshot dump` as a user runs them: a real process, real exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pygit2
import pytest

from corpora.gitbuild import Link, RepoBuilder
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parent.parent


def rennet(*args: str, home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return run_cli(*args, home=home, cwd=cwd or ROOT, timeout=120)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "repo"
    b = RepoBuilder(path)
    b.commit({
        "pkg/__init__.py": "",
        "pkg/shapes.py": "class Shape:\n    def area(self):\n        return 0\n\n\nclass Square(Shape):\n    pass\n",
        "pkg/use.py": "from pkg.shapes import Square\n\n\ndef build():\n    return Square()\n",
        "data.bin": b"\x00\x01\x02binary",
        "alias": Link("pkg/use.py"),
    })
    return path


def test_index_json_prints_one_result_object(repo, tmp_path):
    out = rennet("index", str(repo), "--json", home=tmp_path / "home")
    assert out.returncode == 0, out.stderr
    reply = json.loads(out.stdout)
    assert reply["ok"] is True and reply["command"] == "repo.index"
    data = reply["data"]
    assert set(data) >= {"repo", "rev", "oid", "fingerprint", "files", "symbols", "edges", "languages",
                         "parsed_blobs", "reused_blobs", "skipped", "seconds"}
    assert data["oid"] == str(pygit2.Repository(str(repo)).head.target)
    assert data["files"] == 5 and data["edges"] >= 1
    assert {(s["path"], s["reason"]) for s in data["skipped"]} == {("data.bin", "binary"), ("alias", "symlink")}
    assert reply["freshness"]["pinned_oid"] == data["oid"]
    again = json.loads(rennet("index", str(repo), "--json", home=tmp_path / "home").stdout)["data"]
    assert again["fingerprint"] == data["fingerprint"] and again["parsed_blobs"] == 0


def test_index_defaults_to_the_current_directory(repo, tmp_path):
    out = rennet("index", "--json", "--quiet", home=tmp_path / "home", cwd=repo / ".git")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["data"]["repo"] == str(repo.resolve())


def test_snapshot_dump_is_canonical_json_lines(repo, tmp_path):
    first = rennet("snapshot", "dump", str(repo), "--rev", "main", home=tmp_path / "a")
    second = rennet("snapshot", "dump", str(repo), "--rev", "main", home=tmp_path / "b")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    records = [json.loads(line) for line in first.stdout.splitlines()]
    types = {r["type"] for r in records}
    assert types >= {"file", "symbol", "edge"}
    assert types <= {"file", "symbol", "edge", "package", "dependency", "entry_point"}
    area = next(r for r in records if r["type"] == "symbol" and r["name"] == "area")
    assert area == {**area, "path": "pkg/shapes.py", "kind": "method", "container": "Shape", "line": 2, "end_line": 3}
    edge = next(r for r in records if r["type"] == "edge" and r["from"] == "pkg/use.py" and r["to"])
    assert edge["to"] == "pkg/shapes.py" and edge["kind"]
    out_file = tmp_path / "dump.jsonl"
    written = rennet("snapshot", "dump", str(repo), "--out", str(out_file), home=tmp_path / "a")
    assert written.returncode == 0 and out_file.read_text() == first.stdout


@pytest.mark.parametrize("args, code", [
    (("index", "{tmp}"), "not_a_repository"),
    (("index", "{repo}", "--rev", "nope"), "unknown_rev"),
    (("index", "{empty}"), "empty_repository"),
    (("snapshot", "dump", "{repo}", "--rev", "nope"), "unknown_rev"),
])
def test_bad_input_is_one_typed_line_and_exit_1(repo, tmp_path, args, code):
    empty = tmp_path / "empty"
    pygit2.init_repository(str(empty))
    (tmp_path / "plain").mkdir()
    argv = [a.format(tmp=tmp_path / "plain", repo=repo, empty=empty) for a in args]
    out = rennet(*argv, home=tmp_path / "home")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f": {code}: " in lines[0], out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_store_of_another_schema_is_refused_and_kept(repo, tmp_path):
    from indexer import api
    from indexer.store.database import Store

    home = tmp_path / "home"
    with Store.open(home) as store:  # a store indexed in-process, as `rennet index` makes it
        api.index(str(repo), store=store, workers=1)
    store = Store.open(home)
    with store.env.begin(db=store.meta, write=True) as txn:
        txn.put(b"schema", b"999")
    store.close()
    before = (home / "lmdb" / "data.mdb").read_bytes()
    out = rennet("index", str(repo), "--json", home=home)
    assert out.returncode == 1 and "schema_mismatch" in out.stderr
    assert json.loads(out.stdout)["error"]["code"] == "schema_mismatch"
    assert (home / "lmdb" / "data.mdb").read_bytes() == before



@pytest.mark.parametrize("verb, rev, named", [
    (("index", "{repo}"), "HEAD:pkg", "a tree"),
    (("index", "{repo}"), "HEAD^{tree}", "a tree"),
    (("index", "{repo}"), "treetag", "a tag of a tree"),
    (("context", "symbol", "f", "--repo", "{repo}"), "HEAD:pkg/a.py", "a blob"),
    (("snapshot", "dump", "{repo}"), "HEAD:pkg/a.py", "a blob"),
])
def test_a_rev_naming_a_tree_or_blob_says_what_it_names(tmp_path, verb, rev, named):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"pkg/a.py": "def f():\n    return 1\n"})
    b.repo.create_tag("treetag", b.repo.revparse_single("HEAD:pkg").id, pygit2.GIT_OBJECT_TREE,
                      pygit2.Signature("t", "t@example.invalid", 1_700_000_000, 0), "a tag of a tree")
    out = rennet(*(a.format(repo=b.path) for a in verb), "--rev", rev, home=tmp_path / "home")
    assert out.returncode == 1 and out.stdout == "" and "Traceback" not in out.stderr
    kind = pygit2.Tree if "tree" in named else pygit2.Blob
    oid = str(b.repo.revparse_single(rev).peel(kind).id)[:12]
    # was: unknown revision 'HEAD:pkg' (the git_object of id '...' can not be successfully peeled into a
    # commit (git_object_t=1).)
    assert out.stderr.strip().splitlines() == [f"rennet: unknown_rev: {rev!r} names {named} ({oid}), not a commit"]


@pytest.mark.parametrize("verb", [("index", "{file}"), ("context", "overview", "--repo", "{file}")])
def test_a_repo_that_is_a_file_is_not_a_repository(tmp_path, verb):
    # was: served as the repository around it, under the file's name
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"pkg/a.py": "def f():\n    return 1\n"})
    file = b.path / "notes.txt"  # a file in the repository's working tree
    file.write_text("x\n")
    out = rennet(*(a.format(file=file) for a in verb), "--json", home=tmp_path / "home")
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "not_a_repository"
    assert out.stderr.splitlines() == [f"rennet: not_a_repository: {file} is a file, not a repository's folder"]


def test_a_tag_stating_another_type_than_its_target_says_what_the_target_is(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"pkg/a.py": "def f():\n    return 1\n"})
    tree = str(b.repo.revparse_single("HEAD^{tree}").id)
    raw = f"object {tree}\ntype commit\ntag liar\ntagger t <t@example.invalid> 0 +0000\n\nx\n"
    tag = b.repo.odb.write(pygit2.enums.ObjectType.TAG, raw.encode())
    b.repo.references.create("refs/tags/liar", tag)
    out = rennet("index", str(b.path), "--rev", "liar", home=tmp_path / "home")
    # was: 'liar' names a tag of a missing object: the tree is there, libgit2 read it as a commit
    assert out.returncode == 1 and out.stderr.strip().splitlines() == [
        f"rennet: unknown_rev: 'liar' names a tag of a tree ({tree[:12]}) mislabelled as another type, not a commit"]


@pytest.mark.parametrize("args", [
    ("index", "{repo}", "--rev", "", "--json"),  # was: unknown_rev, where context.* said bad_input
    ("snapshot", "dump", "{repo}", "--rev", "", "--json"),
    ("index", "", "--json"),  # was: not_a_repository
    ("context", "symbol", "Shape", "--repo", "{repo}", "--rev", "", "--json"),
])
def test_an_empty_rev_or_repo_is_bad_input_on_every_verb(repo, tmp_path, args):
    out = rennet(*(a.format(repo=repo) for a in args), home=tmp_path / "home")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rennet: bad_input: "), out.stderr
    reply = json.loads(out.stdout)
    assert reply["ok"] is False and reply["error"]["code"] == "bad_input" and set(reply) == {"ok", "command", "error"}
