"""Fan-in over import edges, and PageRank over the definition/reference graph."""

from __future__ import annotations

import random

import msgspec
import pytest

from indexer.model import BlobFacts, Edge, FileEntry, Occurrence, Symbol
from indexer.rank.graph import fan_in, personalized_rank, rank, rank_weights
from indexer.rank.weights import MAX_DEFINERS, MAX_OUT


def entry(path: str) -> FileEntry:
    return FileEntry(path=path, blob="0" * 40, mode=0o100644, size=1, lines=1, language="python")


def edge(a: str, b: str, line: int = 1) -> Edge:
    return Edge(a, b, "python", line, b)


def facts_of(defines: list[str] = (), uses: list[str] = ()) -> BlobFacts:
    return BlobFacts(
        language="python",
        lines=10,
        symbols=[Symbol(n, "function", "", i + 1, i + 1, 0, 1, f"def {n}():") for i, n in enumerate(defines)],
        occurrences=[Occurrence(n, 1, i, "call") for i, n in enumerate(uses)]
        + [Occurrence(n, i + 1, 4, "definition") for i, n in enumerate(defines)],
    )


def test_fan_in_counts_distinct_importing_files():
    files = [entry(p) for p in ["a.py", "b.py", "c.py", "d.py", "lonely.md"]]
    edges = [
        edge("a.py", "b.py", 1),
        edge("a.py", "b.py", 7),  # the same file importing twice counts once
        Edge("a.py", "b.py", "js", 9, "./b"),
        edge("c.py", "b.py"),
        edge("b.py", "b.py"),  # self-imports never count
        edge("d.py", "c.py"),
        edge("d.py", "gone.py"),  # not a file of the snapshot
    ]
    assert fan_in(files, edges) == {"a.py": 0, "b.py": 2, "c.py": 1, "d.py": 0, "lonely.md": 0}


def test_fan_in_every_file_present_even_without_edges():
    files = [entry("z.py"), entry("a.py")]
    assert fan_in(files, []) == {"a.py": 0, "z.py": 0}
    assert list(fan_in(files, [])) == ["a.py", "z.py"]


def star():
    """core.py defines what everyone uses; util.py is used by one file."""
    facts = {
        "core.py": facts_of(defines=["CoreEngine", "run_engine"]),
        "util.py": facts_of(defines=["format_value"]),
        "a.py": facts_of(uses=["CoreEngine", "run_engine"]),
        "b.py": facts_of(uses=["CoreEngine", "format_value"]),
        "c.py": facts_of(uses=["run_engine"]),
        "README.md": facts_of(uses=["CoreEngine"]),
    }
    files = [entry(p) for p in sorted(facts)]
    edges = [edge("a.py", "core.py"), edge("b.py", "util.py")]
    return files, facts, edges


def test_rank_puts_the_most_used_definer_first_and_sums_to_one():
    files, facts, edges = star()
    r = rank(files, facts, edges)
    assert sorted(r) == sorted(f.path for f in files)
    assert max(r, key=r.get) == "core.py"
    assert r["core.py"] > r["util.py"] > r["a.py"]
    assert sum(r.values()) == pytest.approx(1.0, abs=1e-6)
    assert all(round(v, 9) == v for v in r.values())


def test_rank_is_identical_for_shuffled_inputs():
    files, facts, edges = star()
    expected = rank(files, facts, edges)
    for seed in range(5):
        rng = random.Random(seed)
        f2 = files[:]
        rng.shuffle(f2)
        items = list(facts.items())
        rng.shuffle(items)
        facts2 = {}
        for p, f in items:
            syms, occs = f.symbols[:], f.occurrences[:]
            rng.shuffle(syms)
            rng.shuffle(occs)
            facts2[p] = BlobFacts(language=f.language, lines=f.lines, symbols=syms, occurrences=occs)
        e2 = edges[:]
        rng.shuffle(e2)
        got = rank(f2, facts2, e2)
        assert list(got.items()) == list(expected.items())


def test_fewer_definers_make_a_stronger_edge():
    facts = {
        "only.py": facts_of(defines=["unique_name"]),
        "twin1.py": facts_of(defines=["shared_name"]),
        "twin2.py": facts_of(defines=["shared_name"]),
        "user.py": facts_of(uses=["unique_name", "shared_name"]),
    }
    r = rank([entry(p) for p in facts], facts, [])
    assert r["only.py"] > r["twin1.py"] == r["twin2.py"]


