"""The element differ: symbol-level changes per changed file, from the Repo Map
snapshots at the merge base and at head.

A symbol is keyed by (qualified name, kind, n-th of that pair in the file); its body
is the words of its span's lines, and their indentation where it is syntax: the same
whitespace-only rule as the noise classes (`delta.hunks.words`), so `'a b'` made `'ab'`,
or a line re-indented out of its block in Python, modifies a symbol. Two spans of the same
words whose bytes differ hold the same body only where the file's grammar says the
whitespace that moved is layout: the same tree over each span, each literal byte for byte
(`delta.syntax.stretch`, within the packet's parse bounds), so a space put into a string, a
heredoc's trailing space or a blank line in a template literal modifies its symbol; past a
bound, or with no tree of a side, the spans differ. Per file: added,
removed, modified (same key, other body), moved (same key and body, but off the longest
common order of its container's members). Across files: a symbol removed from one file and added to
another with the same key and body is one `moved` change, reported where it landed.
A file whose symbols were not extracted on a side it exists on gets a `not_assessed`
mark instead of a guess.
"""

from __future__ import annotations

import difflib
import hashlib
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from msgspec import Struct

from delta.hunks import cr_is_data, indent_significant, indents, words
from delta.inventory import FileChange
from delta.syntax import Parsed, Parses
from indexer.contract.result import Listed, Unknown, not_assessed

if TYPE_CHECKING:
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot

Key = tuple[str, str, int]  # qualified name, kind, ordinal


class ElementChange(Struct, frozen=True, omit_defaults=True):
    change: str  # added | removed | modified | moved
    kind: str
    qualified: str
    line: int | None = None  # at head (added, modified, moved)
    old_line: int | None = None  # at the merge base (removed, modified, moved)
    from_path: str | None = None  # moved: the file it left


class FileElements(Struct, frozen=True):
    path: str
    changes: Listed[ElementChange]  # {items, unknown}: unknown when the file's symbols could not be read


class _Side:
    def __init__(self, path: str, blob: str, data: bytes) -> None:
        self.path, self.blob, self.data = path, blob, data
        self.symbols: dict[Key, tuple[Symbol, str]] = {}  # key -> (Symbol, body hash)


@dataclass(frozen=True)
class _Span:
    """Where an added or removed symbol's text lies, to compare it with its peer's when a
    move across files is paired: its side's snapshot is read again only if their bytes differ."""

    head: bool  # at head, else at the merge base
    path: str
    blob: str
    start: int
    end: int
    digest: bytes  # of its bytes


# `_Syntax`'s same-file check: whether the noise classes found these two blobs, at such a
# path, to hold the same tree and literals (old blob, new blob, path)
SameTrees = Callable[[str, str, str], bool]


class _Syntax:
    """What the grammar says of two spans of the same words whose bytes differ: the same when
    both sides parse (`delta.syntax.parse`) and give the same tree over them, literals byte for
    byte (`Parses.stretch`), within the packet's bytes and nodes (`Parses`); else they differ,
    so that no bound passed, syntax error or grammar missing hides a change of a literal. The
    trees of the last two sides asked of are kept: a file's two, or a move's source and
    destination."""

    KEEP = 2

    def __init__(self, parses: Parses | None) -> None:
        self.parses = parses or Parses()
        self._trees: dict[tuple[str, str], Parsed | None] = {}  # (blob, path), least recent first

    def _tree(self, path: str, blob: str, data: Callable[[], bytes]) -> Parsed | None:
        key = (blob, path)
        if key in self._trees:
            found = self._trees.pop(key)
        else:
            if len(self._trees) >= self.KEEP:  # let it go before the next is parsed
                del self._trees[next(iter(self._trees))]
            found = self.parses(path, data())
        self._trees[key] = found
        return found

    def forget(self) -> None:
        self._trees.clear()

    def same(self, old: tuple[str, str, Callable[[], bytes]], a: tuple[int, int],
             new: tuple[str, str, Callable[[], bytes]], b: tuple[int, int]) -> bool:
        """Whether span `a` of the file `old` (path, blob, its bytes) and span `b` of `new`
        hold the same tree and literals."""
        if self.parses.nodes_left <= 0:  # no walk is left to the packet: nothing to parse for
            return False
        before = self._tree(*old)
        after = self._tree(*new) if before is not None else None
        if before is None or after is None:
            return False
        key = self.parses.stretch(before, *a)
        return key is not None and key == self.parses.stretch(after, *b)


