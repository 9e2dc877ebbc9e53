"""Rename and copy pairing the way `git diff -M -C` does it, so the inventory agrees with
git on status, paths and similarity score.

libgit2's `find_similar` measures similarity with its own hash and pairs differently
(it neither pairs symlinks or submodules nor lets exact matches win), so the pairing
is done here, following git's diffcore-rename and diffcore-delta:

1. Exact: a destination (added file) whose blob equals a source's old blob. Sources are
   deleted files and, for copies, modified ones. Regular files pair with regular files,
   anything else only with the very same mode. Preferred: a source not used yet, then
   one with the same basename, then the first by path.
2. Inexact, regular files only: git's score (bytes of the destination made of 64-byte
   line spans found in the source, over the larger size, on a 60000 scale), at least
   50%; the best four sources per destination, all candidates sorted by score then
   same basename (stable), assigned greedily: renames first from unused sources, then
   copies from any.
3. Naming: of the pairs sharing a source, each is a copy while the source is used again
   later (by a later destination in path order, or by staying at head); the last pair
   from a deleted source is the rename.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

MAX_SCORE = 60000
MIN_SCORE = 30000  # -M50%
HASHBASE = 107927
CANDIDATES_PER_DEST = 4
RENAME_LIMIT = 1000  # git's diff.renameLimit: beyond limit^2 pairs, no inexact detection
FIRST_FEW_BYTES = 8000
_U32 = 0xFFFFFFFF

MODE_FILE = 0o100644
MODE_EXEC = 0o100755


@dataclass(frozen=True)
class Candidate:
    path: str
    mode: int  # source: its base mode; destination: its head mode
    oid: str  # source: its base blob; destination: its head blob
    stays: bool = False  # a source still present at head (modified): only ever copied from


@dataclass(frozen=True)
class Pair:
    source: Candidate
    dest: Candidate
    similarity: int  # 0-100, as git prints it
    renamed: bool  # False: a copy


def _regular(mode: int) -> bool:
    return mode in (MODE_FILE, MODE_EXEC)


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def span_counts(data: bytes, memo: dict[bytes, int] | None = None) -> dict[int, int]:
    """diffcore-delta's fingerprint: hash of each line span (cut at a newline or 64 bytes)
    -> bytes in spans with that hash; the bytes after the last newline and the last cut are
    no span. CR of CRLF is ignored in text. `memo` caches span hashes across blobs (lines
    repeat a lot in code)."""
    memo = {} if memo is None else memo
    if b"\0" not in data[:FIRST_FEW_BYTES]:
        data = data.replace(b"\r\n", b"\n")
    counts: dict[int, int] = {}
    parts = data.split(b"\n")
    last = len(parts) - 1
    for i, part in enumerate(parts):
        line = part + b"\n" if i < last else part
        for start in range(0, len(line), 64):
            piece = line[start:start + 64]
            if i == last and len(piece) < 64:
                break  # a last line with no newline ends its last span short: git counts none such
            h = memo.get(piece)
            if h is None:
                a1 = a2 = 0
                for c in piece:
                    old1 = a1
                    a1 = (((a1 << 7) & _U32) ^ (a2 >> 25))
                    a2 = (((a2 << 7) & _U32) ^ (old1 >> 25))
                    a1 = (a1 + c) & _U32
                h = memo[piece] = ((a1 + a2 * 0x61) & _U32) % HASHBASE
            counts[h] = counts.get(h, 0) + len(piece)
    return counts


def score(src_size: int, dst_size: int, copied: int) -> int:
    """git's estimate_similarity on the 0..MAX_SCORE scale (0 when sizes differ too much);
    `copied` is the bytes of span counts the two share (the smaller count per hash)."""
    max_size, base_size = max(src_size, dst_size), min(src_size, dst_size)
    if max_size * (MAX_SCORE - MIN_SCORE) < (max_size - base_size) * MAX_SCORE:
        return 0
    if not dst_size:
        return 0
    return copied * MAX_SCORE // max_size


def pair(sources: list[Candidate], dests: list[Candidate], read: Callable[[str], bytes],
         size: Callable[[str], int]) -> list[Pair]:
    """Pairs in destination path order. `read(oid)` gives a blob's bytes, `size(oid)` its size
    (read first: like git, blobs whose sizes rule every pairing out are never hashed)."""
    sources = sorted(sources, key=lambda c: c.path)
    dests = sorted(dests, key=lambda c: c.path)
    uses = {s.path: int(s.stays) for s in sources}  # a staying source counts itself as a user
    chosen: dict[str, tuple[Candidate, int]] = {}

    by_oid: dict[str, list[Candidate]] = {}
    for s in sources:
        by_oid.setdefault(s.oid, []).append(s)
    for d in dests:
        best, best_score = None, -1
        for s in by_oid.get(d.oid, ()):
            if not (_regular(s.mode) and _regular(d.mode)) and s.mode != d.mode:
                continue
            rank = (uses[s.path] == 0) + (_basename(s.path) == _basename(d.path))
            if rank > best_score:
                best, best_score = s, rank
        if best is not None:
            uses[best.path] += 1
            chosen[d.path] = (best, MAX_SCORE)

    _inexact(sources, [d for d in dests if d.path not in chosen], uses, chosen, read, size)

    remaining = dict(uses)
    out = []
    for d in dests:
        if d.path not in chosen:
            continue
        s, sc = chosen[d.path]
        remaining[s.path] -= 1
        out.append(Pair(s, d, sc * 100 // MAX_SCORE, renamed=remaining[s.path] == 0))
    return out


def _sizes_compatible(a: int, b: int) -> bool:
    hi, lo = max(a, b), min(a, b)
    return hi * (MAX_SCORE - MIN_SCORE) >= (hi - lo) * MAX_SCORE


def _inexact(sources: list[Candidate], dests: list[Candidate], uses: dict[str, int],
             chosen: dict[str, tuple[Candidate, int]], read: Callable[[str], bytes],
             size: Callable[[str], int]) -> None:
    srcs = [s for s in sources if _regular(s.mode)]
    dsts = [d for d in dests if _regular(d.mode)]
    if not srcs or not dsts or len(srcs) * len(dsts) > RENAME_LIMIT * RENAME_LIMIT:
        return
    # Size first: a destination no source could match by size scores 0 against all of them,
    # and a source no destination could match is never read. Both keep their matrix slots.
    ssize = [size(s.oid) for s in srcs]
    dsize_of = [size(d.oid) for d in dsts]
    live_src = [any(_sizes_compatible(a, b) for b in dsize_of) for a in ssize]
    live_dst = [any(_sizes_compatible(a, b) for a, ok in zip(ssize, live_src) if ok) for b in dsize_of]
    spans: dict[str, tuple[int, dict[int, int]]] = {}
    memo: dict[bytes, int] = {}

    def fingerprint(oid: str) -> tuple[int, dict[int, int]]:
        if oid not in spans:
            data = read(oid)
            spans[oid] = (len(data), span_counts(data, memo))
        return spans[oid]

    # An inverted index (span hash -> sources holding it) makes one destination's shared
    # bytes with every source one pass over its own spans.
    postings: dict[int, list[tuple[int, int]]] = {}
    src_sizes = []
    names = [_basename(s.path) for s in srcs]
    for si, s in enumerate(srcs):
        src_sizes.append(ssize[si])
        if not live_src[si]:
            continue
        _, counts = fingerprint(s.oid)
        for h, n in counts.items():
            postings.setdefault(h, []).append((si, n))

    # (score, same basename, dest index, source index); the best four per destination are
    # kept as git's record_if_better keeps them
    matrix: list[tuple[int, int, int, int]] = []
    for di, d in enumerate(dsts):
        dsize, dcounts = fingerprint(d.oid) if live_dst[di] else (dsize_of[di], {})
        copied = [0] * len(srcs)
        for h, n in dcounts.items():
            for si, sn in postings.get(h, ()):
                copied[si] += sn if sn < n else n
        dname = _basename(d.path)
        best: list[tuple[int, int, int, int]] = []
        worst = 0
        for si in range(len(srcs)):
            entry = (score(src_sizes[si], dsize, copied[si]), int(names[si] == dname), di, si)
            if len(best) < CANDIDATES_PER_DEST:
                best.append(entry)
                if len(best) == CANDIDATES_PER_DEST:
                    worst = _worst(best)
            elif (entry[0], entry[1]) > (best[worst][0], best[worst][1]):
                best[worst] = entry
                worst = _worst(best)
        matrix.extend(best)
    matrix.sort(key=lambda e: (-e[0], -e[1]))  # stable, as git's STABLE_QSORT

    for copies in (False, True):
        for sc, _, di, si in matrix:
            if sc < MIN_SCORE:
                break
            d, s = dsts[di], srcs[si]
            if d.path in chosen or (not copies and uses[s.path]):
                continue
            uses[s.path] += 1
            chosen[d.path] = (s, sc)


def _worst(best: list[tuple[int, int, int, int]]) -> int:
    """The slot git's record_if_better replaces next: the lowest, first of equals."""
    return max(range(len(best)), key=lambda i: (-best[i][0], -best[i][1], -i))
