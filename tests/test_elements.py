"""The element differ: symbols added, removed, modified and moved per file, from the
merge-base and head snapshots."""

from __future__ import annotations

from corpora.gitbuild import RepoBuilder
from delta import build_delta_packet
from delta.elements import ElementChange
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


def test_whitespace_that_changes_what_a_symbol_does_modifies_it(tmp_path):
    """A body read without any whitespace hid a change made of it: a line re-indented out of
    its `if` in Python, a space taken out of a string, a shell word split in two; each modifies
    its symbol now, and a symbol moved to another file with such a change is modified there, not
    moved. More or less spacing where some was, line ends and blank lines are still no change
    (was: none of them listed)."""
    py = ("def guard(user):\n    if user.admin:\n        grant(user)\n        log(user)\n    return 'a b'\n\n\n"
          "def calm():\n    return  1\n")
    sh = "clean() {\n  rm -rf /tmp/build\n}\n\nkeep() {\n  echo  ok\n}\n"
    mover = "def travel(x):\n    return 'x y'\n"
    got = _elements(tmp_path, {"g.py": py, "s.py": py, "c.sh": sh, "from.py": mover + "\n\ndef stay():\n    pass\n"},
                    {"g.py": py.replace("        log(user)", "    log(user)"),  # out of the `if`
                     "s.py": py.replace("'a b'", "'ab'").replace("return  1", "return 1\r"),
                     "c.sh": sh.replace("/tmp/build", "/ tmp/build").replace("echo  ok", "echo ok\n"),
                     "from.py": "def stay():\n    pass\n", "to.py": mover.replace("'x y'", "'xy'")})
    assert got["g.py"] == {("modified", "guard")}
    assert got["s.py"] == {("modified", "guard")}  # calm's spacing and line end are no change
    assert got["c.sh"] == {("modified", "clean")}
    assert got["to.py"] == {("added", "travel")} and got["from.py"] == {("removed", "travel")}


def _funcs(names, body="return 1"):
    return "".join(f"def {n}():\n    {body}\n\n\n" for n in names)


def test_the_differ_lists_and_reads_no_more_than_its_caps_whatever_the_paths(tmp_path, monkeypatch):
    """A change may put one blob at many paths (git stores it once): the differ lists at most
    ELEMENT_CAP changes, a file that would pass them not assessed alone, and reads at most
    DEFINITIONS_CAP definitions, the file that would pass them and those ranked after it not
    assessed; what it reads and holds stays the same however many paths there are (was: every
    definition of every listed file read and listed, 200 paths of one 900 kB module took
    `rennet delta` to 8.3 GB, 2,000 paths past 24 GB)."""
    import tracemalloc

    from delta import elements, packet

    def traced(*args):  # the differ's own peak, not the packet's
        tracemalloc.start()
        try:
            return elements.diff_elements(*args)
        finally:
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()

    monkeypatch.setattr(elements, "ELEMENT_CAP", 12)
    monkeypatch.setattr(elements, "DEFINITIONS_CAP", 60)
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": _funcs(["keep"])})
    wide = _funcs([f"f{i}" for i in range(25)])  # 25 additions: past the list's cap alone
    small = _funcs(["g0", "g1", "g2"])
    peaks = []
    for paths in (8, 80):
        files = {"a.py": _funcs(["keep", "new1", "new2"]), "b.py": small, **{f"w/{i:03d}.py": wide for i in range(paths)}}
        head = b.commit(files, branch=f"h{paths}", parents=[base])
        read: list[str] = []
        real = elements._side
        with open_store(tmp_path / "home") as store:
            build_delta_packet(tmp_path / "r", base, head, store=store, write=False)  # both snapshots stored
            monkeypatch.setattr(elements, "_side", lambda snap, path: (path and read.append(path)) or real(snap, path))
            monkeypatch.setattr(packet, "diff_elements", traced)
            p = build_delta_packet(tmp_path / "r", base, head, store=store, write=False).packet
        monkeypatch.setattr(elements, "_side", real)
        got = {fe.path: fe.changes for fe in p.elements.items}
        assert {c.qualified for c in got["a.py"].items} == {"new1", "new2"}
        assert {c.qualified for c in got["b.py"].items} == {"g0", "g1", "g2"}
        assessed = [path for path, ch in got.items() if ch.unknown is None]
        assert sorted(assessed) == ["a.py", "b.py"]
        reasons = [got[path].unknown.reason for path in sorted(got) if path.startswith("w/")]
        assert reasons[0].startswith("a packet lists at most 12 element changes; the 25 of this file")
        # a, b and two wide files read (4 + 6 + 25 + 25 definitions): the third passes 60
        assert sum(r.startswith("a packet lists") for r in reasons) == 2
        assert all(r.startswith("the element differ reads at most 60 definitions") for r in reasons[2:])
        assert len(read) == 6, read  # both sides of a.py, then b.py and three wide files at head
    assert peaks[1] < 2 * peaks[0], peaks


