"""The symbols moved among their siblings (delta/elements.py, `_reordered`) are found from
each side's members grouped by container once, not by reading every symbol of both sides
again for each container: a file of 4,000 functions changed and 4,000 classes added (150 kB)
held `rennet delta` for 3.4 s (2,000: 0.9 s), growing as the square of its containers."""

from __future__ import annotations

import difflib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from delta import build_delta_packet
from delta.elements import Key, _reordered
from indexer.api import open_store
from indexer.model import Symbol
from tests.examples import examples
from tests.lines_run import counted

ELEMENTS = str(Path(__file__).resolve().parents[1] / "delta" / "elements.py")


def _scanned(before: dict[Key, tuple[Symbol, str]], after: dict[Key, tuple[Symbol, str]]) -> list[Key]:
    """`_reordered` as it read both sides for each container before."""
    moved: list[Key] = []
    for container in sorted({sym.container for sym, _ in after.values()}):
        def order(side):
            keys = [k for k, (sym, _) in side.items() if sym.container == container and k in before and k in after]
            return sorted(keys, key=lambda k: (side[k][0].line, side[k][0].start_byte))
        old, new = order(before), order(after)
        kept = set()
        for block in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
            kept.update(old[block.a:block.a + block.size])
        moved.extend(k for k in new if k not in kept)
    return moved


def _side(draw, names: list[str]) -> dict[Key, tuple[Symbol, str]]:
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    out = {}
    for name in chosen:
        container = draw(st.sampled_from(["", "A", "B", "A.C"]))
        line = draw(st.integers(min_value=1, max_value=20))
        out[(name, "function", 0)] = (Symbol(name, "function", container, line, line, line * 10, line * 10 + 5, ""), "")
    return out


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_the_moves_are_those_reading_each_container_found(data):
    names = [f"f{i}" for i in range(8)]
    before, after = _side(data.draw, names), _side(data.draw, names)
    assert _reordered(before, after) == _scanned(before, after)


def _lines_run(tmp_path: Path, n: int) -> int:
    b = RepoBuilder(tmp_path / f"r{n}")
    base = b.commit({"a.py": "".join(f"def f{i}():\n    pass\n" for i in range(n))})
    head = b.commit({"a.py": "".join(f"def f{i}(x):\n    pass\n" for i in range(n))
                     + "".join(f"class C{i}:\n    def m(self):\n        pass\n" for i in range(n))})
    store = open_store(tmp_path / f"home{n}")
    try:
        p, ran = counted(lambda: build_delta_packet(tmp_path / f"r{n}", base, head, store=store, write=False).packet,
                         {ELEMENTS})
    finally:
        store.close()
    [fe] = p.elements.items
    assert sum(c.change == "added" for c in fe.changes.items) == 2 * n  # each class and its method
    return ran


def test_a_file_of_many_containers_costs_lines_in_proportion_to_them(tmp_path):
    """The lines of elements.py a packet runs for N functions changed and N classes added, and
    for 2N: about twice, never four times."""
    small, large = _lines_run(tmp_path, 150), _lines_run(tmp_path, 300)
    assert large <= 2.5 * small, (small, large)
