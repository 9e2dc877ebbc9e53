"""A JavaScript or TypeScript site's nearest alias of `this` (`const self = this`) visible
from it (context_tools/query/symbols/this_aliases.py, `ThisAliases`) is found from the file's
braces read once, not by reading the file back byte by byte from each site: a method of 2,000
lines each calling `self.m()` under one `const self = this` (32 kB) held `context references`
for 11.3 s (1,000: 3.2 s), growing as the square of its lines. What is found is what reading
back found (`_read_back`, as the code read it before)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.query.symbols.script_blocks import Braces
from context_tools.query.symbols.this_aliases import ThisAliases
from indexer.lang.javascript.bindings import JavaScriptBindings
from tests.examples import examples
from tests.indexed import Indexed
from tests.lines_run import counted

ALIASES = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "this_aliases.py")
RULES = JavaScriptBindings()


def _read_back(lines: list[bytes], line: int, col: int, first: int, name: str) -> bool:
    depth = 0
    for n in range(min(line, len(lines)), first - 1, -1):
        text = lines[n - 1][:col] if n == line else lines[n - 1]
        for char in reversed(text):
            if char == 0x7D:
                depth += 1
            elif char == 0x7B:
                depth = max(depth - 1, 0)
        said = RULES.instance_alias(text, name) if depth == 0 and name.encode() in text else None
        if said is not None:
            return said
    return False


def _found(lines: list[bytes], line: int, col: int, first: int, name: str) -> bool:
    """What `_BySyntax._instance_alias` reads with `ThisAliases`, the class's first line `first`."""
    # the lines that may say so: those holding the name as a word (`_Reading.lines_naming`)
    naming = [i for i, text in enumerate(lines) if name.encode() in re.findall(rb"[A-Za-z0-9_]+", text)]
    aliases = ThisAliases(Braces(lines), lines, name, RULES.instance_alias, naming)
    last, at = len(lines), aliases.starts[-1]
    if line <= len(lines):
        text = lines[line - 1][:col]
        at = aliases.starts[line - 1] + len(text)
        said = RULES.instance_alias(text, name) if name.encode() in text and aliases.visible(line, at) else None
        if said is not None:
            return said
        last = line - 1
    found = aliases.nearest(first, last, at)
    return found if found is not None else False


_PARTS = [b"{", b"}", b"const self = this;", b"let self = 1;", b"self.m();", b"var that = this;", b" ", b"x"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PARTS), max_size=5).map(b"".join), min_size=1, max_size=10), st.data())
def test_the_alias_found_is_the_one_reading_back_finds(lines, data):
    line = data.draw(st.integers(min_value=1, max_value=len(lines) + 1))
    first = data.draw(st.integers(min_value=1, max_value=line))
    width = len(lines[line - 1]) if line <= len(lines) else 0
    for col in range(width + 2):
        for name in ("self", "that"):
            assert _found(lines, line, col, first, name) == _read_back(lines, line, col, first, name), (line, col, name)


def _repo(n: int) -> Indexed:
    text = "class T {\n  m() {}\n  run() {\n    const self = this;\n" + "    self.m();\n" * n + "  }\n}\n"
    return Indexed({"a.ts": text}, f"rennet-this-aliases-{n}-")


SMALL, LARGE = 150, 300
REPOS = {n: _repo(n) for n in (SMALL, LARGE)}


def _lines_run(n: int) -> int:
    asked = REPOS[n].asked()
    asked.call("context.references", name="m")  # what a snapshot keeps once is not counted
    sites, ran = counted(lambda: asked.call("context.references", name="T.m").data.sites, (ALIASES, SITES))
    assert sites and all(s.resolution == "same_file" for s in sites)  # a page of them
    return ran


SITES = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "sites.py")


def test_sites_under_one_alias_cost_lines_in_proportion_to_them():
    """The lines of sites.py and this_aliases.py a query runs for N sites under one alias and
    for 2N: about twice, never four times."""
    small, large = _lines_run(SMALL), _lines_run(LARGE)
    assert large <= 2.5 * small, (small, large)
