"""The element differ: symbols added, removed, modified and moved per file, from the
merge-base and head snapshots."""

from __future__ import annotations

from corpora.gitbuild import RepoBuilder
from delta import build_delta_packet
from indexer.api import open_store
from indexer.contract.result import Unknown

SHAPES = '''class Shape:
    def area(self):
        return 0

    def name(self):
        return "shape"


def make(kind):
    return Shape()


def legacy():
    return None
'''

MOVER = '''def travel(x):
    return x * 2
'''


def test_symbol_changes_per_file(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"geo/shapes.py": SHAPES, "geo/util.py": MOVER + "\n\ndef stay():\n    return 1\n",
                     "geo/other.py": "X = 1\n", "README.md": "# geo\n"})
    head_shapes = SHAPES.replace("return 0", "return 42").replace(
        "def legacy():\n    return None\n", "def brand_new(a, b):\n    return a + b\n") + "\n\n" + MOVER
    head = b.commit({"geo/shapes.py": head_shapes, "geo/util.py": "def stay():\n    return 1\n",
                     "README.md": "# geo!\n"})
    store = open_store(tmp_path / "home")
    try:
        p = build_delta_packet(tmp_path / "r", base, head, store=store, write=False).packet
    finally:
        store.close()
    by_path = {fe.path: fe.changes.items for fe in p.elements.items}
    unknown = {fe.path: fe.changes.unknown for fe in p.elements.items}
    shapes = {(c.change, c.qualified) for c in by_path["geo/shapes.py"]}
    assert ("modified", "Shape.area") in shapes
    assert ("added", "brand_new") in shapes
    assert ("removed", "legacy") in shapes
    assert ("moved", "travel") in shapes
    assert not any(q in ("Shape.name", "make", "Shape") and ch != "modified" for ch, q in shapes)
    assert ("modified", "Shape") in shapes  # the class body changed with its method
    moved = [c for c in by_path["geo/shapes.py"] if c.change == "moved"][0]
    assert moved.from_path == "geo/util.py" and moved.old_line == 1
    assert by_path["geo/util.py"] == []  # the removal became the move
    assert by_path["README.md"] == [] and (unknown["README.md"] is None or isinstance(unknown["README.md"], Unknown))


def test_elements_not_requested_is_typed(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": "def f():\n    pass\n"})
    head = b.commit({"a.py": "def f():\n    return 1\n"})
    p = build_delta_packet(tmp_path / "r", base, head, index=False, elements=False, write=False).packet
    assert p.elements.items == [] and p.elements.unknown.unknown == "not_requested"


def test_a_function_moved_within_its_file(tmp_path):
    funcs = {name: f"def {name}(x):\n    return x + {i}\n\n\n" for i, name in enumerate("abcde")}
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"m.py": "".join(funcs[n] for n in "abcde")})
    head = b.commit({"m.py": "".join(funcs[n] for n in "bcdae").replace("x + 2", "x + 20")})
    store = open_store(tmp_path / "home")
    try:
        p = build_delta_packet(tmp_path / "r", base, head, store=store, write=False).packet
    finally:
        store.close()
    [fe] = p.elements.items
    assert {(c.change, c.qualified) for c in fe.changes.items} == {("moved", "a"), ("modified", "c")}
    moved = [c for c in fe.changes.items if c.change == "moved"][0]
    assert (moved.old_line, moved.line, moved.from_path) == (1, 13, None)


def _elements(tmp_path, base_files, head_files):
    b = RepoBuilder(tmp_path / "r")
    base = b.commit(base_files)
    head = b.commit(head_files)
    store = open_store(tmp_path / "home")
    try:
        p = build_delta_packet(tmp_path / "r", base, head, store=store, write=False).packet
    finally:
        store.close()
    return {fe.path: {(c.change, c.qualified) for c in fe.changes.items} for fe in p.elements.items}


PROP = '''class Box:
    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value

    def label(self):
        return "box"


def first(x):
    return x + 1


def second(x):
    return x + 2


def third(x):
    return x + 3
'''


def test_namesakes_reformatting_copies_and_a_moved_edit(tmp_path):
    """Symbols are keyed by name, kind and their order among namesakes, and their bodies read
    without whitespace: the getter of a property is told from its setter, a reformatted body
    is no change, a copied file's symbols are all added, and a symbol moved and edited is
    modified (moved is for a body kept as it was)."""
    head = (PROP.replace("return self._size", "return self._size or 0")  # the getter only
            .replace('return "box"', 'return  "box"')  # whitespace only
            .replace("def first(x):\n    return x + 1\n\n\n", "")
            + "\n\ndef first(x):\n    return x + 100\n")  # moved to the end and edited
    got = _elements(tmp_path, {"box.py": PROP, "util.py": "def helper(a):\n    return a\n"},
                    {"box.py": head, "util.py": "def helper(a):\n    return a * 2\n",
                     "copy.py": "def helper(a):\n    return a\n"})
    assert got["box.py"] == {("modified", "Box.size"), ("modified", "Box"), ("modified", "first")}
    assert got["copy.py"] == {("added", "helper")}
