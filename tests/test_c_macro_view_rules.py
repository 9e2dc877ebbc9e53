"""The C and C++ parser view (indexer/lang/c/macros.py), one rule at a time: the spans each
rule blanks, exactly; the enumerator macros and enum-body directives, only in enum bodies and
past comments and literals there; `#if` groups of alternatives, innermost only."""

from __future__ import annotations

import pytest

from indexer.lang.c.macros import (
    _alternative_branches,
    _define_body_comments,
    blanked_spans,
    enum_body_directives,
    enumerator_macro_edits,
    parser_view,
)


def test_a_macro_opening_a_line_is_blanked_exactly():
    assert blanked_spans("c", b"MY_API struct s { int x; };\n") == [(0, 6)]
    assert set(blanked_spans("cpp", b"int x;\nSPDLOG_INLINE void f() {}\n")) == {(7, 20)}


@pytest.mark.parametrize("name", [b"myenum", b"my_enum"])
def test_a_name_ending_in_enum_opens_no_enum_body(name):
    """`struct my_enum {` is no enum: its macro invocations stay, its directives are shown."""
    body = b"int x;\nstruct " + name + b" {\n  MAKE(a, 2)\n};\n"
    assert enumerator_macro_edits(body) == []
    directives = b"int x;\nstruct " + name + b" {\n#define X 1\n  DECLARE_MEMBERS(X)\n};\n"
    assert enum_body_directives(directives) == []


ENUM = (b"// an enum { of; sorts }\n"  # not a body: the real one after it is read all the same
        b"enum opts {\n"
        b"  // a } in a comment\n"
        b"  /* and } here */\n"
        b"  A = '}', S = \"a\\\"}\",\n"
        b"  CURLOPT(CURLOPT_URL, \"s\", 2),\n"  # 6: the entry it defines
        b"  FOO(b, 1) + 2,\n"  # an expression going on: no entry of its own
        b"  BAR(c, ')'),\n"  # a `)` in a literal: the call's parentheses are not found, left
        b"  QUX(e, '),'),\n"  # nor here, where the `)` found is followed by a `,`
        b"  BAZ(d, 1\n"  # unclosed: left
        b"};\n")


def test_enumerator_macros_past_comments_and_literals_in_the_body():
    lines = parser_view("c", ENUM).split(b"\n")
    assert lines[5] == b"          CURLOPT_URL= \"s\"+ 2 ,"
    assert [line for i, line in enumerate(lines) if i != 5] == [
        line for i, line in enumerate(ENUM.split(b"\n")) if i != 5]


def test_an_enum_unclosed_at_the_end_of_the_file_edits_nothing():
    assert enumerator_macro_edits(b"enum e {\n  FOO(a, 1),\n  B = 'x") == []


def test_an_unclosed_enumerator_macro_edits_nothing_wherever_the_file_starts():
    """A file may start inside a scope opened by the one including it (`}` first)."""
    assert enumerator_macro_edits(b"}\nenum e {\n  BAZ(d, 1\n};\n") == []


def test_an_enum_body_with_an_undef_alone_has_its_directives_blanked():
    """A `#define` or an `#undef` between entries (the grammar takes neither there)."""
    assert enum_body_directives(b"enum e {\n  A,\n#undef A\n  B,\n};\n") == [(14, 22)]


HEADS = [
    b"f(int a,\n#if A\nint b)\n#else\nlong b)\n#endif\n{}\n",
    b"f(int a,\n#if A\nint b)\n#elif B\nlong b)\n#endif\n{}\n",
    b"f(int a,\n  #if A\nint b)\n  #else\nlong b)\n  #endif\n{}\n",
    b"f(int a,\n# if A\nint b)\n# else\nlong b)\n# endif\n{}\n",
    b"f(int a,\n#if A\nint b = g(\"#endif\"))\n#else\nlong b)\n#endif\n{}\n",  # a `#endif` within a line: none
]


