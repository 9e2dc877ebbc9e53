"""What context.file's answer holds, from a real index: an empty file is a text file of no
lines, each imported or importing file is listed once, a line is listed as cut only when it
is longer than the 2000 characters shown, a page of lines ends past 256 kB of them as JSON,
a marked file says so, the first page of imports holds 20, and a path not in the snapshot names at most five
files of its name, saying when there are more."""

from __future__ import annotations

import msgspec
import pytest

from context_tools.query.file_view import BlobLines
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
    "vendor/six.py": "PY3 = True\n",
    # 25 imports: the first page shows 20
    "hub.py": "".join(f"import m{i:02}\n" for i in range(25)),
    **{f"m{i:02}.py": f"V = {i}\n" for i in range(25)},
    # 100 lines of 2,000 quotes: 200 kB of text, twice that as JSON
    "quotes.txt": ('"' * 2000 + "\n") * 100,
}

FILE_REPO = Indexed(FILES, "rennet-file-answers-")


app = FILE_REPO.fixture()


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


def test_a_marked_file_says_its_mark_and_rule(app):
    meta = app.call("context.file", path="vendor/six.py").data.meta
    assert (meta.mark, meta.mark_rule) == ("vendored", "path:vendor/")
    assert app.call("context.file", path="lib.py").data.meta.mark is None


def test_the_first_page_of_imports_holds_twenty(app):
    imports = app.call("context.file", path="hub.py").data.meta.imports
    assert imports.items == [f"m{i:02}.py" for i in range(20)]
    assert (imports.total, imports.returned, imports.truncated) == (25, 20, True) and imports.cursor


def test_a_page_of_lines_ends_past_256_kb_of_json(app):
    result = app.call("context.file", path="quotes.txt")
    lines = result.data.content.lines
    assert 0 < len(lines) < 100 and result.page.truncated is True and result.page.cursor
    assert len(msgspec.json.encode(lines)) <= 256 * 1024 < len(msgspec.json.encode(lines + [lines[0]]))
    rest = app.call("context.file", path="quotes.txt", cursor=result.page.cursor).data.content
    assert rest.first_line == len(lines) + 1


def test_blob_lines_read_back_after_a_later_line():
    lines = BlobLines(b"a\nb\r\nc\nd")
    assert (len(lines), lines[3], lines[1], lines[0:2], list(lines)) == (4, "d", "b", ["a", "b"], ["a", "b", "c", "d"])
