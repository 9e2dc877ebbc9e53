"""The element differ: symbol-level changes per changed file, from the Repo Map
snapshots at the merge base and at head.

A symbol is keyed by (qualified name, kind, n-th of that pair in the file); its body
is the whitespace-normalized bytes of its span. Per file: added, removed, modified
(same key, other body), moved (same key and body, but off the longest common order of
its container's members). Across files: a symbol removed from one file and added to
another with the same key and body is one `moved` change, reported where it landed.
A file whose symbols were not extracted on a side it exists on gets a `not_assessed`
mark instead of a guess.
"""

from __future__ import annotations

import difflib
import hashlib
from typing import TYPE_CHECKING

from msgspec import Struct

from delta.hunks import normalize
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


def _side(snap: Snapshot, path: str | None) -> _Side | Unknown | None:
    """The symbols of `path` in `snap`; None when the file does not exist on that side."""
    if path is None:
        return None
    entry = snap.file(path)
    if entry is None:
        return not_assessed(f"{path} is not in the snapshot at {snap.oid[:12]}")
    facts = snap.facts(path)
    if facts is None or entry.skipped or facts.skipped:
        why = entry.skipped or (facts.skipped if facts else "") or entry.language
        return not_assessed(f"no symbols extracted for {path} at {snap.oid[:12]} ({why})")
    data = snap.blob_bytes(path)
    side = _Side()
    seen: dict[tuple[str, str], int] = {}
    for sym in facts.symbols:
        pair = (sym.qualified, sym.kind)
        n = seen.get(pair, 0)
        seen[pair] = n + 1
        body = hashlib.sha256(normalize(data[sym.start_byte:sym.end_byte])).hexdigest()
        side.symbols[(sym.qualified, sym.kind, n)] = (sym, body)
    return side


def diff_elements(changes: list[FileChange], base_snap: Snapshot, head_snap: Snapshot) -> list[FileElements]:
    results: dict[str, list[ElementChange] | Unknown] = {}
    removed_at: dict[tuple[str, str, str], list[str]] = {}  # (qualified, kind, body) -> files it left
    added_body: dict[tuple[str, int], str] = {}  # (file, index in its list) -> body
    for change in changes:
        if change.binary:
            continue
        old_path = None if change.status in ("added", "copied") else change.old_path
        old = _side(base_snap, old_path)
        new = _side(head_snap, change.new_path)
        if isinstance(old, Unknown) or isinstance(new, Unknown):
            results[change.path] = old if isinstance(old, Unknown) else new  # type: ignore[assignment]
            continue
        before = old.symbols if old else {}
        after = new.symbols if new else {}
        out: list[ElementChange] = []
        for key, (sym, body) in after.items():
            if key not in before:
                added_body[(change.path, len(out))] = body
                out.append(ElementChange("added", sym.kind, sym.qualified, line=sym.line))
            elif before[key][1] != body:
                out.append(ElementChange("modified", sym.kind, sym.qualified, line=sym.line,
                                         old_line=before[key][0].line))
        for key, (sym, body) in before.items():
            if key not in after:
                out.append(ElementChange("removed", sym.kind, sym.qualified, old_line=sym.line))
                removed_at.setdefault((sym.qualified, sym.kind, body), []).append(change.path)
        for key in _reordered(before, after):
            if before[key][1] == after[key][1]:
                sym = after[key][0]
                out.append(ElementChange("moved", sym.kind, sym.qualified, line=sym.line,
                                         old_line=before[key][0].line))
        results[change.path] = out
    _pair_moves(results, removed_at, added_body)
    return [FileElements(path, Listed(v) if isinstance(v, list) else Listed([], v))
            for path, v in ((p, _ordered(v)) for p, v in sorted(results.items()))]


def _reordered(before: dict[Key, tuple[Symbol, str]], after: dict[Key, tuple[Symbol, str]]) -> list[Key]:
    """Symbols present on both sides whose place among their siblings changed: those off
    the longest common ordering of each container's members."""
    moved: list[Key] = []
    containers = {sym.container for sym, _ in after.values()}
    for container in sorted(containers):
        def order(side: dict[Key, tuple[Symbol, str]]) -> list[Key]:
            keys = [k for k, (sym, _) in side.items() if sym.container == container and k in before and k in after]
            return sorted(keys, key=lambda k: (side[k][0].line, side[k][0].start_byte))
        old, new = order(before), order(after)
        kept = set()
        for block in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
            kept.update(old[block.a:block.a + block.size])
        moved.extend(k for k in new if k not in kept)
    return moved


def _pair_moves(results: dict[str, list[ElementChange] | Unknown],
                removed_at: dict[tuple[str, str, str], list[str]], added_body: dict[tuple[str, int], str]) -> None:
    """Turn a removal from one file plus an identical addition to another into one move."""
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
        for j, r in enumerate(gone):
            if r.change == "removed" and r.qualified == ec.qualified and r.kind == ec.kind:
                items[i] = ElementChange("moved", ec.kind, ec.qualified, line=ec.line, old_line=r.old_line,
                                         from_path=source)
                del gone[j]
                break


def _ordered(v: list[ElementChange] | Unknown) -> list[ElementChange] | Unknown:
    if isinstance(v, Unknown):
        return v
    order = {"added": 0, "modified": 1, "moved": 2, "removed": 3}
    return sorted(v, key=lambda e: (order[e.change], e.line or e.old_line or 0, e.qualified))
