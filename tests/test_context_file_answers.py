"""What context.file's answer holds, from a real index: an empty file is a text file of no
lines, each imported or importing file is listed once, a line is listed as cut only when it
is longer than the 2000 characters shown, and a path not in the snapshot names at most five
files of its name, saying when there are more."""

from __future__ import annotations

import pytest

from indexer.contract.errors import NotFound
from tests.indexed import Indexed

FILES = {
    "empty.py": "",
    "lib.py": "def helper():\n    return 1\n",
    # two imports of one file: one edge shown
    "app.py": "import lib\nfrom lib import helper\n\nhelper()\n",
    "wide.txt": "a" * 2000 + "\n" + "b" * 2001 + "\n",
    **{f"pkg{i}/util.py": f"X = {i}\n" for i in range(7)},
    "few/one/conf.py": "A = 1\n",
    "few/two/conf.py": "B = 2\n",
}

FILE_REPO = Indexed(FILES, "rennet-file-answers-")


@pytest.fixture(scope="module")
def app():
    return FILE_REPO.asked()


def test_an_empty_file_is_text_of_no_lines(app):
    data = app.call("context.file", path="empty.py").data
    assert data.meta.lines == 0 and data.meta.fan_in == 0 and data.meta.language == "python"
    assert (data.content.first_line, data.content.lines, data.content.truncated_lines) == (1, [], [])


def test_a_file_imported_twice_is_listed_once(app):
    assert app.call("context.file", path="app.py").data.meta.imports.items == ["lib.py"]
    importers = app.call("context.file", path="lib.py").data.meta.importers
    assert (importers.items, importers.total) == (["app.py"], 1)


def test_a_line_of_exactly_the_characters_shown_is_not_cut(app):
    content = app.call("context.file", path="wide.txt").data.content
    assert [len(line) for line in content.lines] == [2000, 2000] and content.truncated_lines == [2]


def test_a_missing_path_names_five_files_of_its_name_and_says_there_are_more(app):
    with pytest.raises(NotFound) as caught:
        app.call("context.file", path="util.py")
    assert caught.value.message.endswith(
        "; files with that name: pkg0/util.py, pkg1/util.py, pkg2/util.py, pkg3/util.py, pkg4/util.py, ...")
    with pytest.raises(NotFound) as caught:
        app.call("context.file", path="conf.py")
    assert caught.value.message.endswith("; files with that name: few/one/conf.py, few/two/conf.py")
