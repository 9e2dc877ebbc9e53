"""Near names for a symbol that is not defined: searched in C in the runs of names the store
keeps, with the names and order a plain scan over the snapshot's names gives."""

from __future__ import annotations

import random
from difflib import SequenceMatcher, get_close_matches

from context_tools.query.near_names import CUTOFF as _CUTOFF
from context_tools.query.near_names import NearNames, _Candidates, _lcs_length, close_matches


def _scan(names: list[str], low: str, limit: int = 50) -> list[str]:
    """The plain definition of the order: the name in any case, then names containing it,
    then close spellings among names of its first letter; the first `limit`."""
    near = [n for n in names if n.lower() == low]
    near += [n for n in names if low in n.lower() and n not in near]
    lowered: dict[str, list[str]] = {}
    for n in names:
        lowered.setdefault(n.lower(), []).append(n)
    size = len(low)
    reachable = [n for n in lowered if n[:1] == low[:1] and 2.0 * min(size, len(n)) / (size + len(n)) >= _CUTOFF]
    for close in get_close_matches(low, reachable, n=10, cutoff=_CUTOFF):
        near += [n for n in lowered[close] if n not in near]
    return near[:limit]


def test_near_names_are_those_of_a_plain_scan_in_its_order():
    rng = random.Random(7)
    stems = ["parse", "Parse", "PARSE", "config", "Config", "parse_config", "parseConfig", "load", "loader",
             "reload", "x", "xy", "_private", "__init__", "Widget", "widget", "wid"]
    names = sorted({rng.choice(stems) + rng.choice(["", "_", "2", "er", "Value", "s"]) for _ in range(400)} | set(stems))
    index = NearNames(names)
    queries = ["parse", "Parse".lower(), "config", "confg", "prse_config", "wid", "x", "", "load", "zzz",
               "parseconfig", "__init__", "a\nb", "_"]
    for q in queries:
        assert index.near(q) == _scan(names, q), q
    assert index.near("parse", limit=3) == _scan(names, "parse", limit=3)


def test_near_names_of_an_empty_snapshot():
    assert NearNames([]).near("anything") == []


