"""How telling a name is, what each file defines and uses, and a file's arcs: the weights the
rank's graph is made of (see `indexer.rank.graph` for the rank itself). Pure functions of blob
facts: the store computes a blob's definition weights once, when it stores its facts.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from typing import Callable, Container, Iterable, Mapping

from indexer.lang.python.stdlib import BUILTIN_NAMES
from indexer.lang.registry import PROSE_AND_DATA
from indexer.model import NOT_USES, BlobFacts, Symbol

MAX_DEFINERS = 20
MAX_OUT = 64
IMPORT_WEIGHT = 1.0
KIND_WEIGHT = {"variable": 0.3, "constant": 0.5, "field": 0.3, "property": 0.3, "attribute": 0.3}
MEMBER_DATA_WEIGHT = 0.2
COMPOUND = re.compile(r"[a-z][A-Z]|_[a-zA-Z]")

# A name's entry: its weight and its definers, each with its definition weight.
NameEntry = tuple[float, list[tuple[str, float]]]


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


def name_entry(name: str, definers: Mapping[str, float]) -> NameEntry | None:
    """What one use of `name` carries and to whom, given its definers (path -> definition
    weight, in path order): None for a name nobody defines or too many do."""
    if not definers or len(definers) > MAX_DEFINERS:
        return None
    return name_weight(name, len(definers)), list(definers.items())


def arcs_of(rows: Container[str], facts: Mapping[str, BlobFacts], pairs: list[tuple[str, str]],
            known: Container[str], entry: Callable[[str], NameEntry | None]) -> dict[str, dict[str, float]]:
    """The arcs of the files in `rows` (those among the facts' paths and `known`), each name's
    entry asked of `entry` once; `pairs` sorted, as `graph.import_pairs` gives them. A file's
    arcs: per name it uses (in name order) a share for each other file defining it, then its
    import targets (in pair order), then only its MAX_OUT strongest. Prose and data files
    (languages.PROSE_AND_DATA) have none."""
    entries: dict[str, NameEntry | None] = {}
    out: dict[str, dict[str, float]] = {}
    sqrt = math.sqrt
    # the rows asked for when they are a few (a re-index's), else the facts' paths: the same set
    few = rows if isinstance(rows, (set, frozenset)) and len(rows) < len(facts) else None
    for path in sorted(p for p in few if p in facts and p in known) if few is not None else \
            sorted(p for p in facts if p in rows and p in known):
        blob = facts[path]
        if blob.language in PROSE_AND_DATA:
            continue
        arcs: dict[str, float] = {}
        for name, count in uses_of(blob).items():  # in name order (see uses_of)
            try:
                found = entries[name]
            except KeyError:
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
    if few is not None:
        # a few rows: each one's pairs found by bisection (they come sorted), not by a pass
        # over all of them; rows and their pairs in the same order as that pass's
        for source in sorted(few):
            if source not in known:
                continue
            i = bisect_left(pairs, (source,))
            while i < len(pairs) and pairs[i][0] == source:
                target = pairs[i][1]
                if target in known:
                    arcs = out.setdefault(source, {})
                    arcs[target] = arcs.get(target, 0.0) + IMPORT_WEIGHT
                i += 1
    else:
        for source, target in pairs:
            if source in rows and source in known and target in known:
                arcs = out.setdefault(source, {})
                arcs[target] = arcs.get(target, 0.0) + IMPORT_WEIGHT
    for source, arcs in out.items():
        if len(arcs) > MAX_OUT:
            keep = sorted(arcs.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_OUT]
            out[source] = dict(keep)
    return out
