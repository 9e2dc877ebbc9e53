"""context.references: the reference sites of a name in a pinned snapshot, or across a
workspace's members, each tagged with how it was tied to the definitions (`sites`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec

from context_tools.query.parse_errors import miss_note, unseen_holders
from context_tools.query.pinned import open_pinned, path_filter_in
from context_tools.query.symbols.answers import (
    EARLIER_PAGE,
    RESOLUTIONS,
    ReferencesAnswer,
    Site,
    WorkspaceReferencesAnswer,
    code_and_text,
)
from context_tools.query.symbols.hierarchy import Hierarchy, any_member_named, inherited, is_class, reached_through
from context_tools.query.symbols.lookup import definition, find_exact, modules_of, other_kinds
from context_tools.query.symbols.names import name_parts, path_ok
from context_tools.query.symbols.sites import ORDER, group_order, sites_of
from context_tools.query.workspace_scope import (
    GoClauses,
    cross_importers,
    open_workspace,
    repo_of,
    rev_of,
    tag,
    workspace_of,
)
from indexer.contract.errors import MissingObjects, NotFound
from indexer.contract.result import Result, Unknown

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.faces.packs.context import ReferencesInput
    from context_tools.query.symbols.answers import Definition
    from context_tools.query.symbols.lookup import Hit
    from context_tools.query.workspace_scope import Scope
    from indexer.store.snapshot import Snapshot


def references(input: ReferencesInput, ctx: CallContext) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _references_across(input, ctx, name)
    snap, fresh = open_pinned(ctx, repo_of(input), rev_of(input))
    input = path_filter_in(snap, input)
    defs = find_exact(snap, input.name, input.kind, input.path)
    via = _through_hierarchy(snap, input, defs, ctx.cap("definitions"))
    if not defs and _narrowed(input):
        raise NotFound(f"no definition of {input.name!r} to resolve references against in {snap.named}"
                       f"{other_kinds(snap, input)}{miss_note(snap, name_parts(input.name)[-1])}")
    # Every page of an answer needs all of its sites (to sort and count them): a caller paging
    # through thousands of sites, or asking again, gets them computed once per snapshot.
    key = ("sites", snap.fingerprint, input.name, input.kind, input.path, input.include_definitions,
           input.resolution)
    found = ctx.handle.memo.get(key)
    if found is None:
        found = ctx.handle.memo[key] = sites_of(snap, input, defs, via=via, one_by_one=ctx.cap("definitions"))
    sites, counts, unread, attributed, left_out = found
    items, page = ctx.page(sites, cap="sites", limit=input.limit, cursor=input.cursor, binding=snap.fingerprint)
    if input.text:
        items = _with_text(snap, items)
    return Result(ReferencesAnswer(input.name, _shown(snap, input, defs, sites, ctx), len(defs), counts, items,
                                   *code_and_text(counts),
                                   definitions_attributed=attributed, files_unread=unread,
                                   same_name_left_out=left_out,
                                   parse_errors=unseen_holders(snap, name_parts(input.name)[-1])),
                  freshness=fresh, page=page)


def _shown(snap: Snapshot, input: ReferencesInput, defs: list[Hit], sites: list[Site], ctx: CallContext
           ) -> list[Definition] | Unknown:
    """The definitions an answer lists, each with how many sites reach it: on its first page only,
    since a later page's sites index the same list."""
    if input.cursor:
        return EARLIER_PAGE
    modules = modules_of(snap)
    reached = _per_definition(sites, len(defs)) if input.resolution is None else None
    return [definition(*d, modules, sites=reached[i] if reached else None)
            for i, d in enumerate(defs[: ctx.cap("definitions")])]


def _per_definition(sites: list[Site], n: int) -> list[int]:
    """How many of the sites reach each of n definitions."""
    counts = [0] * n
    for s in sites:
        if s.definition is not None and s.definition < n:
            counts[s.definition] += 1
    return counts


def _through_hierarchy(snap: Snapshot, input: ReferencesInput, defs: list[Hit], shown: int
                       ) -> list[list[tuple[str, str]]]:
    """For a qualified query of a member (`App.handle`): the member a class asked inherits,
    added to `defs` when none is written on it, and for each of `defs` the classes its sites
    may be qualified through (the class asked, the known subclasses of the member's class).
    Asked by its name alone, a member's sites are qualified through the known subclasses of
    its class too, as asked through the class (`d.Walk()` after `d := &Dog{}`, Dog embedding
    Base, is Base.Walk's either way): for the first `shown` definitions, those an answer
    tells apart."""
    parts = name_parts(input.name)
    if len(parts) < 2:
        if not any(s.container for _, s, _ in defs[:shown]):
            return [[] for _ in defs]
        bare = Hierarchy(snap)
        return [reached_through(bare, [(p, s)]) if s.container and i < shown else []
                for i, (p, s, _) in enumerate(defs)]
    # the class part is found as a definition is, so through a re-export under another name
    # too (`pkg.Alias.run` over `from .m import Real as Alias`), not by its last part alone
    classes = [] if defs or not any_member_named(snap, parts[-1]) else [
        (p, s) for p, s, _ in find_exact(snap, ".".join(parts[:-1]), None, None) if is_class(s)]
    if not classes and not any(s.container for _, s, _ in defs):
        return [[] for _ in defs]
    h = Hierarchy(snap)
    chains: list[list[tuple[str, str]]] = [[] for _ in defs]
    if not defs:
        at: dict[tuple[str, int, int], int] = {}
        for path, sym, _, chain in inherited(h, classes, parts[-1]):
            if (not input.kind or sym.kind == input.kind) and path_ok(path, input.path):
                through = [(c.path, c.qualified.rsplit(".", 1)[-1]) for c in chain[:-1]]
                key = (path, sym.line, sym.start_byte)
                if key in at:  # two classes of the name inherit one member: one definition, both ways in
                    chains[at[key]].extend(through)
                    continue
                at[key] = len(defs)
                defs.append((path, sym, "inherited"))
                chains.append(through)
    return [sorted(set(chain) | set(reached_through(h, [(p, s)]))) for chain, (p, s, _) in zip(chains, defs)]


