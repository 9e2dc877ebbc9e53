"""Every verb's help ends with two examples that run on any repository: each is declared in
its registry row, shown by `--help` and docs/cli.md, and run here, in the order of use, against a
fixture repository of two commits from its own folder."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from context_tools.faces.cli import ordered_verbs
from context_tools.faces.registry import registry
from corpora.gitbuild import RepoBuilder

ROOT = Path(__file__).resolve().parent.parent


def test_every_verb_declares_two_examples_of_itself(capsys):
    from context_tools.faces.cli import main

    for row in registry().cli_verbs():
        assert len(row.examples) == 2, row.id
        for example in row.examples:
            assert shlex.split(example)[: len(row.cli_path) + 1] == ["rennet", *row.cli_path], (row.id, example)
        with pytest.raises(SystemExit):
            main([*row.cli_path, "--help"])
        help_text = capsys.readouterr().out
        assert help_text.rstrip().endswith("\n".join("  " + x for x in row.examples)), row.id


def example_repository(tmp_path: Path) -> dict[str, str]:
    """A repository of two commits at `tmp_path / "repo"` for the verbs' examples to run in, and
    the environment they run with (this tree's code, a store of their own)."""
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"README.md": "# demo\n", "app/main.py": "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n"},
                message="first")
    repo.commit({"app/cli.py": "from app.main import main\n\n\ndef run():\n    return main()\n"}, message="second")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RENNET_HOME": str(tmp_path / "home")}
    env.pop("RENNET_DEBUG", None)
    return env


def test_every_example_runs_on_a_fixture_repository(tmp_path):
    env = example_repository(tmp_path)
    ran = 0
    for row in ordered_verbs(registry().cli_verbs()):
        for example in row.examples:
            argv = shlex.split(example)[1:]
            p = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *argv], cwd=tmp_path / "repo",
                               env=env, capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, (example, p.stdout[-2000:], p.stderr[-2000:])
            assert "Traceback" not in p.stderr, example
            ran += 1
    assert ran == 2 * len(registry().cli_verbs())
