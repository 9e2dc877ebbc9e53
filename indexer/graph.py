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
in any input order; values are rounded to 9 decimals. The arcs are kept as arrays beside each
snapshot (indexer/rank_arcs.py), so a re-index computes again only the rows a change reaches.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import TYPE_CHECKING, Callable, Container, Iterable, Mapping

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

    from .rank_arcs import RankArcs

from indexer.languages import PROSE_AND_DATA
from indexer.model import NOT_USES, BlobFacts, Edge, FileEntry, Symbol
from indexer.python_stdlib import BUILTIN_NAMES

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


def import_graph(files: Iterable[FileEntry], edges: list[Edge]) -> nx.DiGraph:
    """Files as nodes, one arc per (importer, imported) pair of distinct files of the snapshot."""
    import networkx as nx  # here, not at the top: only a caller asking for the graph pays its import

    g = nx.DiGraph()
    paths = sorted(f.path for f in files)
    g.add_nodes_from(paths)
    known = set(paths)
    g.add_edges_from((s, t) for s, t in import_pairs(edges) if s in known and t in known)
    return g


def import_pairs(edges: list[Edge]) -> list[tuple[str, str]]:
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


def fan_in(files: list[FileEntry], edges: list[Edge], pairs: list[tuple[str, str]] | None = None) -> dict[str, int]:
    """path -> number of distinct other files whose imports resolve to it (0 when none); every file
    present. This is the in-degree of each node of `import_graph`, counted without building
    the graph: assembly needs only the counts, and the networkx import alone costs a re-index
    a tenth of its time. `pairs`: `import_pairs(edges)` when the caller has them already."""
    counts = dict.fromkeys(sorted(f.path for f in files), 0)
    for source, target in import_pairs(edges) if pairs is None else pairs:
        if source in counts and target in counts:
            counts[target] += 1
    return counts


_UNSEEN = object()


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


def definitions_of(symbols: Iterable[Symbol], language: str = "") -> dict[str, float]:
    """name -> its strongest definition weight among these symbols (one-character names say
    nothing): what rank needs of a file's symbols, computed once per blob when it is stored.
    A Python module's own `type`, `id` or `input` (a test case's `type = aliased`) is no
    definer of the name: a bare use elsewhere is the builtin's unless it imports the module,
    whose import edge then counts, and `node.type` is some member's; members so named count."""
    shadowing = BUILTIN_NAMES if language == "python" else frozenset()
    out: dict[str, float] = {}
    for s in symbols:
        name = s.name
        if len(name) > 1 and not (name in shadowing and not s.container):
            w = definition_weight(s)
            if w > out.get(name, 0.0):
                out[name] = w
    return out


def definitions_for(facts: BlobFacts) -> Mapping[str, float]:
    """name -> definition weight of a blob's facts (stored facts carry them precomputed)."""
    if facts.definitions or not facts.symbols:
        return facts.definitions
    return definitions_of(facts.symbols, facts.language)


def uses_of(facts: BlobFacts) -> Mapping[str, int]:
    """Sites per name that use it (roles not in model.NOT_USES), in name order: stored facts
    carry them summarized and sorted."""
    if facts.uses or not facts.occurrences:
        return facts.uses
    return dict(sorted(Counter(o.name for o in facts.occurrences if o.role not in NOT_USES).items()))


NameEntry = tuple[float, list[tuple[str, float]]]


def name_entry(name: str, definers: Mapping[str, float]) -> NameEntry | None:
    """What one use of `name` carries and to whom, given its definers (path -> definition
    weight, in path order): None for a name nobody defines or too many do."""
    if not definers or len(definers) > MAX_DEFINERS:
        return None
    return name_weight(name, len(definers)), list(definers.items())


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


def arcs_of(rows: Container[str], facts: Mapping[str, BlobFacts], pairs: list[tuple[str, str]],
            known: Container[str], entry: Callable[[str], NameEntry | None]) -> dict[str, dict[str, float]]:
    """The arcs of the files in `rows` (those among the facts' paths and `known`), each name's
    entry asked of `entry` once. A file's arcs: per name it uses (in name order) a share for
    each other file defining it, then its import targets (in pair order), then only its
    MAX_OUT strongest. Prose and data files (languages.PROSE_AND_DATA) have none."""
    entries: dict[str, NameEntry | None] = {}
    out: dict[str, dict[str, float]] = {}
    sqrt = math.sqrt
    for path in sorted(p for p in facts if p in rows and p in known):
        blob = facts[path]
        if blob.language in PROSE_AND_DATA:
            continue
        arcs: dict[str, float] = {}
        for name, count in uses_of(blob).items():  # in name order (see uses_of)
            found = entries.get(name, _UNSEEN)
            if found is _UNSEEN:
                found = entries[name] = entry(name)
            if found is None:
                continue
            w0, defined = found
            w = w0 * sqrt(count)
            for d, dw in defined:
                if d != path:
                    arcs[d] = arcs.get(d, 0.0) + w * dw
        if arcs:
            out[path] = arcs
    for source, target in pairs:
        if source in rows and source in known and target in known:
            arcs = out.setdefault(source, {})
            arcs[target] = arcs.get(target, 0.0) + IMPORT_WEIGHT
    for source, arcs in out.items():
        if len(arcs) > MAX_OUT:
            keep = sorted(arcs.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_OUT]
            out[source] = dict(keep)
    return out


def _ordered_sum(values: Iterable[float]) -> float:
    """Left-to-right sum (builtin sum() compensates on Python 3.12+, which would change bits)."""
    total = 0.0
    for v in values:
        total += v
    return total


def _last_prefix_sum(a: np.ndarray) -> float:
    """Left-to-right sum of an array: an accumulation is sequential by definition, unlike
    np.sum, whose pairwise order depends on the length and the build."""
    import numpy as np
    return float(np.add.accumulate(a)[-1]) if len(a) else 0.0


def _pagerank(nodes: list[str], weights: dict[str, dict[str, float]], teleport: list[float]) -> list[float]:
    from .rank_arcs import from_weights
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
    nodes = sorted({f.path for f in files})
    if not nodes:
        return {}
    x = _pagerank(nodes, rank_weights(files, facts, edges), teleport_to(nodes, focus))
    return rounded(nodes, x)


def rounded(nodes: list[str], x: list[float]) -> dict[str, float]:
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
