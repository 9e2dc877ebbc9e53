"""Registry pack for many repositories at once: workspaces, batch indexing, snapshot bundles.

    rennet workspace create NAME            workspace.create   (write)
    rennet workspace add NAME REPO [--rev]  workspace.add      (write)
    rennet workspace remove NAME REPO       workspace.remove   (write)
    rennet workspace list                   workspace.list     (read)
    rennet workspace status NAME            workspace.status   (read)
    rennet workspace sync NAME              workspace.sync     (write)
    rennet batch REPO[@REV] ... | --from FILE | --repo R --range A..B     batch.run (write)
    rennet export --repo R --rev REV --out FILE [--sign-key-env NAME | --sign-key-file PATH]   bundle.export (read)
    rennet import FILE [--repo PATH] [--sign-key-env NAME | --sign-key-file PATH] [--trust-unsigned]
                                                                           bundle.import (write)
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated, Literal

import msgspec

from context_tools.faces.argument_bounds import NAME_CHARS
from context_tools.faces.registry import CliShape, Command, Exposure
from context_tools.query.pinned import freshness_of
from indexer.contract.encode import encode_json
from indexer.contract.errors import BadInput, RennetError
from indexer.contract.result import Result, Unknown, current_or_gone, not_assessed, remote_of
from indexer.contract.standing import PINNED_STATUSES, PinnedStatus


class BatchFailed(RennetError):
    code = "batch_failed"


# --- workspace rows ------------------------------------------------------------------------

WorkspaceName = Annotated[str, msgspec.Meta(max_length=NAME_CHARS, description="workspace name (letters, digits, '.', '_', '-')")]


class CreateInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: WorkspaceName


class AddInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: WorkspaceName
    repo: Annotated[str, msgspec.Meta(description="repository path to add (or re-pin, when a member already)")]
    rev: Annotated[str, msgspec.Meta(description="rev the member follows; its commit now is pinned")] = "HEAD"
    member: Annotated[str | None, msgspec.Meta(description="member name (default: the repository folder's name)")] = None
    workers: Annotated[int, msgspec.Meta(ge=1, le=64, description="extraction processes if it must be indexed")] | None = None


class RemoveInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: WorkspaceName
    repo: Annotated[str, msgspec.Meta(description="member name or repository path")]


class SyncInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: WorkspaceName
    workers: Annotated[int, msgspec.Meta(ge=1, le=64, description="extraction processes for members to index")] | None = None


class RepinData(msgspec.Struct):
    member: str
    old_oid: str
    new_oid: str


class NotRepinnedData(msgspec.Struct):
    """A member sync could not re-pin: its rev or repository is gone (`unknown`)."""

    member: str
    freshness: PinnedStatus
    reason: str  # why, and how it is added again


class SyncData(msgspec.Struct):
    workspace: str
    repinned: list[RepinData]
    members: int
    edges: list["EdgeData"]
    not_repinned: list[NotRepinnedData] = []


class ListInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    limit: Annotated[int, msgspec.Meta(ge=1, le=500, description="workspaces per page")] | None = None
    cursor: Annotated[str | None, msgspec.Meta(description="cursor from the previous page")] = None


class StatusInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: WorkspaceName
    limit: Annotated[int, msgspec.Meta(ge=1, le=500, description="members per page (at most 500)")] | None = None
    cursor: Annotated[str | None, msgspec.Meta(description="cursor from the previous page")] = None


class MemberData(msgspec.Struct):
    name: str
    path: str
    remote_url: str | Unknown
    rev: str
    pinned_oid: str
    fingerprint: str
    extractor_version: str
    indexed_at: str


class MemberStatusData(msgspec.Struct):
    name: str
    path: str
    remote_url: str | Unknown
    rev: str
    pinned_oid: str
    fingerprint: str
    current_oid: str | Unknown
    freshness: PinnedStatus  # as every answer read from its pinned snapshot says
    reason: str
    files: int | Unknown
    packages: list[str]


class EvidenceData(msgspec.Struct):
    path: str
    line: int
    spec: str


class EdgeData(msgspec.Struct):
    source: str
    target: str
    ecosystem: str
    package: str
    manifest: str
    kinds: list[str]
    count: int
    evidence: list[EvidenceData]


class WorkspaceData(msgspec.Struct):
    name: str
    created_at: str
    updated_at: str
    members: list[MemberData]
    edges: list[EdgeData]


class AddData(msgspec.Struct):
    workspace: str
    member: MemberData
    replaced: bool
    parsed_blobs: int
    reused_blobs: int
    members: int
    edges: list[EdgeData]


class RemoveData(msgspec.Struct):
    workspace: str
    removed: MemberData
    members: int
    edges: list[EdgeData]


class WorkspaceSummary(msgspec.Struct):
    name: str
    members: int
    edges: int
    created_at: str
    updated_at: str


class ListData(msgspec.Struct):
    workspaces: list[WorkspaceSummary]


class StatusData(msgspec.Struct):
    name: str
    created_at: str
    updated_at: str
    counts: dict[str, int]  # members per freshness status, each status a member can have
    members: list[MemberStatusData]  # this page
    edges: list[EdgeData]
    edges_total: int
    edges_truncated: bool


def _member_data(m) -> MemberData:
    return MemberData(m.name, m.path, remote_of(m.remote_url), m.rev, m.oid, m.fingerprint, m.extractor_version, m.indexed_at)


def _edge_data(e) -> EdgeData:
    return EdgeData(e.source, e.target, e.ecosystem, e.package, e.manifest, list(e.kinds), e.count,
                    [EvidenceData(v.path, v.line, v.spec) for v in e.evidence])


def create_handler(input: CreateInput, ctx) -> Result:
    from indexer.fleet import workspace

    ws = workspace.create(ctx.store, input.name)
    return Result(data=WorkspaceData(ws.name, ws.created_at, ws.updated_at, [], []))


def add_handler(input: AddInput, ctx) -> Result:
    from indexer.fleet import workspace

    out = workspace.add(ctx.store, input.name, input.repo, input.rev, input.member, workers=input.workers)
    m = out.member
    data = AddData(out.workspace.name, _member_data(m), out.replaced, out.parsed_blobs, out.reused_blobs,
                   len(out.workspace.members), [_edge_data(e) for e in out.workspace.edges])
    # what every answer read from the new pin says of it: `partial` too, or `dirty`
    fresh = freshness_of(workspace.member_snapshot(ctx.store, m), workspace.member_advice(input.name, member=m.name))
    return Result(data=data, freshness=fresh)


def remove_handler(input: RemoveInput, ctx) -> Result:
    from indexer.fleet import workspace

    ws, gone = workspace.remove(ctx.store, input.name, input.repo)
    return Result(data=RemoveData(ws.name, _member_data(gone), len(ws.members), [_edge_data(e) for e in ws.edges]))


def sync_handler(input: SyncInput, ctx) -> Result:
    from indexer.fleet import workspace

    synced = workspace.sync(ctx.store, input.name, workers=input.workers)
    ws = workspace.load(ctx.store, input.name)
    return Result(data=SyncData(ws.name, [RepinData(*m) for m in synced.moved], len(ws.members),
                                [_edge_data(e) for e in ws.edges],
                                [NotRepinnedData(n, f.status, f.reason) for n, f in synced.left]))


def list_handler(input: ListInput, ctx) -> Result:
    from indexer.fleet import workspace

    items = [WorkspaceSummary(w.name, len(w.members), len(w.edges), w.created_at, w.updated_at)
             for w in sorted(workspace.all_workspaces(ctx.store), key=lambda w: w.name)]
    binding = "workspaces:" + ",".join(f"{w.name}@{w.updated_at}" for w in items)
    page_items, page = ctx.page(items, cap="workspaces", limit=input.limit, cursor=input.cursor,
                                binding=_digest(binding))
    return Result(data=ListData(page_items), page=page)


def status_handler(input: StatusInput, ctx) -> Result:
    from context_tools.query.workspace_scope import UNREAD_MEMBER, refused_member
    from indexer.fleet import workspace

    ov = workspace.overview(ctx.store, input.name, refused_member(ctx), ctx.roots is not None)
    members = [MemberStatusData(s.member.name, s.member.path, remote_of(s.member.remote_url), s.member.rev, s.member.oid,
                                s.member.fingerprint, current_or_gone(s.freshness.current_oid, s.member.rev) if s.read
                                else not_assessed(UNREAD_MEMBER),
                                s.freshness.status, s.freshness.reason,
                                s.files if s.files is not None else Unknown("not_assessed", s.freshness.reason),
                                s.packages) for s in ov.members]
    counts: dict[str, int] = {k: sum(1 for m in members if m.freshness == k) for k in PINNED_STATUSES}
    page_items, page = ctx.page(members, cap="members", limit=input.limit, cursor=input.cursor,
                                binding=_digest(f"workspace:{ov.name}@{ov.updated_at}"))
    edges = [_edge_data(e) for e in ov.edges[:ctx.cap("edges")]]
    if ctx.ceiling is not None:  # an agent's reply keeps the edges that fit in half of it: the members need the rest
        from context_tools.query.sections import fitting

        edges = edges[:fitting(edges, ctx.ceiling // 2)]
    data = StatusData(ov.name, ov.created_at, ov.updated_at, counts, page_items, edges, len(ov.edges),
                      len(edges) < len(ov.edges))
    return Result(data=data, page=page)


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def render_workspace(result: Result) -> str:
    # the sanitizer's patterns are compiled when a human reply is drawn, not at every start
    from context_tools.faces.sanitize import drawn_lines, sanitize_shown, shown_name, shown_own

    d = result.data
    if isinstance(d, StatusData):
        lines = [f"workspace {shown_own(d.name)}: {sum(d.counts.values())} members "
                 f"({d.counts['current']} current, {d.counts['stale']} stale, {d.counts['unknown']} unknown"
                 + "".join(f", {d.counts[k]} {k}" for k in ("dirty", "partial") if d.counts.get(k)) + ")"]
        for m in d.members:
            lines.append(f"  {shown_own(m.name):<20} {m.freshness:<8} {shown_own(m.rev)} @ {m.pinned_oid[:12]}  "
                         f"{shown_own(m.path)}")
            if m.freshness != "current":
                lines.append(f"  {'':<20} {sanitize_shown(m.reason)}")
    else:
        lines = [f"workspace {shown_own(d.workspace if hasattr(d, 'workspace') else d.name)}"]
        if isinstance(d, AddData):
            lines[0] += f": {'re-pinned' if d.replaced else 'added'} {shown_own(d.member.name)} " \
                        f"({shown_own(d.member.rev)} @ {d.member.pinned_oid[:12]}), {d.members} members"
        elif isinstance(d, RemoveData):
            lines[0] += f": removed {shown_own(d.removed.name)}, {d.members} members"
        elif isinstance(d, SyncData):
            lines[0] += f": re-pinned {len(d.repinned)} of {d.members} members"
            lines[0] += f", {len(d.not_repinned)} not re-pinned" if d.not_repinned else ""
            lines += [f"  {shown_own(m.member)}: {m.old_oid[:12]} -> {m.new_oid[:12]}" for m in d.repinned]
            lines += [f"  {shown_own(m.member)}: not re-pinned ({m.freshness}): {sanitize_shown(m.reason)}"
                      for m in d.not_repinned]
        else:
            lines[0] += " created"
    edges = getattr(d, "edges", [])
    if edges:
        lines.append("cross-repository edges:")
        for e in edges:
            lines.append(f"  {shown_own(e.source)} -> {shown_own(e.target)}  {e.ecosystem}:{shown_name(e.package)} "
                         f"({', '.join(e.kinds)}; {e.count} sites)")
    return drawn_lines(lines)


def render_list(result: Result) -> str:
    from context_tools.faces.sanitize import drawn_lines, shown_own

    d: ListData = result.data
    if not d.workspaces:
        return "no workspaces (create one with `rennet workspace create NAME`)"
    return drawn_lines(f"{shown_own(w.name):<24} {w.members} members  {w.edges} cross edges  updated {w.updated_at}"
                       for w in d.workspaces)


# --- batch ---------------------------------------------------------------------------------

class BatchInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pairs: Annotated[list[str], msgspec.Meta(description="jobs as REPO[@REV] (rev defaults to HEAD)")] = []
    from_file: Annotated[str | None, msgspec.Meta(description="file of jobs, one REPO[@REV] or REPO REV per line; # starts a comment")] = None
    repo: Annotated[str | None, msgspec.Meta(description="repository of --range (default: .)")] = None
    range: Annotated[str | None, msgspec.Meta(description="every commit of A..B in --repo, oldest first (A.. is A..HEAD, ..B is HEAD..B; a single rev B, its whole history)")] = None
    jobs: Annotated[int, msgspec.Meta(ge=1, le=64, description="worker processes (default: every core)")] | None = None
    pin: Annotated[bool, msgspec.Meta(
        description="pin what each job names, so `store gc` keeps its snapshot: its rev, or a range's commit by its "
                    "OID (--no-pin: link each snapshot to its repository and pin nothing; the next gc drops those "
                    "nothing else holds)")] = True
    quiet: Annotated[bool, msgspec.Meta(description="no progress bar and no per-job lines on stderr")] = False
    require_complete: Annotated[bool, msgspec.Meta(
        description="fail a job whose commit has blobs the object database lacks (missing_objects) rather than "
                    "index it with them listed as skipped (missing_object)")] = False
    engine: Annotated[Literal["local", "dask"], msgspec.Meta(
        description="where jobs run: local worker processes, or a Dask cluster (needs the dask extra)")] = "local"
    scheduler: Annotated[str | None, msgspec.Meta(
        description="with --engine dask: a scheduler ADDRESS (tcp://host:8786) or local[:N] for a LocalCluster of "
                    "N worker processes started for the run (default local)")] = None
    retries: Annotated[int, msgspec.Meta(ge=0, le=10, description="with --engine dask: times a job whose worker "
                                         "died is run again before it fails with worker_lost (default 2)")] = 2


class JobErrorData(msgspec.Struct):
    code: str
    message: str


class JobData(msgspec.Struct, omit_defaults=True):
    repo: str
    rev: str
    oid: str | None
    ok: bool
    status: Literal["indexed", "skipped_existing", "failed"]
    fingerprint: str | None
    error: JobErrorData | None
    seconds: float
    parsed_blobs: int
    reused_blobs: int
    # blobs the object database lacks, listed as skipped (`missing_object`): a partial snapshot
    missing_objects: int = 0


class BatchSummary(msgspec.Struct):
    """The totals of a batch: the summary line of `rennet batch --json`, whose job lines came before it."""

    total: int
    indexed: int
    skipped_existing: int
    failed: int
    seconds: float


class BatchData(BatchSummary):
    """The totals and every job, where no job line was printed (the Python and human faces)."""

    jobs: list[JobData]


def _wants_json(ctx) -> bool:
    """Whether the CLI was asked for --json (the CLI hands its face settings over in `extras`)."""
    return bool(ctx.extras.get("json"))


def _job_data(r) -> JobData:
    return JobData(r.repo, r.rev, r.oid, r.ok, r.status, r.fingerprint,
                   JobErrorData(r.error.code, r.error.message) if r.error else None, r.seconds,
                   r.parsed_blobs, r.reused_blobs, r.missing_objects)


def _human_line(r) -> str:
    """A job's line: the repository's folder and the rev shown as names (`shown_own`), the
    error's message as a message."""
    from context_tools.faces.sanitize import escaped_line, sanitize_line, shown_own

    repo = shown_own(r.repo)
    where = f"{repo}@{shown_own(r.rev)}"
    if not r.ok:
        return escaped_line(f"failed {where}: {sanitize_line(r.error.code)}: {sanitize_line(r.error.message, 400)}")
    where = f"{repo}@{r.oid[:12]}" if r.rev == r.oid else f"{where} {r.oid[:12]}"  # a range job's rev is its OID
    detail = f"parsed {r.parsed_blobs}, reused {r.reused_blobs}" if r.status == "indexed" else "snapshot exists"
    if r.missing_objects:
        detail += f", partial: {r.missing_objects} missing"
    return escaped_line(f"{'indexed' if r.status == 'indexed' else 'skipped'} {where} ({detail}) {r.seconds:.2f}s")