# The element changes a packet lists, and the definitions the differ reads to find them (both
# sides of each file it assesses): a change of a few kilobytes may name one large blob at
# thousands of paths, and each path would be read and listed.
ELEMENT_CAP = 20_000
DEFINITIONS_CAP = 200_000


def _side(snap: Snapshot, path: str | None) -> _Side | Unknown | None:
    """The symbols of `path` in `snap`; None when the file does not exist on that side. Its
    facts are read, not kept by the snapshot: each file is read once."""
    if path is None:
        return None
    entry = snap.file(path)
    if entry is None:
        return not_assessed(f"{path} is not in the snapshot at {snap.oid[:12]}")
    facts = snap.core_facts(path, keep=False)
    if facts is None or entry.skipped or facts.skipped:
        why = entry.skipped or (facts.skipped if facts else "") or entry.language
        return not_assessed(f"no symbols extracted for {path} at {snap.oid[:12]} ({why})")
    data = snap.blob_bytes(path)
    indented, shell = indent_significant(path), cr_is_data(path, data)
    side = _Side(path, entry.blob, data)
    seen: dict[tuple[str, str], int] = {}
    for sym in facts.symbols:
        pair = (sym.qualified, sym.kind)
        n = seen.get(pair, 0)
        seen[pair] = n + 1
        body = _body(data[sym.start_byte:sym.end_byte], indented, shell)
        side.symbols[(sym.qualified, sym.kind, n)] = (sym, body)
    return side


