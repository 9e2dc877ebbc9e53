"""The conditions a C or C++ definition is written under (indexer/lang/c/conditions.py, spelled
as docs/languages.md says), one rule at a time: C23's `#elifdef` and `#elifndef`, a `?:`
part, the include guard's two directives, an empty condition, a line continued to the end."""

from __future__ import annotations

from indexer.lang.c.conditions import condition_at, condition_lines


def conditions_of(source: str, *lines: int) -> list[str]:
    starts, found = condition_lines(source.encode())
    return [condition_at(starts, found, n) for n in lines]


def test_elifdef_and_elifndef_are_elif_defined_and_elif_not_defined():
    """C23: `#elifdef B` is `#elif defined(B)`, `#elifndef C` is `#elif !defined(C)`."""
    source = "#if A\nint a;\n#elifdef B\nint b;\n#elifndef C\nint c;\n#else\nint d;\n#endif\n"
    assert conditions_of(source, 2, 4, 6, 8) == [
        "A", "!A && defined(B)", "!A && !defined(B) && !defined(C)", "!A && !defined(B) && defined(C)"]


def test_a_conditional_expression_is_one_part_in_parentheses():
    """`?:` binds looser than `&&`: joined to an outer group, the whole `#if` is parenthesized."""
    source = "#ifdef X\n#if A ? B : C\nint y;\n#endif\n#endif\n"
    assert conditions_of(source, 3) == ["defined(X) && (A ? B : C)"]


def test_a_define_of_the_guard_name_after_another_directive_is_no_guard():
    """The guard is `#ifndef G` then `#define G` as the first two directives; a `#define G`
    after an `#if` between leaves `#ifndef G` a condition like any other."""
    source = "#ifndef G\n#if A\nint a;\n#endif\n#define G\nint x;\n#endif\n"
    assert conditions_of(source, 3, 6) == ["!defined(G) && A", "!defined(G)"]


def test_an_empty_if_adds_nothing_to_the_groups_around_it():
    """An `#if` or `#elif` with no expression (a compiler rejects it) states nothing: the
    `#else` after it is under the outer group's condition alone, no dangling `&&`."""
    assert conditions_of("#ifdef X\n#if\nint a;\n#else\nint b;\n#endif\n#endif\n", 5) == ["defined(X)"]
    assert conditions_of("#if A\nint a;\n#elif\nint b;\n#else\nint c;\n#endif\n", 6) == ["!A"]


def test_a_directive_continued_to_the_end_of_the_file_ends_there():
    assert conditions_of("int x;\n#if A \\", 1) == [""]
    assert conditions_of("#if A\nint x;\n#elif B \\", 2) == ["A"]