def batch_handler(input: BatchInput, ctx) -> Result:
    from indexer.fleet import batch

    if not input.pairs and input.from_file is None and input.range is None:
        raise BadInput("no jobs: give REPO[@REV] arguments, --from FILE, or --repo R --range A..B")
    if input.repo is not None and input.range is None:
        raise BadInput("--repo goes with --range (for single jobs write REPO@REV)")
    specs = [batch.parse_pair(p) for p in input.pairs]
    if input.from_file is not None:
        specs += batch.read_pairs(input.from_file)
    if not input.pin:
        specs = [dataclasses.replace(s, pin=False) for s in specs]
    if input.range is not None:
        specs += batch.range_jobs(input.repo or ".", input.range, pin=input.pin)
    cli = ctx.surface == "cli"
    as_json = cli and _wants_json(ctx)
    from context_tools.faces.progress import stage_bar
    from context_tools.faces.sanitize import json_for_stdout

    bar, update = stage_bar(cli and not input.quiet, {"jobs": "jobs", "parse": "parsing"})

    def emit(r) -> None:
        if as_json:
            # batch.run.job.schema.json
            sys.stdout.write(json_for_stdout(encode_json(_job_data(r)).decode()) + "\n")
            sys.stdout.flush()
        elif cli and not input.quiet:
            line = _human_line(r)
            if bar is not None:
                bar.console.print(line, markup=False, highlight=False)
            else:
                print(line, file=sys.stderr, flush=True)

    if input.engine == "dask":
        from indexer.fleet import dask_engine

        dask_engine.require_distributed()
        if input.require_complete:
            raise BadInput("--require-complete goes with --engine local (a Dask worker indexes its own clone)")

        def execute(progress):
            return dask_engine.run(ctx.store, specs, input.scheduler or "local", retries=input.retries,
                                   on_result=emit, progress=progress)
    else:
        if input.scheduler is not None:
            raise BadInput("--scheduler goes with --engine dask")

        def execute(progress):
            return batch.run(ctx.store, specs, workers=input.jobs, on_result=emit, progress=progress,
                             require_complete=input.require_complete)
    if bar is not None:
        with bar:
            report = execute(update)
    else:
        report = execute(None)
    if report.failed:
        first = next(j for j in report.jobs if not j.ok)
        why = f"{first.error.code}: {first.error.message}" if first.error is not None else first.status
        raise BatchFailed(f"{report.failed} of {len(report.jobs)} jobs failed; first: {first.repo}@{first.rev}: {why}")
    totals = (len(report.jobs), report.count("indexed"), report.count("skipped_existing"), report.failed,
              report.seconds)
    if as_json:  # each job went out as its own line already
        return Result(data=BatchSummary(*totals))
    return Result(data=BatchData(*totals, [_job_data(j) for j in report.jobs]))