def _body(span: bytes, indented: bool, shell: bool) -> str:
    """What a change of whitespace alone keeps of a symbol's span, hashed (a CR kept where it
    is data, `delta.hunks.cr_is_data`)."""
    lines = span.split(b"\n")
    h = hashlib.sha256()
    for part in words(lines, shell) + ([b"\0indents"] + indents(lines) if indented else []):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def diff_elements(changes: list[FileChange], base_snap: Snapshot, head_snap: Snapshot,
                  parses: Parses | None = None, same_trees: SameTrees | None = None) -> list[FileElements]:
    """The element changes of each file, in the order given (the packet's rank). A file whose
    changes would take the list past ELEMENT_CAP is not assessed, and says why; once the
    files read hold over DEFINITIONS_CAP definitions, neither are that file and the rest.
    `parses` is the packet's parse budget, shared with the noise classes; `same_trees` says
    which pairs of blobs they found to hold the same tree and literals, not parsed again."""
    results: dict[str, list[ElementChange] | Unknown] = {}
    removed_at: dict[tuple[str, str, str], list[str]] = {}  # (qualified, kind, body) -> files it left
    added_body: dict[tuple[str, int], str] = {}  # (file, index in its list) -> body
    spans: dict[tuple[str, int], _Span] = {}  # (file, index in its list) -> an addition's or removal's span
    removed_body: dict[tuple[str, int], str] = {}  # (file, index in its list) -> a removal's body
    syntax = _Syntax(parses)
    listed = read = 0
    capped: Unknown | None = None
    for change in changes:
        if change.binary:
            continue
        if capped is not None:
            results[change.path] = capped
            continue
        old_path = None if change.status in ("added", "copied") else change.old_path
        old = _side(base_snap, old_path)
        new = _side(head_snap, change.new_path)
        if isinstance(old, Unknown) or isinstance(new, Unknown):
            results[change.path] = old if isinstance(old, Unknown) else new  # type: ignore[assignment]
            continue
        old, new = old or _Side("", "", b""), new or _Side("", "", b"")  # a side the file is not on holds nothing
        before, after = old.symbols, new.symbols
        read += len(before) + len(after)
        if read > DEFINITIONS_CAP:
            capped = not_assessed(f"the element differ reads at most {DEFINITIONS_CAP:,} definitions a packet; "
                                  f"this file and those ranked after it would pass them")
            results[change.path] = capped
            continue
        out: list[ElementChange] = []
        bodies: dict[int, str] = {}
        removed: list[tuple[int, tuple[str, str, str]]] = []  # (place in `out`, (qualified, kind, body))
        held: dict[int, _Span] = {}  # place in `out` -> the span of an addition or removal
        kept = _kept(syntax, same_trees, old, new)
        syntax.forget()  # a file's trees are let go with it: a move's pairing parses its own
        for key, (sym, body) in after.items():
            if key not in before:
                bodies[len(out)] = body
                held[len(out)] = _span(True, new, sym)
                out.append(ElementChange("added", sym.kind, sym.qualified, line=sym.line))
            elif key not in kept:
                out.append(ElementChange("modified", sym.kind, sym.qualified, line=sym.line,
                                         old_line=before[key][0].line))
        for key, (sym, body) in before.items():
            if key not in after:
                held[len(out)] = _span(False, old, sym)
                removed.append((len(out), (sym.qualified, sym.kind, body)))
                out.append(ElementChange("removed", sym.kind, sym.qualified, old_line=sym.line))
        for key in _reordered(before, after):
            if key in kept:
                sym = after[key][0]
                out.append(ElementChange("moved", sym.kind, sym.qualified, line=sym.line,
                                         old_line=before[key][0].line))
        if listed + len(out) > ELEMENT_CAP:
            results[change.path] = not_assessed(
                f"a packet lists at most {ELEMENT_CAP:,} element changes; the {len(out):,} of this file would "
                f"pass them, with the {listed:,} of the files ranked before it")
            continue
        listed += len(out)
        for i, body in bodies.items():
            added_body[(change.path, i)] = body
        for i, where in removed:
            removed_at.setdefault(where, []).append(change.path)
            removed_body[(change.path, i)] = where[2]
        for i, span in held.items():
            spans[(change.path, i)] = span
        results[change.path] = out
    snaps = {True: head_snap, False: base_snap}

    def moved_whole(added: tuple[str, int], gone: tuple[str, int]) -> bool:
        """Whether an addition and a removal of the same words hold the same tree and literals."""
        a, r = spans[added], spans[gone]
        if a.digest == r.digest:
            return True
        return syntax.same((r.path, r.blob, lambda: snaps[r.head].blob_bytes(r.path)), (r.start, r.end),
                           (a.path, a.blob, lambda: snaps[a.head].blob_bytes(a.path)), (a.start, a.end))

    _pair_moves(results, removed_at, added_body, moved_whole, removed_body)
    return [FileElements(path, Listed(v) if isinstance(v, list) else Listed([], v))
            for path, v in ((p, _ordered(v)) for p, v in sorted(results.items()))]


def _span(head: bool, side: _Side, sym: Symbol) -> _Span:
    text = side.data[sym.start_byte:sym.end_byte]
    return _Span(head, side.path, side.blob, sym.start_byte, sym.end_byte, hashlib.sha256(text).digest())


def _kept(syntax: _Syntax, same_trees: SameTrees | None, old: _Side, new: _Side) -> set[Key]:
    """The symbols on both sides whose bodies are the same: the same words, and the same bytes
    or, where those differ, the same tree and literals (the file's two sides found so whole by
    the noise classes, else its spans by `_Syntax`). Outermost first: a symbol inside one found
    the same on both sides is the same too, not walked again."""
    kept: set[Key] = set()
    walk: list[tuple[Symbol, Symbol, Key]] = []
    for key, (sym, body) in new.symbols.items():
        was = old.symbols.get(key)
        if was is None or was[1] != body:
            continue
        if old.data[was[0].start_byte:was[0].end_byte] == new.data[sym.start_byte:sym.end_byte]:
            kept.add(key)
        else:
            walk.append((was[0], sym, key))
    if walk and same_trees is not None and same_trees(old.blob, new.blob, new.path):
        return kept | {key for _, _, key in walk}
    around: list[tuple[Symbol, Symbol]] = []  # those found the same whose spans may hold the next
    for before, after, key in sorted(walk, key=lambda w: (w[1].start_byte, -w[1].end_byte, w[2])):
        while around and around[-1][1].end_byte <= after.start_byte:
            around.pop()
        if around and _within(before, around[-1][0]) and _within(after, around[-1][1]):
            kept.add(key)
        elif syntax.same((old.path, old.blob, lambda: old.data), (before.start_byte, before.end_byte),
                         (new.path, new.blob, lambda: new.data), (after.start_byte, after.end_byte)):
            kept.add(key)
            around.append((before, after))
    return kept


