"""The arcs the rank's PageRank runs over, as arrays stored beside each snapshot, and their
update for a re-index: only the rows a change can reach are computed again.

Rows are the snapshot's files in path order (its file table's order). A row holds the
file's arcs in the order `arcs_of` made them, and its total, their left-to-right sum:
PageRank reads nothing else, so a row carried over from the earlier snapshot gives the same
bits as one computed anew, and the rank of a re-index is the rank of a cold index.

A file's arcs are a function of its own uses and import targets and, for each name it uses,
of that name's entry (`name_entry`: who defines it and how). So a row is computed
again only when the file changed, when its import targets changed, or when it uses a name
whose entry changed; an entry changes only through the definitions of files that changed,
a file whose generated or vendored mark came or went among them (marked files define
nothing for the rank).
Who defines or uses a name comes from the store's name index (name -> blobs, shared by every
snapshot), read for those names only.
"""

from __future__ import annotations

import struct
import zlib
from collections import Counter
from typing import TYPE_CHECKING, Callable, Collection, Iterable, Iterator, Mapping, NamedTuple

from indexer.model import BlobFacts, FileEntry
from indexer.rank.weights import MAX_DEFINERS, NameEntry, arcs_of, definitions_for, name_entry
from indexer.store.database import Store
from indexer.store.database import unpack as store_unpack
from indexer.store.facts_table import summaries_of
from indexer.store.records import NO_FACTS, NameIndex, snapshot_key
from indexer.store.versions import snapshot_version

if TYPE_CHECKING:
    import numpy as np

_HEAD = struct.Struct("<II")  # rows, arcs


class RankArcs(NamedTuple):
    lengths: np.ndarray  # int64 per row: how many arcs it has
    targets: np.ndarray  # int64 per arc: the row it points to
    weights: np.ndarray  # float64 per arc
    totals: np.ndarray  # float64 per row: left-to-right sum of its weights (0.0 without arcs)

    def rows(self) -> int:
        return len(self.lengths)


def from_weights(nodes: list[str], weights: Mapping[str, dict[str, float]]) -> RankArcs:
    """`arcs_of` output (referencer -> {definer: weight}) as arrays over `nodes`."""
    return _rows_of(nodes, {p: i for i, p in enumerate(nodes)}, weights)


def _rows_of(rows: list[str], index: Mapping[str, int], weights: Mapping[str, dict[str, float]]) -> RankArcs:
    """The arcs of `rows` (in that order) as arrays, their targets numbered by `index`."""
    import numpy as np

    lengths = [0] * len(rows)
    totals = [0.0] * len(rows)
    targets: list[int] = []
    values: list[float] = []
    for i, p in enumerate(rows):  # arcs in row order
        arcs = weights.get(p)
        if arcs:
            lengths[i] = len(arcs)
            totals[i] = _ordered_sum(arcs.values())
            targets.extend(index[t] for t in arcs)
            values.extend(arcs.values())
    return RankArcs(np.array(lengths, dtype=np.int64), np.array(targets, dtype=np.int64),
                    np.array(values, dtype=np.float64), np.array(totals, dtype=np.float64))


def pack(arcs: RankArcs) -> bytes:
    return b"".join((_HEAD.pack(arcs.rows(), len(arcs.targets)), arcs.lengths.astype("<i4").tobytes(),
                     arcs.targets.astype("<i4").tobytes(), arcs.weights.astype("<f8").tobytes(),
                     arcs.totals.astype("<f8").tobytes()))


def unpack(data: bytes) -> RankArcs | None:
    """The arcs `pack` wrote, or None when the bytes are not a whole, consistent set."""
    import numpy as np

    if len(data) < _HEAD.size:
        return None
    n, m = _HEAD.unpack_from(data)
    if len(data) != _HEAD.size + 12 * n + 12 * m:
        return None
    parts, at = [], _HEAD.size
    for count, dtype in ((n, "<i4"), (m, "<i4"), (m, "<f8"), (n, "<f8")):
        parts.append(np.frombuffer(data, dtype=dtype, count=count, offset=at))
        at += count * np.dtype(dtype).itemsize
    lengths, targets = parts[0].astype(np.int64), parts[1].astype(np.int64)
    if (lengths < 0).any() or int(lengths.sum()) != m or (m and (targets.min() < 0 or targets.max() >= n)):
        return None
    return RankArcs(lengths, targets, parts[2].astype(np.float64), parts[3].astype(np.float64))


class EarlierArcs(NamedTuple):
    """What a re-index updates the arcs from: the earlier snapshot's file table, import
    pairs (computed when asked) and arcs, and the facts of its files that changed since (by
    path)."""

    files: list[FileEntry]
    pairs: Callable[[], list[tuple[str, str]]]
    arcs: RankArcs
    facts: Callable[[str], BlobFacts | None]