def test_generated_and_vendored_files_define_nothing_but_their_imports_count():
    facts = {
        "app.py": facts_of(uses=["each", "find_widget"]),
        "src/widgets.py": facts_of(defines=["find_widget"]),
        "vendor/jquery.py": facts_of(defines=["each", "find_widget"], uses=["each"]),
        "gen/api_pb2.py": facts_of(defines=["Request"]),
    }
    files = [entry(p) for p in facts]
    marks = {"vendor/jquery.py": "vendored", "gen/api_pb2.py": "generated"}
    files = [msgspec.structs.replace(f, mark=marks.get(f.path, "")) for f in files]
    weights = rank_weights(files, facts, [edge("app.py", "gen/api_pb2.py")])
    # `each` has no other definer: no arc; `find_widget` goes wholly to the unmarked definer;
    # the import of the generated module still counts, and the vendored file still uses names
    assert weights == {"app.py": {"src/widgets.py": pytest.approx(10.0), "gen/api_pb2.py": 1.0}}
    unmarked = rank_weights([entry(p) for p in facts], facts, [edge("app.py", "gen/api_pb2.py")])
    assert set(unmarked["app.py"]) == {"src/widgets.py", "vendor/jquery.py", "gen/api_pb2.py"}


def test_prose_and_data_files_cast_no_vote():
    prose = BlobFacts(language="text", lines=3, occurrences=[Occurrence("django", 1, 0, "identifier")] * 40)
    config = BlobFacts(language="json", lines=1, occurrences=[Occurrence("render_page", 1, 2, "identifier")])
    code = facts_of(uses=["render_page"])
    facts = {"docs/notes.txt": prose, "settings.json": config, "app.py": code,
             "geo.py": facts_of(defines=["django"]), "views.py": facts_of(defines=["render_page"])}
    files = [entry(p) for p in facts]
    assert rank_weights(files, facts, []) == {"app.py": {"views.py": pytest.approx(10.0)}}
    # the same words in a Python file are uses
    facts["docs/notes.txt"] = msgspec.structs.replace(prose, language="python")
    assert set(rank_weights(files, facts, [])) == {"app.py", "docs/notes.txt"}


def test_module_sites_are_no_uses():
    user = BlobFacts(language="python", lines=2, occurrences=[Occurrence("geo", 1, 5, "module"),
                                                              Occurrence("make_shape", 2, 0, "call")])
    facts = {"user.py": user, "shapes.py": facts_of(defines=["make_shape", "geo"])}
    assert rank_weights([entry(p) for p in facts], facts, []) == {"user.py": {"shapes.py": pytest.approx(10.0)}}


def test_names_defined_everywhere_are_left_out():
    n = MAX_DEFINERS + 5
    facts = {f"m{i:03}.py": facts_of(defines=["common"], uses=["common"]) for i in range(n)}
    facts["hub.py"] = facts_of(defines=["special_thing"])
    facts["m000.py"] = facts_of(defines=["common"], uses=["common", "special_thing"])
    files = [entry(p) for p in facts]
    weights = rank_weights(files, facts, [])
    assert weights == {"m000.py": {"hub.py": pytest.approx(10.0)}}  # only the telling name made an arc


def test_out_edges_are_capped_per_file():
    defs = {f"d{i:03}.py": facts_of(defines=[f"name_{i:03}"]) for i in range(MAX_OUT + 10)}
    user = facts_of(uses=[f"name_{i:03}" for i in range(MAX_OUT + 10)] + ["name_000"] * 3)
    facts = {**defs, "user.py": user}
    weights = rank_weights([entry(p) for p in facts], facts, [])
    assert len(weights["user.py"]) == MAX_OUT
    assert "d000.py" in weights["user.py"]  # the most used name survives the cap


def test_personalized_rank_follows_the_focus():
    files, facts, edges = star()
    plain = rank(files, facts, edges)
    focused = personalized_rank(files, facts, edges, {"b.py": 1.0})
    assert focused["util.py"] > plain["util.py"]
    assert focused["c.py"] < plain["c.py"]  # nothing in the focus reaches c.py
    assert personalized_rank(files, facts, edges, {"not/here.py": 1.0}) == plain
    assert sum(focused.values()) == pytest.approx(1.0, abs=1e-6)


def test_rank_of_empty_snapshot():
    assert rank([], {}, []) == {}
    assert fan_in([], []) == {}


