"""context.overview: what a snapshot holds, at a glance."""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from context_tools.pinned import open_pinned
from context_tools.result import Result, Unknown
from context_tools.sections import Section, summary_section

_NOT_CODE = ("binary", "symlink", "submodule")


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
    unresolved_imports: int
    packages: int
    dependencies: int
    entry_points: int
    languages: int
    skipped: int
    generated: int
    vendored: int


class Overview(Struct):
    identity: Identity
    totals: Totals
    languages: Section
    packages: Section
    entry_points: Section
    dependencies: Section
    top_files: Section


class OverviewSection(Struct):
    identity: Identity
    section: str
    items: list


def _sections(snap: Any) -> dict[str, list]:
    record = snap.record
    langs: dict[str, list[int]] = {}
    for f in snap.files:
        counts = langs.setdefault(f.language, [0, 0])
        counts[0] += 1
        counts[1] += max(f.lines, 0)
    languages = [LanguageCount(lang, n, lines if lang not in _NOT_CODE else Unknown("not_applicable", f"{lang} entries have no lines"))
                 for lang, (n, lines) in sorted(langs.items(), key=lambda kv: (-kv[1][0], kv[0]))]
    top = sorted(record.rank.items(), key=lambda kv: (-kv[1], kv[0]))
    top_files = []
    for path, rank in top:
        f = snap.file(path)
        if f is not None:
            top_files.append(TopFile(path, rank, record.fan_in.get(path, 0), f.language, f.lines))
    return {
        "languages": languages,
        "packages": list(record.packages),
        "entry_points": list(record.entry_points),
        "dependencies": list(record.dependencies),
        "top_files": top_files,
    }


def _totals(ctx: Any, snap: Any, sections: dict[str, list]) -> Totals:
    record = snap.record
    memo_key = ("symbol_count", snap.fingerprint)
    symbols = ctx.handle.memo.get(memo_key)
    if symbols is None:
        symbols = ctx.handle.memo[memo_key] = sum(1 for _ in snap.symbols())
    return Totals(
        files=len(snap.files), text_lines=sum(max(f.lines, 0) for f in snap.files), symbols=symbols,
        edges=len(record.edges), unresolved_imports=len(record.unresolved), packages=len(record.packages),
        dependencies=len(record.dependencies), entry_points=len(record.entry_points),
        languages=len(sections["languages"]), skipped=sum(1 for f in snap.files if f.skipped),
        generated=sum(1 for f in snap.files if f.mark == "generated"),
        vendored=sum(1 for f in snap.files if f.mark == "vendored"))


def overview(input: Any, ctx: Any) -> Result:
    snap, fresh = open_pinned(ctx, input.repo, input.rev)
    identity = Identity(snap.repo_path, input.rev, snap.oid, snap.fingerprint)
    sections = _sections(snap)
    if input.section is not None:
        items, page = ctx.page(sections[input.section], cap="items", limit=input.limit, cursor=input.cursor,
                               binding=snap.fingerprint)
        return Result(OverviewSection(identity, input.section, items), freshness=fresh, page=page)
    if input.cursor:
        from indexer.errors import BadInput

        raise BadInput("a cursor pages one section: pass `section` with it")
    data = Overview(identity=identity, totals=_totals(ctx, snap, sections),
                    **{name: summary_section(ctx, name, items, snap.fingerprint) for name, items in sections.items()})
    return Result(data, freshness=fresh)
