"""What context.overview's summary holds, from a real index: languages by file count (then
name), an entry without lines (binary, symlink) counted with its lines unknown and none added
to the text lines, the top files by rank with their fan-in, and the totals of marked and
skipped files; packages, dependencies and entry points with the top folder's project first."""

from __future__ import annotations

import pytest

from corpora.gitbuild import Link
from indexer.contract.result import Unknown
from tests.indexed import Indexed

FILES = {
    "core.py": "def shared():\n    return 1\n",
    "a.py": "from core import shared\n\nshared()\n",
    "b.py": "from core import shared\n\n\ndef twice():\n    return shared() + shared()\n",
    "vendor/six.py": "PY3 = True\n",
    "package-lock.json": '{"lockfileVersion": 3}\n',
    "blob.bin": b"\x00\x01\x02binary\x00",
    "link.py": Link("core.py"),
}

OVERVIEW = Indexed(FILES, "rennet-overview-answers-")


@pytest.fixture(scope="module")
def overview():
    return OVERVIEW.asked().call("context.overview").data


def test_languages_by_file_count_then_name_with_unknown_lines_for_entries_without_text(overview):
    languages = [(x.language, x.files, x.lines) for x in overview.languages.items]
    assert languages[:2] == [("python", 4, 11), ("binary", 1, languages[1][2])]
    assert languages[2:] == [("json", 1, 1), ("symlink", 1, languages[3][2])]
    for _, _, lines in (languages[1], languages[3]):
        assert isinstance(lines, Unknown) and lines.unknown == "not_applicable"
    assert overview.totals.text_lines == 12 and overview.totals.languages == 4


def test_top_files_by_rank_with_their_fan_in(overview):
    top = overview.top_files.items
    assert (top[0].path, top[0].fan_in, top[0].lines) == ("core.py", 2, 2)
    ranks = [(-t.rank, t.path) for t in top]
    assert ranks == sorted(ranks)
    assert {t.path: t.fan_in for t in top}["a.py"] == 0


def test_totals_count_marked_and_skipped_files(overview):
    totals = overview.totals
    assert (totals.files, totals.generated, totals.vendored, totals.skipped) == (7, 1, 1, 2)  # the binary file and the symlink
    assert totals.edges == 2 and totals.unresolved_imports == 0 and totals.capped_imports == 0


# A top-folder project whose path sorts after a fixture's (`corpora/` < `pyproject.toml`), a
# deeper fixture, and an alphabetically early script folder: path order would show the
# fixtures' declarations first.
PROJECT = {
    "pyproject.toml": (
        '[project]\nname = "top"\nversion = "1.0"\ndependencies = ["zlib-ng"]\n'
        '[project.optional-dependencies]\nfast = ["aardvark"]\n'
        '[dependency-groups]\ndev = ["black"]\n'
        '[project.scripts]\ntop = "top.cli:main"\n'),
    "top/__init__.py": "",
    "top/cli.py": "def main():\n    pass\n",
    "a/run.py": "if __name__ == '__main__':\n    pass\n",
    "corpora/fixture/package.json": (
        '{"name": "fixture", "version": "0.1.0", "bin": {"fx": "./cli.js"},'
        ' "dependencies": {"left-pad": "1"}, "devDependencies": {"ava": "2"}}\n'),
    "corpora/fixture/cli.js": "console.log(1)\n",
    "corpora/deep/one/pyproject.toml": '[project]\nname = "deep"\ndependencies = ["attrs"]\n',
}

PROJECT_OVERVIEW = Indexed(PROJECT, "rennet-overview-order-")


def test_the_top_folders_project_comes_first_and_its_runtime_dependencies_first_of_it():
    """Shallower manifests first; at one depth the stored (path) order; in a manifest what
    runs it (runtime, then optional) before what only develops it (dev)."""
    overview = PROJECT_OVERVIEW.asked().call("context.overview").data
    assert [p.name for p in overview.packages.items] == ["top", "fixture", "deep"]
    deps = [(d.manifest, d.name, d.scope) for d in overview.dependencies.items]
    assert deps == [
        ("pyproject.toml", "zlib-ng", "runtime"), ("pyproject.toml", "aardvark", "optional"),
        ("pyproject.toml", "black", "dev"),
        ("corpora/fixture/package.json", "left-pad", "runtime"), ("corpora/fixture/package.json", "ava", "dev"),
        ("corpora/deep/one/pyproject.toml", "attrs", "runtime")]
    entries = [(e.name, e.kind) for e in overview.entry_points.items]
    assert entries == [("top", "console_script"), ("run", "python_main_block"), ("fx", "npm_bin")]


def test_a_paged_section_holds_the_summarys_order():
    asked = PROJECT_OVERVIEW.asked()
    first = asked.call("context.overview", section="dependencies", limit=2)
    rest = asked.call("context.overview", section="dependencies", limit=10, cursor=first.page.cursor)
    paged = [d.name for d in first.data.items + rest.data.items]
    assert paged == [d.name for d in asked.call("context.overview").data.dependencies.items]