def _pair_one_by_one(results, removed_at, added_body):
    """The pairing as it was: each addition scans its source's list for the first removal of
    its name and kind, and deletes it."""
    for (path, i), body in sorted(added_body.items()):
        items = results[path]
        ec = items[i]
        sources = removed_at.get((ec.qualified, ec.kind, body), [])
        source = next((s for s in sources if s != path), None)
        if source is None:
            continue
        sources.remove(source)
        gone = results[source]
        for j, r in enumerate(gone):
            if r.change == "removed" and r.qualified == ec.qualified and r.kind == ec.kind:
                items[i] = ElementChange("moved", ec.kind, ec.qualified, line=ec.line, old_line=r.old_line,
                                         from_path=source)
                del gone[j]
                break


def test_moves_pair_as_the_one_by_one_scan_did():
    """Removals and additions of few names and bodies over a few files, namesakes of other
    kinds and bodies among them: one pass over each source file's removals pairs each addition
    with the removal the scan one addition at a time found (that scan was quadratic: 10,000
    functions moved between two files made 50 million comparisons)."""
    import copy
    import random

    from delta.elements import _pair_moves

    rng = random.Random(7)
    for _ in range(300):
        files = [f"f{i}.py" for i in range(rng.randint(2, 4))]
        results, removed_at, added_body = {}, {}, {}
        for path in files:  # a file's list as the differ makes it: additions, modifications, removals
            out, modified, removed = [], [], []
            for _ in range(rng.randint(0, 12)):
                name, kind, body = rng.choice("abc"), rng.choice(["function", "class"]), rng.choice("xyz")
                line, pick = rng.randint(1, 50), rng.random()
                if pick < 0.45:
                    added_body[(path, len(out))] = body
                    out.append(ElementChange("added", kind, name, line=line))
                elif pick < 0.55:
                    modified.append(ElementChange("modified", kind, name, line=line, old_line=line + 1))
                else:
                    removed.append(ElementChange("removed", kind, name, old_line=line))
                    removed_at.setdefault((name, kind, body), []).append(path)
            results[path] = out + modified + removed
        expected = copy.deepcopy((results, removed_at, added_body))
        _pair_one_by_one(*expected)
        _pair_moves(results, removed_at, added_body)
        assert results == expected[0]


def test_the_element_caps_count_over_the_packet_and_hold_at_their_bounds(tmp_path, monkeypatch):
    # caps scaled down: a.py and b.py list 5 changes, at ELEMENT_CAP; c.py's one would pass it
    # (the cap is the packet's, not a file's). 8 definitions are read, at DEFINITIONS_CAP.
    from delta import elements

    monkeypatch.setattr(elements, "ELEMENT_CAP", 5)
    monkeypatch.setattr(elements, "DEFINITIONS_CAP", 8)
    b = RepoBuilder(tmp_path / "r")
    base = b.commit({"a.py": _funcs(["keep"])})
    head = b.commit({"a.py": _funcs(["keep", "new1", "new2"]), "b.py": _funcs(["g0", "g1", "g2"]),
                     "c.py": _funcs(["h0"])})
    with open_store(tmp_path / "home") as store:
        p = build_delta_packet(tmp_path / "r", base, head, store=store, write=False).packet
    got = {fe.path: fe.changes for fe in p.elements.items}
    assert [len(got[path].items) for path in ("a.py", "b.py")] == [2, 3]
    assert got["a.py"].unknown is None and got["b.py"].unknown is None
    assert got["c.py"].items == [] and got["c.py"].unknown.reason.startswith(
        "a packet lists at most 5 element changes; the 1 of this file would pass them, with the 5 of the files")
    # both sides' definitions count: a.py's base holds one, so at 7 the file read after b.py passes them
    monkeypatch.setattr(elements, "DEFINITIONS_CAP", 7)
    with open_store(tmp_path / "home") as store:
        p = build_delta_packet(tmp_path / "r", base, head, store=store, write=False).packet
    got = {fe.path: fe.changes for fe in p.elements.items}
    assert got["b.py"].unknown is None and got["c.py"].unknown.reason.startswith(
        "the element differ reads at most 7 definitions")


def test_a_file_the_indexer_skipped_on_a_side_is_not_assessed(tmp_path):
    # a Git LFS pointer at head: no symbols were extracted there, which is no evidence they were removed
    b = RepoBuilder(tmp_path / "r")
    js = "".join(f"function f{i}(a) {{\n  return a + {i};\n}}\n" for i in range(40))
    pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "a" * 64 + "\nsize 12345\n"
    base = b.commit({"m.js": js, "k.py": _funcs(["keep"])})
    head = b.commit({"m.js": pointer, "k.py": _funcs(["keep", "more"])})
    with open_store(tmp_path / "home") as store:
        p = build_delta_packet(tmp_path / "r", base, head, store=store, write=False).packet
    got = {fe.path: fe.changes for fe in p.elements.items}
    assert got["m.js"].items == [] and got["m.js"].unknown.unknown == "not_assessed"
    assert "no symbols extracted for m.js" in got["m.js"].unknown.reason
    assert [c.qualified for c in got["k.py"].items] == ["more"]