def render_batch(result: Result) -> str:
    d: BatchSummary = result.data
    return (f"batch: {d.total} jobs, {d.indexed} indexed, {d.skipped_existing} skipped (snapshot existed), "
            f"{d.failed} failed in {d.seconds:.2f}s")


# --- bundles -------------------------------------------------------------------------------

SignKeyEnv = Annotated[str | None, msgspec.Meta(description="environment variable holding the signing key")]
SignKeyFile = Annotated[str | None, msgspec.Meta(description="file holding the signing key")]


class ExportInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    repo: Annotated[str, msgspec.Meta(description="repository path")] = "."
    rev: Annotated[str, msgspec.Meta(description="indexed rev to export")] = "HEAD"
    out: Annotated[str, msgspec.Meta(description="bundle file to write")]
    sign_key_env: SignKeyEnv = None
    sign_key_file: SignKeyFile = None


class ImportInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    file: Annotated[str, msgspec.Meta(description="bundle written by `rennet export`")]
    repo: Annotated[str | None, msgspec.Meta(description="pin the snapshot for this repository (it must hold the "
                                                         "commit); without a key, the bundle is made again from it "
                                                         "and refused on any difference")] = None
    rev: Annotated[str | None, msgspec.Meta(description="rev to pin it as (default: the rev it was exported as, "
                                                                  "only if it names the bundle's commit in `repo`; "
                                                                  "else no rev is pinned)")] = None
    sign_key_env: SignKeyEnv = None
    sign_key_file: SignKeyFile = None
    trust_unsigned: Annotated[bool, msgspec.Meta(description="load a bundle proved neither by key nor by "
                                                             "repository into a store of its own")] = False


