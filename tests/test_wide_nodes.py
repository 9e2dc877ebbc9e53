"""A node of thousands of children, which a file of a commit under review may hold (comments
between `export` and what it exports, a run of Python comment lines), costs work in
proportion to its children: what is read of each child does not walk its siblings again.
The work is counted (the children tree-sitter walks, the bytes the parser is handed), at n
children and 2n."""

from __future__ import annotations

import re
from typing import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_sitter import Node

from indexer.extract.blob import extract_blob
from indexer.lang import grammars
from indexer.lang.javascript import imports as js_imports
from indexer.lang.python import comments
from indexer.model import BlobFacts
from tests.examples import examples


class _Walked:
    """A node counting the children tree-sitter walks for what is asked of it: `child(i)`
    walks the i before the one asked, `children` lists them all."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self.walked = 0

    def child(self, i: int) -> Node | None:
        self.walked += i + 1
        return self._node.child(i)

    @property
    def children(self) -> list[Node]:
        self.walked += self._node.child_count
        return self._node.children

    def __getattr__(self, name: str) -> object:
        return getattr(self._node, name)


def _walked_in(monkeypatch: pytest.MonkeyPatch, module: object, function: str) -> Callable[[], int]:
    """Patch `module.function` (of one node) to be given a `_Walked` node; the children walked
    so far, summed over its calls."""
    original = getattr(module, function)
    total = 0

    def counted(node: Node) -> object:
        nonlocal total
        walked = _Walked(node)
        try:
            return original(walked)
        finally:
            total += walked.walked

    monkeypatch.setattr(module, function, counted)
    return lambda: total


@pytest.mark.parametrize(("path", "language"), [("a.ts", "typescript"), ("a.tsx", "tsx"), ("a.js", "javascript")])
def test_the_form_of_an_export_of_many_comments_is_read_walking_them_once(path, language, monkeypatch):
    """`export /*c0*/ /*c1*/ ... default x;`: the form after the comments was found asking
    tree-sitter for each child by its index, which walks the children before it."""
    def walked(n: int) -> int:
        total = _walked_in(monkeypatch, js_imports, "_export_form")
        src = b"const x = 1;\nexport " + b" ".join(b"/*c%d*/" % i for i in range(n)) + b" default x;\n"
        src += b"\n" * (len(src) // 100)  # lines short on average: not read as minified
        facts = extract_blob(src, path, language)
        assert facts.exported_as == [("x", "default")] and facts.es_module
        monkeypatch.undo()
        return total()

    small, large = walked(500), walked(1000)
    assert large <= 2.5 * small, (small, large)


class _Handed:
    """`grammars.Budget`, counting the bytes its reader hands the parser while it parses."""

    handed = 0

    def __init__(self, budget: grammars.Budget) -> None:
        self._budget = budget

    def chunk(self, source: bytes, offset: int) -> bytes:
        piece = self._budget.chunk(source, offset)
        if self._budget.handed is not None:
            _Handed.handed += len(piece)
        return piece

    def __getattr__(self, name: str) -> object:
        return getattr(self._budget, name)


def _handed(monkeypatch: pytest.MonkeyPatch, call: Callable[[], object]) -> int:
    """The bytes handed to parsers during `call()`."""
    made = grammars.Budget
    monkeypatch.setattr(grammars, "Budget", lambda size: _Handed(made(size)))
    _Handed.handed = 0
    try:
        call()
    finally:
        monkeypatch.undo()
    return _Handed.handed


def test_a_python_file_ending_in_a_run_of_comment_lines_is_parsed_reading_it_once(monkeypatch):
    """Hundreds of comment lines ending a function and the file (some holding a quote, which a
    line within a string may hold too): tree-sitter-python's scanner
    looked on past each comment for the next line's indentation, the parser was handed the
    file again from each, and a file ending in a thousand ran over its budget (`unparseable`)."""
    def handed(n: int) -> int:
        src = b"def f():\n    x = 1\n" + (b"    # a note\n" * 3 + b"    # it's one\n") * (n // 4)
        facts: list[BlobFacts] = []
        bytes_handed = _handed(monkeypatch, lambda: facts.append(extract_blob(src, "a.py", "python")))
        assert not facts[0].skipped and [(s.name, s.line, s.end_line) for s in facts[0].symbols] == [("f", 1, 2)]
        return bytes_handed

    small, large = handed(250), handed(500)
    assert large <= 2.5 * small, (small, large)
    handed(2000)


@pytest.mark.parametrize("between", [b"\n", b"    \n", b"\t\n", b"\n\n"])
def test_blank_lines_among_comment_lines_leave_them_one_run(between):
    """The scanner passes blank lines as it passes comments: comment lines each followed by a
    blank one cost the same square (its cost is between the parser's progress calls, where it
    cannot be counted), and a function ending in thousands was unparseable. The parser is shown
    none of them, and the facts are those of the code around them."""
    src = b"def f():\n    x = 1\n" + (b"    # a note\n" + between) * 4000 + b"y = 2\n"
    view = grammars.parser_view("python", src)
    assert len(view) == len(src) and view.count(b"\n") == src.count(b"\n") and b"#" not in view
    facts = extract_blob(src, "a.py", "python")
    assert not facts.skipped and [(s.name, s.line) for s in facts.symbols] == [("f", 1), ("y", src.count(b"\n"))]


def test_no_long_run_of_comment_lines_is_shown_to_the_python_parser():
    """With code after them the run's cost is in the scanner, between the parser's progress
    calls, where it cannot be counted: the parser is shown no run of `RUN` comment lines, and
    the facts are the ones of the code around them."""
    src = b"def f():\n    x = 1\n" + b"    # a note\n" * 3000 + b"    return x\n\n\ny = 2\n"
    view = grammars.parser_view("python", src)
    assert len(view) == len(src) and view.count(b"\n") == src.count(b"\n")
    assert not re.search(rb"(?m)(?:^[ \t]*#.*\n){%d}" % comments.RUN, view)
    facts = extract_blob(src, "a.py", "python")
    assert [(s.name, s.line, s.end_line) for s in facts.symbols] == [("f", 1, 3003), ("y", 3006, 3006)]


@pytest.mark.parametrize("line", [b"    # it's\n", b'    # "quoted"\n', b"    # {braced}\n", b"    # ends \\\n"])
def test_a_run_of_comment_lines_is_blanked_whatever_they_hold_outside_strings(line):
    """A quote, a backslash or a brace in a comment line leaves it a comment where no string
    holds it: the run is blanked whole; within a string, only the lines that hold none of them
    (which leave the string as it was)."""
    src = b"x = 1\n" + (b"# c\n" * 20 + line) * 40
    view = grammars.parser_view("python", src)
    assert len(view) == len(src) and view.count(b"\n") == src.count(b"\n")
    assert view.strip() == b"x = 1"
    held = b'x = """\n' + (b"# c\n" * 40 + line) * 40 + b'"""\n'
    view = grammars.parser_view("python", held)
    assert view.count(line) == 40 and b"# c" not in view


def test_a_run_of_comment_lines_in_a_string_leaves_the_string_whole():
    """A docstring of comment-like lines stays one string: its names and lines as they were."""
    src = b'def f():\n    """\n' + b"    # a line\n" * 100 + b'    """\n    return g\n\n\ng = 1\n'
    facts = extract_blob(src, "a.py", "python")
    assert [(s.name, s.line, s.end_line) for s in facts.symbols] == [("f", 1, 104), ("g", 107, 107)]


_LINES = [b"# c\n", b"    # c\n", b"\t# c\r\n", b'"""\n', b"'''\n", b"# it's\n", b"x = f'{a}'\n", b"def g(a):\n",
          b"    return a\n", b"class C:\n", b"    y = 1  # c\n", b"\n", b"    \\\n", b"# {b}\n", b"(\n", b")\n",
          b"  \n", b"\t\n"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_LINES), st.integers(1, 40)), max_size=12).map(
    lambda parts: b"".join(line * times for line, times in parts)))