def _narrowed(input: ReferencesInput) -> bool:
    """A qualified, kind- or path-filtered query names a definition; without one it has no answer."""
    return len(name_parts(input.name)) > 1 or bool(input.kind or input.path)


def _references_across(input: ReferencesInput, ctx: CallContext, name: str) -> Result:
    scope = open_workspace(ctx, name)
    members = scope.readable
    defs = {m.member.name: find_exact(m.snap, input.name, input.kind, input.path) for m in members}
    if not any(defs.values()) and _narrowed(input):
        raise NotFound(f"no definition of {input.name!r} to resolve references against in workspace {name!r} "
                       f"(members: {scope.names()})")
    # Every page needs all of the members' sites (to sort and count them): a caller paging through
    # them gets them computed once for the members read, as one snapshot's are.
    key = ("workspace_sites", scope.binding, tuple(m.member.name for m in members), input.name, input.kind,
           input.path, input.include_definitions, input.resolution)
    across: _Across | None = ctx.handle.memo.get(key)
    if across is None:
        across = ctx.handle.memo[key] = _sites_across(input, ctx, scope, defs)
    for m in members:
        if m.member.name in across.skipped:
            scope.leave_out(m, across.skipped[m.member.name], ctx.roots is not None)
    merged, counts, unread, attributed, left_out = (across.merged, across.counts, across.unread, across.attributed,
                                                    across.left_out)
    items, page = ctx.page(merged, cap="sites", limit=input.limit, cursor=input.cursor, binding=scope.binding)
    tagged = []
    for i, m in enumerate(members):
        mine = [s for j, _, s in items if j == i]
        if input.text and mine:
            mine = _with_text(m.snap, mine)
        tagged.append(iter([tag(s, m.member.name) for s in mine]))
    sites = [next(tagged[i]) for i, _, _ in items]  # back in page order
    every = [(m, d) for m in members for d in defs[m.member.name]]
    shown: list[Definition] | Unknown = EARLIER_PAGE
    if not input.cursor:
        named = {m.member.name: modules_of(m.snap) for m in members}
        reached = _per_definition([s for _, _, s in merged], len(every)) if input.resolution is None else None
        shown = [tag(definition(*d, named[m.member.name], sites=reached[i] if reached else None), m.member.name)
                 for i, (m, d) in enumerate(every[: ctx.cap("definitions")])]
    data = WorkspaceReferencesAnswer(input.name, shown, len(every), counts, sites,
                                     *code_and_text(counts), definitions_attributed=attributed, files_unread=unread,
                                     same_name_left_out=left_out, workspace=name,
                                     member_freshness=scope.member_freshness)
    return Result(data, freshness=scope.freshness, page=page)


@dataclass
class _Across:
    """The sites of every member read, merged in answer order (member index, place in its member's
    list, site), their counts, and the members whose repository could not give them."""

    merged: list[tuple[int, int, Site]]
    counts: dict[str, int]
    unread: int
    attributed: int
    left_out: int
    skipped: dict[str, MissingObjects]


def _sites_across(input: ReferencesInput, ctx: CallContext, scope: Scope, defs: dict[str, list[Hit]]) -> _Across:
    crossing = cross_importers(scope, {k: {p for p, _, _ in v} for k, v in defs.items()})
    merged: list[tuple[int, int, Site]] = []
    counts = dict.fromkeys(RESOLUTIONS, 0)
    offset = 0  # a site's definition, an index into its member's, is one into all members' in order
    unread = attributed = left_out = 0
    skipped: dict[str, MissingObjects] = {}
    for i, m in enumerate(scope.readable):
        try:
            sites, found, member_unread, member_attributed, member_left_out = sites_of(
                m.snap, input, defs[m.member.name], crossing.get(m.member.name, set()),
                one_by_one=ctx.cap("definitions"), across=GoClauses(scope, m.member.name))
        except MissingObjects as exc:  # one member's clone lacks blobs: the others still answer
            skipped[m.member.name] = exc
            offset += len(defs[m.member.name])
            continue
        merged += [(i, n, s if s.definition is None else msgspec.structs.replace(s, definition=s.definition + offset))
                   for n, s in enumerate(sites)]
        offset += len(defs[m.member.name])
        unread += member_unread
        left_out += member_left_out
        attributed = max(attributed, member_attributed)
        for k, v in found.items():
            counts[k] += v
    merged.sort(key=lambda t: (ORDER[t[2].resolution] >= ORDER["name_match"], *group_order(t[2]),
                               ORDER[t[2].resolution], t[0], t[1]))
    return _Across(merged, counts, unread, attributed, left_out, skipped)


def _with_text(snap: Snapshot, sites: list[Site]) -> list[Site]:
    lines_of: dict[str, list[str]] = {}
    out = []
    for s in sites:
        lines = lines_of.get(s.path)
        if lines is None:
            from context_tools.query.file_view import text_lines

            lines = lines_of[s.path] = text_lines(snap.blob_bytes(s.path))
        text = lines[s.line - 1].strip()[:240] if 0 < s.line <= len(lines) else None
        out.append(msgspec.structs.replace(s, text=text))
    return out
