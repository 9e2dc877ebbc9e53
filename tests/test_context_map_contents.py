"""What context.map's answer holds, from a real index: the personalized PageRank a focus asks
for (restarting at the focus files, an imported file at full weight, an importer at half),
which files a focus names, which definitions a crowded file shows (what its importers name,
then what they use most, each with its class, at equal scores the outermost first), the
indentation of nested definitions, and how the byte budget is kept and said."""

from __future__ import annotations

from pathlib import Path

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import Link
from tests.examples import examples
from tests.indexed import Indexed

LONG = "long/" + "n" * 240 + ".py"
FILES = {
    # focus.py imports dep.py and is imported by user.py; far.py is linked to nothing
    "focus.py": "from dep import helper\n\n\ndef run():\n    return helper()\n",
    "dep.py": "def helper():\n    return 1\n",
    "user.py": "from focus import run\n\nrun()\n",
    "far.py": "def alone():\n    return 0\n",
    "lonely.py": "def solo():\n    return 0\n",
    "link.py": Link("focus.py"),
    "vendor/lib.py": "def vendored():\n    return 0\n",
    # a folder and a file whose name starts with the folder's
    "pkg/inner.py": "def inner():\n    return 0\n",
    "pkg_tools.py": "def tool():\n    return 0\n",
    # nesting and a private variable (no key definition)
    "nested.py": "_cache = {}\n\n\nclass Outer:\n    class Inner:\n        def deep(self):\n            return 1\n",
    # api.py: `alpha`, which two files import by name, before f01..f12, which one file uses
    # three times each
    "api.py": "".join(f"def f{i:02}():\n    return {i}\n\n\n" for i in range(1, 13)) + "def alpha():\n    return 0\n",
    "a.py": "from api import alpha\n",
    "b.py": "from api import alpha\n",
    "c.py": "import api\n\n" + "".join(f"api.f{i:02}()\n" * 3 for i in range(1, 13)),
    # api2.py: g13, used five times in one file, before g01, used once in each of two files
    "api2.py": "".join(f"def g{i:02}():\n    return {i}\n\n\n" for i in range(1, 14)),
    "c2.py": "import api2\n\n" + "".join(f"api2.g{i:02}()\n" * 3 for i in range(2, 13)) + "api2.g13()\n" * 5,
    "d2.py": "import api2\n\napi2.g01()\n",
    "e2.py": "import api2\n\napi2.g01()\n",
    # deep.py: a class of twelve methods, then a function: at equal scores the outermost first
    "deep.py": "class Deep:\n" + "".join(f"    def m{i:02}(self):\n        return {i}\n\n" for i in range(1, 13))
               + "\ndef tail():\n    return 0\n",
    # wide.py: twelve functions used twice each, then a class whose one method is used five
    # times and a function used five times: the method comes with its class
    "wide.py": "".join(f"def h{i:02}():\n    return {i}\n\n\n" for i in range(1, 13))
               + "class Wide:\n    def zap(self):\n        return 0\n\n\ndef make():\n    return Wide()\n",
    "w_user.py": "import wide\n\n" + "".join(f"wide.h{i:02}()\n" * 2 for i in range(1, 13))
                 + "wide.make().zap()\n" * 5,
    # a path too long for the smallest budget even without its definitions
    LONG: "def far_away():\n    return 0\n",
}

INDEXED = Indexed(FILES, "rennet-map-contents-")

# lib.py is crowded; 256 files import it first in path order, then one names `special`
CROWD = {"lib.py": "".join(f"def f{i:02}():\n    return {i}\n\n\n" for i in range(14)) + "def special():\n    return 0\n",
         **{f"imp/a{i:03}.py": "import lib\n" for i in range(256)}, "imp/z.py": "from lib import special\n"}
CROWDED = Indexed(CROWD, "rennet-map-crowd-")


app = INDEXED.fixture()


def _map(app, **more):
    return app.call("context.map", **({"budget": 65536} | more))


def _entry(app, path: str, **more):
    return next(f for f in _map(app, **more).data.files if f.path == path)