def test_data_members_count_less_than_functions_and_types():
    member = BlobFacts(language="python", lines=3, symbols=[Symbol("record_count", "variable", "Record", 2, 2, 0, 1, "")])
    facts = {
        "funcs.py": facts_of(defines=["shared_helper"]),
        "records.py": member,
        "user.py": facts_of(uses=["shared_helper", "record_count"]),
    }
    r = rank([entry(p) for p in facts], facts, [])
    assert r["funcs.py"] > r["records.py"]
    weights = rank_weights([entry(p) for p in facts], facts, [])["user.py"]
    assert weights["records.py"] == pytest.approx(weights["funcs.py"] * 0.3 * 0.2)


def test_a_python_module_shadowing_a_builtin_draws_no_uses_of_it():
    """A test case's module-level `type = aliased` or `def input()` is no definer of `type` or
    `input`: a bare use elsewhere is the builtin's (unless imported: the edge counts). A member
    so named (`Base.type`, reached as `node.type`) still is; other languages keep theirs."""
    shadow = BlobFacts(language="python", lines=3, symbols=[
        Symbol("type", "variable", "", 1, 1, 0, 1, "type = aliased"),
        Symbol("input", "function", "", 2, 2, 0, 1, "def input():")])
    member = BlobFacts(language="python", lines=3, symbols=[Symbol("type", "variable", "Base", 2, 2, 0, 1, "")])
    facts = {
        "cases/shadow.py": shadow,
        "cases/alone.py": facts_of(defines=["never_used_anywhere"]),
        "tree.py": member,
        "user.py": facts_of(uses=["type", "input"]),
        "importer.py": facts_of(uses=["input"]),
    }
    files = [entry(p) for p in facts]
    weights = rank_weights(files, facts, [edge("importer.py", "cases/shadow.py")])
    assert weights["user.py"] == {"tree.py": pytest.approx(0.3 * 0.2)}  # the member, not the module
    assert weights["importer.py"] == {"cases/shadow.py": 1.0}  # the import alone
    r = rank(files, facts, [])
    assert r["cases/shadow.py"] == r["cases/alone.py"]  # what teleporting gives every file
    js_shadow = msgspec.structs.replace(shadow, language="javascript")
    assert rank_weights(files, {**facts, "cases/shadow.py": js_shadow}, [])["user.py"]["cases/shadow.py"] > 0


def reference_pagerank(nodes, weights, teleport):
    """The power iteration spelled out in plain floats, every sum left to right: what
    `_pagerank` must reproduce bit for bit, whatever array machinery it runs on."""
    from indexer.rank.graph import ALPHA, MAX_ITER, TOL

    index = {p: i for i, p in enumerate(nodes)}
    n = len(nodes)
    incoming = [[] for _ in range(n)]
    dangling = []
    for i, p in enumerate(nodes):
        arcs = weights.get(p, {})
        total = 0.0
        for w in arcs.values():
            total += w
        if total <= 0.0:
            dangling.append(i)
            continue
        for target, w in arcs.items():
            incoming[index[target]].append((i, ALPHA * w / total))
    x = list(teleport)
    for _ in range(MAX_ITER):
        lost = 0.0
        for i in dangling:
            lost += x[i]
        lost *= ALPHA
        new = []
        for t, arcs in zip(teleport, incoming):
            s = 0.0
            for i, share in arcs:
                s += x[i] * share
            new.append((1.0 - ALPHA + lost) * t + s)
        err = 0.0
        for a, b in zip(new, x):
            err += abs(a - b)
        x = new
        if err < n * TOL:
            break
    return x


def random_weights(rng, n):
    nodes = [f"f{i:04}.py" for i in range(n)]
    weights = {}
    for p in nodes:
        if rng.random() < 0.2:
            continue  # dangling
        targets = rng.sample(nodes, rng.randint(1, min(12, n)))
        weights[p] = {t: rng.choice([1.0, 0.1, 10.0 / 3, rng.random() * 7]) for t in targets if t != p}
    return nodes, weights