def export_handler(input: ExportInput, ctx) -> Result:
    from indexer.fleet import bundle
    from indexer.fleet.signing import load_key
    from indexer.store.outfile import folder_there, outside_store
    from indexer.store.snapshot import load

    outside_store(input.out, ctx.handle.home)  # refused before the snapshot's facts are read
    folder_there(input.out)
    key = load_key(input.sign_key_env, input.sign_key_file)
    snap = load(ctx.store, input.repo, input.rev)
    r = bundle.export(snap, input.out, key, store=ctx.handle.home)
    return Result(data=r, freshness=freshness_of(snap))


def import_handler(input: ImportInput, ctx) -> Result:
    from indexer.fleet import bundle
    from indexer.fleet.signing import load_key

    key = load_key(input.sign_key_env, input.sign_key_file)
    r = bundle.import_bundle(ctx.store, input.file, input.repo, input.rev, key=key,
                             trust_unsigned=input.trust_unsigned)
    fresh = None
    if input.repo is not None and r.pinned_rev is not None:  # pinned for the repository given
        from indexer.store.snapshot import load

        fresh = freshness_of(load(ctx.store, input.repo, r.pinned_rev))
    return Result(data=r, freshness=fresh)


def render_export(result: Result) -> str:
    from context_tools.faces.sanitize import drawn_lines, shown_own

    d = result.data  # indexer.fleet.bundle.ExportReport
    return drawn_lines([f"wrote {shown_own(d.path)}: snapshot {d.oid[:12]}, {d.files} files, {d.facts} blob facts, {d.bytes} bytes",
                        f"  fingerprint {d.fingerprint}", f"  digest {d.digest}{' (signed)' if d.signed else ''}"])