def update(nodes: list[str], files: list[FileEntry], facts: Mapping[str, BlobFacts],
           pairs: list[tuple[str, str]], earlier: EarlierArcs, names: NameIndex,
           redone: Collection[str] | None = None) -> RankArcs | None:
    """The arcs of the snapshot of `files` (paths `nodes`, sorted), from the earlier one's:
    rows a change cannot reach carried over, the others computed as `graph.rank_weights`
    computes them. `redone`: the files whose imports were resolved anew since the earlier
    snapshot (`resolve.resolve_since`), the only ones whose import targets can differ; None
    when all were. None when the earlier arcs cannot be used (they do not fit its file
    table, or the facts of a file that changed since are not at hand)."""

    old_nodes = [f.path for f in earlier.files]
    if earlier.arcs.rows() != len(old_nodes):
        return None
    same_paths = [f.path for f in files] == old_nodes
    changed = _changed(files, earlier.files, same_paths)
    with_facts = summaries_of(facts)  # a plain dict to ask: nothing decoded
    owned = [f for f in files if f.blob and f.path in with_facts]
    marked = {f.path for f in owned if f.mark}
    # the rows of the changed paths in both tables: by position when the paths are the same
    rows_changed = [(f, o) for f, o in zip(files, earlier.files) if f.path in changed] if same_paths else \
        [(f, None) for f in files if f.path in changed] + [(None, o) for o in earlier.files if o.path in changed]
    blob_now = {f.path: f.blob for f, _ in rows_changed if f is not None}
    # by hex OID (the name index's are turned to hex when read): a blob at one path mostly;
    # made when the name index is first asked, which a change reaching no name never does
    blob_path: dict[str, str] = {}
    blob_paths: dict[str, list[str]] = {}  # the blobs at more than one path

    def by_blob() -> None:
        blob_path.update((f.blob, f.path) for f in owned)
        if len(blob_path) != len(owned):
            for f in owned:
                blob_paths.setdefault(f.blob, []).append(f.path)

    before: dict[str, Mapping[str, float]] = {}  # what the changed files defined for the rank
    for f in (o for _, o in rows_changed if o is not None):  # in the earlier table's order
        if f.language not in NO_FACTS and not f.mark:
            # the same blob at the same path has the same facts: only its mark changed
            old = facts[f.path] if blob_now.get(f.path) == f.blob and f.path in with_facts else earlier.facts(f.path)
            if old is None:
                return None
            before[f.path] = definitions_for(old)

    def paths_of(blobs: Iterable[bytes]) -> Iterator[str]:
        if not blob_path and owned:
            by_blob()
        for raw in blobs:
            blob = raw.hex()
            if blob in blob_paths:
                yield from blob_paths[blob]
            elif blob in blob_path:
                yield blob_path[blob]

    def definers(name: str, limit: int) -> dict[str, float] | None:
        """path -> definition weight for each unmarked file of this snapshot defining `name`
        (in path order); None as soon as more than `limit` do."""
        found: dict[str, float] = {}
        for path in paths_of(names.defining(name)):
            if path in marked:
                continue
            w = definitions_for(facts[path]).get(name)
            if w is not None:
                found[path] = w
                if len(found) > limit:
                    return None
        return dict(sorted(found.items()))

    # Rows to compute: files that changed, files resolved anew (their import targets may have
    # changed), and users of a name whose entry changed (only names a changed file defines,
    # before or after, can).
    position = {p: i for i, p in enumerate(nodes)}
    dirty = {p for p in changed if p in position}
    if redone is None:
        dirty.update(source for source, _ in set(earlier.pairs()).symmetric_difference(pairs))
    else:
        dirty.update(redone)
    touched: set[str] = set()
    defined_now: Counter[str] = Counter()  # name -> changed files defining it now
    for path in changed:
        then = before.get(path, {})
        now = definitions_for(facts[path]) if path in facts and path not in marked else {}
        touched.update(n for n in then.keys() | now.keys() if then.get(n) != now.get(n))
        defined_now.update(now.keys())
    entries: dict[str, NameEntry | None] = {}
    for name in sorted(touched):
        # More definers now than the limit plus the changed files defining it now: more than
        # the limit before too (the others defined it then as well). Each definer counted
        # costs a decode of its facts: a name every changed file defines (a common field)
        # would otherwise be counted up to the limit plus every changed file.
        now_defs = definers(name, MAX_DEFINERS + defined_now[name])
        if now_defs is None:
            entries[name] = None
            continue
        then_defs = {p: w for p, w in now_defs.items() if p not in changed}
        then_defs.update((p, d[name]) for p, d in before.items() if name in d)
        entries[name] = name_entry(name, now_defs)
        if name_entry(name, dict(sorted(then_defs.items()))) != entries[name]:
            dirty.update(paths_of(names.using(name)))

    def entry(name: str) -> NameEntry | None:
        if name in entries:
            return entries[name]
        found = definers(name, MAX_DEFINERS)
        return name_entry(name, found) if found is not None else None

    if not same_paths:  # the same paths: none is new
        old_set = set(old_nodes)
        dirty.update(p for p in nodes if p not in old_set)
    while True:
        merged = _merge(nodes, position, old_nodes, earlier.arcs, dirty,
                        arcs_of(dirty, facts, pairs, position, entry))
        if isinstance(merged, set):  # carried rows pointing at a file gone: never expected, but safe
            dirty |= merged
            continue
        return merged


