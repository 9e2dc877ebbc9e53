"""Terminal renderings of the context.* results (the `--json` form is the contract; these
are for reading). Every line passes the sanitizer, which also keeps a path with a line break
on its line (escaped, as git quotes it), except the lines of a file's content, shown as they
are."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from context_tools.faces.render import footer, render_result
from context_tools.faces.sanitize import sanitize_line as _s
from context_tools.faces.sanitize import sanitize_shown as _shown

if TYPE_CHECKING:
    from context_tools.query.sections import Section
    from indexer.contract.result import Result
    from indexer.model import Dependency


def _section(title: str, sec: Section, fmt: Callable[..., str]) -> list[str]:
    out = [f"{title} ({sec.total}{', first ' + str(sec.returned) if sec.truncated else ''}):"]
    out += ["  " + _s(fmt(item), 200) for item in sec.items]
    return out


def _at(item: object) -> str:
    """`member:` before a path of a workspace answer's item."""
    member = getattr(item, "member", None)
    return f"{_s(member)}:" if member else ""


def overview(result: Result) -> str:
    d = result.data
    if hasattr(d, "section"):
        return render_result(result)
    if hasattr(d, "workspace"):
        return _workspace_overview(result)
    t = d.totals
    out = [f"{_s(d.identity.repo)} @ {_s(d.identity.rev)} ({d.identity.oid[:12]})",
           f"files {t.files}  lines {t.text_lines}  symbols {t.symbols}  edges {t.edges}  "
           f"packages {t.packages}  dependencies {t.dependencies}  entry points {t.entry_points}"]
    out += _section("languages", d.languages, lambda x: f"{x.language}: {x.files} files, "
                    f"{x.lines if isinstance(x.lines, int) else '-'} lines")
    out += _section("top files", d.top_files, lambda x: f"{x.path}  rank {x.rank:.4f}  fan-in {x.fan_in}")
    out += _section("packages", d.packages, lambda x: f"{x.name} {x.version} ({x.ecosystem}, {x.manifest})")
    out += _section("entry points", d.entry_points, lambda x: f"{x.name} [{x.kind}] {x.path or x.target}")
    out += _dependencies(d.dependencies)
    return "\n".join(out + footer(result))


def _dependencies(sec: Section) -> list[str]:
    """Dependencies under the manifest declaring them, the root package's manifest first (the
    one nearest the top of the tree), then the others by path."""
    out = [f"dependencies ({sec.total}{', first ' + str(sec.returned) if sec.truncated else ''}):"]
    by_manifest: dict[str, list[Dependency]] = {}
    for x in sec.items:
        by_manifest.setdefault(x.manifest, []).append(x)
    for manifest in sorted(by_manifest, key=lambda m: (m.count("/"), m)):
        items = by_manifest[manifest]
        package = next((x.package for x in items if x.package), "")
        out.append("  " + _s(f"{manifest or '(no manifest)'}" + (f" ({package})" if package else "")
                             + ":", 200))
        out += ["    " + _s(f"{x.name} {x.spec}".rstrip() + f" [{x.scope}, {x.ecosystem}]", 200) for x in items]
    return out


def _workspace_overview(result: Result) -> str:
    d = result.data
    t = d.totals
    out = [f"workspace {_s(d.workspace)}: {t.members} members, {t.files} files, {t.text_lines} lines, "
           f"{t.languages} languages, {t.cross_edges} cross edges"]
    out += _section("members", d.members, lambda m: f"{m.name:<16} {m.freshness:<8} {m.rev} @ {m.pinned_oid[:12]}  "
                    f"{m.files if isinstance(m.files, int) else '-'} files  {m.path}")
    out += _section("cross edges", d.edges, lambda e: f"{e.source} -> {e.target}  {e.ecosystem}:{e.package}  "
                    f"({', '.join(e.kinds)}; {e.count} sites)")
    return "\n".join(out + footer(result))


def _signature(sig: str) -> str:
    """A map's signature line under its file, keeping its indentation (two spaces per
    enclosing definition), which the sanitizer would fold away."""
    body = sig.lstrip(" ")
    return "  " + " " * (len(sig) - len(body)) + _s(body, 200)


