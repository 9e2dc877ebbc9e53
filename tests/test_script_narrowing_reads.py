"""What a block and the blocks holding it narrow a JavaScript or TypeScript name to is read
once a block and name (context_tools/query/symbols/script_narrowing.py, `Narrowing.narrowed`),
and a line's own narrowings of it once a line, not again for each site: 2,000 blocks nested
one in another, a site in each (36 kB), held `context references` for 21 s, growing as the
square of the blocks. The work is counted as the lines of script_narrowing.py a query runs,
for N and 2N: about twice, never four times."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.indexed import Indexed
from tests.lines_run import references_counted

NARROWING = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "script_narrowing.py")
SMALL, LARGE = 80, 160
CLASSES = "class T { m() {} }\nclass U { m() {} }\ndeclare const c: boolean;\n"
SHAPES = {
    # blocks nested one in another, a site in each: each site read every block outwards
    "nested": lambda n: "function f(x: T) {\n" + "if (c) { x.m();\n" * n + "}\n" * n + "}\n",
    # one narrowing block of many sites: each site read the block for the name assigned again
    "block": lambda n: "function f(x: T) {\n  if (x instanceof U) {\n" + "    x.m();\n" * n + "  }\n}\n",
}


def _repo(shape: str, n: int) -> Indexed:
    return Indexed({"a.ts": CLASSES + SHAPES[shape](n)}, f"rennet-script-narrowing-{shape}-{n}-")


REPOS = {(shape, n): _repo(shape, n) for shape in SHAPES for n in (SMALL, LARGE)}


def _lines_run(shape: str, n: int) -> int:
    asked = REPOS[shape, n].asked()
    answer, ran = references_counted(asked, "U.m" if shape == "block" else "T.m", {NARROWING}, first="T")
    sites = answer.data.sites
    assert len(sites) == n and all(s.rule != "defining file" for s in sites), sites[:2]
    return ran


@pytest.mark.parametrize("shape", list(SHAPES))
def test_sites_in_many_blocks_cost_lines_in_proportion_to_them(shape):
    small, large = _lines_run(shape, SMALL), _lines_run(shape, LARGE)
    assert large <= 2.5 * small, (small, large)


def test_each_site_is_narrowed_by_its_own_line_or_the_blocks_holding_it():
    """A narrowing on the site's line holds after it; a block's, inside it and the blocks it
    holds, unless the block assigns the name; an arrow's body is not read out of. As before:
    the same sites typed by the code this replaced."""
    asked = Indexed({"a.ts": CLASSES + (
        "function f(x: T) {\n"                                  # 4
        "  x.m(); if (x instanceof U) x.m(); x.m();\n"           # 5: T, -, U
        "  if (x instanceof U) {\n"                              # 6
        "    x.m();\n"                                           # 7: U
        "    if (c) { x.m(); }\n"                                # 8: U
        "    const g = () => { x.m(); };\n"                      # 9: T (the parameter)
        "  }\n"
        "  if (x instanceof U) {\n"                              # 11
        "    x.m(); x = new T();\n"                              # 12: T (the block assigns it)
        "  }\n"
        "}\n")}, "rennet-script-narrowing-mixed-").asked()

    def typed(name: str) -> set[tuple[int, int]]:
        return {(s.line, s.col) for s in asked.call("context.references", name=name).data.sites
                if s.rule != "defining file"}

    assert typed("U.m") == {(5, 38), (7, 6), (8, 15)}
    assert typed("T.m") == {(5, 4), (9, 24), (12, 6)}


def test_a_block_is_narrowed_by_its_own_if_alone():
    """A block's narrowing is its own `if`'s condition, read back from the parenthesis before
    its `{` to the one opening it: a callback's body opened after an `if` statement on the same
    line is no `if` block (was: the text from the line's first `if (` to its last `)` was read
    as one condition, so the callback's sites were narrowed by a statement they are not in, and
    each block of a long line searched the whole line before it); blocks nested on one line
    each read their own condition, outwards."""
    asked = Indexed({"a.ts": CLASSES + (
        "function f(x: T | U, w: (g: () => void) => void) {\n"     # 4
        "  if (x instanceof U) c; w(function () {\n"                # 5
        "    x.m();\n"                                               # 6: the union: untyped
        "  });\n"
        "  if (x instanceof U) { if (c) { if (c) {\n"                # 8
        "    x.m();\n"                                               # 9: U, from the outermost
        "  } } }\n"
        "}\n")}, "rennet-script-narrowing-own-if-").asked()
    sites = {(s.line, s.col): s.rule for s in asked.call("context.references", name="U.m").data.sites}
    assert sites.get((9, 6)) == "`x instanceof U`"
    assert sites.get((6, 6)) != "`x instanceof U`", sites