@pytest.mark.parametrize("seed", range(6))
def test_power_iteration_matches_plain_float_reference_bit_for_bit(seed):
    from indexer.rank.graph import _pagerank

    rng = random.Random(seed)
    nodes, weights = random_weights(rng, rng.choice([3, 40, 400]))
    uniform = [1.0 / len(nodes)] * len(nodes)
    assert _pagerank(nodes, weights, uniform) == reference_pagerank(nodes, weights, uniform)
    focus = [rng.random() if rng.random() < 0.1 else 0.0 for _ in nodes]
    focus[0] += 1.0
    total = sum(focus)
    teleport = [v / total for v in focus]
    assert _pagerank(nodes, weights, teleport) == reference_pagerank(nodes, weights, teleport)


@pytest.mark.parametrize("seed", range(4))
def test_fan_in_is_the_in_degree_of_the_import_graph(seed):
    from indexer.rank.graph import import_graph

    rng = random.Random(seed)
    paths = [f"m{i:03}.py" for i in range(60)]
    files = [entry(p) for p in paths]
    edges = [edge(rng.choice(paths + ["outside.py"]), rng.choice(paths + ["gone.py"]), rng.randint(1, 5))
             for _ in range(300)]
    g = import_graph(files, edges)
    assert fan_in(files, edges) == {p: g.in_degree(p) for p in sorted(paths)}
    # as a snapshot holds them: sorted, a pair repeated on several lines (the one-pass path)
    in_order = sorted(edges, key=lambda e: (e.source, e.target, e.line))
    assert fan_in(files, in_order) == {p: g.in_degree(p) for p in sorted(paths)}
    # every importer a file of the snapshot (counted in bulk) and some not (counted pair by pair)
    inside = [e for e in in_order if e.source != "outside.py"]
    assert len(inside) < len(in_order)
    assert fan_in(files, inside) == {p: import_graph(files, inside).in_degree(p) for p in sorted(paths)}


def test_files_that_define_nothing_rank_below_every_definer_in_their_own_order():
    """A package `__init__.py` that many import, with only imports and `__all__` (a module
    dunder is no definition), ranks below the least-used file that defines a function; two
    such files keep the order PageRank gave them; the ranks still sum to one, and the same
    inputs in another order give the same bits."""
    dunder = Symbol("__all__", "variable", "", 1, 1, 0, 7, "__all__ = ['run']")
    facts = {
        "pkg/__init__.py": BlobFacts(language="python", lines=2, symbols=[dunder]),
        "pkg/empty.py": facts_of(),
        "pkg/core.py": facts_of(defines=["run_engine"]),
        "leaf.py": facts_of(defines=["lonely_helper"]),
        **{f"user{i}.py": facts_of(defines=[f"main_{i}"], uses=["run_engine"]) for i in range(4)},
    }
    files = [entry(p) for p in sorted(facts)]
    edges = [edge(f"user{i}.py", "pkg/__init__.py") for i in range(4)] + [edge("user0.py", "pkg/empty.py")]
    plain = rank(files, facts, edges)
    definers = [p for p in plain if p not in ("pkg/__init__.py", "pkg/empty.py")]
    assert plain["pkg/__init__.py"] <= min(plain[p] for p in definers) / 2
    assert plain["pkg/__init__.py"] > plain["pkg/empty.py"] > 0  # four importers over one
    assert sum(plain.values()) == pytest.approx(1.0, abs=1e-6)
    assert max(plain, key=plain.get) == "pkg/core.py"
    shuffled = dict(reversed(list(facts.items())))
    assert list(rank(list(reversed(files)), shuffled, list(reversed(edges))).items()) == list(plain.items())
    # a focus decides a personalized rank on its own: the focused boilerplate file leads it
    focused = personalized_rank(files, facts, edges, {"pkg/__init__.py": 1.0})
    assert max(focused, key=focused.get) == "pkg/__init__.py"


@pytest.mark.parametrize("language", ["python", "go"])
def test_whether_a_file_defines_something_reads_the_same_from_stored_symbols_as_from_decoded(language):
    """Assembly reads `defines_something` from the symbols' stored JSON without decoding them
    where it can; every mix of module dunders, dunder methods, dunder-like and plain names
    must answer what the decoded symbols answer (only a Python module dunder is no
    definition)."""
    from indexer.rank.boilerplate import defines_something
    from indexer.store.facts_table import FactsSummary
    from indexer.store.symbol_lines import symbols_json

    def sym(name: str, container: str = "", kind: str = "variable") -> Symbol:
        return Symbol(name, kind, container, 1, 1, 0, 1, f'{name} = "name":"x"')

    pool = [sym("__all__"), sym("__version__"), sym("__init__", "Engine", "method"), sym("Engine", kind="class"),
            sym("__"), sym("___"), sym("__x"), sym("run", kind="function"), sym("__getattr__", kind="function")]
    rng = random.Random(7)
    mixes = [[], *([s] for s in pool), *(rng.sample(pool, rng.randint(2, 5)) for _ in range(60))]
    for symbols in mixes:
        expected = any(not (language == "python" and not s.container and len(s.name) > 4
                            and s.name.startswith("__") and s.name.endswith("__")) for s in symbols)
        stored = FactsSummary(language=language, lines=1, symbols_json=symbols_json(symbols),
                              symbol_count=len(symbols))
        assert defines_something(stored) is expected, symbols
        assert defines_something(BlobFacts(language=language, lines=1, symbols=symbols)) is expected, symbols