def _pagerank(nodes: list[str], edges, seeds: dict[str, float], alpha: float = 0.85) -> dict[str, float]:
    """PageRank's fixed point, solved as a linear system: each file passes its rank along its
    links in proportion to their weights (its imports' targets 1, its importers 0.5), a file
    without links to the seeds, and the walk restarts at the seeds."""
    index = {p: i for i, p in enumerate(nodes)}
    n = len(nodes)
    weights = np.zeros((n, n))  # weights[i, j]: the link from i to j
    for e in edges:
        weights[index[e.source], index[e.target]] += 1.0
        weights[index[e.target], index[e.source]] += 0.5
    restart = np.array([seeds.get(p, 0.0) for p in nodes])
    out = weights.sum(axis=1)
    moves = np.zeros((n, n))  # moves[j, i]: the share of i's rank that goes to j
    for i in range(n):
        moves[:, i] = weights[i] / out[i] if out[i] else restart
    rank = np.linalg.solve(np.eye(n) - alpha * moves, (1 - alpha) * restart)
    return dict(zip(nodes, rank.tolist()))


def test_a_focus_ranks_by_pagerank_restarting_at_its_files(app):
    """The personalized walk is PageRank over the import graph with the restart (and the
    rank of files without links) at the focus files, an import's target at weight 1 and its
    importer at 0.5."""
    data = _map(app, focus=["focus.py", "lonely.py"]).data
    assert data.ranking == "personalized_pagerank" and data.focus_files == ["focus.py", "lonely.py"]
    ranks = {f.path: f.rank for f in data.files}
    expected = _pagerank([p for p in FILES if p != "link.py"], INDEXED.record().edges,
                         {"focus.py": 0.5, "lonely.py": 0.5})
    assert ranks.keys() <= expected.keys()
    for path, rank in ranks.items():
        assert rank == pytest.approx(expected[path], abs=2e-3), path
    assert sum(ranks.values()) == pytest.approx(1.0, abs=1e-4)
    # what the focus imports before what imports it, and both before an unlinked file
    assert ranks["dep.py"] > ranks["user.py"] > ranks["far.py"] == 0.0


def test_the_focus_files_lead_the_map_whatever_outranks_them(app):
    """a.py imports api.py, which three files import: the walk from a.py ranks api.py above
    a.py itself. The focus file leads all the same, the rest follow in rank order, and at a
    budget of one file that file is the focus (was: api.py alone, the file asked about left
    out; agents saw this in express and mobx)."""
    data = _map(app, focus=["a.py"]).data
    ranks = {f.path: f.rank for f in data.files}
    assert ranks["api.py"] > ranks["a.py"]
    assert [f.path for f in data.files][:2] == ["a.py", "api.py"]
    rest = [f.rank for f in data.files[1:]]
    assert rest == sorted(rest, reverse=True)
    one = _map(app, focus=["a.py"], budget=256).data
    assert [f.path for f in one.files] == ["a.py"]
    both = _map(app, focus=["a.py", "c.py"]).data  # several focus files: in rank order, then the rest
    assert [f.path for f in both.files][:3] == ["a.py", "c.py", "api.py"]


def test_a_folder_focus_is_its_files_not_a_file_named_alike(app):
    data = _map(app, focus=["pkg"]).data
    assert data.focus_files == ["pkg/inner.py"] and data.unmatched_focus == []


def test_a_marked_file_is_left_out_unless_focused(app):
    plain = _map(app).data
    assert "vendor/lib.py" not in [f.path for f in plain.files] and plain.excluded_marked == 1
    focused = _map(app, focus=["vendor/lib.py"]).data
    assert focused.files[0].path == "vendor/lib.py" and focused.excluded_marked == 0


def test_a_symlink_is_no_file_of_the_map(app):
    assert "link.py" not in [f.path for f in _map(app).data.files]


def test_nested_definitions_are_indented_two_spaces_a_level(app):
    nested = _entry(app, "nested.py")
    assert nested.symbols == ["class Outer:", "  class Inner:", "    def deep(self):"]
    assert nested.more_symbols == 0  # `_cache` is no key definition left out


def test_what_importers_name_in_an_import_outranks_what_they_use(app):
    api = _entry(app, "api.py")
    assert api.symbols == [*(f"def f{i:02}():" for i in range(1, 12)), "def alpha():"]
    assert api.more_symbols == 1


def test_uses_count_each_site_not_each_file(app):
    api2 = _entry(app, "api2.py")
    assert api2.symbols == [*(f"def g{i:02}():" for i in range(2, 14))] and api2.more_symbols == 1


def test_at_equal_scores_the_outermost_definitions_come_first(app):
    deep = _entry(app, "deep.py")
    assert deep.symbols == ["class Deep:", *(f"  def m{i:02}(self):" for i in range(1, 11)), "def tail():"]
    assert deep.more_symbols == 2


def test_a_member_shown_brings_its_class(app):
    wide = _entry(app, "wide.py")
    assert wide.symbols == [*(f"def h{i:02}():" for i in range(1, 10)), "class Wide:", "  def zap(self):",
                            "def make():"]
    assert wide.more_symbols == 3


