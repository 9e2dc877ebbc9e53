"""context.symbol: the definitions of a name or qualified name in a pinned snapshot, or across
a workspace's members; near names, marked fuzzy, when nothing matches exactly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from context_tools.query.parse_errors import miss_note, unseen_holders
from context_tools.query.pinned import open_pinned, path_filter_in
from context_tools.query.symbols.answers import SymbolAnswer, WorkspaceSymbolAnswer
from context_tools.query.symbols.hierarchy import (
    Cls,
    Hierarchy,
    any_member_named,
    inherited,
    is_class,
    overridden,
    relatives,
)
from context_tools.query.symbols.lookup import definition, find_exact, find_fuzzy, modules_of, other_kinds
from context_tools.query.symbols.names import name_parts, path_ok
from context_tools.query.workspace_scope import open_workspace, repo_of, rev_of, tag, workspace_of
from indexer.contract.errors import NotFound
from indexer.contract.result import Result

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.faces.packs.context import SymbolInput
    from indexer.contract.result import Freshness
    from indexer.store.snapshot import Snapshot


def symbol(input: SymbolInput, ctx: CallContext) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _symbol_across(input, ctx, name)
    snap, fresh = open_pinned(ctx, repo_of(input), rev_of(input))
    input = path_filter_in(snap, input)
    if input.hierarchy:
        return _hierarchy(input, ctx, snap, fresh)
    hits = find_exact(snap, input.name, input.kind, input.path)
    h = Hierarchy(snap)
    more: dict[tuple[str, int, int], dict[str, object]] = {}
    missed: set[str] = set()  # the kinds of the inherited members a kind filter left out
    parts = name_parts(input.name)
    if not hits and len(parts) > 1 and any_member_named(snap, parts[-1]):
        # `App.handle` where App inherits handle; the class found as a definition is, so
        # through a re-export under another name too (`pkg.Alias.run`)
        classes = [(p, s) for p, s, _ in find_exact(snap, ".".join(parts[:-1]), None, None)]
        for path, sym, source, chain in inherited(h, classes, parts[-1]):
            key = (path, sym.line, sym.start_byte)
            if not path_ok(path, input.path):
                continue
            if input.kind and sym.kind != input.kind:
                missed.add(sym.kind)
            elif key not in more:
                # two classes of the name (a package's App and a test's `class App(pkg.App)`)
                # inherit one member: one definition, shown with the first class's chain
                hits.append((path, sym, "inherited"))
                more[key] = {"inherited_from": source, "chain": chain}
    kinds = (other_kinds(snap, input) or _defined_as(input, missed)) if not hits else ""
    if kinds:  # the name is defined, as another kind: near names would say it is not
        raise NotFound(f"no definition of {input.name!r}{_filters(input)} in {snap.named}{kinds}"
                       f"{miss_note(snap, parts[-1])}")
    fuzzy = False
    if not hits and input.fuzzy:
        hits = find_fuzzy(ctx, snap, input.name, input.kind, input.path)
        fuzzy = bool(hits)
    if not hits:
        raise NotFound(f"no definition of {input.name!r}{_filters(input)} in {snap.named}{miss_note(snap, parts[-1])}")
    items, page = ctx.page(hits, cap="definitions", limit=input.limit, cursor=input.cursor, binding=snap.fingerprint)
    modules = modules_of(snap)
    shown = []
    for path, sym, how in items:
        extra = more.get((path, sym.line, sym.start_byte), {})
        if how != "fuzzy" and "inherited_from" not in extra:
            base = overridden(h, path, sym)
            extra = {"overrides": base} if base is not None else extra
        shown.append(definition(path, sym, how, modules, **extra))
    return Result(SymbolAnswer(input.name, fuzzy, _fuzzy_note(input, fuzzy), shown,
                               parse_errors=unseen_holders(snap, parts[-1])), freshness=fresh, page=page)


def _hierarchy(input: SymbolInput, ctx: CallContext, snap: Snapshot, fresh: Freshness) -> Result:
    """The classes of the name, and the first's bases and known subclasses, paged."""
    classes = [hit for hit in find_exact(snap, input.name, input.kind, input.path) if is_class(hit[1])]
    if not classes:
        raise NotFound(f"no class named {input.name!r}{_filters(input)} in {snap.named}"
                       f"{miss_note(snap, name_parts(input.name)[-1])}")
    h = Hierarchy(snap)
    path, sym, _ = classes[0]
    found = relatives(h, Cls(path, sym))
    items, page = ctx.page(found, cap="definitions", limit=input.limit, cursor=input.cursor, binding=snap.fingerprint)
    modules = modules_of(snap)
    shown = [definition(*hit, modules) for hit in classes[: ctx.cap("definitions")]]
    note = f"the hierarchy of {classes[0][1].qualified} in {path}" + (
        f"; {len(classes) - 1} other class(es) of the name" if len(classes) > 1 else "")
    return Result(SymbolAnswer(input.name, False, note, shown, items), freshness=fresh, page=page)


def _filters(input: SymbolInput) -> str:
    return "".join(f" {k}={v!r}" for k, v in (("kind", input.kind), ("path", input.path)) if v)


def _defined_as(input: SymbolInput, kinds: set[str]) -> str:
    return f"; {input.name!r} is defined as: {', '.join(sorted(kinds))}" if kinds else ""


def _fuzzy_note(input: SymbolInput, fuzzy: bool) -> str:
    return f"nothing is defined exactly as {input.name!r}; these are near names (match: fuzzy)" if fuzzy else ""


def _symbol_across(input: SymbolInput, ctx: CallContext, name: str) -> Result:
    scope = open_workspace(ctx, name)
    hits = [(i, m, h) for i, m in enumerate(scope.readable)
            for h in find_exact(m.snap, input.name, input.kind, input.path)]
    if not hits and input.kind:  # defined as another kind: near names would say it is not
        kinds = {s.kind for m in scope.readable for _, s, _ in find_exact(m.snap, input.name, None, input.path)}
        if kinds:
            raise NotFound(f"no definition of {input.name!r}{_filters(input)} in workspace {name!r}"
                           f"{_defined_as(input, kinds)}")
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