def repo_map(result: Result) -> str:
    d = result.data
    out = []
    for f in d.files:
        out.append(_shown(f"{_at(f)}{f.path}  ({f.language}, rank {f.rank:.4f})"))
        out += [_signature(sig) for sig in f.symbols]
        if f.more_symbols:
            out.append(f"  … {f.more_symbols} more")
    if d.unmatched_focus:
        out.append(_shown(f"focus not found: {', '.join(d.unmatched_focus)}"))
    return "\n".join(out + footer(result))


def file(result: Result) -> str:
    d = result.data
    if hasattr(d, "section"):
        return render_result(result)
    m = d.meta
    out = [_shown(f"{_at(d)}{m.path}  {m.language}  mode {m.mode}  {m.size} bytes  blob {m.blob[:12]}"
                  + (f"  [{m.mark}]" if m.mark else "") + (f"  skipped: {m.skipped}" if m.skipped else ""))]
    if hasattr(d.outline, "items"):
        out += _section("outline", d.outline, lambda s: f"{s.line:>5}  {s.kind} {s.qualified}")
    if hasattr(d.content, "lines"):
        width = len(str(d.content.last_line))
        out += [f"{n:>{width}}| {line}" for n, line in enumerate(d.content.lines, d.content.first_line)]
    elif hasattr(d.content, "unknown"):
        out.append(f"content: <{d.content.unknown}: {d.content.reason}>")
    return "\n".join(out + footer(result))


def symbol(result: Result) -> str:
    d = result.data
    out = [f"note: {d.note}"] if d.fuzzy else []
    if d.hierarchy is not None and d.note:
        out.append(f"note: {d.note}")
    for x in d.definitions:
        out.append(_shown(f"{_at(x)}{x.path}:{x.line}  {x.kind} {x.qualified}"
                          + ("  (fuzzy)" if x.match == "fuzzy" else "")
                          + (f"  (inherited from {x.inherited_from.qualified})" if x.inherited_from else "")
                          + (f"  (overrides {x.overrides.qualified} in {x.overrides.path})" if x.overrides else "")))
        if x.signature:
            out.append(f"    {_s(x.signature, 200)}")
        if x.chain:
            out.append(_shown("    chain: " + " -> ".join(c.qualified for c in x.chain)))
    for r in d.hierarchy or ():
        where = f"  {r.path}:{r.line}" if r.line else f"  {r.path}" if r.path else ""
        out.append(_shown(f"{r.relation:<8} {r.spec}  [{r.status}]{where}"))
    return "\n".join(out + footer(result))


def references(result: Result) -> str:
    d = result.data
    # the code's classes, then the text's count apart
    counts = ", ".join(f"{k} {v}" for k, v in d.by_resolution.items() if k != "text")
    apart = (f"; sites told apart for the first {d.definitions_attributed}"
             if d.definitions_attributed < d.definitions_total else "")
    out = [_shown(f"{d.definitions_total} definition(s) of {d.query}; sites by resolution: {counts}; "
                  f"text {d.text_sites}{apart}")]
    for s in d.sites:
        out.append(_shown(f"{_at(s)}{s.path}:{s.line}:{s.col + 1}  {s.role}  [{s.resolution}]")
                   + (f"  {_s(s.text, 160)}" if s.text else ""))
    return "\n".join(out + footer(result))


def novelty(result: Result) -> str:
    d = result.data
    if hasattr(d, "section"):
        return render_result(result)
    out = [_shown(f"{d.head.rev} ({d.head.oid[:12]}) against {d.base.rev} ({d.base.oid[:12]})")]
    out += _section("files", d.files, lambda c: f"{c.change:<8} {c.path}" + (f" (from {c.previous_path})" if c.previous_path else ""))
    out += _section("symbols", d.symbols, lambda c: f"{c.change:<8} {c.kind} {c.qualified}  {c.path}:{c.line}")
    out += _section("public API", d.public_api, lambda c: f"{c.change:<8} {c.kind} {c.qualified}  [{c.basis}]")
    out += _section("dependencies", d.dependencies, lambda c: f"{c.change:<8} {c.name} {c.spec or c.previous_spec} [{c.ecosystem}]")
    out += _section("new identifiers", d.identifiers, str)
    return "\n".join(out + footer(result))


