"""context.overview: what a snapshot holds, at a glance.

With `workspace`: its members (identity, pin, freshness, files, lines, languages, packages)
and the cross-repository edges between them; `section` pages `members`, `edges`, or one
of a snapshot's sections merged over the members, each item tagged with its `member`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from msgspec import Struct

from context_tools.query.pinned import open_pinned
from context_tools.query.sections import Section, refuse_paging_without_section, summary_section
from context_tools.query.workspace_scope import (
    MemberFreshnessPage,
    OpenMember,
    Scope,
    interleave,
    open_workspace,
    refused_member,
    repo_of,
    rev_of,
    tag,
    workspace_of,
)
from indexer.contract.errors import BadInput
from indexer.contract.result import Listed, Result, Unknown, remote_of
from indexer.fleet.workspace import CrossEdge
from indexer.model import NOT_TEXT, Dependency, EntryPoint, Package
from indexer.resolve.tree import CAVEATS

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from context_tools.faces.packs.context import OverviewInput
    from indexer.fleet.workspace import MemberStatus
    from indexer.store.snapshot import Snapshot



class Identity(Struct):
    repo: str
    rev: str
    oid: str
    fingerprint: str


class LanguageCount(Struct):
    language: str
    files: int
    lines: int | Unknown


class TopFile(Struct):
    path: str
    rank: float
    fan_in: int
    language: str
    lines: int


class Totals(Struct):
    files: int
    text_lines: int
    symbols: int
    edges: int
    unresolved_imports: int  # imports reaching no file of the tree (external or unresolved)
    packages: int
    dependencies: int
    entry_points: int
    languages: int
    skipped: int
    generated: int
    vendored: int
    # imports resolved short of what the tree holds, marked in the snapshot beside their edges:
    # files past the caps left out (`targets_capped`), or resolved as if their C# project saw
    # every project (`visibility_capped`); docs/store.md
    capped_imports: int
    # files parsed with syntax errors (a file mid-edit): their symbols and sites were read from the
    # parser's recovery and may be incomplete; `context.file` says where each failed
    parse_errors: int = 0


class Overview(Struct):
    identity: Identity
    totals: Totals
    languages: Section[LanguageCount]
    packages: Section[Package]
    entry_points: Section[EntryPoint]
    dependencies: Section[Dependency]
    top_files: Section[TopFile]


class OverviewSection(Struct):
    identity: Identity
    section: str
    items: list


def _sections(snap: Snapshot) -> dict[str, list]:
    record = snap.record
    langs: dict[str, list[int]] = {}
    for f in snap.files:
        counts = langs.setdefault(f.language, [0, 0])
        counts[0] += 1
        counts[1] += max(f.lines, 0)
    languages = [LanguageCount(lang, n, lines if lang not in NOT_TEXT else Unknown("not_applicable", f"{lang} entries have no lines"))
                 for lang, (n, lines) in sorted(langs.items(), key=lambda kv: (-kv[1][0], kv[0]))]
    top = sorted(record.rank.items(), key=lambda kv: (-kv[1], kv[0]))
    top_files = []
    for path, rank in top:
        entry = snap.file(path)
        if entry is not None:
            top_files.append(TopFile(path, rank, record.fan_in.get(path, 0), entry.language, entry.lines))
    return {
        "languages": languages,
        "packages": sorted(record.packages, key=lambda p: _depth(p.manifest)),
        "entry_points": sorted(record.entry_points, key=_entry_point_order),
        "dependencies": sorted(record.dependencies, key=_dependency_order),
        "top_files": top_files,
    }


# Packages, dependencies and entry points list the top folder's project first: an agent reads
# the first page, and the stored path order put the manifests of fixtures and examples in
# folders such as `corpora/` before the top folder's own. The sorts are stable: at one depth
# the stored order (manifests' paths, then each manifest's declarations by name) stands.
def _depth(path: str) -> int:
    return path.count("/")


# What the package needs to run, then what builds it, then what only its developers use; the
# stored order is alphabetical, which put `dev` and `optional` before `runtime`.
_SCOPES = {scope: i for i, scope in enumerate(
    ("runtime", "peer", "optional", "build", "toolchain", "provided", "system", "import", "indirect", "dev", "test"))}


def _dependency_order(dep: Dependency) -> tuple[int, str, int]:
    return _depth(dep.manifest), dep.manifest, _SCOPES.get(dep.scope, len(_SCOPES))


def _entry_point_order(entry: EntryPoint) -> tuple[int, bool]:
    """Shallower first, by the folder of the manifest declaring it, else of its file; at one
    depth a manifest's declarations before what a file says of itself (a `__main__` block)."""
    return _depth(entry.manifest or entry.path), not entry.manifest


def _totals(ctx: CallContext, snap: Snapshot, sections: dict[str, list]) -> Totals:
    record = snap.record
    capped = sum(1 for u in record.unresolved if u.status in CAVEATS)
    return Totals(
        files=len(snap.files), text_lines=sum(max(f.lines, 0) for f in snap.files), symbols=snap.symbol_count,
        edges=len(record.edges), unresolved_imports=len(record.unresolved) - capped, packages=len(record.packages),
        dependencies=len(record.dependencies), entry_points=len(record.entry_points),
        languages=len(sections["languages"]), skipped=sum(1 for f in snap.files if f.skipped),
        generated=sum(1 for f in snap.files if f.mark == "generated"),
        vendored=sum(1 for f in snap.files if f.mark == "vendored"), capped_imports=capped,
        parse_errors=len(snap.parse_errors))