def _within(inner: Symbol, outer: Symbol) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _reordered(before: dict[Key, tuple[Symbol, str]], after: dict[Key, tuple[Symbol, str]]) -> list[Key]:
    """Symbols present on both sides whose place among their siblings changed: those off
    the longest common ordering of each container's members. Each side's members are grouped
    by container once, not read whole again for each container."""
    moved: list[Key] = []
    containers = {sym.container for sym, _ in after.values()}

    def grouped(side: dict[Key, tuple[Symbol, str]]) -> dict[str, list[Key]]:
        """The keys on both sides, by their container on this side, in this side's order."""
        groups: dict[str, list[Key]] = {}
        for k, (sym, _) in side.items():
            if k in before and k in after:
                groups.setdefault(sym.container, []).append(k)
        for keys in groups.values():
            keys.sort(key=lambda k: (side[k][0].line, side[k][0].start_byte))
        return groups

    olds, news = grouped(before), grouped(after)
    for container in sorted(containers):
        old, new = olds.get(container, []), news.get(container, [])
        kept = set()
        for block in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
            kept.update(old[block.a:block.a + block.size])
        moved.extend(k for k in new if k not in kept)
    return moved


def _pair_moves(results: dict[str, list[ElementChange] | Unknown],
                removed_at: dict[tuple[str, str, str], list[str]], added_body: dict[tuple[str, int], str],
                whole: Callable[[tuple[str, int], tuple[str, int]], bool] | None = None,
                removed_body: dict[tuple[str, int], str] | None = None) -> None:
    """Turn a removal from one file plus an identical addition to another into one move. Each
    addition takes the first removal of its name and kind left in the file it came from. With
    `whole` (given the addition's place and a removal's) and the removals' bodies, only where
    the first removal of its body left there holds the same past its words too; else both stay."""
    removals: dict[tuple[str, str, str], deque[int]] = {}  # (file, qualified, kind) -> its removals' places
    alike: dict[tuple[str, str, str, str], deque[int]] = {}  # the same, by body too
    indexed: set[str] = set()  # the files whose removals are in `removals`, indexed on first use
    taken: dict[str, set[int]] = {}
    for (path, i), body in sorted(added_body.items()):
        items = results[path]
        assert isinstance(items, list)
        ec = items[i]
        sources = removed_at.get((ec.qualified, ec.kind, body), [])
        source = next((s for s in sources if s != path), None)
        if source is None:
            continue
        sources.remove(source)
        gone = results[source]
        assert isinstance(gone, list)
        if source not in indexed:
            indexed.add(source)
            for j, r in enumerate(gone):
                if r.change == "removed":
                    removals.setdefault((source, r.qualified, r.kind), deque()).append(j)
                    if removed_body is not None:
                        alike.setdefault((source, r.qualified, r.kind, removed_body[(source, j)]), deque()).append(j)
        places = removals.get((source, ec.qualified, ec.kind))
        if places and whole is not None:
            peers = alike.get((source, ec.qualified, ec.kind, body), deque())
            while peers and peers[0] in taken.get(source, ()):
                peers.popleft()
            if not peers or not whole((path, i), (source, peers[0])):
                continue
        if places:
            j = places.popleft()
            items[i] = ElementChange("moved", ec.kind, ec.qualified, line=ec.line, old_line=gone[j].old_line,
                                     from_path=source)
            taken.setdefault(source, set()).add(j)
    for source, places_taken in taken.items():
        gone = results[source]
        assert isinstance(gone, list)
        results[source] = [r for j, r in enumerate(gone) if j not in places_taken]


def _ordered(v: list[ElementChange] | Unknown) -> list[ElementChange] | Unknown:
    if isinstance(v, Unknown):
        return v
    order = {"added": 0, "modified": 1, "moved": 2, "removed": 3}
    return sorted(v, key=lambda e: (order[e.change], e.line or e.old_line or 0, e.qualified))
