"""context.symbol: the definitions of a name or qualified name in a pinned snapshot, or across
a workspace's members; near names, marked fuzzy, when nothing matches exactly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from context_tools.query.pinned import open_pinned
from context_tools.query.symbols.answers import SymbolAnswer, WorkspaceSymbolAnswer
from context_tools.query.symbols.lookup import definition, find_exact, find_fuzzy, modules_of, other_kinds
from context_tools.query.workspace_scope import open_workspace, repo_of, rev_of, tag, workspace_of
from indexer.contract.errors import NotFound
from indexer.contract.result import Result

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.faces.packs.context import SymbolInput


def symbol(input: SymbolInput, ctx: CallContext) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _symbol_across(input, ctx, name)
    snap, fresh = open_pinned(ctx, repo_of(input), rev_of(input))
    hits = find_exact(snap, input.name, input.kind, input.path)
    fuzzy = False
    if not hits and input.fuzzy:
        hits = find_fuzzy(ctx, snap, input.name, input.kind, input.path)
        fuzzy = bool(hits)
    if not hits:
        raise NotFound(f"no definition of {input.name!r}{_filters(input)} in {snap.oid[:12]}"
                       f"{other_kinds(snap, input)}")
    items, page = ctx.page(hits, cap="definitions", limit=input.limit, cursor=input.cursor, binding=snap.fingerprint)
    modules = modules_of(snap)
    return Result(SymbolAnswer(input.name, fuzzy, _fuzzy_note(input, fuzzy), [definition(*h, modules) for h in items]),
                  freshness=fresh, page=page)


def _filters(input: SymbolInput) -> str:
    return "".join(f" {k}={v!r}" for k, v in (("kind", input.kind), ("path", input.path)) if v)


def _fuzzy_note(input: SymbolInput, fuzzy: bool) -> str:
    return f"nothing is defined exactly as {input.name!r}; these are near names (match: fuzzy)" if fuzzy else ""


def _symbol_across(input: SymbolInput, ctx: CallContext, name: str) -> Result:
    scope = open_workspace(ctx, name)
    hits = [(i, m, h) for i, m in enumerate(scope.readable)
            for h in find_exact(m.snap, input.name, input.kind, input.path)]
    fuzzy = False
    if not hits and input.fuzzy:  # near names only when no member defines the name exactly
        hits = [(i, m, h) for i, m in enumerate(scope.readable)
                for h in find_fuzzy(ctx, m.snap, input.name, input.kind, input.path)]
        fuzzy = bool(hits)
    if not hits:
        raise NotFound(f"no definition of {input.name!r}{_filters(input)} in workspace {name!r} "
                       f"(members: {scope.names()})")
    # exact before qualified matches across the workspace; then member order; then each member's own order
    ordered = [h for _, h in sorted(enumerate(hits), key=lambda e: (e[1][2][2] == "qualified", e[1][0], e[0]))]
    items, page = ctx.page(ordered, cap="definitions", limit=input.limit, cursor=input.cursor, binding=scope.binding)
    named = {id(m): modules_of(m.snap) for m in scope.readable}
    defs = [tag(definition(*h, named[id(m)]), m.member.name) for _, m, h in items]
    data = WorkspaceSymbolAnswer(input.name, fuzzy, _fuzzy_note(input, fuzzy), defs, workspace=name,
                                 member_freshness=scope.member_freshness)
    return Result(data, freshness=scope.freshness, page=page)
