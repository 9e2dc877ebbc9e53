"""The file graph of a snapshot: fan-in from resolved import edges, and file rank by
PageRank over the definition/reference graph (as aider's repo map does), plus a
personalized rank for context.map.

Rank graph: an edge referencer -> definer for each identifier a file uses that
another file defines, weighted by how telling the name is (long compound names up,
private names down, variables and data members down) and split across the files
defining it, so fewer definers make a stronger edge; names defined in more than MAX_DEFINERS files are too common to say
anything and are left out, which also keeps the graph linear in the occurrences.
Resolved import edges add IMPORT_WEIGHT each. Each file keeps at most MAX_OUT of its
strongest out-edges. The power iteration is our own, over nodes in sorted order with
fixed tolerance and iteration count, so the same inputs give the same bits in any
input order; values are rounded to 9 decimals.
"""

from __future__ import annotations

import math
import operator
import re
from collections import Counter, defaultdict
from typing import Iterable, Mapping

import networkx as nx

from indexer.model import BlobFacts, Edge, FileEntry, Symbol

ALPHA = 0.85
MAX_ITER = 100
TOL = 1e-10  # per node, on the L1 change between iterations
MAX_DEFINERS = 20
MAX_OUT = 64
IMPORT_WEIGHT = 1.0
DIGITS = 9
KIND_WEIGHT = {"variable": 0.3, "constant": 0.5, "field": 0.3, "property": 0.3, "attribute": 0.3}
MEMBER_DATA_WEIGHT = 0.2

COMPOUND = re.compile(r"[a-z][A-Z]|_[a-zA-Z]")


def import_graph(files: Iterable[FileEntry], edges: Iterable[Edge]) -> nx.DiGraph:
    """Files as nodes, one arc per (importer, imported) pair of distinct files of the snapshot."""
    g = nx.DiGraph()
    paths = sorted(f.path for f in files)
    g.add_nodes_from(paths)
    known = set(paths)
    g.add_edges_from(
        sorted({(e.source, e.target) for e in edges if e.source != e.target and e.source in known and e.target in known})
    )
    return g


def fan_in(files: list[FileEntry], edges: list[Edge]) -> dict[str, int]:
    """path -> number of distinct other files whose imports resolve to it (0 when none); every file present."""
    g = import_graph(files, edges)
    return {p: g.in_degree(p) for p in sorted(g.nodes)}


def name_weight(name: str, definers: int) -> float:
    w = 1.0
    if len(name) >= 8 and COMPOUND.search(name):
        w *= 10.0
    if name.startswith("_"):
        w *= 0.1
    return w / definers


def definition_weight(s: Symbol) -> float:
    """Types and functions name what a file offers; data members and variables (`name`,
    `files`, `count` on some record) mostly collide with unrelated attribute uses."""
    w = KIND_WEIGHT.get(s.kind, 1.0)
    return w * MEMBER_DATA_WEIGHT if s.container and s.kind in KIND_WEIGHT else w


def _uses(facts: BlobFacts) -> Mapping[str, int]:
    """Sites per name that are not its definition: stored facts carry them summarized."""
    if facts.uses or not facts.occurrences:
        return facts.uses
    return Counter(o.name for o in facts.occurrences if o.role != "definition")


def rank_weights(
    files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge]
) -> dict[str, dict[str, float]]:
    """referencer -> {definer: weight}, the weighted arcs PageRank runs over."""
    known = {f.path for f in files}
    # name -> {definer: how strongly its definition there names a thing worth depending on}
    strength: dict[str, dict[str, float]] = defaultdict(dict)
    for path in sorted(facts):
        if path not in known:
            continue
        for s in facts[path].symbols:
            if len(s.name) > 1:
                w = definition_weight(s)
                if w > strength[s.name].get(path, 0.0):
                    strength[s.name][path] = w
    # per name: the weight one use carries, and who defines it (common names left out)
    info = {
        name: (name_weight(name, len(defs)), sorted(defs.items()))
        for name, defs in strength.items()
        if len(defs) <= MAX_DEFINERS
    }
    out: dict[str, dict[str, float]] = {}
    for path in sorted(facts):
        if path not in known:
            continue
        uses = {name: n for name, n in _uses(facts[path]).items() if name in info}
        arcs: dict[str, float] = {}
        for name in sorted(uses):
            w0, defs = info[name]
            w = w0 * math.sqrt(uses[name])
            for d, dw in defs:
                if d != path:
                    arcs[d] = arcs.get(d, 0.0) + w * dw
        if arcs:
            out[path] = arcs
    for source, target in sorted({(e.source, e.target) for e in edges if e.source != e.target}):
        if source in known and target in known:
            arcs = out.setdefault(source, {})
            arcs[target] = arcs.get(target, 0.0) + IMPORT_WEIGHT
    for source, arcs in out.items():
        if len(arcs) > MAX_OUT:
            keep = sorted(arcs.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_OUT]
            out[source] = dict(keep)
    return out


def _pagerank(nodes: list[str], weights: dict[str, dict[str, float]], teleport: list[float]) -> list[float]:
    index = {p: i for i, p in enumerate(nodes)}
    n = len(nodes)
    sources: list[list[int]] = [[] for _ in range(n)]
    shares: list[list[float]] = [[] for _ in range(n)]
    dangling: list[int] = []
    for i, p in enumerate(nodes):
        arcs = weights.get(p, {}).items()  # insertion order is deterministic: built from sorted inputs
        total = sum([w for _, w in arcs])
        if total <= 0.0:
            dangling.append(i)
            continue
        for target, w in arcs:
            j = index[target]
            sources[j].append(i)
            shares[j].append(ALPHA * w / total)
    # itemgetter pulls a node's in-neighbours' scores in one C call; sums run in a fixed order
    gather = [(operator.itemgetter(*s) if len(s) > 1 else None, s[0] if len(s) == 1 else -1, ws)
              for s, ws in zip(sources, shares)]
    mul = operator.mul
    x = list(teleport)
    for _ in range(MAX_ITER):
        lost = ALPHA * sum([x[i] for i in dangling])
        new = []
        for t, (get, single, ws) in zip(teleport, gather):
            v = (1.0 - ALPHA + lost) * t
            if get is not None:
                v += sum(map(mul, get(x), ws))
            elif single >= 0:
                v += x[single] * ws[0]
            new.append(v)
        err = sum(map(abs, map(operator.sub, new, x)))
        x = new
        if err < n * TOL:
            break
    return x


def _rank(files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge],
          focus: Mapping[str, float] | None) -> dict[str, float]:
    nodes = sorted({f.path for f in files})
    if not nodes:
        return {}
    known = set(nodes)
    chosen = {p: float(w) for p, w in (focus or {}).items() if p in known and w > 0}
    if chosen:
        total = sum(chosen[p] for p in sorted(chosen))
        teleport = [chosen.get(p, 0.0) / total for p in nodes]
    else:
        teleport = [1.0 / len(nodes)] * len(nodes)
    x = _pagerank(nodes, rank_weights(files, facts, edges), teleport)
    return {p: round(v, DIGITS) for p, v in zip(nodes, x)}


def rank(files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge]) -> dict[str, float]:
    """path -> PageRank over the definition/reference graph (plus import edges); every file present."""
    return _rank(files, facts, edges, None)


def personalized_rank(
    files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge], focus: Mapping[str, float]
) -> dict[str, float]:
    """PageRank that teleports only to the focus files (by their weights): what matters from
    where the caller stands. With no usable focus it is the plain rank."""
    return _rank(files, facts, edges, focus)