def test_the_python_parser_is_shown_the_source_with_comment_runs_blanked_and_nothing_else(src):
    """Every line keeps its length and end; a line is changed only within a run of `RUN`
    comment-only lines, and then wholly to spaces; the facts are those of the source shown
    whole."""
    view = grammars.parser_view("python", src)
    assert len(view) == len(src)
    for old, new in zip(src.splitlines(keepends=True), view.splitlines(keepends=True)):
        assert new == old or (new.strip() == b"" and re.fullmatch(rb"[ \t]*#[^\r\n]*\r?\n", old)), (old, new)
    shown = extract_blob(src, "a.py", "python")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(comments, "parser_view", lambda name, data: data)
        grammars._parser_view.cache_clear()
        whole = extract_blob(src, "a.py", "python")
    grammars._parser_view.cache_clear()
    assert shown == whole


def test_a_python_view_checked_by_a_parse_is_not_parsed_again(monkeypatch):
    """The comment view's check parses the view; when the view is kept, that tree is the one
    the extraction reads, not a second parse of the same bytes. A run within a string is shown
    otherwise, which is parsed on its own."""
    handed: list[int] = []
    made = grammars._parse
    monkeypatch.setattr(grammars, "_parse", lambda name, data: (handed.append(len(data)), made(name, data))[1])
    src = b"def f():\n    x = 1\n" + b"    # a note\n" * 100 + b"    return x\n"
    facts = extract_blob(src, "a.py", "python")
    assert [s.name for s in facts.symbols] == ["f"] and handed == [len(src)]
    handed.clear()
    held = b"x = '''\n" + b"# c\n" * 40 + b"'''\n"
    facts = extract_blob(held, "b.py", "python")
    assert [s.name for s in facts.symbols] == ["x"] and handed == [len(held), len(held)]
