"""Near names: what `context.symbol` offers when nothing is defined exactly as asked.

Best first, at most 50: the names equal to the query but for case; names containing it, in
name order; then close spellings, the ten lowercase names of the query's first letter that
difflib.get_close_matches would pick (ratio 0.7 or more), each with its other cases.

A snapshot's near names are searched in the runs of text the store keeps of every defined
name (indexer/store/name_runs.py), in C: a lookup slices out what it needs and asks the name index
whether the snapshot defines the few names it keeps. A fresh process so reads a few MB and
makes an object for few names, not for each of the hundreds of thousands a large store holds.
"""

from __future__ import annotations

import heapq
from collections import Counter
from difflib import SequenceMatcher
from itertools import accumulate, compress, groupby, repeat
from operator import add, itemgetter, mul, sub
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from indexer.store.name_runs import is_plain, name_of, run_of

if TYPE_CHECKING:
    from indexer.store.snapshot import Snapshot

CUTOFF = 0.7  # difflib's ratio a close spelling reaches
NEAR_MAX = 50  # near names looked up for their definitions
CLOSE_MAX = 10  # close spellings (lowercase), as get_close_matches' n
_LONG = 1 << 12  # more than a lowercase name's length (a name index key is at most 500 bytes)
_FAR = 1 << 40  # more than a run's text


class _Run:
    """A run of sorted names as a search reads it: the plain names' text (each between line
    breaks) and its lowercase, aligned character for character; the other names with their
    keys and lowercase forms."""

    __slots__ = ("text", "lowered", "others", "_spans")

    def __init__(self, text: str, others: list[tuple[str, bytes, str]]) -> None:
        self.text = text
        self.lowered = text.lower()
        self.others = others
        self._spans: dict[str, list[tuple[int, int]]] = {}

    def spans(self, first: str) -> list[tuple[int, int]]:
        """(start, end) of the text's lines whose lowercase starts with `first`, the line break
        after the last at `end`: the lines are sorted, so those starting with one character
        are together, one span for each character that lowercases to `first` (itself and its
        capital), found by bisection."""
        found = self._spans.get(first)
        if found is None:
            found = self._spans[first] = []
            for c in dict.fromkeys((first, first.upper())):
                if self.text and c.isascii() and c.lower() == first and c != "\n":
                    start, end = _first_line(self.text, c), _first_line(self.text, chr(ord(c) + 1))
                    if start < end:
                        found.append((start, end - 1))
        return found

    def containing(self, low: str) -> Iterator[tuple[str, bytes]]:
        """(name, key) of the plain names whose lowercase contains `low` (no line break), in order."""
        text, lowered = self.text, self.lowered
        if not low:
            yield from ((n, n.encode()) for n in (text[1:-1].split("\n") if text else ()))
            return
        at, size = 0, len(low)
        while (found := lowered.find(low, at)) >= 0:
            start = lowered.rfind("\n", 0, found) + 1
            end = lowered.find("\n", found + size)
            name = text[start:end]
            yield name, name.encode()
            at = end + 1

    def equal(self, low: str) -> list[tuple[str, bytes]]:
        """(name, key) of the names whose lowercase is `low`, in order."""
        out = []
        if low and "\n" not in low:
            text, lowered, pattern, size = self.text, self.lowered, "\n" + low + "\n", len(low)
            for start, end in self.spans(low[0]):
                at = lowered.find(pattern, start - 1, end + 1)
                while at >= 0:
                    name = text[at + 1:at + 1 + size]
                    out.append((name, name.encode()))
                    at = lowered.find(pattern, at + size + 1, end + 1)
        out += [(n, k) for n, k, lower in self.others if lower == low]
        return out


def _first_line(text: str, c: str) -> int:
    """Where the first line of `text` (sorted lines, each after a line break, the text ending
    in one) that starts with `c` or a later character begins; len(text) if none does."""
    def start(at: int) -> int:  # the first line starting at or after `at` (1 <= at <= len(text))
        return text.find("\n", at - 1) + 1

    lo, hi = 1, len(text)
    while lo < hi:
        mid = (lo + hi) // 2
        line = start(mid)
        if line == len(text) or text[line] >= c:
            hi = mid
        else:
            lo = mid + 1
    return start(lo)


