"""Registry pack of the indexer: `repo.index` (`rennet index`) and `snapshot.dump` (`rennet snapshot dump`)."""

from __future__ import annotations

import sys
from typing import Annotated

import msgspec

from context_tools.registry import CliShape, Command, Exposure
from context_tools.result import Freshness, Result


class IndexInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    repo: Annotated[str, msgspec.Meta(description="repository path (a work tree, a folder in one, or a bare repository)")] = "."
    rev: Annotated[str, msgspec.Meta(description="branch, tag, sha, or any rev such as HEAD~3")] = "HEAD"
    workers: Annotated[int, msgspec.Meta(ge=1, le=64, description="extraction processes (default: every core)")] | None = None
    quiet: Annotated[bool, msgspec.Meta(description="no progress bar")] = False


class SkippedFile(msgspec.Struct):
    path: str
    reason: str


class IndexData(msgspec.Struct):
    repo: str
    rev: str
    oid: str
    fingerprint: str
    files: int
    symbols: int
    edges: int
    languages: dict[str, int]
    parsed_blobs: int
    reused_blobs: int
    skipped: list[SkippedFile]
    seconds: float


class DumpInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    repo: Annotated[str, msgspec.Meta(description="repository path")] = "."
    rev: Annotated[str, msgspec.Meta(description="rev to dump (indexed first if absent)")] = "HEAD"
    out: Annotated[str | None, msgspec.Meta(description="write the JSON Lines to this file instead of stdout")] = None


class DumpData(msgspec.Struct):
    oid: str
    fingerprint: str
    records: int
    path: str | None
    jsonl: str | None  # the serialization itself when no --out was given


def _freshness(repo: str, rev: str, oid: str, fingerprint: str, indexed_at: str) -> Freshness:
    return Freshness(repo=repo, rev=rev, pinned_oid=oid, current_oid=oid, status="current",
                     reason="indexed from the commit the rev resolves to now", indexed_at=indexed_at,
                     fingerprint=fingerprint)


def _progress_bar(enabled: bool):
    """A rich progress bar on stderr when it is a terminal; a no-op otherwise."""
    if not enabled or not sys.stderr.isatty():
        return None, None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task("parsing", total=None)

    def update(stage: str, done: int, total: int) -> None:
        bar.update(task, description="parsing" if stage == "parse" else "assembling", completed=done, total=total)

    return bar, update


def index_handler(input: IndexInput, ctx) -> Result:
    from indexer.build import index

    bar, update = _progress_bar(ctx.surface == "cli" and not input.quiet)
    if bar is not None:
        with bar:
            report = index(input.repo, input.rev, store=ctx.store, workers=input.workers, progress=update)
    else:
        report = index(input.repo, input.rev, store=ctx.store, workers=input.workers)
    data = IndexData(repo=report.repo, rev=report.rev, oid=report.oid, fingerprint=report.fingerprint,
                     files=report.files, symbols=report.symbols, edges=report.edges, languages=report.languages,
                     parsed_blobs=report.parsed_blobs, reused_blobs=report.reused_blobs,
                     skipped=[SkippedFile(s.path, s.reason) for s in report.skipped], seconds=report.seconds)
    from indexer.snapshot import load
    snap = load(ctx.store, input.repo, input.rev, index_if_absent=False)
    return Result(data=data, freshness=_freshness(snap.repo_path, input.rev, snap.oid, snap.fingerprint, snap.indexed_at))


def render_index(result: Result) -> str:
    d: IndexData = result.data
    langs = ", ".join(f"{k} {v}" for k, v in sorted(d.languages.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
    return (f"indexed {d.repo} at {d.rev} ({d.oid[:12]}) in {d.seconds:.2f}s\n"
            f"  files {d.files}  symbols {d.symbols}  edges {d.edges}  parsed {d.parsed_blobs}  "
            f"reused {d.reused_blobs}  skipped {len(d.skipped)}\n"
            f"  languages: {langs}\n  fingerprint {d.fingerprint}")


def dump_handler(input: DumpInput, ctx) -> Result:
    from pathlib import Path

    from indexer.snapshot import load
    from indexer.errors import BadInput

    snap = load(ctx.store, input.repo, input.rev)
    count = 0
    if input.out:
        target = Path(input.out)
        tmp = target.with_name(target.name + ".partial")
        try:
            with open(tmp, "wb") as fh:
                for line in snap.canonical_lines():
                    fh.write(line)
                    count += 1
            tmp.replace(target)
        except OSError as exc:
            raise BadInput(f"cannot write {input.out}: {exc.strerror}") from None
        data = DumpData(snap.oid, snap.fingerprint, count, str(target), None)
    else:
        lines = list(snap.canonical_lines())
        data = DumpData(snap.oid, snap.fingerprint, len(lines), None, b"".join(lines).decode())
    current = snap.current_oid()
    fresh = _freshness(snap.repo_path, input.rev, snap.oid, snap.fingerprint, snap.indexed_at)
    if current != snap.oid:
        fresh = msgspec.structs.replace(fresh, current_oid=current, status="stale",
                                        reason="the rev moved since this snapshot was pinned")
    return Result(data=data, freshness=fresh)


def render_dump(result: Result) -> str:
    d: DumpData = result.data
    return d.jsonl if d.jsonl is not None else f"wrote {d.records} records to {d.path} (fingerprint {d.fingerprint})"


ROWS = (
    Command(
        id="repo.index",
        summary="Index a repository at a rev into the store (parses only blobs never seen).",
        input=IndexInput, handler=index_handler, authority="write",
        exposure=Exposure(cli=True, agent=False), maturity="stable", surfaces=("cli", "python"),
        cli=CliShape(path=("index",), positional=("repo",)), render=render_index,
    ),
    Command(
        id="snapshot.dump",
        summary="Write a snapshot's canonical serialization as JSON Lines (file, symbol, edge, package, dependency, entry_point).",
        input=DumpInput, handler=dump_handler, authority="read",
        exposure=Exposure(cli=True, agent=False), maturity="stable", surfaces=("cli", "python"),
        cli=CliShape(path=("snapshot", "dump"), positional=("repo",)), render=render_dump,
    ),
)
