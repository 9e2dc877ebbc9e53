"""The file graph of a snapshot: the import graph (networkx) and fan-in, its in-degrees;
file rank by PageRank over the definition/reference graph (as aider's repo map does), plus
a personalized rank for context.map.

Rank graph: an edge referencer -> definer for each identifier a file uses that
another file defines, weighted by how telling the name is (long compound names up,
private names down, variables and data members down) and split across the files
defining it, so fewer definers make a stronger edge; names defined in more than MAX_DEFINERS files are too common to say
anything and are left out, which also keeps the graph linear in the occurrences. Files
marked generated or vendored define nothing here: a bundled jQuery defines hundreds of
everyday names (`each`, `find`, `get`) and would draw the rank of every file that says
them, while what a reader of the repository needs is its own code; they still use names,
and an import of one still counts. Prose and data files (release notes, file lists, JSON)
use no names here: their words are not uses of code, and each file's arcs share out all of
its rank, so two thousand documents saying "django" would hand theirs to whatever defines a
method of that name. Resolved import edges add IMPORT_WEIGHT each. Each file keeps at most MAX_OUT of its
strongest out-edges. The power iteration is our own, over nodes in sorted order with
fixed tolerance and iteration count, on numpy arrays but with every float sum in a
fixed left-to-right order (no pairwise np.sum, no BLAS, no builtin sum(), which
compensates on Python 3.12+), so the same inputs give the same bits on any machine and
in any input order; files that define nothing then go below every file that defines something
(indexer/rank/boilerplate.py); values are rounded to 9 decimals. The arcs are kept as arrays beside each
snapshot (indexer/rank/arcs.py), so a re-index computes again only the rows a change reaches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from indexer.rank.arcs import RankArcs

from indexer.model import BlobFacts, Edge, FileEntry
from indexer.rank.arcs import from_weights
from indexer.rank.weights import NameEntry, arcs_of, definitions_for, name_entry

ALPHA = 0.85
MAX_ITER = 100
TOL = 1e-10  # per node, on the L1 change between iterations
DIGITS = 9


def import_graph(files: Iterable[FileEntry], edges: Sequence[Edge]) -> nx.DiGraph:
    """Files as nodes, one arc per (importer, imported) pair of distinct files of the snapshot."""
    import networkx as nx  # here, not at the top: only a caller asking for the graph pays its import

    g = nx.DiGraph()
    paths = sorted(f.path for f in files)
    g.add_nodes_from(paths)
    known = set(paths)
    g.add_edges_from((s, t) for s, t in import_pairs(edges) if s in known and t in known)
    return g


def import_pairs(edges: Sequence[Edge]) -> list[tuple[str, str]]:
    """The distinct (importer, imported) pairs of distinct files, sorted. A snapshot's edges
    come sorted by (source, target), so repeats are adjacent and one pass in list order does
    (a set of pairs would hop across the heap); other input is sorted first."""
    pairs: list[tuple[str, str]] = []
    last_source = last_target = ""
    for e in edges:
        source, target = e.source, e.target
        if source < last_source or (source == last_source and target < last_target):
            return sorted({(e.source, e.target) for e in edges if e.source != e.target})
        if source == last_source and target == last_target:
            continue
        last_source, last_target = source, target
        if source != target:
            pairs.append((source, target))
    return pairs


def fan_in(files: list[FileEntry], edges: list[Edge], pairs: list[tuple[str, str]] | None = None,
           nodes: list[str] | None = None) -> dict[str, int]:
    """path -> number of distinct other files whose imports resolve to it (0 when none); every file
    present. This is the in-degree of each node of `import_graph`, counted without building
    the graph: assembly needs only the counts, and the networkx import alone costs a re-index
    a tenth of its time. `pairs`: `import_pairs(edges)` and `nodes`: the files' paths sorted,
    when the caller has them already."""
    counts = dict.fromkeys(sorted(f.path for f in files) if nodes is None else nodes, 0)
    for source, target in import_pairs(edges) if pairs is None else pairs:
        if source in counts and target in counts:
            counts[target] += 1
    return counts


def rank_weights(
    files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge],
    pairs: list[tuple[str, str]] | None = None,
) -> dict[str, dict[str, float]]:
    """referencer -> {definer: weight}, the weighted arcs PageRank runs over.

    Float sums run in a fixed order (names sorted, definers by path, then imports sorted):
    arc weights, and so ranks, are the same bits for the same inputs in any input order."""
    known = {f.path for f in files}
    unmarked = {f.path for f in files if not f.mark}
    paths = sorted(p for p in facts if p in unmarked)
    # name -> {definer: how strongly its definition there names a thing worth depending on};
    # definers go in in path order
    strength: dict[str, dict[str, float]] = {}
    for path in paths:
        for name, w in definitions_for(facts[path]).items():
            defs = strength.get(name)
            if defs is None:
                strength[name] = {path: w}
            else:
                defs[path] = w

    def entry(name: str) -> NameEntry | None:
        defs = strength.get(name)
        return name_entry(name, defs) if defs is not None else None

    return arcs_of(known, facts, import_pairs(edges) if pairs is None else pairs, known, entry)


def _last_prefix_sum(a: np.ndarray) -> float:
    """Left-to-right sum of an array: an accumulation is sequential by definition, unlike
    np.sum, whose pairwise order depends on the length and the build."""
    import numpy as np
    return float(np.add.accumulate(a)[-1]) if len(a) else 0.0


def _pagerank(nodes: list[str], weights: dict[str, dict[str, float]], teleport: list[float]) -> list[float]:
    return pagerank(from_weights(nodes, weights), teleport)


def pagerank(arcs: RankArcs, teleport: list[float]) -> list[float]:
    """Power iteration with every float operation in a fixed order: per node, the base term
    plus its in-arcs' contributions added in source order (np.bincount scatters its weights
    sequentially; no BLAS, whose summation order varies by machine). A row's arcs share
    ALPHA in proportion to their weights; a row without (or summing to zero) is dangling."""
    import numpy as np  # here: blob workers import this module for definitions_of only
    n = len(arcs.lengths)
    rows = np.repeat(np.arange(n, dtype=np.intp), arcs.lengths)
    live = arcs.totals > 0.0
    counted = live[rows]
    # arcs listed by source, so each node's incoming sum runs in source order
    src_a = rows[counted]
    dst_a = arcs.targets[counted].astype(np.intp)
    share_a = ALPHA * arcs.weights[counted] / arcs.totals[src_a]
    dangling_a = np.flatnonzero(~live)
    tele = np.array(teleport, dtype=np.float64)
    x = tele.copy()
    for _ in range(MAX_ITER):
        lost = ALPHA * _last_prefix_sum(x[dangling_a])
        new = (1.0 - ALPHA + lost) * tele + np.bincount(dst_a, weights=x[src_a] * share_a, minlength=n)
        err = _last_prefix_sum(np.abs(new - x))
        x = new
        if err < n * TOL:
            break
    return x.tolist()


def teleport_to(nodes: list[str], focus: Mapping[str, float] | None) -> list[float]:
    """Where the walk restarts: every node alike, or the focus files by their weights."""
    known = set(nodes)
    chosen = {p: float(w) for p, w in (focus or {}).items() if p in known and w > 0}
    if chosen:
        total = sum(chosen[p] for p in sorted(chosen))
        return [chosen.get(p, 0.0) / total for p in nodes]
    return [1.0 / len(nodes)] * len(nodes)


def _rank(files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge],
          focus: Mapping[str, float] | None) -> dict[str, float]:
    from indexer.rank.boilerplate import below_definers

    nodes = sorted({f.path for f in files})
    if not nodes:
        return {}
    teleport = teleport_to(nodes, focus)
    x = _pagerank(nodes, rank_weights(files, facts, edges), teleport)
    focused = len(set(teleport)) > 1  # a focus the walk restarts at: it decides, not the definitions
    return rounded(nodes, x if focused else below_definers(nodes, x, facts))


def rounded(nodes: list[str], x: list[float]) -> dict[str, float]:
    return {p: round(v, DIGITS) for p, v in zip(nodes, x)}


def rank(files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge]) -> dict[str, float]:
    """path -> PageRank over the definition/reference graph (plus import edges), files that
    define nothing below those that do (indexer/rank/boilerplate.py); every file present."""
    return _rank(files, facts, edges, None)


def personalized_rank(
    files: list[FileEntry], facts: Mapping[str, BlobFacts], edges: list[Edge], focus: Mapping[str, float]
) -> dict[str, float]:
    """PageRank that teleports only to the focus files (by their weights): what matters from
    where the caller stands. With no usable focus it is the plain rank."""
    return _rank(files, facts, edges, focus)
