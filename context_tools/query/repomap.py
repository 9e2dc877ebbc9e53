"""context.map: the ranked Repo Map fitted to a byte budget.

Without focus the snapshot's own PageRank orders the files. With focus (paths,
folders or symbol names) the ranking is a personalized PageRank over the import
graph: the walk restarts at the focus files and follows imports both ways (an
imported file at full weight, an importer at half), so what the focus uses and what
uses it rank first. The focus files themselves lead the map, in rank order: a hub the
walk reaches from everywhere may outrank them, and at a small budget the file a caller
named would otherwise be left out. Files marked generated or vendored are left out
unless focused.

With `workspace`, every member's files are ranked in that member's own snapshot (focus
applies in each member it matches) and interleaved by rank position, each file tagged with
its `member`, the focus files of every member first; the budget and cursor then work over
the interleaved list.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Callable, Iterator

import msgspec
from msgspec import Struct

from context_tools.query.impl_headers import impl_line, is_impl_line
from context_tools.query.module_exports import DATA_KINDS, exported, listed_in_all
from context_tools.query.pinned import open_pinned, snapshot_path
from context_tools.query.workspace_scope import (
    MemberFreshnessPage,
    MemberPath,
    interleave,
    open_workspace,
    repo_of,
    rev_of,
    tag,
    workspace_of,
)
from indexer.contract.encode import encode_json
from indexer.contract.errors import NotFound
from indexer.contract.result import Page, Result
from indexer.model import NOT_TEXT

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.faces.packs.context import MapInput
    from context_tools.query.symbols.walks import Walks
    from indexer.model import Edge, Symbol
    from indexer.store.snapshot import Snapshot

_KEY_KINDS = frozenset({"class", "function", "method", "interface", "struct", "enum", "trait", "type",
                        "module", "macro", "namespace", "constant"})
_ALPHA = 0.85
_ITERATIONS = 40


class MapFile(Struct):
    path: str
    rank: float
    language: str
    lines: int
    # key definitions as written (signature lines, two spaces per container), in file order, the
    # module-level variables and constants its module exports among them (module_exports.py);
    # over the per-file cap, those the file's importers use most (see _key_symbols); before a
    # Rust member, its impl's line when the line above is not of that impl (impl_headers.py)
    symbols: list[str]
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
    # the files of this page whose parse had errors: their key definitions may be incomplete
    # (`context.file` says where the parse failed); not counted in `bytes`
    parse_errors: list[str] = msgspec.field(default_factory=list)


def _focus_files(snap: Snapshot, focus: list[str]) -> tuple[list[str], list[str]]:
    from context_tools.query.symbols.lookup import find_exact
    from context_tools.query.symbols.walks import Walks

    paths = [f.path for f in snap.files]
    found: set[str] = set()
    spans: list[tuple[int, int]] = []  # of the paths the focus names, gathered once at the end
    unmatched = []
    # what one name's lookup finds of the modules is kept for the next's, each way of writing
    # names (dotted, or Rust's `::`) its own
    walks = {crates: Walks(snap, crates) for crates in (False, True)}
    for item in focus:
        named = _spans(paths, snapshot_path(snap, item))
        if named:
            spans += named
            continue
        hits = {path for path, _, _ in find_exact(snap, item, walks=walks["::" in item])}
        if not hits:  # `Flask.route`, which Flask inherits: the file defining it, as context.symbol finds it
            hits = _inherited_files(snap, item, walks["::" in item])
        if hits:
            found |= hits
        else:
            unmatched.append(item)
    return sorted(found.union(_gathered(paths, spans))), unmatched


def _spans(paths: list[str], item: str) -> list[tuple[int, int]]:
    """Where, in the sorted `paths`, lie the file `item` names and the files under it as a
    folder: each found by bisection, the folder's as the paths from `item/` up to `item0`
    (`0` follows `/`), so no item costs a pass over the paths."""
    at = bisect_left(paths, item)
    spans = [(at, at + 1)] if at < len(paths) and paths[at] == item else []
    low, high = bisect_left(paths, item + "/"), bisect_left(paths, item + "0")
    return spans + [(low, high)] if low < high else spans


def _gathered(paths: list[str], spans: list[tuple[int, int]]) -> list[str]:
    """The paths of `spans`, in order and each once however many spans hold it."""
    out: list[str] = []
    end = 0
    for low, high in sorted(spans):
        out.extend(paths[max(low, end):high])
        end = max(end, high)
    return out


def _named_files(paths: list[str], items: list[str]) -> list[str]:
    """The files of the sorted `paths` that `items` (snapshot paths) name, as files or folders."""
    return _gathered(paths, [span for item in items for span in _spans(paths, item)])


def _inherited_files(snap: Snapshot, item: str, walks: Walks) -> set[str]:
    """The files defining the member a qualified name's class inherits (`App.handle` -> the base's file)."""
    from context_tools.query.symbols.hierarchy import Hierarchy, any_member_named, inherited
    from context_tools.query.symbols.lookup import find_exact
    from context_tools.query.symbols.names import name_parts

    parts = name_parts(item)
    if len(parts) < 2 or not any_member_named(snap, parts[-1]):
        return set()
    classes = [(p, s) for p, s, _ in find_exact(snap, ".".join(parts[:-1]), walks=walks)]
    return {path for path, _, _, _ in inherited(Hierarchy(snap), classes, parts[-1])}


def personalized_rank(snap: Snapshot, seeds: list[str]) -> dict[str, float]:
    """PageRank over the import graph restarting at `seeds`: an import's target at weight 1, its
    importer at 0.5, a file without links giving its rank to the seeds. The links are read into
    arrays once and each of the walk's steps is a few array operations: a step a file and a
    link at a time in Python cost a reader minutes a call on a commit of millions of imports."""
    from array import array

    from indexer.rank import load_numpy

    load_numpy("numpy's import, for a focused Repo Map")
    import numpy as np

    nodes = [f.path for f in snap.files if f.language not in NOT_TEXT]
    index = {p: i for i, p in enumerate(nodes)}
    sources, targets = array("q"), array("q")
    for e in snap.record.edges:
        s, t = index.get(e.source), index.get(e.target)
        if s is None or t is None or s == t:
            continue
        sources.append(s)
        targets.append(t)
    imports, imported = np.frombuffer(sources, dtype=np.int64), np.frombuffer(targets, dtype=np.int64)
    # every link both ways: to what a file imports at 1, to what imports it at 0.5
    origin, to = np.concatenate([imports, imported]), np.concatenate([imported, imports])
    weight = np.concatenate([np.ones(len(imports)), np.full(len(imports), 0.5)])
    n = len(nodes)
    totals = np.bincount(origin, weights=weight, minlength=n)
    fraction = weight / totals[origin] if len(origin) else weight
    unlinked = totals == 0
    restart = np.zeros(n)
    seeded = np.array([index[p] for p in seeds if p in index], dtype=np.int64)
    if len(seeded):
        restart[seeded] = 1.0 / len(seeded)
    rank = restart.copy()
    for _ in range(_ITERATIONS):
        nxt = (1 - _ALPHA) * restart + np.bincount(to, weights=_ALPHA * rank[origin] * fraction, minlength=n)
        dangling = float(rank[unlinked].sum())
        if dangling and len(seeded):
            np.add.at(nxt, seeded, _ALPHA * dangling / len(seeded))
        rank = nxt
    return {p: round(float(rank[i]), 6) for p, i in index.items()}


def _entry(snap: Snapshot, path: str, rank: float, per_file: int, focus: frozenset[str] = frozenset()) -> MapFile:
    f = snap.file(path)
    if f is None:  # the candidates are the snapshot's files
        raise NotFound(f"{path} is not a file of {snap.named}")
    facts = snap.core_facts(path)
    listed = facts.symbols if facts else []
    all_names = listed_in_all(listed, lambda: snap.blob_bytes(path)) if f.language == "python" else None
    symbols = sorted((s for s in listed if _shown(s, f.language, all_names)), key=lambda s: (s.line, s.start_byte))
    shown = _key_symbols(snap, path, symbols, per_file, focus)
    # indented two spaces per enclosing definition, so a method reads as part of its class; a
    # Rust member under its impl's line, which says whose it is (impl_headers.py); a Go method
    # not at all
    lines = snap.blob_bytes(path).splitlines() if f.language == "rust" and any(s.container for s in shown) else None
    sigs: list[str] = []
    last_impl = None
    for s in shown:
        depth = s.container.count(".") + 1 if s.container else 0
        if f.language == "go" and s.kind == "method" and s.signature.startswith("func"):
            depth = 0  # a top-level declaration naming its receiver: indented, it read as the type's above it
        impl = impl_line(lines, s.line) if lines is not None and s.container else None
        if impl is not None and impl[0] != last_impl:
            sigs.append("  " * (depth - 1) + impl[1])
        last_impl = impl[0] if impl is not None else None
        sigs.append("  " * depth + (s.signature or f"{s.kind} {s.qualified}"))
    return MapFile(path, rank, f.language, f.lines, sigs, len(symbols) - len(shown))


def _shown(s: Symbol, language: str, all_names: frozenset[str] | None) -> bool:
    """A key definition: a type, function or member of the kinds the map lists; at module level,
    a variable or constant only when its module exports it (query/module_exports.py)."""
    if not s.container and s.kind in DATA_KINDS:
        return exported(s, language, all_names)
    return s.kind in _KEY_KINDS


# Importers whose uses rank a crowded file's definitions, in path order: a file thousands
# import costs no more than one 256 import.
_USES_FROM = 256


def _key_symbols(snap: Snapshot, path: str, symbols: list[Symbol], per_file: int, focus: frozenset[str]
                 ) -> list[Symbol]:
    """The definitions to show, in file order: all of them when they fit `per_file`; else those
    its importers want most, each with the definitions enclosing it. First a definition the
    focus names (by name or qualified name), then what more importers name in an import (the
    file's API), then what their sites name more, weighed as the rank weighs them
    (weights.name_weight, weights.definition_weight: a name few files define counts more than
    `get`, and one over weights.MAX_DEFINERS not at all); at equal scores the outermost, then
    the first."""
    if len(symbols) <= per_file:
        return symbols
    from indexer.rank.weights import MAX_DEFINERS, definition_weight, name_weight

    names = {s.name for s in symbols}
    imported: dict[str, int] = dict.fromkeys(names, 0)
    used: dict[str, int] = dict.fromkeys(names, 0)
    edges_from: dict[str, list[Edge]] = {}
    for e in snap.importers(path):
        if e.source != path:
            edges_from.setdefault(e.source, []).append(e)
    for importer in sorted(edges_from)[:_USES_FROM]:
        for name, count in snap.uses_of(importer).items():
            if name in names:
                used[name] += count
        for name in {n for e in edges_from[importer] for spec in snap.specs_of_edge(e) for n in spec.names}:
            if name in names:
                imported[name] += 1

    definers = {name: len(paths) for name, paths in snap.defining_paths(sorted(n for n in names if used[n])).items()}

    def wanted(s: Symbol) -> tuple[bool, int, float]:
        count = definers.get(s.name, 1)
        weight = name_weight(s.name, count) * definition_weight(s) if count <= MAX_DEFINERS else 0.0
        return s.name in focus or s.qualified in focus, imported[s.name], used[s.name] * weight

    by_qualified = {s.qualified: s for s in symbols}
    chosen: set[int] = set()
    order = sorted(symbols, key=lambda s: s.line)  # stable: then by depth, then by want
    order.sort(key=lambda s: s.container.count(".") + 1 if s.container else 0)
    order.sort(key=wanted, reverse=True)
    for s in order:
        fresh = [x for x in [s, *_enclosing(s, by_qualified)] if id(x) not in chosen]
        if len(chosen) + len(fresh) <= per_file:
            chosen.update(id(x) for x in fresh)
            if len(chosen) == per_file:
                break
    return [s for s in symbols if id(s) in chosen]


def _enclosing(s: Symbol, by_qualified: dict[str, Symbol]) -> list[Symbol]:
    """The key definitions around `s` in its file, innermost first."""
    out = []
    container = s.container
    while container:
        outer = by_qualified.get(container)
        if outer is not None:
            out.append(outer)
        container = container.rpartition(".")[0]
    return out


class Ranked(Struct):
    """One snapshot's map candidates, best first."""

    ordered: list[str]
    ranks: dict[str, float]
    focus_files: list[str]
    unmatched: list[str]
    ranking: str
    excluded: int


def _ranked(ctx: CallContext, snap: Snapshot, focus: list[str]) -> Ranked:
    focus_files, unmatched = _focus_files(snap, focus) if focus else ([], [])
    if focus_files:
        key = ("personalized_rank", snap.fingerprint, tuple(focus_files))
        ranks = ctx.handle.memo.get(key)
        if ranks is None:  # the next page of the same map must not pay for the walk again
            ranks = ctx.handle.memo[key] = personalized_rank(snap, focus_files)
        ranking = "personalized_pagerank"
    else:
        ranks, ranking = dict(snap.rank), "pagerank"
    focused = set(focus_files)
    candidates, excluded = [], 0
    for f in snap.files:
        if f.language in NOT_TEXT:
            continue
        if f.mark and f.path not in focused:
            excluded += 1
            continue
        candidates.append(f.path)
    ordered = sorted(candidates, key=lambda p: (p not in focused, -ranks.get(p, 0.0), p))
    return Ranked(ordered, ranks, focus_files, unmatched, ranking, excluded)


def _fit(ctx: CallContext, entries: Callable[[int], Iterator[MapFile]], total: int, cursor: str | None,
         binding: str, budget: int) -> tuple[list[MapFile], int, Page]:
    """The page of map entries from the cursor on that fits the byte budget. `entries(start)` yields
    the entries from position `start`. Returns (entries, bytes used, page)."""
    start = ctx.cursor_offset(cursor, binding)
    if start > total:
        from context_tools.faces.errors import BadCursor

        raise BadCursor("cursor points past the end of the map")
    files: list[MapFile] = []
    used = 2  # the enclosing brackets
    end = start
    for entry in entries(start):
        size = len(encode_json(entry)) + (1 if files else 0)  # the comma before all but the first
        while used + size > budget and entry.symbols and not files:
            # the first file always fits: shed its symbols until it does
            entry.more_symbols += 1
            entry.symbols.pop()
            if entry.language == "rust" and entry.symbols and is_impl_line(entry.symbols[-1]):
                entry.symbols.pop()  # an impl's line with none of its members left
            size = len(encode_json(entry))
        if used + size > budget and files:
            break
        files.append(entry)
        used += size
        end += 1
    more = end < total
    page = Page(total=total, returned=len(files), truncated=more, cursor=ctx.cursor_at(end, binding) if more else None)
    return files, used, page


def repo_map(input: MapInput, ctx: CallContext) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _map_across(input, ctx, name)
    snap, fresh = open_pinned(ctx, repo_of(input), rev_of(input))
    budget = input.budget_bytes or ctx.cap("budget")
    per_file = ctx.cap("symbols_per_file")
    r = _ranked(ctx, snap, input.focus)
    focus = frozenset(input.focus)
    files, used, page = _fit(ctx, lambda start: (_entry(snap, p, r.ranks.get(p, 0.0), per_file, focus)
                                                 for p in r.ordered[start:]),
                             len(r.ordered), input.cursor, snap.fingerprint, budget)
    data = RepoMap(focus=list(input.focus), focus_files=r.focus_files, unmatched_focus=r.unmatched, ranking=r.ranking,
                   budget=budget, bytes=used, excluded_marked=r.excluded, files=files,
                   parse_errors=_broken(snap, files))
    return Result(data, freshness=fresh, page=page)


def _broken(snap: Snapshot, files: list[MapFile]) -> list[str]:
    """The paths of `files` whose parse had errors, in the page's order."""
    broken = frozenset(snap.parse_errors)
    return [f.path for f in files if f.path in broken] if broken else []


# --- a workspace -------------------------------------------------------------------------------

class MemberRanking(Struct):
    member: str
    ranking: str  # personalized when focus matched in this member, else the member's own PageRank
    files: int  # map candidates in the member
    excluded_marked: int


class WorkspaceMap(Struct):
    """Each member's files ranked in its own snapshot, interleaved by rank position (every member's
    first file, then every member's second, ...), each file tagged with its `member`."""

    workspace: str
    focus: list[str]
    focus_files: list[MemberPath]
    unmatched_focus: list[str]  # matched in no member
    members: list[MemberRanking]
    budget: int
    bytes: int
    excluded_marked: int
    files: list[MapFile]
    member_freshness: MemberFreshnessPage
    # the files of this page whose parse had errors, each with its member, as one snapshot's map
    # lists them; not counted in `bytes`
    parse_errors: list[MemberPath] = msgspec.field(default_factory=list)


def _map_across(input: MapInput, ctx: CallContext, name: str) -> Result:
    scope = open_workspace(ctx, name)
    budget = input.budget_bytes or ctx.cap("budget")
    per_file = ctx.cap("symbols_per_file")
    ranked = [(m, _ranked(ctx, m.snap, input.focus)) for m in scope.readable]
    focus = frozenset(input.focus)
    # the focus files lead, as in one snapshot's map, whichever member holds them; each member's
    # ordered list starts with its own
    led = [len(set(r.ordered) & set(r.focus_files)) for _, r in ranked]
    order = (interleave([[(m, r, p) for p in r.ordered[:n]] for (m, r), n in zip(ranked, led)])
             + interleave([[(m, r, p) for p in r.ordered[n:]] for (m, r), n in zip(ranked, led)]))

    def entries(start: int) -> Iterator[MapFile]:
        for m, r, p in order[start:]:
            yield tag(_entry(m.snap, p, r.ranks.get(p, 0.0), per_file, focus), m.member.name)

    files, used, page = _fit(ctx, entries, len(order), input.cursor, scope.binding, budget)
    broken = {m.member.name: frozenset(m.snap.parse_errors) for m, _ in ranked}
    data = WorkspaceMap(
        workspace=name, focus=list(input.focus),
        focus_files=[MemberPath(m.member.name, p) for m, r in ranked for p in r.focus_files],
        unmatched_focus=[f for f in input.focus if all(f in r.unmatched for _, r in ranked)],
        members=[MemberRanking(m.member.name, r.ranking, len(r.ordered), r.excluded) for m, r in ranked],
        budget=budget, bytes=used, excluded_marked=sum(r.excluded for _, r in ranked), files=files,
        member_freshness=scope.member_freshness,
        parse_errors=_broken_across(files, broken))
    return Result(data, freshness=scope.freshness, page=page)


def _broken_across(files: list[MapFile], broken: dict[str, frozenset[str]]) -> list[MemberPath]:
    """The files of a workspace map's page (each tagged with its `member`) whose parse had errors
    in their member's snapshot, in the page's order."""
    out = []
    for f in files:
        member: str = getattr(f, "member", "")  # every file of a workspace's page is tagged
        if f.path in broken.get(member, frozenset()):
            out.append(MemberPath(member, f.path))
    return out
