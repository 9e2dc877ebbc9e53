"""The innermost `{` holding a JavaScript or TypeScript site (context_tools/query/symbols/
script_blocks.py, `Braces`) is found from the file's braces matched once, not by reading back
the site's line and the lines above it for each site: 4,000 sites on one line of 24 kB held
`context references` for 16 s, growing as the square of the line. Where it is found is what
reading back by braces finds (`_read_back`, as the code read it before)."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.query.symbols import script_blocks
from context_tools.query.symbols.script_blocks import Braces
from tests.examples import examples
from tests.indexed import Indexed
from tests.lines_run import references_counted

BLOCKS = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "script_blocks.py")
SMALL, LARGE = 300, 600


def _read_back(lines: list[bytes], line: int, col: int) -> tuple[int, int] | None:
    """(line, byte) of the innermost `{` holding the site, read back by braces from it, at
    most NARROWING_LINES lines."""
    depth = 0
    for n in range(line, max(0, line - script_blocks.NARROWING_LINES), -1):
        text = lines[n - 1] if n < line else lines[n - 1][:col]
        for i in range(len(text) - 1, -1, -1):
            ch = text[i:i + 1]
            if ch == b"}":
                depth += 1
            elif ch == b"{":
                if depth == 0:
                    return n, i
                depth -= 1
    return None


_LINES = st.lists(st.lists(st.sampled_from([b"{", b"}", b"x", b" ", b"if (c) {", b"}}"]), max_size=8).map(b"".join),
                  min_size=1, max_size=12)


@settings(max_examples=examples(200), deadline=None)
@given(_LINES, st.data(), st.integers(min_value=1, max_value=4))
def test_the_brace_found_is_the_one_reading_back_finds(lines, data, window):
    """Every point of every line (and past its end), with a window of 1 to 4 lines read back."""
    with mock.patch.object(script_blocks, "NARROWING_LINES", window):
        braces = Braces(lines)
        line = data.draw(st.integers(min_value=1, max_value=len(lines)))
        for col in range(len(lines[line - 1]) + 3):
            assert braces.opening(line, col) == _read_back(lines, line, col), (line, col)


def _repo(n: int) -> Indexed:
    # the sites on one line, the file's average line kept short of minified
    text = "class T { m() {} }\nclass U { m() {} }\nfunction f(x: T) {\n" + "x.m();" * n + "\n}\n" + "//\n" * n
    return Indexed({"a.ts": text}, f"rennet-script-braces-{n}-")


REPOS = {n: _repo(n) for n in (SMALL, LARGE)}


def _lines_run(n: int) -> int:
    asked = REPOS[n].asked()
    answer, ran = references_counted(asked, "T.m", {BLOCKS}, first="U.m")
    sites = answer.data.sites
    assert sites and all(s.rule == "annotation `T` of parameter `x`" for s in sites)
    return ran


def test_sites_on_one_long_line_cost_lines_in_proportion_to_them():
    """The lines of script_blocks.py a query runs for N sites on one line and for 2N: about
    twice, never four times."""
    small, large = _lines_run(SMALL), _lines_run(LARGE)
    assert large <= 2.5 * small, (small, large)
