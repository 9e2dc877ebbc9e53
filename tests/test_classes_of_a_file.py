"""A file of many classes, each holding a site: the class or definition holding a site is
found by a binary search (context_tools/query/symbols/rightmost.py, `Rightmost`: in
`MemberSites.enclosing`, `_BySyntax._class_symbol_at`), a blob's definitions of a name are
grouped once a blob (`Snapshot.definitions_of`), a name's definitions read once a query
(`ClassReading.defined`), and a file's `inherits` edges grouped by class once
(`Hierarchy.declared`), not each read whole again for each site or class: 4,000 classes in
each of a Java, a TypeScript and a Python file, each calling an inherited method (200 kB
in all), held `context references` for 42 s (2,000: 11 s), growing as the square of the
classes."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.query.symbols.rightmost import Rightmost
from tests.examples import examples
from tests.indexed import Indexed
from tests.lines_run import references_counted

ROOT = Path(__file__).resolve().parents[1]
READ = {str(ROOT / "context_tools" / "query" / "symbols" / f) for f in ("members.py", "sites.py", "hierarchy.py")} | {
    str(ROOT / "indexer" / "store" / "snapshot.py")}
SMALL, LARGE = 100, 200


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(min_value=-3, max_value=12), max_size=20), st.integers(min_value=-4, max_value=13),
       st.data())
def test_the_last_place_over_a_threshold_is_the_one_a_scan_finds(values, threshold, data):
    table = Rightmost(values)
    lo = data.draw(st.integers(min_value=0, max_value=len(values)))
    hi = data.draw(st.integers(min_value=-1, max_value=len(values) - 1))
    scanned = next((i for i in range(hi, lo - 1, -1) if values[i] > threshold), None)
    assert table.last_over(lo, hi, threshold) == scanned


def _repo(n: int) -> Indexed:
    java = "class T { void m() {} }\n" + "".join(f"class A{i} extends T {{ void f() {{ this.m(); }} }}\n" for i in range(n))
    ts = "class T { m() {} }\n" + "".join(f"class A{i} extends T {{ f() {{ this.m(); }} }}\n" for i in range(n))
    py = "class T:\n    def m(self):\n        pass\n" + "".join(
        f"class A{i}(T):\n    def f(self):\n        self.m()\n" for i in range(n))
    return Indexed({"A.java": java, "a.ts": ts, "a.py": py}, f"rennet-classes-of-a-file-{n}-")


REPOS = {n: _repo(n) for n in (SMALL, LARGE)}


def _lines_run(n: int) -> int:
    asked = REPOS[n].asked()
    r, ran = references_counted(asked, "T.m", READ, first="m")
    assert r.data.by_resolution["same_file"] == 3 * n, r.data.by_resolution  # each class's call
    return ran


def test_a_file_of_many_classes_costs_lines_in_proportion_to_them():
    """The lines of sites.py, members.py, hierarchy.py and snapshot.py a query runs for N
    classes a file and 2N: about twice, never four times."""
    small, large = _lines_run(SMALL), _lines_run(LARGE)
    assert large <= 2.5 * small, (small, large)
