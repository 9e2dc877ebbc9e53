"""The declared type of a JavaScript or TypeScript object literal whose keys are sites (`{ m,
}` returned by a function declared `: T`) is read once a literal, whichever key asks
(context_tools/query/symbols/script_types.py, `ScriptTypes.object_key`), and whether it is
an inner function's reads each brace's head back from the brace alone (script_blocks.py,
`in_inner_function`): a function of 400 `if (m) {}` lines returning an object of 400 keys (5
kB) held `context references` for 21 s, each key reading the body, each brace of it the
body before it again."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.query.symbols import script_blocks
from indexer.lang.bindings_base import opening_bracket
from tests.examples import examples
from tests.indexed import Indexed
from tests.lines_run import references_counted

BLOCKS = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "script_blocks.py")
SMALL, LARGE = 80, 160


def _plain(head: bytes) -> bool:
    """`plain` as it read a head before: stripped, searched, the condition's parentheses."""
    before = head.rstrip()
    if re.search(rb"(?:\belse|\btry|\bfinally|\bdo|[=(,:?\[]|\breturn)\s*$", before) is not None:
        return True
    opened = opening_bracket(before, len(before) - 1) if before.endswith(b")") else None
    return opened is not None and re.search(rb"\b(?:if|for|while|switch|catch|with)\s*$", before[:opened]) is not None


def _inner(text: bytes) -> bool:
    stack: list[bool] = []
    for i, ch in enumerate(text):
        if ch == 0x7B:
            stack.append(not _plain(text[:i]))
        elif ch == 0x7D and stack:
            stack.pop()
    return any(stack)


_HEADS = st.lists(st.sampled_from([b"if", b"else", b"finally", b"try", b"do", b"return", b"switch", b"with", b"xif",
                                   b"elsewhere", b"while", b"=", b"(", b")", b"{", b"}", b",", b" ", b"\t", b"\n",
                                   b"=>", b"a", b"9", b":", b"[", b"?"]), max_size=20).map(b"".join)


@settings(max_examples=examples(250), deadline=None)
@given(_HEADS)
def test_a_head_is_plain_as_the_whole_text_before_it_said(text):
    assert script_blocks.plain(text) == _plain(text), text
    assert script_blocks.in_inner_function(text) == _inner(text), text


def _repo(n: int) -> Indexed:
    text = ("interface T { m: number; }\nconst m = 1;\nfunction f(): T {\n" + "  if (m) {}\n" * n
            + "  return {\n" + "    m,\n" * n + "  };\n}\n")
    return Indexed({"a.ts": text}, f"rennet-script-object-keys-{n}-")


REPOS = {n: _repo(n) for n in (SMALL, LARGE)}


def _lines_run(n: int) -> int:
    asked = REPOS[n].asked()
    answer, ran = references_counted(asked, "T.m", {BLOCKS}, first="m")
    sites = answer.data.sites
    assert len(sites) == n and all(s.rule == "an object f returns, declared `T`" for s in sites), sites[:2]
    return ran


def test_the_keys_of_a_literal_cost_lines_in_proportion_to_them():
    """The lines of script_blocks.py a query runs for N blocks and keys and for 2N: about
    twice, never four times."""
    small, large = _lines_run(SMALL), _lines_run(LARGE)
    assert large <= 2.5 * small, (small, large)


@settings(max_examples=examples(200), deadline=None)
@given(_HEADS)
def test_an_inner_function_is_open_at_each_point_as_the_text_before_it_says(text):
    """`inner_functions`, read once a function body, answers for every point of it what
    `in_inner_function` of the text up to that point answers."""
    from bisect import bisect_left

    opens, closes = script_blocks.inner_functions(text)
    for at in range(len(text) + 1):
        assert (bisect_left(opens, at) != bisect_left(closes, at)) == _inner(text[:at]), (text, at)


TYPES = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "script_types.py")


def _returning(n: int) -> Indexed:
    # one function returning an object of one key on each of n lines, each an inner arrow's too
    text = ("class T { m() {} }\nclass U { m() {} }\nconst m = 1;\nfunction g(c: number): T {\n"
            + "  if (c) return { m };\n  const h = () => { return { m }; };\n" * n + "  return { m };\n}\n")
    return Indexed({"a.ts": text}, f"rennet-script-returns-{n}-")


RETURNING = {n: _returning(n) for n in (SMALL, LARGE)}


def test_the_objects_a_function_returns_cost_lines_in_proportion_to_them():
    """Each object a function returns read the function's body from its start up to itself (a
    function returning an object on each of 2,000 lines held `context references` for 4.5 s,
    growing as the square of the lines); now the body is read once a function. An object an
    inner arrow returns is no key of `T`."""
    def run(n: int) -> int:
        asked = RETURNING[n].asked()
        answer, ran = references_counted(asked, "T.m", {BLOCKS, TYPES}, first="U.m")
        sites = answer.data.sites
        keys = [s for s in sites if s.rule == "an object g returns, declared `T`"]
        assert len(keys) == n + 1, len(keys)
        return ran

    small, large = run(SMALL), run(LARGE)
    assert large <= 2.5 * small, (small, large)
