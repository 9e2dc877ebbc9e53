"""Files that define nothing rank below every file that defines something.

PageRank hands a file the rank of whatever imports it. A package's `__init__.py` of imports,
a Go file of build tags and a package clause, a license header, an empty module: the import
graph points at them (importing a package reaches its `__init__.py`, a Go import every file of
the package), so they would lead the Repo Map while offering a reader nothing to read. The
rule, applied to the rank after the power iteration:

- a file *defines something* when its blob facts list a symbol, Python's module dunders
  (`__all__`, `__version__`: what a module says of itself, not what it offers) aside;
- when some files define something and others do not, each of the others has its PageRank
  scaled by `lowest / (2 * highest)` (never up): `lowest` the least rank of a file defining
  something, `highest` the greatest PageRank of a file defining nothing. So every such file
  ranks below every file with a definition, at most half the least of them, in the order
  PageRank gave them among themselves. The rank they give up goes to the files with
  definitions, in proportion to theirs (their order stays, and the ranks still sum to one).

min, max, exact sums (math.fsum) and a product per file: the same inputs give the same bits in
any order.
"""

from __future__ import annotations

from itertools import compress
from math import fsum
from operator import not_
from typing import Mapping

from indexer.model import BlobFacts, Symbol, decode_symbols
from indexer.store.facts_table import Summary, summaries_of

_NAME = b'"name":"'  # how a name opens in a symbols_json line (a quote inside a string is escaped)
_DUNDER_NAME = b'"name":"__'  # how a dunder's name opens there


def _module_dunder(s: Symbol, language: str) -> bool:
    return language == "python" and not s.container and len(s.name) > 4 and s.name.startswith("__") \
        and s.name.endswith("__")


def defines_something(facts: Summary | None) -> bool:
    """Whether a file's facts (a summary, stored core facts or extracted ones) list a symbol
    other than a Python module dunder."""
    if facts is None:
        return False
    raw = facts.symbols_json
    if facts.language != "python":
        return bool(raw or facts.symbols)  # only Python has module dunders
    if raw:
        # A name that does not open with `__`: no module dunder, nothing to decode. The first
        # name mostly tells (a class or function of the module's own); else count them all.
        first = raw.find(_NAME) + len(_NAME)
        if raw[first:first + 2] != b"__" or _DUNDER_NAME not in raw \
                or raw.count(_NAME) != raw.count(_DUNDER_NAME):
            return True
    symbols = decode_symbols(raw) if raw else facts.symbols
    return any(not _module_dunder(s, facts.language) for s in symbols)


def below_definers(nodes: list[str], x: list[float], facts: Mapping[str, BlobFacts]) -> list[float]:
    """The ranks `x` (in `nodes` order) with every file that defines nothing scaled below the
    files that define something (the module's rule)."""
    # the common answer asked inline, without a call: a file of another language than Python
    # with stored symbols defines something
    defining = [(f is not None and f.symbols_json and f.language != "python") or defines_something(f)
                for f in map(summaries_of(facts).get, nodes)]
    with_definitions = list(compress(x, defining))
    without = list(compress(x, map(not_, defining)))
    if not with_definitions or not without:
        return x
    lowest = min(with_definitions)
    highest = max(without)
    if highest <= 0.0 or highest * 2.0 <= lowest:
        return x  # below already
    scale = lowest / (2.0 * highest)
    kept = fsum(with_definitions)
    given = fsum(without) * (1.0 - scale)
    gain = 1.0 + given / kept
    return [v * gain if d else v * scale for v, d in zip(x, defining)]