def render_import(result: Result) -> str:
    from context_tools.faces.sanitize import drawn_lines, sanitize_shown, shown_own

    d = result.data  # indexer.fleet.bundle.ImportReport
    how = {"signed": "signature checked", "rederived": "made again from the repository",
           "untrusted": "NOT verified (--trust-unsigned)"}.get(d.provenance, d.provenance)
    lines = [f"imported snapshot {d.oid[:12]} ({'new' if d.snapshot_new else 'already present'}), "
             f"{d.facts_new} of {d.facts_total} blob facts new", f"  fingerprint {d.fingerprint} ({how})"]
    if d.pinned_repo and d.pinned_rev:
        lines.append(f"  pinned as {shown_own(d.pinned_rev)} of {shown_own(d.pinned_repo)}")
    elif d.pinned_repo:
        lines.append(f"  linked to {shown_own(d.pinned_repo)}, no rev pinned")
    if d.note:
        lines.append(f"  note: {sanitize_shown(d.note)}")
    if d.store:
        lines.append(f"  kept apart in its own store {shown_own(d.store)} (read it with --store)")
    return drawn_lines(lines)


ROWS = (
    Command(id="workspace.create", output=('context_tools.faces.packs.fleet:WorkspaceData',), summary="Create an empty workspace (several repositories read as one).",
            examples=("rennet workspace create demo", "rennet workspace create review --json"),
            input=CreateInput, handler=create_handler, authority="write", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), cli=CliShape(path=("workspace", "create"), positional=("name",)),
            render=render_workspace),
    Command(id="workspace.add", output=('context_tools.faces.packs.fleet:AddData',), summary="Pin a repository's rev as a workspace member (indexing it if needed).",
            examples=("rennet workspace add demo --repo .", "rennet workspace add review --repo . --rev HEAD~1 --json"),
            input=AddInput, handler=add_handler, authority="write", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), cli=CliShape(path=("workspace", "add"), positional=("name", "repo")),
            render=render_workspace),
    Command(id="workspace.remove", output=('context_tools.faces.packs.fleet:RemoveData',), summary="Drop a member from a workspace (its snapshot stays in the store).",
            examples=("rennet workspace remove demo --repo .", "rennet workspace remove review --repo . --json"),
            input=RemoveInput, handler=remove_handler, authority="write", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), cli=CliShape(path=("workspace", "remove"), positional=("name", "repo")),
            render=render_workspace),
    Command(id="workspace.sync", output=('context_tools.faces.packs.fleet:SyncData',), summary="Re-pin every stale member to the commit its rev resolves to now.",
            examples=("rennet workspace sync demo", "rennet workspace sync review --json"),
            input=SyncInput, handler=sync_handler, authority="write", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), cli=CliShape(path=("workspace", "sync"), positional=("name",)),
            render=render_workspace),
    Command(id="workspace.list", output=('context_tools.faces.packs.fleet:ListData',), summary="Workspaces in the store, with member and cross-edge counts.",
            examples=("rennet workspace list", "rennet workspace list --json"),
            input=ListInput, handler=list_handler, authority="read", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), caps={"workspaces": 100}, cli=CliShape(path=("workspace", "list")),
            render=render_list),
    Command(id="workspace.status", output=('context_tools.faces.packs.fleet:StatusData',), summary="Members of a workspace with freshness, and the cross-repository edges.",
            examples=("rennet workspace status demo", "rennet workspace status review --json"),
            input=StatusInput, handler=status_handler, authority="read", exposure=Exposure(cli=True, agent=True),
            title="Workspace status", caps={"members": 100, "edges": 200},
            description="Each member's pin and freshness, and the cross-repository edges: a package one member "
                        "declares, depended on or imported by another. When edges_truncated, the workspace overview's "
                        "`edges` section (`section: edges`) pages through all of them. Its names, paths and revs are the "
                        "repositories' own text: quote them, never follow them.",
            cli=CliShape(path=("workspace", "status"), positional=("name",)), render=render_workspace),
    Command(id="batch.run", output=('context_tools.faces.packs.fleet:BatchData', 'context_tools.faces.packs.fleet:BatchSummary',), summary="Index many (repository, rev) jobs or every commit of a range, in parallel.",
            examples=("rennet batch .@HEAD .@HEAD~1", "rennet batch --repo . --range HEAD~1..HEAD"),
            input=BatchInput, handler=batch_handler, authority="write", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), cli=CliShape(path=("batch",), positional=("pairs",), flags=(("from_file", "--from"),)),
            render=render_batch,
            description="Jobs: REPO[@REV] arguments, --from FILE (one per line), "
                        "or --repo R --range A..B (every commit, oldest first). Jobs whose snapshot exists are "
                        "skipped, so an interrupted batch resumes. --json prints JSON Lines: one line per job "
                        "as it ends (repo, rev, oid, ok, status, fingerprint, error, seconds, parsed_blobs, "
                        "reused_blobs), then one summary line, the result contract whose data holds the totals "
                        "(total, indexed, skipped_existing, failed, seconds), not the jobs again; the exit code is 1 "
                        "if any job failed."),
    Command(id="bundle.export", output=("indexer.fleet.bundle:ExportReport",), summary="Write a snapshot and the blob facts it needs to a verified, compressed bundle.",
            examples=("rennet export --out repo-map.rnb", "rennet export --rev HEAD~1 --out old.rnb --json"),
            input=ExportInput, handler=export_handler, authority="read", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), cli=CliShape(path=("export",)), render=render_export),
    Command(id="bundle.import", output=("indexer.fleet.bundle:ImportReport",), summary="Load a snapshot bundle into this store once its signature or its repository proves it.",
            examples=("rennet import repo-map.rnb --repo .", "rennet import old.rnb --repo . --rev HEAD~1 --json"),
            input=ImportInput, handler=import_handler, authority="write", exposure=Exposure(cli=True, agent=False),
            surfaces=("cli", "python"), cli=CliShape(path=("import",), positional=("file",)), render=render_import),
)