def test_arc_weights_are_the_documented_ones():
    """A name of 8 or more characters with a compound shape weighs 10, one starting with `_` a
    tenth, shared out among its definers; one-character names say nothing; a file's strongest
    definition of a name counts; a constant weighs 0.5; uses count by their square root; a
    file draws no arc to itself; an import edge to a file outside the snapshot draws none; a
    name with exactly MAX_DEFINERS definers still counts; a file keeps exactly MAX_OUT arcs."""
    from indexer.rank.weights import arcs_of, definitions_of, name_entry, name_weight

    assert (name_weight("parseArgs", 1), name_weight("parseArg", 2), name_weight("parsearg", 1)) == (10.0, 5.0, 1.0)
    assert name_weight("_private", 1) == pytest.approx(1.0) and name_weight("_hidden", 1) == pytest.approx(0.1)
    syms = [Symbol("x", "function", "", 1, 1, 0, 1, "def x():"), Symbol("LIMIT", "constant", "", 2, 2, 0, 1, "LIMIT = 1"),
            Symbol("LIMIT", "function", "", 3, 3, 0, 1, "def LIMIT():"), Symbol("RATE", "constant", "", 4, 4, 0, 1, "")]
    assert definitions_of(syms) == {"LIMIT": 1.0, "RATE": 0.5}
    assert name_entry("n", {f"d{i}.py": 1.0 for i in range(MAX_DEFINERS)}) is not None
    facts = {"a.py": facts_of(["helper"], ["helper"] * 4 + ["shared"]), "b.py": facts_of(["helper", "shared"])}

    def entry_of(name: str):
        return name_entry(name, {p: 1.0 for p in sorted(facts) if name in definitions_of(facts[p].symbols)})

    arcs = arcs_of({"a.py", "b.py"}, facts, [("a.py", "gone.py")], {"a.py", "b.py"}, entry_of)
    assert arcs == {"a.py": {"b.py": 0.5 * 2 + 1.0}}  # helper: half (two definers) times sqrt(4); shared: 1
    many = {"hub.py": facts_of([], [f"name{i:03d}" for i in range(MAX_OUT + 1)])}
    many.update({f"d{i:03d}.py": facts_of([f"name{i:03d}"]) for i in range(MAX_OUT + 1)})
    weights = rank_weights([entry(p) for p in sorted(many)], many, [])
    assert len(weights["hub.py"]) == MAX_OUT


def test_a_file_defining_nothing_ends_at_most_half_the_least_definer():
    """boilerplate's rule: a file with no definition ranked between half the least definer and
    the least is scaled below half of it, and the ranks still sum to one."""
    from indexer.rank.boilerplate import below_definers

    facts = {"a.go": BlobFacts(language="go", lines=1, symbols=[Symbol("A", "function", "", 1, 1, 0, 1, "func A()")]),
             "b.go": BlobFacts(language="go", lines=1, symbols=[Symbol("B", "function", "", 1, 1, 0, 1, "func B()")]),
             "doc.go": BlobFacts(language="go", lines=1)}
    x = below_definers(["a.go", "b.go", "doc.go"], [0.35, 0.4, 0.25], facts)
    assert x[2] <= min(x[:2]) / 2 and x[0] < x[1] and sum(x) == pytest.approx(1.0)


def test_a_focus_of_no_weight_is_no_focus():
    from indexer.rank.graph import teleport_to

    assert teleport_to(["a", "b"], {"a": 0.0, "b": -1.0}) == [0.5, 0.5]
    assert teleport_to(["a", "b"], {"a": 0.0, "b": 2.0}) == [0.0, 1.0]