def _lcs_table(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def test_the_bit_parallel_common_subsequence_is_that_of_the_table():
    rng = random.Random(3)
    for _ in range(300):
        a = "".join(rng.choice("abc_1") for _ in range(rng.randrange(0, 14)))
        b = "".join(rng.choice("abc_1") for _ in range(rng.randrange(1, 14)))
        masks: dict[str, int] = {}
        for i, c in enumerate(b):
            masks[c] = masks.get(c, 0) | 1 << i
        assert _lcs_length(a, masks, (1 << len(b)) - 1, len(b)) == _lcs_table(a, b), (a, b)


def _numbered(rng: random.Random, count: int) -> list[str]:
    """Names of a few stems and digits: hundreds of them as close to a query as each other."""
    stems = ["batch", "limit_", "session", "sess", "widget_", "parse"]
    return sorted({rng.choice(stems) + str(rng.randrange(10 ** rng.randrange(1, 5))) for _ in range(count)})


def test_close_matches_pick_what_get_close_matches_picks_ties_and_all():
    rng = random.Random(11)
    names = _numbered(rng, 3000)
    queries = ["batch4295", "limit13", "session0086", "sesion867", "parse", "widget", "b", "zzz"]
    queries += [n[:i] + n[i + 1:] for n in rng.sample(names, 40) for i in [rng.randrange(len(n))]]
    left_out = set(rng.sample(names, 600))
    for q in queries:
        # each name under a bound of its ratio to q: what it has of q's characters, at most len(q)
        bounded = sorted(((2.0 * min(sum(c in q for c in n), len(q)) / (len(n) + len(q)), n) for n in names * 2),
                         reverse=True)
        admitted = [n for n in names if n not in left_out]
        assert close_matches(q, bounded, admit=lambda n: n not in left_out) == get_close_matches(
            q, admitted, n=10, cutoff=_CUTOFF), q


def test_close_candidates_come_best_bound_first_each_over_its_ratio():
    rng = random.Random(2)
    names = sorted({f"batch{rng.randrange(100000):05d}" for _ in range(5000)} | set(_numbered(rng, 2000))
                   | {"Batch42950", "BATCH4295"})
    index = NearNames(names)
    for q in ["batch4295", "batch42", "session0086", "limit_1"]:
        items = list(_Candidates(index, q))
        assert items == sorted(items, reverse=True), q  # so a lookup may stop at the first it cannot use
        # every lowercase name of q's first letter whose bound reaches the cutoff: what it has of
        # q's characters, at most len(q), over both lengths
        bound = {x: 2.0 * min(sum(c in q for c in x), len(q)) / (len(x) + len(q))
                 for x in {n.lower() for n in names} if x[:1] == q[:1]}
        assert {x for _, x in items} == {x for x, b in bound.items() if b >= _CUTOFF}
        for b, x in rng.sample(items, min(200, len(items))):
            assert b == bound[x] and SequenceMatcher(None, x, q).ratio() <= b


def _defining(names: list[str]) -> str:
    return "".join(f"class {n}:\n    pass\n\n\n" for n in names)


def test_near_names_read_from_the_store_are_those_of_the_snapshots_names(tmp_path):
    """Three tiers and their ties over a store of several runs of names, some of them defined
    by an earlier snapshot only: the runs' answers are those of the snapshot's own names."""
    from corpora.gitbuild import RepoBuilder
    from indexer import api

    rng = random.Random(5)
    names = _numbered(rng, 1500)
    names += [n.capitalize() for n in rng.sample(names, 200)] + [n.upper() for n in rng.sample(names, 50)]
    names += ["Straße1", "straße12", "İstanbul7", "istanbul7", "Ñandú", "ñandú2", "Parse", "PARSE", "x", "X1"]
    rng.shuffle(names)
    builder = RepoBuilder(tmp_path / "repo")
    files = {f"m{i}.py": _defining(names[i::40]) for i in range(40)}
    first = builder.commit(files)
    later = _numbered(random.Random(6), 400)
    second = builder.commit({**{f"m{i}.py": None for i in range(0, 40, 3)}, "late.py": _defining(later)})
    third = builder.commit({"last.py": _defining(["Session00867", "sessi0n00867", "limit_77"])})
    store = api.open_store(tmp_path / "store")
    for oid in (first, second, third):
        api.index(str(builder.path), oid, store=store, workers=1)

    head = api.snapshot(str(builder.path), third, store=store)
    assert len(head.name_runs()) >= 2
    everything = {n for run in head.name_runs() for n in run.plain()}
    assert everything - set(head.defined_names())  # the first snapshot's names are in the runs too
    queries = ["session00867", "session", "sesion0086", "limit_7", "limit", "batch429", "straße1", "istanbul7",
               "ñandú", "nandu", "parse", "x", "", "zzz", "a\nb", "_"]
    queries += [n.lower()[:i] + n.lower()[i + 1:] for n in rng.sample(names, 40) for i in [rng.randrange(len(n))]]
    for oid in (first, third):
        snap = api.snapshot(str(builder.path), oid, store=store)
        defined = snap.defined_names()
        stored, in_memory = NearNames.of_snapshot(snap), NearNames(defined)
        for q in queries:
            assert stored.near(q) == in_memory.near(q) == _scan(defined, q), (oid, q)
    store.close()


def test_near_names_are_at_most_fifty_with_the_close_spellings():
    containing = [f"parse{i:02}" for i in range(45)]
    close = ["pars", "prse", "parze", "pase", "parsy", "paarse"]  # each also as Pars, PARS, ...
    names = sorted(containing + close + [n.capitalize() for n in close] + [n.upper() for n in close])
    near = NearNames(names).near("parse")
    assert near == _scan(names, "parse") and near[:45] == containing and len(near) == 50