def test_bytes_is_the_size_of_the_files_listed_and_a_whole_map_has_no_cursor(app):
    result = _map(app)
    assert result.data.bytes == len(msgspec.json.encode(result.data.files)) <= 65536
    assert result.page.truncated is False and result.page.cursor is None
    assert result.page.returned == result.page.total == len(result.data.files)


def test_the_first_file_sheds_definitions_until_it_fits(app):
    """A budget too small for the first file's definitions: it is shown with those that fit,
    the rest counted in `more_symbols`, and the page goes on from the next file."""
    result = _map(app, focus=["deep.py"], budget=256)
    first = result.data.files[0]
    assert first.path == "deep.py" and 0 < len(first.symbols) < 12
    assert len(first.symbols) + first.more_symbols == 14
    assert result.data.bytes == len(msgspec.json.encode(result.data.files)) <= 256
    assert result.page.truncated is True and result.page.cursor is not None


def test_the_first_file_is_shown_whatever_the_budget(app):
    """A file too big for the budget even without its definitions still makes a page of its
    own, so the cursor moves on."""
    result = _map(app, focus=[LONG], budget=256)
    assert [(f.path, f.symbols, f.more_symbols) for f in result.data.files] == [(LONG, [], 1)]
    assert result.page.returned == 1 and result.page.cursor is not None


def test_only_the_first_256_importers_in_path_order_are_read():
    """The 257th importer's import of `special` is not read: lib.py shows its first twelve."""
    client, repo = CROWDED.asked()
    lib = next(f for f in client.call("context.map", repo=repo, budget=65536).data.files if f.path == "lib.py")
    assert lib.symbols == [f"def f{i:02}():" for i in range(12)] and lib.more_symbols == 3


def test_a_focus_name_of_many_parts_costs_no_pass_over_the_paths_a_part(indexed_files):
    """A focus name is looked up part by part (`a.b.c` may be module `a.b`'s `c`), and the
    files of each leading part were found by a pass over the snapshot's paths: a client's
    `a.a.a...` of 512 parts, within the name's bound, cost 511 passes, and a list of such
    names as many again each. A module of more parts than the deepest path has no file of
    that path, so each part past a short name's costs a few lines of the walk through its
    leading parts (which bindings may still reach), not a pass over the 301 paths."""
    from context_tools.query.repomap import _focus_files
    from indexer.api import open_store
    from indexer.store.snapshot import load
    from tests.lines_run import counted

    asked = indexed_files({f"m{i:03}.py": f"def a{i}():\n    return {i}\n" for i in range(300)}
                          | {"pkg/a.py": "def a():\n    return 0\n"})
    with open_store(Path(asked.repo).parent / "store") as store:
        snap = load(store, asked.repo, "main")
        short, long = "a." * 7 + "a", "a." * 511 + "a"
        (found, unmatched), ran_short = counted(lambda: _focus_files(snap, [short]))
        assert (found, unmatched) == ([], [short])
        (found, unmatched), ran_long = counted(lambda: _focus_files(snap, [long]))
        assert (found, unmatched) == ([], [long])
    assert ran_long - ran_short <= 32 * (512 - 8), (ran_short, ran_long)


def test_a_focus_of_many_paths_costs_no_pass_over_the_paths_an_item(indexed_files):
    """A client sends up to 1,024 focus names: each path or folder among them was found by a
    pass over every path of the snapshot, 1,024 passes over a repository's files (15 s of a
    reader's CPU for 50,000 files, two minutes at the million a tree may hold). Now each is
    found by bisecting the sorted paths, and the files named are gathered once."""
    from context_tools.query.repomap import _focus_files
    from indexer.api import open_store
    from indexer.store.snapshot import load
    from tests.lines_run import counted

    asked = indexed_files({f"m{i:03}.py": f"def a{i}():\n    return {i}\n" for i in range(400)}
                          | {"pkg/a.py": "def a():\n    return 0\n"})
    with open_store(Path(asked.repo).parent / "store") as store:
        snap = load(store, asked.repo, "main")
        few = ["m000.py"]
        many = [f"m{i:03}.py" for i in range(200)] + ["pkg"] * 100  # a folder named many times
        (found, unmatched), ran_few = counted(lambda: _focus_files(snap, few))
        assert (found, unmatched) == (["m000.py"], [])
        (found, unmatched), ran_many = counted(lambda: _focus_files(snap, many))
        assert found == [f"m{i:03}.py" for i in range(200)] + ["pkg/a.py"] and unmatched == []
    assert ran_many - ran_few <= 40 * (len(many) - len(few)), (ran_few, ran_many)


