"""The dotted names ending the text before a site's dot (indexer/lang/bindings_base.py,
`DottedTail`), read back from the text's end: what searching the text for the pattern anchored
at its end finds, at a cost of their own length. Each site of a long line searched the whole
line before it: 4,000 sites on one Python line of 24 kB held `context references` for 3.0 s,
growing as the square of the line."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang.bindings_base import NAMES, SCRIPT_NAMES
from tests.examples import examples
from tests.indexed import Indexed
from tests.lines_run import references_counted

BASE = str(Path(__file__).resolve().parents[1] / "indexer" / "lang" / "bindings_base.py")
SMALL, LARGE = 300, 600


@settings(max_examples=examples(250), deadline=None)
@given(st.lists(st.sampled_from([b"a", b"Z", b"_", b"$", b"7", b" ", b"\t", b".", b"(", b'"', b"ab", b"x."]),
                max_size=16).map(b"".join))
def test_the_names_read_back_are_those_the_pattern_finds(text):
    for tail in (NAMES, SCRIPT_NAMES):  # Python's receivers, JavaScript's
        m = tail.pattern.search(text)
        assert tail.search(text) == ((m.start(), m.group(1)) if m else None), text


def _repo(n: int) -> Indexed:
    # the sites on one line
    text = "class T:\n    def m(self):\n        pass\n\n\nx = T()\n" + "x.m();" * n + "\n"
    return Indexed({"a.py": text}, f"rennet-dotted-tail-{n}-")


REPOS = {n: _repo(n) for n in (SMALL, LARGE)}


def _lines_run(n: int) -> int:
    asked = REPOS[n].asked()
    answer, ran = references_counted(asked, "T.m", {BASE}, first="T")
    sites = answer.data.sites
    assert sites and all(s.resolution == "same_file" for s in sites)
    return ran


def test_sites_on_one_long_line_read_their_receivers_back_in_proportion_to_them():
    """The lines of bindings_base.py a query runs for N sites on one line and for 2N: about
    twice, never four times."""
    small, large = _lines_run(SMALL), _lines_run(LARGE)
    assert large <= 2.5 * small, (small, large)
