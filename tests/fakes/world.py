"""Shared setup for the dossier tests: a repository whose commits cite tickets, the fake
servers and the fake gh wired into the environment, and a scan for a leaked token."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from corpora.gitbuild import RepoBuilder

FAKE_BIN = Path(__file__).parent / "bin"


def make_change(path: Path, messages: list[str], branch: str = "feature", files: dict[str, Any] | None = None,
                remote: str | None = "https://github.com/acme/widgets.git") -> tuple[RepoBuilder, str, str]:
    """A repo with `main` at one commit and `branch` holding one commit per message; returns (builder, base, head)."""
    b = RepoBuilder(path)
    base = b.commit(dict(files or {}, **{"README.md": "widgets\n"}), "init")
    head = base
    for i, message in enumerate(messages):
        head = b.commit({f"src/f{i}.py": f"x = {i}\n"}, message, branch=branch, parents=[head])
    if remote:
        b.repo.remotes.create("origin", remote)
    return b, base, head


def install_gh(monkeypatch: Any, tmp_path: Path, table: dict[str, Any], token: str) -> Path:
    """Put the fake gh first on PATH answering from `table`; returns the invocation log path.
    On PATH is an executable `gh` that runs the fake with this interpreter, isolated and without
    site: `python3` found through PATH may be a version manager's shim, which costs many times
    the fake's own start at every call of a build."""
    data = tmp_path / "gh-data.json"
    data.write_text(json.dumps(table))
    log = tmp_path / "gh-calls.jsonl"
    folder = tmp_path / "fake-bin"
    folder.mkdir(exist_ok=True)
    gh = folder / "gh"
    gh.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -I -S {shlex.quote(str(FAKE_BIN / 'gh'))} \"$@\"\n")
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_GH_DATA", str(data))
    monkeypatch.setenv("FAKE_GH_LOG", str(log))
    monkeypatch.setenv("GH_TOKEN", token)
    return log


def gh_calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def files_containing(root: Path, needle: str) -> list[str]:
    """Every file under `root` (LMDB data files included) whose bytes contain `needle`."""
    hits = []
    for p in root.rglob("*"):
        if p.is_file() and needle.encode() in p.read_bytes():
            hits.append(str(p))
    return hits
