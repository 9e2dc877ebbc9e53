"""C/C++ definitions under preprocessor conditions: both branches' symbols, each with its
condition in the blob facts, the canonical dump and the `context.symbol` / `context.file`
answers; none for an unconditional one, nor for a header's include guard."""

from __future__ import annotations

import json

import msgspec

from indexer.lang.c.conditions import condition_at, condition_lines
from tests.indexed import Indexed

SOURCE = """#ifndef NET_H
#define NET_H
int always(void);
#ifdef _WIN32
int open_socket(void) { return 1; }
#else
int open_socket(void) { return 2; }
#endif
#endif
"""

INDEXED = Indexed({"net.h": SOURCE, "main.py": "def open_socket():\n    pass\n"}, "rennet-c-conditions-")


def test_context_symbol_lists_both_branches_with_their_condition():
    result = INDEXED.asked().call("context.symbol", name="open_socket", fuzzy=False)
    found = sorted((d.path, d.line, d.condition) for d in result.data.definitions)
    assert found == [("main.py", 1, ""), ("net.h", 5, "defined(_WIN32)"), ("net.h", 7, "!defined(_WIN32)")]
    shown = [msgspec.json.decode(msgspec.json.encode(d)) for d in result.data.definitions]
    # the JSON answer leaves an empty condition out
    assert sorted("condition" in d for d in shown) == [False, True, True]


def test_context_file_outline_carries_the_condition():
    result = INDEXED.asked().call("context.file", path="net.h")
    outline = {(i.name, i.line): i.condition for i in result.data.outline.items}
    assert outline == {("NET_H", 2): "", ("always", 3): "", ("open_socket", 5): "defined(_WIN32)",
                       ("open_socket", 7): "!defined(_WIN32)"}


def test_the_dump_holds_the_condition_only_where_there_is_one():
    from indexer.api import open_store, snapshot

    repo, store_path = INDEXED.paths
    with open_store(store_path) as store:
        lines = [json.loads(line) for line in b"".join(snapshot(repo, "main", store=store).canonical_lines()).splitlines()]
    symbols = {(s["path"], s["name"], s["line"]): s.get("condition") for s in lines if s["type"] == "symbol"}
    assert symbols[("net.h", "open_socket", 5)] == "defined(_WIN32)"
    assert symbols[("net.h", "open_socket", 7)] == "!defined(_WIN32)"
    assert symbols[("net.h", "always", 3)] is None and symbols[("main.py", "open_socket", 1)] is None


def test_elif_else_and_nesting_are_spelled_as_documented():
    data = (b"#if A\nint a;\n#elif defined B || C\nint b;\n#else\n# ifndef D\nint d;\n# endif\n#endif\n"
            b"/*\n#if E\n*/\nint e;\n")
    starts, conditions = condition_lines(data)
    assert [condition_at(starts, conditions, n) for n in (2, 4, 7, 13)] == [
        "A", "!A && (defined(B) || C)", "!A && !(defined(B) || C) && !defined(D)", ""]


def _lines_run(data: bytes) -> tuple[int, tuple[list[int], list[str]]]:
    """How many lines of conditions.py run to read `data`'s conditions, and what is read: a
    count of work that does not hang on the machine's speed."""
    import sys

    from indexer.lang.c import conditions

    count = 0

    def trace(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal count
        if frame.f_code.co_filename != conditions.__file__:
            return None
        count += event == "line"
        return trace

    sys.settrace(trace)
    try:
        read = condition_lines(data)
    finally:
        sys.settrace(None)
    return count, read


def test_deep_groups_and_many_branches_are_read_in_steps_linear_in_the_directives():
    """Each directive joined the conditions of every open group anew, and each `#elif` or
    `#else` negated every branch before it anew: 10,000 nested `#if`s (169 kB) took 5.9 s to
    extract, 1,000 `#elif`s of one group (21 kB) 5.5 s, 3,000 `#else`s under 3,000 groups over
    120 s. Each group's joined conditions and negated branches are kept, cut at CHARS as made:
    under 100 lines run a directive (were 440 a directive for the nesting, 5,000 for the
    `#elif`s), and the conditions read are those joined whole, then cut."""
    from indexer.lang.c.conditions import CHARS

    n = 400
    nested = "".join(f"#if A{i}\n" for i in range(n)) + "int x;\n" + "#endif\n" * n
    steps, (starts, conditions) = _lines_run(nested.encode())
    assert steps <= 100 * 2 * n
    assert condition_at(starts, conditions, n + 1) == " && ".join(f"A{i}" for i in range(n))[:CHARS]
    assert condition_at(starts, conditions, 3) == "A0 && A1" and condition_at(starts, conditions, 2 * n + 2) == ""
    branches = "#if A\nint a;\n" + "".join(f"#elif B{i}\nint v{i};\n" for i in range(n)) + "#else\nint z;\n#endif\n"
    steps, (starts, conditions) = _lines_run(branches.encode())
    assert steps <= 100 * (n + 3)
    assert condition_at(starts, conditions, 6) == "!A && !B0 && B1"
    assert condition_at(starts, conditions, 2 * n + 4) == " && ".join(["!A", *(f"!B{i}" for i in range(n))])[:CHARS]
    toggled = "".join(f"#if A{i}\n" for i in range(n)) + "int x;\n" + "#else\nint y;\n" * n + "#endif\n" * n
    steps, (starts, conditions) = _lines_run(toggled.encode())
    assert steps <= 100 * 3 * n
    assert condition_at(starts, conditions, n + 3) == (" && ".join(f"A{i}" for i in range(n - 1)) + f" && !A{n - 1}")[:CHARS]