def overview(input: OverviewInput, ctx: CallContext) -> Result:
    name = workspace_of(input)
    if name is not None:
        return _workspace_overview(input, ctx, name)
    if input.section in _WORKSPACE_SECTIONS:
        raise BadInput(f"section {input.section!r} is a section of a workspace overview: pass `workspace`")
    rev = rev_of(input)
    snap, fresh = open_pinned(ctx, repo_of(input), rev)
    identity = Identity(snap.repo_path, rev, snap.oid, snap.fingerprint)
    sections = _sections(snap)
    if input.section is not None:
        items, page = ctx.page(sections[input.section], cap="items", limit=input.limit, cursor=input.cursor,
                               binding=snap.fingerprint)
        return Result(OverviewSection(identity, input.section, items), freshness=fresh, page=page)
    refuse_paging_without_section(input)
    data = Overview(identity=identity, totals=_totals(ctx, snap, sections),
                    **{name: summary_section(ctx, input, name, items, snap.fingerprint) for name, items in sections.items()})
    return Result(data, freshness=fresh)


# --- a workspace -------------------------------------------------------------------------------

_WORKSPACE_SECTIONS = ("members", "edges")


class WorkspaceMember(Struct):
    """A member: identity, pin, freshness, and what its pinned snapshot holds."""

    name: str
    path: str
    remote_url: str | Unknown
    rev: str
    pinned_oid: str
    fingerprint: str
    indexed_at: str
    freshness: str  # the member's own freshness status: current, stale, unknown, dirty or partial
    current_oid: str | Unknown
    reason: str
    files: int | Unknown
    text_lines: int | Unknown
    languages: Listed[LanguageCount]
    packages: list[str]  # "ecosystem:name" the member declares
    # files of the member parsed with syntax errors, as its own overview's `totals.parse_errors`
    parse_errors: int | Unknown = 0


class WorkspaceTotals(Struct):
    members: int
    files: int
    text_lines: int
    languages: int  # distinct languages over all members
    cross_edges: int
    # members by freshness (`indexer.contract.standing`): those not `current` each say why
    stale: int
    unknown: int
    dirty: int
    partial: int
    parse_errors: int = 0  # files parsed with syntax errors, over the members read


class WorkspaceOverview(Struct):
    workspace: str
    created_at: str
    updated_at: str
    totals: WorkspaceTotals
    members: Section[WorkspaceMember]
    edges: Section[CrossEdge]  # cross-repository edges: a package one member declares, depended on or imported by another
    member_freshness: MemberFreshnessPage


class WorkspaceOverviewSection(Struct):
    workspace: str
    section: str
    items: list  # members, edges, or a member section's items tagged with `member`
    member_freshness: MemberFreshnessPage


def _member_entry(opened: OpenMember, status: MemberStatus | None) -> WorkspaceMember:
    m, f = opened.member, opened.freshness
    files: int | Unknown
    lines: int | Unknown
    languages: Listed[LanguageCount]
    broken: int | Unknown
    if opened.snap is None:
        gone = Unknown("not_assessed", f.reason)
        files, lines, languages, broken = gone, gone, Listed([], gone), gone
    else:
        files, lines = len(opened.snap.files), sum(max(x.lines, 0) for x in opened.snap.files)
        languages = Listed(_sections(opened.snap)["languages"])
        broken = len(opened.snap.parse_errors)
    return WorkspaceMember(m.name, m.path, remote_of(m.remote_url), m.rev, m.oid, m.fingerprint, m.indexed_at, f.status,
                           f.current_oid, f.reason, files, lines, languages, list(status.packages) if status else [],
                           parse_errors=broken)


def _member_sections(scope: Scope, section: str) -> list:
    columns = [[tag(item, m.member.name) for item in _sections(m.snap)[section]] for m in scope.readable]
    if section == "top_files":  # ranks are per snapshot: interleave by rank position, not by value
        return interleave(columns)
    return [item for column in columns for item in column]


def _workspace_overview(input: OverviewInput, ctx: CallContext, name: str) -> Result:
    from indexer.fleet.workspace import workspace_overview

    scope = open_workspace(ctx, name)
    ws = workspace_overview(ctx.store, name, refused_member(ctx), ctx.roots is not None)
    status = {s.member.name: s for s in ws.members}
    members = [_member_entry(m, status.get(m.member.name)) for m in scope.members]
    edges = list(ws.edges)
    if input.section is not None:
        items: Sequence[Struct]
        if input.section == "members":
            items = members
        elif input.section == "edges":
            items = edges
        else:
            items = _member_sections(scope, input.section)
        chunk, page = ctx.page(items, cap="items", limit=input.limit, cursor=input.cursor, binding=scope.binding)
        return Result(WorkspaceOverviewSection(name, input.section, chunk, scope.member_freshness),
                      freshness=scope.freshness, page=page)
    refuse_paging_without_section(input)
    languages = {lang.language for m in members for lang in m.languages.items}
    totals = WorkspaceTotals(
        members=len(members), files=sum(m.files for m in members if isinstance(m.files, int)),
        text_lines=sum(m.text_lines for m in members if isinstance(m.text_lines, int)), languages=len(languages),
        cross_edges=len(edges), stale=sum(m.freshness == "stale" for m in members),
        unknown=sum(m.freshness == "unknown" for m in members), dirty=sum(m.freshness == "dirty" for m in members),
        partial=sum(m.freshness == "partial" for m in members),
        parse_errors=sum(m.parse_errors for m in members if isinstance(m.parse_errors, int)))
    data = WorkspaceOverview(name, ws.created_at, ws.updated_at, totals,
                             members=summary_section(ctx, input, "members", members, scope.binding, share=4),
                             edges=summary_section(ctx, input, "edges", edges, scope.binding, share=4),
                             member_freshness=scope.member_freshness)
    return Result(data, freshness=scope.freshness)