def _changed(files: list[FileEntry], old_files: list[FileEntry], same_paths: bool) -> set[str]:
    """Paths whose blob, mode, language or mark differ between the two file tables, or that
    are in one only. `same_paths`: both hold the same paths in the same order (the common
    case), compared row by row."""
    if same_paths:
        return {f.path for f, o in zip(files, old_files)
                if f.blob != o.blob or f.mode != o.mode or f.language != o.language or f.mark != o.mark}
    old = {f.path: (f.blob, f.mode, f.language, f.mark) for f in old_files}
    new = {f.path: (f.blob, f.mode, f.language, f.mark) for f in files}
    return {p for p in old.keys() | new.keys() if old.get(p) != new.get(p)}


def _segments(lengths: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions in the arc arrays of the given rows' arcs (row after row), and their lengths."""
    import numpy as np

    starts = np.cumsum(lengths) - lengths
    picked = lengths[rows]
    total = int(picked.sum())
    return np.repeat(starts[rows] - (np.cumsum(picked) - picked), picked) + np.arange(total, dtype=np.int64), picked


def _merge(nodes: list[str], position: Mapping[str, int], old_nodes: list[str], old: RankArcs, dirty: set[str],
           computed: Mapping[str, dict[str, float]]) -> RankArcs | set[str]:
    """The new arcs: rows in `dirty` from `computed`, every other row carried over from `old`
    with its targets renumbered. A carried row whose target is no longer a file is returned
    (as the set of such paths) instead, to be computed."""
    import numpy as np

    if nodes == old_nodes:  # the same rows in the same order: every one is carried but the dirty
        old_to_new = np.arange(len(old_nodes), dtype=np.int64)
        keep = np.ones(len(old_nodes), dtype=bool)
        keep[[position[p] for p in dirty if p in position]] = False
        carried = np.flatnonzero(keep).astype(np.int64)
    else:
        old_to_new = np.array([position.get(p, -1) for p in old_nodes], dtype=np.int64)
        carried = np.array([r for r, p in enumerate(old_nodes) if p in position and p not in dirty],
                           dtype=np.int64)
    at, carried_lengths = _segments(old.lengths, carried)
    carried_targets = old_to_new[old.targets[at]]
    if len(carried_targets) and int(carried_targets.min()) < 0:
        rows = np.repeat(carried, carried_lengths)[carried_targets < 0]
        return {old_nodes[r] for r in rows.tolist()}
    # only the rows computed anew are made into arrays: every other row is carried
    fresh_paths = sorted((p for p in dirty if p in position), key=position.__getitem__)
    fresh = _rows_of(fresh_paths, position, computed)
    fresh_rows = np.array([position[p] for p in fresh_paths], dtype=np.int64)
    fresh_lengths = fresh.lengths
    carried_rows = old_to_new[carried]
    # each row comes whole from one side; a stable sort by row puts them in order
    arc_rows = np.concatenate((np.repeat(carried_rows, carried_lengths), np.repeat(fresh_rows, fresh_lengths)))
    order = np.argsort(arc_rows, kind="stable")
    lengths = np.zeros(len(nodes), dtype=np.int64)
    lengths[carried_rows] = carried_lengths
    lengths[fresh_rows] = fresh_lengths
    totals = np.zeros(len(nodes), dtype=np.float64)
    totals[carried_rows] = old.totals[carried]
    totals[fresh_rows] = fresh.totals
    targets = np.concatenate((carried_targets, fresh.targets))[order]
    weights = np.concatenate((old.weights[at], fresh.weights))[order]
    return RankArcs(lengths, targets, weights, totals)


def _ordered_sum(values: Iterable[float]) -> float:
    """Left-to-right sum (builtin sum() compensates on Python 3.12+, which would change bits)."""
    total = 0.0
    for v in values:
        total += v
    return total


def load_rank_arcs(store: Store, oid: str, version: str | None = None) -> RankArcs | None:
    """The rank arcs stored with the snapshot at `oid`; None when it has none (written before
    they were kept, or by a bundle import) or they do not read whole."""
    with store.env.begin(db=store.rank) as txn:
        raw = txn.get(snapshot_key(oid, version or snapshot_version()))
    if raw is None:
        return None
    try:
        return unpack(store_unpack(raw))
    except zlib.error:  # damaged: the arcs are computed whole again, as for a snapshot without them
        return None
