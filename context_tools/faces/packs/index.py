"""Registry pack of the indexer: `repo.index` (`rennet index`) and `snapshot.dump` (`rennet snapshot dump`)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from context_tools.faces.registry import CliShape, Command, Exposure
from context_tools.faces.sanitize import shown_lines
from context_tools.query.pinned import freshness_of
from indexer.contract.result import Result


class IndexInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    repo: Annotated[str, msgspec.Meta(min_length=1, description="repository path (a work tree, a folder in one, or a bare repository)")] = "."
    rev: Annotated[str, msgspec.Meta(min_length=1, description="branch, tag, sha, or any rev such as HEAD~3")] = "HEAD"
    workers: Annotated[int, msgspec.Meta(ge=1, le=64, description="extraction processes (default: every core)")] | None = None
    quiet: Annotated[bool, msgspec.Meta(description="no progress bar")] = False


class DumpInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    repo: Annotated[str, msgspec.Meta(min_length=1, description="repository path")] = "."
    rev: Annotated[str, msgspec.Meta(min_length=1, description="rev to dump (indexed first if absent)")] = "HEAD"
    out: Annotated[str | None, msgspec.Meta(description="write the JSON Lines to this file instead of stdout")] = None


class DumpData(msgspec.Struct):
    oid: str
    fingerprint: str
    records: int
    path: str | None
    jsonl: str | None  # the serialization itself when no --out was given


def index_handler(input: IndexInput, ctx) -> Result:
    from context_tools.faces.progress import stage_bar
    from indexer.build import index
    from indexer.store.snapshot import load

    bar, update = stage_bar(ctx.surface == "cli" and not input.quiet, {"parse": "parsing", "assemble": "assembling"})
    if bar is not None:
        with bar:
            report = index(input.repo, input.rev, store=ctx.store, workers=input.workers, progress=update)
    else:
        report = index(input.repo, input.rev, store=ctx.store, workers=input.workers)
    snap = load(ctx.store, input.repo, input.rev)
    return Result(data=report, freshness=freshness_of(snap))


def render_index(result: Result) -> str:
    d = result.data  # indexer.build.IndexReport
    langs = ", ".join(f"{k} {v}" for k, v in sorted(d.languages.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
    return shown_lines([f"indexed {d.repo} at {d.rev} ({d.oid[:12]}) in {d.seconds:.2f}s",
                        f"  files {d.files}  symbols {d.symbols}  edges {d.edges}  parsed {d.parsed_blobs}  "
                        f"reused {d.reused_blobs}  skipped {len(d.skipped)}",
                        f"  languages: {langs}", f"  fingerprint {d.fingerprint}"])


def dump_handler(input: DumpInput, ctx) -> Result:
    from pathlib import Path

    from indexer import api

    snap = api.snapshot(input.repo, input.rev, store=ctx.store)  # indexed first when absent
    if input.out:
        from indexer.store.outfile import write_out

        count = write_out(input.out, snap.canonical_lines())
        data = DumpData(snap.oid, snap.fingerprint, count, str(Path(input.out)), None)
    else:
        lines = list(snap.canonical_lines())
        data = DumpData(snap.oid, snap.fingerprint, len(lines), None, b"".join(lines).decode())
    return Result(data=data, freshness=freshness_of(snap))


def render_dump(result: Result) -> str:
    d: DumpData = result.data
    if d.jsonl is not None:
        return d.jsonl  # JSON Lines: every string in it escaped already
    return shown_lines([f"wrote {d.records} records to {d.path} (fingerprint {d.fingerprint})"])


ROWS = (
    Command(
        id="repo.index",
        examples=("rennet index", "rennet index --rev HEAD~1 --json"),
        summary="Index a repository at a rev into the store (parses only blobs never seen).",
        input=IndexInput, handler=index_handler, authority="write",
        exposure=Exposure(cli=True, agent=False), maturity="stable", surfaces=("cli", "python"),
        cli=CliShape(path=("index",), positional=("repo",)), render=render_index,
    ),
    Command(
        id="snapshot.dump",
        examples=("rennet snapshot dump --out repo-map.jsonl", "rennet snapshot dump --rev HEAD~1 --out old.jsonl --json"),
        summary="Write a snapshot's canonical serialization as JSON Lines (file, symbol, edge, package, dependency, entry_point).",
        input=DumpInput, handler=dump_handler, authority="read",
        exposure=Exposure(cli=True, agent=False), maturity="stable", surfaces=("cli", "python"),
        cli=CliShape(path=("snapshot", "dump"), positional=("repo",)), render=render_dump,
    ),
)
