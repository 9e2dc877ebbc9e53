"""Near names for a symbol that is not defined: the snapshot's names arranged once, each
lookup searched in C, with the order a plain scan over the names gives."""

from __future__ import annotations

import random
from difflib import get_close_matches

from context_tools.symbols import _CUTOFF, NearNames


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
