"""C and C++ readers of a commit's file content (the conditions a definition is written under,
the macros the parser is not shown, a header's language) in work linear in the file: comments,
literals, continued lines and line starts, each read once."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang.c import comments, conditions
from indexer.lang.c.comments import blanked, comment_spans
from indexer.lang.c.conditions import condition_at, condition_lines
from indexer.lang.c.header import header_language
from indexer.lang.c.macros import blanked_spans, parser_view
from tests.bytes_read import work
from tests.examples import examples
from tests.lines_run import lines_run

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


def _c_spans(data: bytes) -> object:
    return blanked_spans("c", data)


def _cpp_spans(data: bytes) -> object:
    return blanked_spans("cpp", data)


def _c_view(data: bytes) -> object:
    return parser_view("c", data)


# Shapes each of whose matches was read back to its line's or the file's start, or on to the
# end of the file: unclosed `/*`s (10,000 took 8 s to read for conditions, 17 s on one `#if`
# line), unclosed quotes in an `#if` group's branch, a long line of calling-convention macros
# (20,000: 63 s), of `X_TRY` and `X_INLINE` (10 s, 13 s), `#if A \\` lines under an enum body,
# a `#define` continued over many lines, long template-argument runs after a leading macro, a
# struct body of member macros. Each is `n` units long.
HOSTILE: dict[str, tuple[Callable[[bytes], object], Callable[[int], bytes]]] = {
    "unclosed_comments_after_an_if": (condition_lines, lambda n: b"#if A\nint x;\n" + b"/* " * n),
    "escaped_quotes_in_a_branch": (_c_spans,
                                   lambda n: b"#if A\nint x;\n\"" + b'\\"' * 8 * n + b"\n#else\nint y;\n#endif\n"),
    "unclosed_comments_on_an_if_line": (condition_lines, lambda n: b"#if A " + b"/* " * n + b"\nint x;\n#endif\n"),
    "unclosed_comments_before_a_header_code": (header_language,
                                               lambda n: b"int x;\n" + b"/* " * n + b'extern "C" int f();'),
    "comments_and_quotes_in_both_branches": (_c_spans, lambda n: (
        b"#if A\nint x;\n" + b"/* " * n + b"\n" + b'"\\"' * n + b"\n#else\nint y;\n#endif\n")),
    "a_line_of_convention_macros": (_cpp_spans, lambda n: b"int y;\n" + b"x A_B f( " * n + b"\n"),
    "a_line_of_try_macros": (_cpp_spans, lambda n: b"int y;\n" + b"; X_TRY " * n + b"\n"),
    "a_line_of_inline_macros": (_cpp_spans, lambda n: b"int y;\n" + b"; X_INLINE " * n + b"\n"),
    "a_line_of_attributes": (_cpp_spans, lambda n: b"int y;\n" + b"f() __a((1)) " * n + b"\n"),
    "continued_ifs_in_an_enum_body": (_c_view,
                                      lambda n: b"enum e {\n" + b"#if A \\\n" * n + b"\n#define B 1\nA,\n};\n"),
    "a_define_continued_over_comments": (_c_view,
                                         lambda n: b"#define A \\\n" + b"/* c */ \\\n" * n + b"x\n"),
    "continued_defines": (_c_view, lambda n: b"#define A \\\n" * n + b"/* c */ x\n"),
    "template_arguments": (_cpp_spans, lambda n: b"int y;\nMY_API a" + b"<b " * n + b" f(\n"),
    "nested_template_arguments": (_cpp_spans, lambda n: b"int y;\nMY_API a" + b"<b<c> " * n + b" f(\n"),
    "template_argument_closes": (_cpp_spans, lambda n: b"int y;\nMY_API a<b<c>" + b">" * n + b" f(\n"),
    "a_struct_body_of_member_macros": (_c_view,
                                       lambda n: b"struct s {\n" + b"  A_FIELDS\n" * n + b"};\n"),
}


@pytest.mark.parametrize("shape", HOSTILE)
def test_hostile_comments_literals_and_long_lines_are_read_in_linear_work(shape):
    """The work of reading each hostile shape (the lines of the readers' Python run and the
    bytes their scans in C read, `tests/bytes_read.py`) grows by at most twice as much from
    2,000 units to 4,000 as from 1,000 to 2,000: linear, the differences leaving out what does
    not grow with the size (a line's first 4 KiB, where each match's look back is shorter than
    its bound; a header's first bytes). Each scan the shapes were written against, made to
    read back to its line's start again, grows four times as much."""
    call, text = HOSTILE[shape]
    one, two, four = (work(call, text(n)) for n in (1000, 2000, 4000))
    assert four - two <= 2.1 * (two - one)


def test_unclosed_comments_and_quotes_in_both_branches_blank_neither():
    assert blanked_spans("c", HOSTILE["comments_and_quotes_in_both_branches"][1](1000)) == []
