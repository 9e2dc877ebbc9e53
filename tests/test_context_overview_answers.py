"""What context.overview's summary holds, from a real index: languages by file count (then
name), an entry without lines (binary, symlink) counted with its lines unknown and none added
to the text lines, the top files by rank with their fan-in, and the totals of marked and
skipped files."""

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