class NearNames:
    """Defined names arranged for near-name lookups: those of a list (`NearNames(names)`), or a
    snapshot's, read from the store (`NearNames.of_snapshot`)."""

    def __init__(self, names: list[str]) -> None:
        """Over `names`, sorted and distinct: one run, laid out as the store lays its runs out."""
        keyed = [(n, n.encode("utf-8", "surrogatepass")) for n in names]
        text = run_of([n for n, key in keyed if is_plain(key)], []).text
        self._setup([_Run(text, [(n, key, n.lower()) for n, key in keyed if not is_plain(key)])], None)

    @classmethod
    def of_snapshot(cls, snap: Snapshot) -> NearNames:
        """Over the store's runs of names (indexer/store/name_runs.py), each name kept only if the
        snapshot defines it (`snap.defines`)."""
        self = cls.__new__(cls)
        runs = [_Run(r.text, [(name_of(k), k, name_of(k).lower()) for k in r.others]) for r in snap.name_runs()]
        self._setup(runs, snap.defines)
        return self

    def _setup(self, runs: list[_Run], defines: Callable[[bytes], bool] | None) -> None:
        self._runs = runs
        self._defines = defines
        self._defined: dict[bytes, bool] = {}
        self._equal: dict[str, list[str]] = {}

    def near(self, low: str, limit: int = NEAR_MAX) -> list[str]:
        """Up to `limit` names near `low` (a lowercased name), best first: the name itself in
        any case, names containing it (in name order), then close spellings."""
        near = list(self.equal(low))
        exact = set(near)
        for name in self._containing(low):
            if len(near) >= limit:
                return near
            if name not in exact:
                near.append(name)
        if not low:
            return near[:limit]
        seen = set(near)
        candidates = _Candidates(self, low)
        for close in close_matches(low, candidates, admit=candidates.equal):
            for n in self.equal(close):
                if n not in seen:
                    seen.add(n)
                    near.append(n)
        return near[:limit]

    def equal(self, low: str, plain: list[tuple[str, bytes]] | None = None) -> list[str]:
        """The defined names whose lowercase is `low`, in order; `plain`: those of the runs'
        text, when the caller knows them."""
        found = self._equal.get(low)
        if found is None:
            if plain is None:
                items = [x for run in self._runs for x in run.equal(low)]
            else:
                items = plain + [(n, k) for run in self._runs for n, k, lower in run.others if lower == low]
            found = self._equal[low] = list(self._names(sorted(items)))
        return found

    def _containing(self, low: str) -> Iterator[str]:
        """The defined names whose lowercase contains `low`, in order; none for a line break."""
        if "\n" in low:
            return iter(())
        streams: list[Iterable[tuple[str, bytes]]] = []
        for run in self._runs:
            streams.append(run.containing(low))
            if run.others:
                streams.append([(n, k) for n, k, lower in run.others if low in lower])
        return self._names(heapq.merge(*streams))

    def _names(self, items: Iterable[tuple[str, bytes]]) -> Iterator[str]:
        """The names of (name, key) pairs in name order that the snapshot defines under one of
        their keys (two keys are one name when their bytes decode alike)."""
        for name, same in groupby(items, key=itemgetter(0)):
            if any(self._is_defined(key) for _, key in same):
                yield name

    def _is_defined(self, key: bytes) -> bool:
        if self._defines is None:
            return True
        found = self._defined.get(key)
        if found is None:
            found = self._defined[key] = self._defines(key)
        return found


