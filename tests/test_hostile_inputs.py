"""Hostile input on the user-facing faces: each case ends in one typed line and a non-zero
exit (or an answer), never a traceback, a crash or a silently dropped file; nothing stored
is lost. Real repositories built in-test, a real store, `rennet` run as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from corpora.gitbuild import RepoBuilder

ROOT = Path(__file__).resolve().parent.parent


def rennet(*args: str, home: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "RENNET_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("RENNET_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "context_tools.cli", *args], env=env, cwd=str(home.parent),
                          capture_output=True, text=True, timeout=120, input=stdin)


def one_typed_line(out: subprocess.CompletedProcess, code: str) -> None:
    assert out.returncode == 1, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"rennet: {code}: " in lines[0], out.stderr
    assert "Traceback" not in out.stderr


def commit_raw_tree(repo: pygit2.Repository, entries: list[tuple[bytes, pygit2.Oid]], folder: str) -> str:
    """Commit HEAD's tree plus `folder/` holding blobs under raw byte names (git allows any
    bytes but NUL and '/'; pygit2's TreeBuilder only takes text)."""
    raw = b"".join(b"100644 " + name + b"\x00" + oid.raw for name, oid in sorted(entries))
    sub = repo.odb.write(pygit2.GIT_OBJECT_TREE, raw)
    head = repo.head.peel(pygit2.Commit)
    builder = repo.TreeBuilder(head.tree)
    builder.insert(folder, sub, pygit2.GIT_FILEMODE_TREE)
    sig = pygit2.Signature("t", "t@example.invalid", 1_700_000_100, 0)
    return str(repo.create_commit("refs/heads/main", sig, sig, "raw names", builder.write(), [head.id]))


def test_a_path_that_is_not_utf8_is_indexed_with_its_bytes_escaped(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "def fine():\n    return 1\n"})
    blob = b.repo.create_blob(b"def q():\n    pass\n")
    commit_raw_tree(b.repo, [(b"bad\xffname.py", blob), (b"caf\xe9.py", blob)], "raw")
    home = tmp_path / "home"

    out = rennet("index", str(tmp_path / "repo"), "--rev", "main~1", "--json", home=home)
    assert out.returncode == 0, out.stderr
    out = rennet("index", str(tmp_path / "repo"), "--json", home=home)  # from its parent's snapshot
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["data"]
    assert data["files"] == 3 and data["skipped"] == []
    cold = rennet("index", str(tmp_path / "repo"), "--json", home=tmp_path / "cold")
    assert json.loads(cold.stdout)["data"]["fingerprint"] == data["fingerprint"]

    out = rennet("context", "file", "raw/bad\\xffname.py", "--repo", str(tmp_path / "repo"), "--json", home=home)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["data"]["meta"]["path"] == "raw/bad\\xffname.py"
    out = rennet("delta", "--repo", str(tmp_path / "repo"), "--base", "main~1", "--head", "main", "--json",
                 home=home)
    assert out.returncode == 0, out.stderr
    assert {f["path"] for f in json.loads(out.stdout)["data"]["files"]} == {"raw/bad\\xffname.py", "raw/caf\\xe9.py"}