_PATH_PARTS = st.sampled_from(["a", "a-b", "a.py", "b", "a b", "é", "\U0010ffff", "0", ".", "!"])


@settings(max_examples=examples(200), deadline=None)
@given(paths=st.sets(st.lists(_PATH_PARTS, min_size=1, max_size=4).map("/".join), max_size=30),
       items=st.lists(st.lists(_PATH_PARTS, min_size=0, max_size=3).map("/".join), max_size=6))
def test_the_files_a_focus_path_names_are_those_a_pass_over_the_paths_finds(paths, items):
    """The bisection finds, for any sorted paths and any item, the file of that path and the
    files under it as a folder: what the pass over every path found."""
    from context_tools.query.repomap import _named_files

    ordered = sorted(paths)
    for item in items:
        want = {p for p in ordered if p == item or p.startswith(item + "/")}
        assert set(_named_files(ordered, [item])) == want, item
    want = {p for p in ordered for item in items if p == item or p.startswith(item + "/")}
    assert _named_files(ordered, items) == sorted(want)


def _walked(nodes: list[str], edges: list[tuple[str, str]], seeds: list[str]) -> dict[str, float]:
    """The personalized walk as it was written a file and a link at a time: what the answer
    must stay, to the sixth decimal it is given in."""
    index = {p: i for i, p in enumerate(nodes)}
    out_links: list[list[tuple[int, float]]] = [[] for _ in nodes]
    for source, target in edges:
        s, t = index.get(source), index.get(target)
        if s is None or t is None or s == t:
            continue
        out_links[s].append((t, 1.0))
        out_links[t].append((s, 0.5))
    weights = [sum(w for _, w in links) for links in out_links]
    restart = [0.0] * len(nodes)
    seeded = [index[p] for p in seeds if p in index]
    for i in seeded:
        restart[i] = 1.0 / len(seeded)
    rank = list(restart)
    for _ in range(40):
        nxt = [0.15 * r for r in restart]
        dangling = 0.0
        for i, links in enumerate(out_links):
            if not links:
                dangling += rank[i]
                continue
            share = 0.85 * rank[i] / weights[i]
            for j, w in links:
                nxt[j] += share * w
        if dangling:
            for i in seeded:
                nxt[i] += 0.85 * dangling / len(seeded)
        rank = nxt
    return {p: round(rank[i], 6) for p, i in index.items()}


class _Snap:
    """What the walk reads of a snapshot: its files and its edges."""

    def __init__(self, nodes: list[str], edges: list[tuple[str, str]]) -> None:
        from indexer.model import Edge, FileEntry

        self.files = [FileEntry(p, "0" * 40, 0o100644, 1, 1, "python") for p in nodes]
        self.record = msgspec.structs.replace(INDEXED.record(), edges=[Edge(s, t, "python", 1, "m") for s, t in edges])


_NODES = [f"f{i}.py" for i in range(12)]


@settings(max_examples=examples(100), deadline=None)
@given(edges=st.lists(st.tuples(st.sampled_from(_NODES + ["gone.py"]), st.sampled_from(_NODES)), max_size=40),
       seeds=st.lists(st.sampled_from(_NODES + ["gone.py"]), max_size=4, unique=True))
def test_the_personalized_walk_gives_the_ranks_walking_a_link_at_a_time_gave(edges, seeds):
    from context_tools.query.repomap import personalized_rank

    got = personalized_rank(_Snap(_NODES, edges), seeds)
    want = _walked(_NODES, edges, seeds)
    assert got.keys() == want.keys()
    for path in want:
        assert got[path] == pytest.approx(want[path], abs=2e-6), path


def test_the_personalized_walk_costs_no_python_step_a_link_an_iteration():
    """A focused map walks the import graph 40 times: a file and a link at a time in Python,
    a commit of a million imports cost a reader 99 s and 220 MB a call (about 400 s and 900 MB
    at the four million a snapshot may hold). Now each walk is a few array operations, the
    links read into arrays once."""
    from context_tools.query.repomap import personalized_rank
    from tests.lines_run import counted

    def ran(links: int) -> int:
        edges = [(f"f{i % 12}.py", f"f{(i * 7 + 1) % 12}.py") for i in range(links)]
        snap = _Snap(_NODES, edges)
        return counted(lambda: personalized_rank(snap, ["f0.py"]))[1]

    assert ran(4000) - ran(2000) <= 8 * 2000, (ran(2000), ran(4000))
