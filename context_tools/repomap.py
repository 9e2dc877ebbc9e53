"""context.map: the ranked Repo Map fitted to a byte budget.

Without focus the snapshot's own PageRank orders the files. With focus (paths,
folders or symbol names) the ranking is a personalized PageRank over the import
graph: the walk restarts at the focus files and follows imports both ways (an
imported file at full weight, an importer at half), so what the focus uses and what
uses it rank first. Files marked generated or vendored are left out unless focused.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Struct

from context_tools.pinned import open_pinned
from context_tools.result import Result

_NOT_CODE = ("binary", "symlink", "submodule")
_KEY_KINDS = frozenset({"class", "function", "method", "interface", "struct", "enum", "trait", "type",
                        "module", "macro", "namespace", "constant"})
_ALPHA = 0.85
_ITERATIONS = 40


class MapFile(Struct):
    path: str
    rank: float
    language: str
    lines: int
    symbols: list[str]  # key definitions as written (signature lines), in file order
    more_symbols: int  # key definitions left out by the per-file cap or the budget


class RepoMap(Struct):
    focus: list[str]
    focus_files: list[str]
    unmatched_focus: list[str]
    ranking: str  # "pagerank" | "personalized_pagerank"
    budget: int
    bytes: int  # serialized size of `files`
    excluded_marked: int  # generated or vendored files left out
    files: list[MapFile]


def _focus_files(snap: Any, focus: list[str]) -> tuple[list[str], list[str]]:
    from context_tools.symbols import find_exact

    paths = [f.path for f in snap.files]
    found: set[str] = set()
    unmatched = []
    for item in focus:
        item_path = item.strip("/")
        hits = {p for p in paths if p == item_path or p.startswith(item_path + "/")}
        if not hits:
            hits = {path for path, _, _ in find_exact(snap, item)}
        if hits:
            found |= hits
        else:
            unmatched.append(item)
    return sorted(found), unmatched


def personalized_rank(snap: Any, seeds: list[str]) -> dict[str, float]:
    nodes = [f.path for f in snap.files if f.language not in _NOT_CODE]
    index = {p: i for i, p in enumerate(nodes)}
    out_links: list[list[tuple[int, float]]] = [[] for _ in nodes]
    for e in snap.record.edges:
        s, t = index.get(e.source), index.get(e.target)
        if s is None or t is None or s == t:
            continue
        out_links[s].append((t, 1.0))
        out_links[t].append((s, 0.5))
    weights = [sum(w for _, w in links) for links in out_links]
    restart = [0.0] * len(nodes)
    seeded = [index[p] for p in seeds if p in index]
    for i in seeded:
        restart[i] = 1.0 / len(seeded)
    rank = list(restart)
    for _ in range(_ITERATIONS):
        nxt = [(1 - _ALPHA) * r for r in restart]
        dangling = 0.0
        for i, links in enumerate(out_links):
            if not links:
                dangling += rank[i]
                continue
            share = _ALPHA * rank[i] / weights[i]
            for j, w in links:
                nxt[j] += share * w
        if dangling:
            for i in seeded:
                nxt[i] += _ALPHA * dangling / len(seeded)
        rank = nxt
    return {p: round(rank[i], 6) for p, i in index.items()}


def _entry(snap: Any, path: str, rank: float, per_file: int) -> MapFile:
    f = snap.file(path)
    facts = snap.core_facts(path)
    symbols = sorted((s for s in (facts.symbols if facts else ()) if s.kind in _KEY_KINDS),
                     key=lambda s: (s.line, s.start_byte))
    sigs = [s.signature or f"{s.kind} {s.qualified}" for s in symbols]
    return MapFile(path, rank, f.language, f.lines, sigs[:per_file], max(len(sigs) - per_file, 0))


def repo_map(input: Any, ctx: Any) -> Result:
    snap, fresh = open_pinned(ctx, input.repo, input.rev)
    budget = input.budget or ctx.cap("budget")
    per_file = ctx.cap("symbols_per_file")
    focus_files, unmatched = _focus_files(snap, input.focus) if input.focus else ([], [])
    if focus_files:
        key = ("personalized_rank", snap.fingerprint, tuple(focus_files))
        ranks = ctx.handle.memo.get(key)
        if ranks is None:  # the next page of the same map must not pay for the walk again
            ranks = ctx.handle.memo[key] = personalized_rank(snap, focus_files)
        ranking = "personalized_pagerank"
    else:
        ranks, ranking = dict(snap.record.rank), "pagerank"
    focused = set(focus_files)
    candidates, excluded = [], 0
    for f in snap.files:
        if f.language in _NOT_CODE:
            continue
        if f.mark and f.path not in focused:
            excluded += 1
            continue
        candidates.append(f.path)
    ordered = sorted(candidates, key=lambda p: (-ranks.get(p, 0.0), p))
    start = ctx.cursor_offset(input.cursor, snap.fingerprint)
    if start > len(ordered):
        from context_tools.errors import BadCursor

        raise BadCursor("cursor points past the end of the map")
    files: list[MapFile] = []
    used = 2  # the enclosing brackets
    end = start
    for path in ordered[start:]:
        entry = _entry(snap, path, ranks.get(path, 0.0), per_file)
        size = len(msgspec.json.encode(entry)) + 1
        while used + size > budget and entry.symbols and not files:
            # the first file always fits: shed its symbols until it does
            entry.more_symbols += 1
            entry.symbols.pop()
            size = len(msgspec.json.encode(entry)) + 1
        if used + size > budget and files:
            break
        files.append(entry)
        used += size
        end += 1
    from context_tools.result import Page

    more = end < len(ordered)
    page = Page(total=len(ordered), returned=len(files), truncated=more,
                cursor=ctx.cursor_at(end, snap.fingerprint) if more else None)
    data = RepoMap(focus=list(input.focus), focus_files=focus_files, unmatched_focus=unmatched, ranking=ranking,
                   budget=budget, bytes=used, excluded_marked=excluded, files=files)
    return Result(data, freshness=fresh, page=page)
