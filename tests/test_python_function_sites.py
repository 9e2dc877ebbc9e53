"""The sites of one Python function reading a name find the last line above them assigning it
from the function's assigning lines, found once a function and name
(context_tools/query/symbols/receivers.py, `PythonReceivers.variable`), not by reading the
function back from each site: a function of 4,000 lines each calling `x.m()` (50 kB) held
`context references` for 4.1 s (2,000: 1.3 s), growing as the square of its lines. The
functions holding a site are found by a binary search (`_holders`), not by listing the
file's functions for each site. The work
is counted as the lines of receivers.py a query runs, for N sites and 2N: about twice, never
four times."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.indexed import Indexed
from tests.lines_run import counted, references_counted

RECEIVERS = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "receivers.py")
SMALL, LARGE = 200, 400
CLASSES = "class T:\n    def m(self):\n        pass\n\n\nclass U:\n    def m(self):\n        pass\n\n\n"
SHAPES = {
    "parameter": lambda n: "def f(x: T):\n" + "    x.m()\n" * n,
    "assigned": lambda n: "def f():\n    x = T()\n" + "    x.m()\n" * n,
    # a function a site: each site listed every function of the file for those holding it
    "functions": lambda n: "".join(f"def f{i}(x: T):\n    def g():\n        pass\n    x.m()\n\n\n" for i in range(n)),
}


def _repo(shape: str, n: int) -> Indexed:
    return Indexed({"a.py": CLASSES + SHAPES[shape](n)}, f"rennet-python-sites-{shape}-{n}-")


REPOS = {(shape, n): _repo(shape, n) for shape in SHAPES for n in (SMALL, LARGE)}


def _lines_run(shape: str, n: int) -> int:
    asked = REPOS[shape, n].asked()
    assert asked.call("context.references", name="U.m").data.sites == []  # once first, as a snapshot keeps
    sites, ran = counted(lambda: asked.call("context.references", name="T.m").data.sites, {RECEIVERS})
    assert sites, shape  # T's, none of U's
    return ran


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_function_of_many_sites_costs_lines_in_proportion_to_them(shape):
    small, large = _lines_run(shape, SMALL), _lines_run(shape, LARGE)
    assert large <= 2.5 * small, (small, large)


def test_each_site_is_typed_by_the_last_assignment_above_it_in_its_function():
    asked = Indexed({"a.py": CLASSES + (
        "def f(x: U):\n"          # 11
        "    x.m()\n"             # 12: the parameter, U
        "    x = T()\n"
        "    x.m()\n"             # 14: T
        "    x = U()\n"
        "    x.m()\n"             # 16: U
        "\n\n"
        "def g():\n"              # 19
        "    x.m()\n"             # 20: no assignment above in g: the module's
        "    x = U()\n"
        "\n\n"
        "x = T()\n")}, "rennet-python-sites-mixed-").asked()

    def lines(name: str) -> set[int]:
        return {s.line for s in asked.call("context.references", name=name).data.sites}

    assert lines("T.m") == {14, 20}
    assert lines("U.m") == {12, 16}


def _long_header(n: int) -> Indexed:
    # a parameter list as long as the body: each site read the `def` header byte by byte
    return Indexed({"a.py": CLASSES + "def f(x: T, " + "a, " * (4 * n) + "z):\n" + "    x.m()\n" * n},
                   f"rennet-python-sites-header-{n}-")


HEADERS = {n: _long_header(n) for n in (SMALL, LARGE)}


def test_a_long_def_header_is_read_once_a_function():
    """A function of N sites and 4N parameters, and one of 2N and 8N: the lines of
    receivers.py run about double, never four times (a function of 4,000 of each held
    `context references` for 16.8 s, each site reading its header again)."""
    def run(n: int) -> int:
        asked = HEADERS[n].asked()
        answer, ran = references_counted(asked, "T.m", {RECEIVERS}, first="U.m")
        sites = answer.data.sites
        assert sites and all(s.rule == "annotation `T` of parameter `x`" for s in sites)
        return ran

    small, large = run(SMALL), run(LARGE)
    assert large <= 2.5 * small, (small, large)


CALL_CLOSE = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "call_close.py")


def _long_call(n: int) -> Indexed:
    # the call assigning the name as long as the body: each site walked it to its close
    return Indexed({"a.py": CLASSES + "def f():\n    x = T(" + "1, " * (4 * n) + ")\n" + "    x.m()\n" * n},
                   f"rennet-python-sites-call-{n}-")


CALLS = {n: _long_call(n) for n in (SMALL, LARGE)}


def test_an_assignment_is_read_once_however_many_sites_it_types():
    """A function of N sites after `x = T(...)` of 4N arguments, and one of 2N and 8N: the lines
    of receivers.py and call_close.py run about double, never four times (a function of 4,000
    of each held `context references` for 144 s, each site walking the call to its close byte
    by byte); the walk visits brackets, quotes and comments alone."""
    def run(n: int) -> int:
        asked = CALLS[n].asked()
        answer, ran = references_counted(asked, "T.m", {RECEIVERS, CALL_CLOSE}, first="U.m")
        sites = answer.data.sites
        assert len(sites) == min(n, 200)
        return ran

    small, large = run(SMALL), run(LARGE)
    assert large <= 2.5 * small, (small, large)
