"""The element differ: symbol-level changes per changed file, from the Repo Map
snapshots at the merge base and at head.

A symbol is keyed by (qualified name, kind, n-th of that pair in the file); its body
is the words of its span's lines, and their indentation where it is syntax: the same
whitespace-only rule as the noise classes (`delta.hunks.words`), so `'a b'` made `'ab'`,
or a line re-indented out of its block in Python, modifies a symbol. Per file: added,
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
from typing import TYPE_CHECKING

from msgspec import Struct

from delta.hunks import indent_significant, indents, words
from delta.inventory import FileChange
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
    def __init__(self) -> None:
        self.symbols: dict[Key, tuple[Symbol, str]] = {}  # key -> (Symbol, body hash)


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
    indented = indent_significant(path)
    side = _Side()
    seen: dict[tuple[str, str], int] = {}
    for sym in facts.symbols:
        pair = (sym.qualified, sym.kind)
        n = seen.get(pair, 0)
        seen[pair] = n + 1
        body = _body(data[sym.start_byte:sym.end_byte], indented)
        side.symbols[(sym.qualified, sym.kind, n)] = (sym, body)
    return side


def _body(span: bytes, indented: bool) -> str:
    """What a change of whitespace alone keeps of a symbol's span, hashed."""
    lines = span.split(b"\n")
    h = hashlib.sha256()
    for part in words(lines) + ([b"\0indents"] + indents(lines) if indented else []):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def diff_elements(changes: list[FileChange], base_snap: Snapshot, head_snap: Snapshot) -> list[FileElements]:
    """The element changes of each file, in the order given (the packet's rank). A file whose
    changes would take the list past ELEMENT_CAP is not assessed, and says why; once the
    files read hold over DEFINITIONS_CAP definitions, neither are that file and the rest."""
    results: dict[str, list[ElementChange] | Unknown] = {}
    removed_at: dict[tuple[str, str, str], list[str]] = {}  # (qualified, kind, body) -> files it left
    added_body: dict[tuple[str, int], str] = {}  # (file, index in its list) -> body
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
        before = old.symbols if old else {}
        after = new.symbols if new else {}
        read += len(before) + len(after)
        if read > DEFINITIONS_CAP:
            capped = not_assessed(f"the element differ reads at most {DEFINITIONS_CAP:,} definitions a packet; "
                                  f"this file and those ranked after it would pass them")
            results[change.path] = capped
            continue
        out: list[ElementChange] = []
        bodies: dict[int, str] = {}
        removed: list[tuple[tuple[str, str, str], str]] = []
        for key, (sym, body) in after.items():
            if key not in before:
                bodies[len(out)] = body
                out.append(ElementChange("added", sym.kind, sym.qualified, line=sym.line))
            elif before[key][1] != body:
                out.append(ElementChange("modified", sym.kind, sym.qualified, line=sym.line,
                                         old_line=before[key][0].line))
        for key, (sym, body) in before.items():
            if key not in after:
                out.append(ElementChange("removed", sym.kind, sym.qualified, old_line=sym.line))
                removed.append(((sym.qualified, sym.kind, body), change.path))
        for key in _reordered(before, after):
            if before[key][1] == after[key][1]:
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
        for where, path in removed:
            removed_at.setdefault(where, []).append(path)
        results[change.path] = out
    _pair_moves(results, removed_at, added_body)
    return [FileElements(path, Listed(v) if isinstance(v, list) else Listed([], v))
            for path, v in ((p, _ordered(v)) for p, v in sorted(results.items()))]


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
                removed_at: dict[tuple[str, str, str], list[str]], added_body: dict[tuple[str, int], str]) -> None:
    """Turn a removal from one file plus an identical addition to another into one move. Each
    addition takes the first removal of its name and kind left in the file it came from."""
    removals: dict[tuple[str, str, str], deque[int]] = {}  # (file, qualified, kind) -> its removals' places
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
        places = removals.get((source, ec.qualified, ec.kind))
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
