"""Every verb's help ends with two examples that run on any repository: each is declared in
its registry row, shown by `--help` and docs/cli.md, and run here, in the order of use, against a
fixture repository of two commits from its own folder."""

from __future__ import annotations

import shlex
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

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


@contextmanager
def in_example_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A repository of two commits at `tmp_path / "repo"` for the verbs' examples to run in, made
    the working folder, with a store of their own; the stores the commands open in this process
    are closed on leaving, as a process's would be at its end."""
    from context_tools.faces import context

    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"README.md": "# demo\n", "app/main.py": "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n"},
                message="first")
    repo.commit({"app/cli.py": "from app.main import main\n\n\ndef run():\n    return main()\n"}, message="second")
    monkeypatch.setenv("RENNET_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RENNET_DEBUG", raising=False)
    monkeypatch.chdir(tmp_path / "repo")
    try:
        yield tmp_path / "repo"
    finally:
        for home in [home for home in context._OPEN if home.is_relative_to(tmp_path.resolve())]:
            context._OPEN.pop(home).close()


def test_every_example_runs_on_a_fixture_repository(tmp_path, monkeypatch, capsys):
    """Each example as `rennet` takes its words, in this process: the command's face is its
    words, and a process start for each of them would only repeat the interpreter's."""
    from context_tools.faces.cli import main

    with in_example_repository(tmp_path, monkeypatch):
        ran = 0
        for row in ordered_verbs(registry().cli_verbs()):
            for example in row.examples:
                code = main(shlex.split(example)[1:])
                out, err = capsys.readouterr()
                assert code == 0, (example, out[-2000:], err[-2000:])
                assert "Traceback" not in err and "internal_error" not in err, example
                ran += 1
        assert ran == 2 * len(registry().cli_verbs())