@pytest.mark.parametrize("source", HEADS)
def test_a_group_of_alternative_heads_shows_the_first(source):
    """The `#if` line, and the later branches with their directives, are blanked; the first
    branch stays as code."""
    spans = _alternative_branches(source)
    text = [source[start:end] for start, end in spans]
    assert text[0].strip() in (b"#if A", b"# if A")
    assert text[1].split(b"\n")[0].strip() in (b"#else", b"# else", b"#elif B") and text[1].endswith(b"endif")
    assert b"long b)" in text[1] and len(spans) == 2


def test_only_the_innermost_groups_of_alternatives_are_read_so():
    """A group holding another is left as written, however deep the one it holds."""
    inner = b"f(int a,\n#if A\nint b)\n#else\nlong b)\n#endif\n{}\n"
    for source in (b"#if X\n" + inner + b"#else\ng(\n#endif\n",
                   b"#if X\n#if Y\n" + inner + b"#else\ng(\n#endif\n#else\nh(\n#endif\n"):
        at = source.index(inner)
        assert _alternative_branches(source) == [(at + 9, at + 14), (at + 22, at + 42)]


@pytest.mark.parametrize("source", [
    b"void f(int a,\n#ifdef A\nint b,\n#endif\nint c) {}\n",  # one branch: nothing to choose
    b"void f(int a\n#ifdef A\n, int b\n#endif\n) {}\n#ifdef B\nint g(void);\n#else\nint h(void);\n#endif\n",
    b"#ifdef A\nint f(void);\n#else\n#  define B 1\n#endif\n",  # a whole branch and directives alone
    b"#ifdef A\nint f(void);\n#else\nint g(void);\n#endif\n",  # whole units: the parser places them
])
def test_groups_the_parser_can_place_are_left(source):
    assert _alternative_branches(source) == []


GUARDED = (b"typedef struct tagITEM  // the item\n"
           b"#if !NCURSES_OPAQUE_MENU\n"
           b"{\n"
           b"  int a; char s[sizeof \"x\"/* } */];\n"
           b"  struct { char t[64 / 2]; } in1;\n"
           b"  // a } in a line comment\n"
           b"  struct { int x; /* c */} in2;\n"
           b"#define CLOSE \\\n"
           b"  }\n"
           b"struct {\n"
           b"#ifdef WIDE\n"
           b"    int wide;\n"
           b"#endif\n"
           b"} in3;\n"
           b"}\n"
           b"#endif\n"
           b"ITEM;\n")


def test_a_body_alone_in_an_if_group_has_the_two_directives_blanked():
    """ncurses' menu.h: the body's own `}` found past comments, literals, a directive line
    continued, a group inside; the `#if` and `#endif` lines blanked, nothing else."""
    opened = GUARDED.index(b"#if !")
    endif = GUARDED.index(b"#endif\nITEM")
    assert blanked_spans("c", GUARDED) == [(opened, opened + 24), (endif, endif + 6)]
    spaced = GUARDED.replace(b"#if", b"# if")
    endif = spaced.index(b"#endif\nITEM")
    assert blanked_spans("c", spaced) == [(opened, opened + 25), (endif, endif + 6)]


@pytest.mark.parametrize("source", [
    b"struct s\n#if A \\\n{ int x; }\n#endif\n;\n",  # the `{` on a line the `#if` continues onto
    b"struct s\n#if A\n{ int x;\n",  # a body unclosed at the end of the file
])
def test_no_body_alone_in_an_if_group(source):
    assert blanked_spans("c", source) == []