class _Candidates:
    """The close-spelling candidates of a lookup: the lowercase names of its first letter, as
    (bound, name) with an upper bound of their ratio to it (what they have of its characters,
    at most its length: see close_matches), best bound first, names of one bound in reverse
    order. Counted on the runs' text in C; the names are picked out a batch of bounds at a
    time, so that a lookup that stops early never sorts the others."""

    def __init__(self, near: NearNames, low: str) -> None:
        self._near = near
        self._low = low
        self._picked: list[str] = []  # the current batch's names, and where each is (`_where`)
        self._where: list[int] = []

    def __iter__(self) -> Iterator[tuple[float, str]]:
        low, runs = self._low, self._near._runs
        first, size = low[0], len(low)
        drop = str.maketrans({c: None for c in set(low) if c != "\n"})  # keep the line breaks that split
        names: list[str] = []
        rests: list[str] = []  # each name without `low`'s characters
        where: list[int] = []  # each name's run and place in its text, as one number
        for i, run in enumerate(runs):
            for start, end in run.spans(first):
                lines = run.lowered[start:end].split("\n")
                names += lines
                rests += run.lowered[start:end].translate(drop).split("\n")
                where += accumulate(map(add, map(len, lines[:-1]), repeat(1)), initial=i * _FAR + start)
        lengths = list(map(len, names))
        # each name's shape, its length and how many of its characters `low` has, as one number
        shapes = list(map(add, map(mul, lengths, repeat(_LONG)), map(sub, lengths, map(len, rests))))
        for run in runs:
            for _, _, x in run.others:
                if x[:1] == first:
                    names.append(x)
                    shapes.append(len(x) * _LONG + len(x) - len(x.translate(drop)))
                    where.append(-1)
        counts = Counter(shapes)
        bound_of = {shape: 2.0 * min(shape % _LONG, size) / (shape // _LONG + size) for shape in counts}
        levels = sorted(((b, shape) for shape, b in bound_of.items() if b >= CUTOFF), reverse=True)
        at, batch = 0, 64
        while at < len(levels):
            # the next shapes, at most `batch` names together (but one shape at least), and never
            # a bound in part: a lookup stops at the first name of a bound it cannot use
            end, found = at + 1, counts[levels[at][1]]
            while end < len(levels) and (found + counts[levels[end][1]] <= batch
                                         or levels[end][0] == levels[end - 1][0]):
                found += counts[levels[end][1]]
                end += 1
            wanted = {shape for _, shape in levels[at:end]}
            chosen = list(map(wanted.__contains__, shapes))
            self._picked, self._where = list(compress(names, chosen)), list(compress(where, chosen))
            if levels[at][0] == levels[end - 1][0]:
                bound = levels[at][0]
                yield from zip(repeat(bound), sorted(self._picked, reverse=True))
            else:
                yield from sorted(zip(map(bound_of.__getitem__, compress(shapes, chosen)), self._picked), reverse=True)
            at, batch = end, batch * 8

    def equal(self, x: str) -> list[str]:
        """NearNames.equal of a name of the batch just yielded: its other cases, all of the
        same shape, are in the batch, and where they are is known (no search of the text)."""
        runs, size, plain = self._near._runs, len(x), []
        at = -1
        while True:
            try:
                at = self._picked.index(x, at + 1)
            except ValueError:
                break
            spot = self._where[at]
            if spot >= 0:
                name = runs[spot // _FAR].text[spot % _FAR:spot % _FAR + size]
                plain.append((name, name.encode()))
        return self._near.equal(x, plain)


def _lcs_length(x: str, masks: dict[str, int], full: int, size: int) -> int:
    """The length of a longest common subsequence of `x` and the word of `masks` (each of its
    characters -> the bits of its positions; `size` of them, `full` all set): bit-parallel, a
    few integer operations per character of `x` (Hyyrö, 2004)."""
    v = full
    for c in x:
        u = v & masks.get(c, 0)
        v = (v + u) | (v - u)
    return size - (v & full).bit_count()


def close_matches(word: str, bounded: Iterable[tuple[float, str]], n: int = CLOSE_MAX, cutoff: float = CUTOFF,
                  admit: Callable[[str], object] | None = None) -> list[str]:
    """difflib.get_close_matches(word, candidates, n, cutoff) over the distinct candidates that
    `admit` (asked only of a candidate about to be kept), given as (bound, candidate) with an
    upper bound of its ratio to `word`, in descending order of the pairs (best bound first,
    candidates of one bound in reverse order, as ties are broken). The same names in the same order,
    but most candidates are never compared: each is compared only while its bound can reach
    the n-th best ratio so far, and then only if the bound a longest common subsequence gives
    can (difflib's matching blocks are a common subsequence), which is far cheaper to know."""
    s = SequenceMatcher()
    s.set_seq2(word)  # as get_close_matches sets it: `word` is the sequence difflib indexes
    size = len(word)
    masks: dict[str, int] = {}
    for i, c in enumerate(word):
        masks[c] = masks.get(c, 0) | 1 << i
    full = (1 << size) - 1
    best: list[tuple[float, str]] = []  # a heap of the n best (ratio, candidate) so far
    seen: set[str] = set()

    def beaten(score: float, x: str) -> bool:  # (score, x) cannot be among the n best
        return score < cutoff or (len(best) == n and (score, x) < best[0])

    for bound, x in bounded:
        if beaten(bound, x):
            break  # nor can any after it
        if x in seen:
            continue
        seen.add(x)
        if beaten(2.0 * _lcs_length(x, masks, full, size) / (len(x) + size), x):
            continue
        s.set_seq1(x)
        score = s.ratio()
        if beaten(score, x) or (admit is not None and not admit(x)):
            continue
        if len(best) == n:
            heapq.heapreplace(best, (score, x))
        else:
            heapq.heappush(best, (score, x))
    return [x for _, x in sorted(best, reverse=True)]
