"""C and C++ readers of a commit's file content (the conditions a definition is written under,
the macros the parser is not shown, a header's language) in work linear in the file: comments,
literals, continued lines and line starts, each read once."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang.c import comments, conditions
from indexer.lang.c.comments import blanked, comment_spans
from indexer.lang.c.conditions import condition_at, condition_lines
from tests.examples import examples
from tests.lines_run import lines_run

ROOT = Path(__file__).resolve().parents[1]
_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)
_NOT_CODE = re.compile(rb"/\*.*?\*/|//[^\n]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'", re.S)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from([b"/", b"*", b"\"", b"'", b"\\", b"\n", b"\r", b"a", b" ", b"/*", b"*/", b"//"]),
                max_size=40).map(b"".join))
def test_comment_spans_are_those_the_regex_finds(data):
    """The linear scan finds what `finditer` of the comment regex finds, literals or not."""
    assert comment_spans(data) == [m.span() for m in _COMMENT.finditer(data)]
    assert comment_spans(data, literals=True) == [m.span() for m in _NOT_CODE.finditer(data)]
    assert blanked(data, literals=True) == _NOT_CODE.sub(b" ", data)
    assert blanked(data, keep_length=True) == _COMMENT.sub(lambda m: b" " * len(m.group()), data)


def test_comment_spans_of_unclosed_comments_and_quotes_in_lines_linear_in_them():
    """Each unclosed `/*` was tried to the end of the text, each escaped quote with no close to
    the end of its line: the scan is one step for each token."""
    def work(n: int) -> int:
        data = b"/* " * n + b"\n\"" + b"\\\"" * n + b"\n'" + b"\\'" * n  # one quote, then escaped ones
        return lines_run(lambda: comment_spans(data, literals=True), [comments.__file__])

    assert work(2000) <= 2.1 * work(1000)


def test_a_line_a_backslash_continues_is_no_directive():
    """C joins a line ending in `\\` to the next before it reads directives: an `#if` on a
    continued line is part of the `#define` (or the code) before it, and marks nothing."""
    data = b"#define X \\\n#if Y\nint x;\nint y = 1 + \\\r\n#ifdef Z\n;\nint z;\n#if W\nint w;\n#endif\n"
    starts, found = condition_lines(data)
    assert [condition_at(starts, found, n) for n in (3, 6, 7, 9)] == ["", "", "", "W"]


def test_continued_directive_lines_are_read_in_steps_linear_in_them():
    """`#if A \\` repeated: each line was read as a directive, and each read on through every
    continued line after it (4,000 lines of 8 bytes: 100 s)."""
    def work(n: int) -> int:
        data = b"#if A \\\n" * n + b"\nint x;\n#endif\n"
        return lines_run(lambda: condition_lines(data), [conditions.__file__])

    assert work(2000) <= 2.1 * work(1000)


def test_hostile_comments_literals_and_long_lines_are_read_in_linear_time():
    """Shapes each of whose matches was read back to its line's or the file's start, or to the
    end of the file: unclosed `/*`s (10,000 took 8 s to read for conditions, 17 s on one `#if`
    line), unclosed quotes in an `#if` group's branch, a long line of calling-convention
    macros (20,000: 63 s), of `X_TRY` and `X_INLINE` (10 s, 13 s), `#if A \\` lines under an
    enum body. The scans are regexes and slices, work done in C that a test cannot count: run
    in a child, so a quadratic one fails the test at its timeout instead of hanging the run."""
    code = """if True:
        from indexer.lang.c.conditions import condition_lines
        from indexer.lang.c.header import header_language
        from indexer.lang.c.macros import blanked_spans, parser_view
        n = 50_000
        condition_lines(b"#if A\\nint x;\\n" + b"/* " * n)
        blanked_spans("c", b"#if A\\nint x;\\n\\"" + b'\\\\"' * 8 * n + b"\\n#else\\nint y;\\n#endif\\n")
        condition_lines(b"#if A " + b"/* " * n + b"\\nint x;\\n#endif\\n")
        header_language(b"int x;\\n" + b"/* " * 3000 + b'extern "C" int f();')
        branches = b"#if A\\nint x;\\n" + b"/* " * n + b"\\n" + b'"\\\\"' * n + b"\\n#else\\nint y;\\n#endif\\n"
        assert blanked_spans("c", branches) == []
        for unit in (b"x A_B f( ", b"; X_TRY ", b"; X_INLINE ", b"f() __a((1)) "):
            blanked_spans("cpp", b"int y;\\n" + unit * n + b"\\n")
        parser_view("c", b"enum e {\\n" + b"#if A \\\\\\n" * n + b"\\n#define B 1\\nA,\\n};\\n")
        parser_view("c", b"#define A \\\\\\n" + b"/* c */ \\\\\\n" * n + b"x\\n")
        parser_view("c", b"#define A \\\\\\n" * n + b"/* c */ x\\n")
        for line in (b"<b " * n, b"<b<c> " * n, b"<b<c>" + b">" * n):
            blanked_spans("cpp", b"int y;\\nMY_API a" + line + b" f(\\n")
        parser_view("c", b"struct s {\\n" + b"  A_FIELDS\\n" * n + b"};\\n")
    """
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=120, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
