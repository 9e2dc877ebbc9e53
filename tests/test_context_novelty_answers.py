"""What context.novelty says a head introduces against a base, from a real index of two
commits: a copy of a removed file stays an addition beside its rename, public API is judged
by the language of the side the symbol is on (a removed file's by the base), private names
are no API, dependencies are keyed by ecosystem, name and scope, and each section is in
path order (symbols by path, then line)."""

from __future__ import annotations

import pytest

import context_tools
from corpora.gitbuild import RepoBuilder
from indexer import api

MOVED = "".join(f"def step_{i}(a):\n    return a + {i}\n\n\n" for i in range(20))
HELPERS = "".join(f"def helper_{i}(a):\n    return a * {i}\n\n\n" for i in range(20))
BASE = {
    "orig.py": MOVED,
    "helpers.py": HELPERS,
    "gone.py": "def vanished():\n    return 0\n",
    "mod.py": "def z_first(x):\n    return x\n\n\ndef a_second():\n    return 2\n\n\ndef _hidden():\n    return 3\n",
    "pyproject.toml": '[project]\nname = "demo"\nversion = "1"\ndependencies = ["requests>=2", "flask>=2"]\n\n'
                      '[project.optional-dependencies]\ndev = ["rich>=10"]\n',
}
HEAD = {
    # orig.py removed, copied twice: git names the last copy in path order the rename
    "orig.py": None, "b_copy.py": MOVED, "c_copy.py": MOVED,
    "gone.py": None,
    # moved and edited: a name it defines and one it only uses are new identifiers
    "helpers.py": None, "tools/helpers.py": HELPERS + "quixotic_marker = frobnicate_external()\n",
    # z_first's signature changes on line 1, a_second's on line 5; _hidden goes
    "mod.py": "def z_first(x, y):\n    return x\n\n\ndef a_second(n):\n    return 2\n",
    "pyproject.toml": '[project]\nname = "demo"\nversion = "1"\ndependencies = ["requests>=3", "rich>=13", "httpx"]\n\n'
                      '[project.optional-dependencies]\ndev = ["rich>=10"]\n',
    "added.py": "def fresh():\n    return 1\n",
}


@pytest.fixture(scope="module")
def novelty(tmp_path_factory):
    root = tmp_path_factory.mktemp("novelty")
    builder = RepoBuilder(root / "repo")
    base = builder.commit(BASE)
    head = builder.commit(HEAD)
    with api.open_store(root / "store") as store:
        for rev in (base, head):
            api.index(str(root / "repo"), rev, store=store, workers=1)
    client = context_tools.Client(store=str(root / "store"))

    def section(name: str) -> list:
        return client.call("context.novelty", repo=str(root / "repo"), base=base, head=head, section=name,
                           limit=200).data.items
    return section


def test_a_copy_of_a_removed_file_stays_an_addition_beside_its_rename(novelty):
    assert [(f.path, f.change, f.previous_path) for f in novelty("files")] == [
        ("added.py", "added", None), ("b_copy.py", "added", None), ("c_copy.py", "renamed", "orig.py"),
        ("gone.py", "removed", None), ("mod.py", "modified", None), ("pyproject.toml", "modified", None),
        ("tools/helpers.py", "renamed", "helpers.py")]


def test_symbols_are_in_path_then_line_order(novelty):
    assert [(s.path, s.qualified, s.change) for s in novelty("symbols")
            if s.path in ("mod.py", "gone.py", "added.py")] == [
        ("added.py", "fresh", "added"), ("gone.py", "vanished", "removed"), ("mod.py", "z_first", "changed"),
        ("mod.py", "a_second", "changed"), ("mod.py", "_hidden", "removed")]


def test_public_api_leaves_private_names_out_and_judges_a_removed_file_by_the_base(novelty):
    assert [(a.path, a.qualified, a.change, a.basis) for a in novelty("public_api")
            if a.path in ("mod.py", "gone.py")] == [
        ("gone.py", "vanished", "removed", "python:no_leading_underscore"),
        ("mod.py", "z_first", "changed", "python:no_leading_underscore"),
        ("mod.py", "a_second", "changed", "python:no_leading_underscore")]


def test_dependencies_are_keyed_by_ecosystem_name_and_scope(novelty):
    assert [(d.name, d.change, d.spec, d.previous_spec) for d in novelty("dependencies")] == [
        ("flask", "removed", "", ">=2"), ("httpx", "added", "", ""), ("requests", "changed", ">=3", ">=2"),
        ("rich", "added", ">=13", "")]


def test_a_file_moved_and_edited_brings_what_the_edit_added(novelty):
    assert [(s.path, s.qualified, s.change) for s in novelty("symbols") if s.path == "tools/helpers.py"] == [
        ("tools/helpers.py", "quixotic_marker", "added")]
    identifiers = novelty("identifiers")
    assert {"quixotic_marker", "frobnicate_external", "fresh"} <= set(identifiers)
    assert "helper_3" not in identifiers and "step_1" not in identifiers  # defined in the base
    assert identifiers == sorted(identifiers)


def test_identifiers_against_each_base_are_that_bases_own(tmp_path):
    """One client asked against two bases: the names a base holds are its own, so `middle`, new
    against the first commit, is no new identifier against the second, which holds it."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "def first():\n    return 1\n"})
    builder.commit({"b.py": "def middle():\n    return 2\n"})
    builder.commit({"c.py": "def last():\n    return middle()\n"})
    client = context_tools.Client(store=str(tmp_path / "store"))
    for rev in ("main~2", "main~1", "main"):
        client.call("repo.index", repo=str(tmp_path / "repo"), rev=rev)

    def identifiers(base: str) -> list[str]:
        return client.call("context.novelty", repo=str(tmp_path / "repo"), base=base, head="main",
                           section="identifiers").data.items

    assert identifiers("main~2") == ["last", "middle"]
    assert identifiers("main~1") == ["last"]