def test_glibc_attribute_macros_after_a_declarator_only():
    from indexer.lang.c.macros import _attribute_macros

    source = b"extern int dlinfo (void *__handle) __THROW __nonnull ((1, 3));\n"
    assert [source[s:e] for s, e in _attribute_macros(source)] == [b"__THROW __nonnull ((1, 3))"]
    source = b"extern void *g (size_t __n) __attribute_alloc_size__ ((1));\n"
    assert [source[s:e] for s, e in _attribute_macros(source)] == [b"__attribute_alloc_size__ ((1))"]
    left = (b"void f(void) __attribute__ ((noreturn));\n"  # parsed as it is
            b"int g(void) __builtin_x ((1));\n"
            b"#define H(a) h(a) __nonnull ((1));\n"  # a directive's
            b"int k = m(n) __a ((1)) + 2;\n"  # an expression going on
            b"int f2(void) MY_ATTR __a ((1));\n")  # after a word of no `__`
    assert _attribute_macros(left) == []
    assert _attribute_macros(b"__BEGIN_DECLS\nint f(void) __a ((1;\n") == []  # unclosed


def test_pre_ansi_wrappers_after_a_declarator_only():
    from indexer.lang.c.macros import _prototype_wrappers

    assert _prototype_wrappers(b"f OF((int a));\ny = f(OF((a)));\n") == [(2, 5), (12, 13)]


def test_calling_convention_macros_not_in_directives_or_expressions():
    from indexer.lang.c.macros import _convention_macros

    source = (b"void ZEXPORT deflate(int x);\n"
              b"#define X int FOO_API f(\n"
              b"int g() { return a FOO_BAR f(x); }\n"
              b"int x = a FOO_BAR f(1);\n"
              b"int y(a FOO_BAR f(1));\n"
              b"int ZEXPORT inflate(int x);\n")  # on a later line, after those
    assert [source[s:e] for s, e in _convention_macros(source)] == [b"ZEXPORT", b"ZEXPORT"]


def test_exception_macros_where_statements_begin():
    from indexer.lang.c.macros import _exception_macros

    assert _exception_macros(b"void f() {\n  MY_TRY { g(); }\n}\n") == [(13, 19)]  # no CATCH in the file
    assert _exception_macros(b"void f() {\n  try { g(); } MY_CATCH_ALL { h(); }\n}\n") == [(26, 38)]  # no TRY
    assert _exception_macros(b"int x;\n#define MY_TRY try\n") == []  # its own definition
    far = b"int a;\n" * 800 + b"#if X\nMY_TRY { f(); }\n#endif\n"  # a directive between, past the first 4 KiB
    assert [far[s:e] for s, e in _exception_macros(far)] == [b"MY_TRY"]
    source = (b"void f() {\n"
              b"  try { g(); } MY_CATCH(std::exception &e) { h(); }\n"  # with its argument
              b"  g(MY_CATCH_ALL, 1);\n"  # an argument
              b"  {\n  MY_TRY(x)\n  }\n"  # a call
              b"  try { g(); } MY_CATCH(e {\n}\n")  # unclosed
    assert [source[s:e] for s, e in _exception_macros(source)] == [b"MY_CATCH(std::exception &e)"]


def test_a_specifier_macro_with_an_unclosed_argument_is_left():
    from indexer.lang.c.macros import _specifier_macros

    source = b"void f() FOO_NOEXCEPT_IF(x;\nvoid g() FOO_NOEXCEPT_IF(a && b);\n"
    assert [source[s:e] for s, e in _specifier_macros("cpp", source)] == [b"FOO_NOEXCEPT_IF(a && b)"]
    assert _specifier_macros("c", b"#define MY_INLINE inline\nMY_INLINE int f(void);\n") == [(25, 34)]


@pytest.mark.parametrize(("source", "macro"), [
    (b"int a;\n/* doc */\nMY_BEGIN_DECLS\nint b;\n", True),
    (b"/* licence */\nMY_BEGIN_DECLS\nint b;\n", True),  # a comment opening the file
    (b"int a;\n// note\nMY_BEGIN_DECLS\nint b;\n", True),
    (b"int a;\n/* doc */\n// more\nMY_BEGIN_DECLS\nint b;\n", True),  # comments are blanks, both kinds
    (b"int a;\nMY_CALL_X\n(1);\n", False),  # a call going on
])
def test_a_macro_alone_on_its_line_after_comments(source, macro):
    at = source.index(b"MY_")
    expected = [(at, source.index(b"\n", at))] if macro else []
    assert blanked_spans("c", source) == expected


