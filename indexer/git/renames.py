"""Rename and copy pairing the way `git diff -M -C` does it, so the inventory agrees with
git on status, paths and similarity score.

libgit2's `find_similar` measures similarity with its own hash and pairs differently
(it neither pairs symlinks or submodules nor lets exact matches win), so the pairing
is done here, following git's diffcore-rename and diffcore-delta:

1. Exact: a destination (added file) whose blob equals a source's old blob. Sources are
   deleted files and, for copies, modified ones. Regular files pair with regular files,
   anything else only with the very same mode. Preferred: a source not used yet, then
   one with the same basename, then the first by path, of the first IDENTICAL_CANDIDATES
   sources a destination could pair with (git's "too many identical alternatives").
2. Inexact, regular files only: git's score (bytes of the destination made of 64-byte
   line spans found in the source, over the larger size, on a 60000 scale), at least
   50%; the best four sources per destination, all candidates sorted by score then
   same basename (stable), assigned greedily: renames first from unused sources, then
   copies from any.
3. Naming: of the pairs sharing a source, each is a copy while the source is used again
   later (by a later destination in path order, or by staying at head); the last pair
   from a deleted source is the rename.

The inexact step is skipped, as git skips it past `diff.renameLimit`, when its files are
over the limit (sources times destinations over RENAME_LIMIT squared), when the blobs it
would read are over PAIRING_BYTES, or when comparing them would visit more than
PAIRING_WORK shared spans: a commit cannot choose how long pairing takes. What comparing
will visit is counted from the postings (which sources hold each span) and the
destinations' fingerprints before any of it is done, so a pairing past the bound stops
having read each blob once. `pairing` says which bound was met, so a reader is told that
no inexact rename or copy was looked for. Pairings given one `PairingSpent` share the bounds,
each drawing on what the earlier ones left.

Fingerprints and comparisons are numpy's, over arrays of all spans at once: the hash and
score are git's, and the tests hold them to `git diff -M -C`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import numpy as np

MAX_SCORE = 60000
MIN_SCORE = 30000  # -M50%
HASHBASE = 107927
CANDIDATES_PER_DEST = 4
IDENTICAL_CANDIDATES = 100  # git's find_identical_files: sources of one blob looked at a destination
RENAME_LIMIT = 1000  # git's diff.renameLimit: beyond limit^2 pairs, no inexact detection
PAIRING_BYTES = 64 * 1024 * 1024  # distinct blobs the inexact step reads and fingerprints
PAIRING_WORK = 100_000_000  # (destination span, source blob holding it) visits of the inexact step
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


# Bytes of blobs hashed at once: a multiple of 64, so a blob cut where no newline is met is
# cut at the end of a span. What one batch allocates grows with it, not with the blobs.
SEGMENT = 1 << 20


def fingerprints(blobs: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """diffcore-delta's fingerprint of each blob, as (blob index, span hash, bytes in spans
    with that hash) sorted by blob, then hash. A span is a line, cut at a newline or every 64
    bytes; the bytes after the last newline and the last cut are no span. CR of CRLF is
    ignored in text. The spans of many blobs are hashed together, a byte position of all of
    them at a time, SEGMENT bytes at a time."""
    import numpy as np

    found: list[tuple[np.ndarray, np.ndarray]] = []
    batch: list[tuple[int, bytes]] = []
    held = 0
    split = False  # a blob over SEGMENT bytes, hashed in pieces that may fall in two batches
    for bi, data in enumerate(blobs):
        split = split or len(data) > SEGMENT
        if b"\0" not in data[:FIRST_FEW_BYTES]:
            data = data.replace(b"\r\n", b"\n")
        pos = 0
        while pos < len(data):
            end = min(pos + SEGMENT, len(data))
            if end < len(data):
                cut = data.rfind(b"\n", pos, end)
                end = cut + 1 if cut >= 0 else end  # else SEGMENT bytes of one line: a span's end
            batch.append((bi, data[pos:end]))
            held += end - pos
            pos = end
            if held >= SEGMENT:
                found.append(_hashed(batch))
                batch, held = [], 0
    if batch:
        found.append(_hashed(batch))
    keys = np.concatenate([k for k, _ in found]) if found else np.zeros(0, np.int64)
    sizes = np.concatenate([n for _, n in found]) if found else np.zeros(0, np.int64)
    if split:  # batches in blob order, each sorted: only a blob cut in two batches is summed here
        keys, where = np.unique(keys, return_inverse=True)
        sizes = np.bincount(where, weights=sizes).astype(np.int64)
    return keys // HASHBASE, keys % HASHBASE, sizes


def _hashed(batch: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(blob index * HASHBASE + span hash, bytes) of the spans of the pieces of blobs in `batch`,
    each the given blob's bytes from a span's start; a piece with no newline at its end is its
    blob's last (its short last span is no span) or ends at a span's end."""
    import numpy as np

    buf = np.frombuffer(b"".join(piece for _, piece in batch), np.uint8)
    ends = np.cumsum([len(piece) for _, piece in batch])
    owners = np.array([bi for bi, _ in batch], np.int64)
    bounds = np.concatenate((np.flatnonzero(buf == 10) + 1, ends))  # where lines and pieces end
    bounds.sort()
    bounds = bounds[np.concatenate(([True], bounds[1:] != bounds[:-1]))]
    starts = np.concatenate(([0], bounds[:-1]))
    lengths = bounds - starts
    whole = buf[bounds - 1] == 10
    pieces = np.where(whole, (lengths + 63) // 64, lengths // 64)
    total = int(pieces.sum())
    if not total:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    line = np.repeat(np.arange(len(starts)), pieces)
    first = starts[line] + 64 * (np.arange(total) - (np.cumsum(pieces) - pieces)[line])
    size = np.minimum(64, bounds[line] - first)
    order = np.argsort((64 - size).astype(np.uint8), kind="stable")  # longest first: those still read at byte j lead
    first, size = first[order], size[order]
    longer = np.bincount(size, minlength=65)[::-1].cumsum()[::-1]  # longer[j]: spans of j bytes or more
    data = buf.astype(np.uint64)
    a1 = np.zeros(total, np.uint64)
    a2 = np.zeros(total, np.uint64)
    u32, seven, left = np.uint64(_U32), np.uint64(7), np.uint64(25)
    for j in range(64):  # git's hash_chars, byte j of every span at once
        m = int(longer[j + 1])
        if not m:
            break
        x1, x2 = a1[:m], a2[:m]
        n1 = ((x1 << seven) & u32) ^ (x2 >> left)
        a2[:m] = ((x2 << seven) & u32) ^ (x1 >> left)
        a1[:m] = (n1 + data[first[:m] + j]) & u32
    hashes = (((a1 + a2 * np.uint64(0x61)) & u32) % np.uint64(HASHBASE)).astype(np.int64)
    # a span's key and size in one number (a size is at most 64): one sort groups them
    packed = ((owners[np.searchsorted(ends, first, side="right")] * HASHBASE + hashes) << 7) | size
    packed.sort()
    keys = packed >> 7
    heads = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[heads], np.add.reduceat(packed & 127, heads)


@dataclass(frozen=True)
class Pairing:
    pairs: list[Pair]
    skipped: str | None = None  # why no inexact rename or copy was looked for; None when it was


@dataclass
class PairingSpent:
    """What the inexact steps of pairings drawing on one budget have spent, in the order they
    ran: the bytes of the blobs they read (against PAIRING_BYTES) and the span visits they made
    (against PAIRING_WORK). A Delta packet's two patchsets pair within one."""

    bytes: int = 0
    work: int = 0


def pair(sources: list[Candidate], dests: list[Candidate], read: Callable[[str], bytes],
         size: Callable[[str], int]) -> list[Pair]:
    """Pairs in destination path order (see `pairing`)."""
    return pairing(sources, dests, read, size).pairs


def pairing(sources: list[Candidate], dests: list[Candidate], read: Callable[[str], bytes],
            size: Callable[[str], int], spent: PairingSpent | None = None) -> Pairing:
    """Pairs in destination path order, and why the inexact step was skipped, if it was.
    `read(oid)` gives a blob's bytes, `size(oid)` its size (read first: like git, blobs whose
    sizes rule every pairing out are never hashed). `spent`: what earlier pairings of the same
    budget spent, drawn on here (a budget of its own when None)."""
    sources = sorted(sources, key=lambda c: c.path)
    dests = sorted(dests, key=lambda c: c.path)
    uses = {s.path: int(s.stays) for s in sources}  # a staying source counts itself as a user
    chosen: dict[str, tuple[Candidate, int]] = {}

    by_oid: dict[str, list[Candidate]] = {}
    for s in sources:
        by_oid.setdefault(s.oid, []).append(s)
    for d in dests:
        best, best_score = None, -1
        left = IDENTICAL_CANDIDATES
        for s in by_oid.get(d.oid, ()):
            if not (_regular(s.mode) and _regular(d.mode)) and s.mode != d.mode:
                continue
            rank = (uses[s.path] == 0) + (_basename(s.path) == _basename(d.path))
            if rank > best_score:
                best, best_score = s, rank
                if rank == 2:
                    break
            left -= 1
            if not left:  # as git, past that many a destination takes the best seen
                break
        if best is not None:
            uses[best.path] += 1
            chosen[d.path] = (best, MAX_SCORE)

    skipped = _inexact(sources, [d for d in dests if d.path not in chosen], uses, chosen, read, size,
                       spent if spent is not None else PairingSpent())

    remaining = dict(uses)
    out = []
    for d in dests:
        if d.path not in chosen:
            continue
        s, sc = chosen[d.path]
        remaining[s.path] -= 1
        out.append(Pair(s, d, sc * 100 // MAX_SCORE, renamed=remaining[s.path] == 0))
    return Pairing(out, skipped)


def _sizes_compatible(a: int, b: int) -> bool:
    hi, lo = max(a, b), min(a, b)
    return hi * (MAX_SCORE - MIN_SCORE) >= (hi - lo) * MAX_SCORE


def _left(bound: int, spent: int) -> str:
    return "" if not spent else f", what earlier pairings of the packet left of {bound}"


def _inexact(sources: list[Candidate], dests: list[Candidate], uses: dict[str, int],
             chosen: dict[str, tuple[Candidate, int]], read: Callable[[str], bytes],
             size: Callable[[str], int], spent: PairingSpent) -> str | None:
    """Adds the inexact pairs to `chosen`; or, past a bound (less what `spent` holds), none,
    and says which. The bytes to read are spent once reading starts, the visits once made."""
    srcs = [s for s in sources if _regular(s.mode)]
    dsts = [d for d in dests if _regular(d.mode)]
    if not srcs or not dsts:
        return None
    if len(srcs) * len(dsts) > RENAME_LIMIT * RENAME_LIMIT:
        return (f"{len(srcs)} possible sources times {len(dsts)} added files are over git's rename limit "
                f"({RENAME_LIMIT} squared): only renames and copies of identical content were looked for")
    # Size first: a destination no source could match by size scores 0 against all of them,
    # and a source no destination could match is never read.
    ssize = [size(s.oid) for s in srcs]
    dsize_of = [size(d.oid) for d in dsts]
    live_src = [any(_sizes_compatible(a, b) for b in dsize_of) for a in ssize]
    live_dst = [any(_sizes_compatible(a, b) for a, ok in zip(ssize, live_src) if ok) for b in dsize_of]
    to_read = {s.oid: n for s, n, ok in zip(srcs, ssize, live_src) if ok}
    to_read.update({d.oid: n for d, n, ok in zip(dsts, dsize_of, live_dst) if ok})
    if sum(to_read.values()) > PAIRING_BYTES - spent.bytes:
        return (f"the files that could pair hold {sum(to_read.values())} bytes, over {PAIRING_BYTES - spent.bytes}"
                f"{_left(PAIRING_BYTES, spent.bytes)}: only renames and copies of identical content were looked for")
    spent.bytes += sum(to_read.values())
    from indexer.rank import load_numpy

    load_numpy("numpy's import, for pairing renames")
    import numpy as np

    # Each distinct blob is fingerprinted once (a row), however many paths hold it. The
    # postings (span hash -> source rows holding it, with their bytes) make a destination's
    # shared bytes with every source one pass over its own spans.
    src_rows: dict[str, int] = {}
    row_of = np.full(len(srcs), -1, np.int64)
    for si, s in enumerate(srcs):
        if live_src[si]:
            row_of[si] = src_rows.setdefault(s.oid, len(src_rows))
    rows, hashes, held = fingerprints([read(oid) for oid in src_rows])
    order = np.argsort(hashes)  # a hash's sources in any order: their bytes are summed
    post_rows, post_bytes = rows[order], held[order]
    starts = np.zeros(HASHBASE + 1, np.int64)
    np.cumsum(np.bincount(hashes, minlength=HASHBASE), out=starts[1:])
    holders = np.diff(starts)  # source rows holding each span hash
    del rows, hashes, held, order

    # What comparing will cost is known from the postings before any of it is spent: each
    # destination blob visits, for each of its spans, every source row holding it.
    dst_blobs: dict[str, list[int]] = {}
    for di, d in enumerate(dsts):
        if live_dst[di]:
            dst_blobs.setdefault(d.oid, []).append(di)
    groups = _groups(list(dst_blobs), [to_read[oid] for oid in dst_blobs])
    data: dict[str, bytes] = {}  # read once, held (within PAIRING_BYTES) until compared
    work = 0
    for group in groups:
        data.update((oid, read(oid)) for oid in group)
        _, hashes, _ = fingerprints([data[oid] for oid in group])
        work += int(holders[hashes].sum())
        if work > PAIRING_WORK - spent.work:
            return (f"comparing the files that could pair would visit over {PAIRING_WORK - spent.work} shared spans"
                    f"{_left(PAIRING_WORK, spent.work)}: only renames and copies of identical content were looked for")
    spent.work += work

    sizes = np.array(ssize, np.int64)
    name_ids: dict[str, int] = {}
    names = np.array([name_ids.setdefault(_basename(s.path), len(name_ids)) for s in srcs], np.int64)
    # (score, same basename, dest index, slot, source index): git keeps the best four per
    # destination as its record_if_better keeps them, in slots, and sorts all kept (stable, in
    # destination then slot order) by score, then basename
    matrix: list[tuple[int, int, int, int, int]] = []
    for group in groups:
        rows, hashes, held = fingerprints([data.pop(oid) for oid in group])
        bounds = np.searchsorted(rows, np.arange(len(group) + 1))
        for gi, oid in enumerate(group):
            lo, hi = bounds[gi], bounds[gi + 1]
            shared = _shared(hashes[lo:hi], held[lo:hi], starts, post_rows, post_bytes, len(src_rows))
            copied = np.where(row_of >= 0, shared[np.maximum(row_of, 0)], 0)
            dsize = to_read[oid]  # git's estimate_similarity against every source: 0 when sizes differ too much
            top = np.maximum(sizes, dsize)
            fits = (top * (MAX_SCORE - MIN_SCORE) >= (top - np.minimum(sizes, dsize)) * MAX_SCORE) & (dsize > 0)
            scores = np.where(fits, copied * MAX_SCORE // np.maximum(top, 1), 0)
            strong = np.flatnonzero(scores >= MIN_SCORE)
            if len(strong):  # else no entry of this blob's paths could pair
                for di in dst_blobs[oid]:
                    dname = name_ids.get(_basename(dsts[di].path), -1)
                    matrix.extend(_kept(scores, strong, names, dname, di))
    matrix.sort(key=lambda e: (-e[0], -e[1], e[2], e[3]))

    for copies in (False, True):
        for sc, _, di, _, si in matrix:
            d, s = dsts[di], srcs[si]
            if d.path in chosen or (not copies and uses[s.path]):
                continue
            uses[s.path] += 1
            chosen[d.path] = (s, sc)
    return None


def _groups(oids: list[str], sizes: list[int]) -> list[list[str]]:
    """The blobs in groups of about SEGMENT bytes (one larger blob alone), in order: a group's
    fingerprints are made together and held while they are compared."""
    out: list[list[str]] = []
    held = SEGMENT
    for oid, n in zip(oids, sizes):
        if held + n > SEGMENT:
            out.append([])
            held = 0
        out[-1].append(oid)
        held += n
    return out


# Visits of the postings made at once for one destination: what they allocate is bounded by it.
VISITS = 1 << 20


def _shared(hashes: np.ndarray, held: np.ndarray, starts: np.ndarray, post_rows: np.ndarray,
            post_bytes: np.ndarray, count: int) -> np.ndarray:
    """Bytes a destination of these span hashes (`held` bytes each) shares with each source
    row: the sum over its spans of the smaller of its bytes and the row's."""
    import numpy as np

    first, many = starts[hashes], starts[hashes + 1] - starts[hashes]
    keep = many > 0
    first, many, held = first[keep], many[keep], held[keep]
    shared = np.zeros(count, np.float64)
    ends = np.cumsum(many)
    lo = 0
    while lo < len(many):
        hi = int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + VISITS, side="right"))
        hi = max(hi, lo + 1)
        part, base = many[lo:hi], first[lo:hi]
        at = np.repeat(base - (np.cumsum(part) - part), part) + np.arange(int(part.sum()))
        both = np.minimum(post_bytes[at], np.repeat(held[lo:hi], part))
        shared += np.bincount(post_rows[at], weights=both, minlength=count)
        lo = hi
    return shared.astype(np.int64)


def _kept(scores: np.ndarray, strong: np.ndarray, names: np.ndarray, dname: int, di: int
          ) -> list[tuple[int, int, int, int, int]]:
    """The entries git's record_if_better keeps of destination `di` that could pair: scored at
    least MIN_SCORE (`strong`, of `scores` against every source, in source order; `names`: the
    sources' basenames, `dname` the destination's). The first four entries fill its slots; a
    later one replaces the lowest (the first of equals) only when strictly better, so one
    scoring 0 of another basename never does. When at most four could pair, all are kept,
    and when they differ in (score, basename) the order of their slots does not show: no slot
    is followed."""
    import numpy as np

    if len(strong) <= CANDIDATES_PER_DEST:
        entries = [(int(scores[si]), int(names[si] == dname), di, 0, int(si)) for si in strong]
        if len({(e[0], e[1]) for e in entries}) == len(entries):
            return entries
    same_name = names == dname
    rest = np.flatnonzero((scores > 0) | same_name)
    order = np.concatenate((np.arange(min(CANDIDATES_PER_DEST, len(scores))), rest[rest >= CANDIDATES_PER_DEST]))
    best: list[tuple[int, int, int, int]] = []  # (score, same basename, dest index, source index)
    worst = 0
    for si in order.tolist():
        entry = (int(scores[si]), int(same_name[si]), di, si)
        if len(best) < CANDIDATES_PER_DEST:
            best.append(entry)
            if len(best) == CANDIDATES_PER_DEST:
                worst = _worst(best)
        elif (entry[0], entry[1]) > (best[worst][0], best[worst][1]):
            best[worst] = entry
            worst = _worst(best)
    return [(sc, name, di, slot, si) for slot, (sc, name, _, si) in enumerate(best) if sc >= MIN_SCORE]


def _worst(best: list[tuple[int, int, int, int]]) -> int:
    """The slot git's record_if_better replaces next: the lowest, first of equals."""
    return max(range(len(best)), key=lambda i: (-best[i][0], -best[i][1], -i))