def test_the_view_is_the_source_with_the_spans_blanked():
    assert parser_view("c", b"MY_API struct s { int x; };\n") == b"       struct s { int x; };\n"
    assert blanked_spans("cpp", b"void f() FOO_NOEXCEPT_IF(x") == []  # unclosed at the end of the file


def test_a_return_before_a_macro_and_a_name_is_an_expression():
    from indexer.lang.c.macros import _convention_macros

    assert _convention_macros(b"int g() {\n  return FOO_BAR f(x);\n}\n") == []


def test_a_group_of_a_head_and_directives_alone_shows_the_head():
    source = b"f(int a,\n#if A\nint b)\n#else\n#define B 1\n#endif\n{}\n"
    assert [source[s:e] for s, e in _alternative_branches(source)] == [b"#if A", b"#else\n#define B 1\n#endif"]


def _symbols(source: bytes) -> set[tuple[str, str, int]]:
    from indexer.extract.blob import extract_blob

    facts = extract_blob(source, "x.c", "c", sites=False)
    return {(s.kind, s.qualified, s.line) for s in facts.symbols}


DEFINE_WITH_COMMENTS = (b"#define REQ_FIELDS \\\n"
                        b"  void* data; \\\n"
                        b"  /* read-only */ \\\n"  # 3: a comment the body goes on after
                        b"  int type; /* last */ \\\n"
                        b"  REQ_PRIVATE_FIELDS /* open\n"  # not closed on its line: left
                        b"  */\n"
                        b"struct req_s {\n"
                        b"  REQ_FIELDS\n"
                        b"};\n"
                        b"int shutdown_req(struct req_s *r);\n")


def test_a_comment_inside_a_continued_define_is_blanked():
    """The grammar's macro body stops at a `/*`: the rest of the body was read as code (a
    variable `type`), and the struct and the prototype after it were lost."""
    first = DEFINE_WITH_COMMENTS.index(b"/* read-only */")
    second = DEFINE_WITH_COMMENTS.index(b"/* last */")
    assert _define_body_comments(DEFINE_WITH_COMMENTS) == [(first, first + 15), (second, second + 10)]
    assert _symbols(DEFINE_WITH_COMMENTS) == {
        ("macro", "REQ_FIELDS", 1), ("struct", "req_s", 7), ("function", "shutdown_req", 10)}
    # a one-line `#define` and one with a comment on its last line are left as written
    assert _define_body_comments(b"#define A 1 /* one */\n#define B \\\n  2 /* two */\nint x;\n") == []


@pytest.mark.parametrize("body", [
    b"  HANDLE_FIELDS\n  IDLE_PRIVATE_FIELDS\n",  # after another member macro
    b"  int x;\n  IDLE_PRIVATE_FIELDS\n",  # after a member
    b"  IDLE_PRIVATE_FIELDS\n",  # alone in the struct's body
])
def test_a_member_macro_before_a_struct_bodys_close_is_blanked(body):
    """The last member macro of a struct body, before its `}`: the prototypes after the struct
    were read as its fields."""
    source = b"struct idle_s {\n" + body + b"};\nint idle_init(struct idle_s *h);\n"
    at = source.index(b"IDLE_PRIVATE_FIELDS")
    assert (at, at + len(b"IDLE_PRIVATE_FIELDS")) in blanked_spans("c", source)
    line = source.count(b"\n", 0, source.index(b"int idle_init")) + 1
    assert ("function", "idle_init", line) in _symbols(source)


@pytest.mark.parametrize("source", [
    b"enum e {\n  ONLY_ONE\n};\n",  # an enum's only entry
    b"int a[] = {\n  SOME_VALUE\n};\n",  # a value in braces
    b"enum e {\n  A_ONE,\n  LAST_ONE\n};\n",  # the last entry, after a comma
])
def test_a_lone_name_before_a_brace_elsewhere_stays(source):
    assert blanked_spans("c", source) == []
