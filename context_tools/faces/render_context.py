"""Terminal renderings of the context.* results (the `--json` form is the contract; these
are for reading). A name the repository chose (a path, a symbol, a package) shows as git
quotes a path (`shown_name`: bare, or quoted with its line break escaped), so two files never
show the same; what the operator named (the repository's folder, a rev) is sanitized first
(`shown_own`); messages pass the sanitizer; the lines of a file's content are shown as they
are after `n|`, unless one holds what would move the cursor or reorder the line (an escape
sequence, a carriage return, a bidi mark): that one shows escaped after `n!`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from context_tools.faces.render import footer, render_result
from context_tools.faces.sanitize import escaped_line as _line
from context_tools.faces.sanitize import sanitize_line as _s
from context_tools.faces.sanitize import sanitize_shown as _shown
from context_tools.faces.sanitize import shown_content_line as _content
from context_tools.faces.sanitize import shown_name as _name
from context_tools.faces.sanitize import shown_own as _own

if TYPE_CHECKING:
    from context_tools.query.sections import Section
    from indexer.contract.result import Result
    from indexer.model import Dependency


def _section(title: str, sec: Section, fmt: Callable[..., str]) -> list[str]:
    out = [f"{title} ({sec.total}{', first ' + str(sec.returned) if sec.truncated else ''}):"]
    out += ["  " + _line(fmt(item)) for item in sec.items]
    return out


def _at(item: object) -> str:
    """`member:` before a path of a workspace answer's item."""
    member = getattr(item, "member", None)
    return f"{_own(member)}:" if member else ""


def overview(result: Result) -> str:
    d = result.data
    if hasattr(d, "section"):
        return render_result(result)
    if hasattr(d, "workspace"):
        return _workspace_overview(result)
    t = d.totals
    out = [f"{_own(d.identity.repo)} @ {_own(d.identity.rev)} ({d.identity.oid[:12]})",
           f"files {t.files}  lines {t.text_lines}  symbols {t.symbols}  edges {t.edges}  "
           f"packages {t.packages}  dependencies {t.dependencies}  entry points {t.entry_points}"
           + (f"  files with parse errors {t.parse_errors}" if t.parse_errors else "")]
    out += _section("languages", d.languages, lambda x: f"{x.language}: {x.files} files, "
                    f"{x.lines if isinstance(x.lines, int) else '-'} lines")
    out += _section("top files", d.top_files, lambda x: f"{_name(x.path)} rank {x.rank:.4f} fan-in {x.fan_in}")
    out += _section("packages", d.packages, lambda x: _words(_name(x.name), _s(x.version),
                                                             f"({x.ecosystem}, {_name(x.manifest)})"))
    out += _section("entry points", d.entry_points, lambda x: f"{_name(x.name)} [{x.kind}] "
                    f"{_name(x.path or x.target)}")
    out += _dependencies(d.dependencies)
    return "\n".join(out + footer(result))


def _words(*words: str) -> str:
    """Words on one line, one space apart, an empty one left out (as the line's spacing was
    folded when the line was sanitized whole)."""
    return " ".join(w for w in words if w)


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
        out.append("  " + (_name(manifest) if manifest else "(no manifest)")
                   + (f" ({_name(package)})" if package else "") + ":")
        out += ["    " + _words(_name(x.name), _s(x.spec), f"[{_s(x.scope)}, {x.ecosystem}]") for x in items]
    return out


def _workspace_overview(result: Result) -> str:
    d = result.data
    t = d.totals
    out = [f"workspace {_own(d.workspace)}: {t.members} members, {t.files} files, {t.text_lines} lines, "
           f"{t.languages} languages, {t.cross_edges} cross edges"]
    out += _section("members", d.members, lambda m: f"{_own(m.name)} {m.freshness} {_own(m.rev)} @ "
                    f"{m.pinned_oid[:12]} {m.files if isinstance(m.files, int) else '-'} files {_own(m.path)}")
    out += _section("cross edges", d.edges, lambda e: f"{_own(e.source)} -> {_own(e.target)} "
                    f"{e.ecosystem}:{_name(e.package)} ({', '.join(e.kinds)}; {e.count} sites)")
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
        out.append(_line(f"{_at(f)}{_name(f.path)}  ({f.language}, rank {f.rank:.4f})"))
        out += [_signature(sig) for sig in f.symbols]
        if f.more_symbols:
            out.append(f"  … {f.more_symbols} more")
        if f.path in getattr(d, "parse_errors", ()):
            out.append("  (does not parse cleanly: its definitions may be incomplete)")
    if d.unmatched_focus:
        out.append(_line(f"focus not found: {', '.join(_own(x) for x in d.unmatched_focus)}"))
    return "\n".join(out + footer(result))


def file(result: Result) -> str:
    d = result.data
    if hasattr(d, "section"):
        return render_result(result)
    m = d.meta
    out = [_line(f"{_at(d)}{_name(m.path)}  {m.language}  mode {m.mode}  {m.size} bytes  blob {m.blob[:12]}"
                 + (f"  target {_name(m.target)}" if m.target else "")
                 + (f"  [{_shown(m.mark)}]" if m.mark else "") + (f"  skipped: {_shown(m.skipped)}" if m.skipped else ""))]
    if m.parse_errors is not None:
        out.append(f"note: {_shown(m.parse_errors.note)}")
    if hasattr(d.outline, "items"):
        out += _section("outline", d.outline, lambda s: f"{s.line} {s.kind} {_name(s.qualified)}")
    if hasattr(d.content, "lines"):
        width = len(str(d.content.last_line))
        for n, line in enumerate(d.content.lines, d.content.first_line):
            escaped, text = _content(line)
            out.append(f"{n:>{width}}{'!' if escaped else '|'} {text}")
    elif hasattr(d.content, "unknown"):
        out.append(f"content: <{d.content.unknown}: {_shown(d.content.reason)}>")
    return "\n".join(out + footer(result))


def symbol(result: Result) -> str:
    d = result.data
    # a note is a message (the hierarchy's names the path the definition below shows quoted)
    out = [f"note: {_shown(d.note)}"] if d.fuzzy else []
    if d.parse_errors is not None:
        out.append(f"note: {_shown(d.parse_errors.note)}")
    if d.hierarchy is not None and d.note:
        out.append(f"note: {_shown(d.note)}")
    for x in d.definitions:
        out.append(_line(f"{_at(x)}{_name(x.path)}:{x.line}  {x.kind} {_name(x.qualified)}"
                         + ("  (fuzzy)" if x.match == "fuzzy" else "")
                         + (f"  (inherited from {_name(x.inherited_from.qualified)})" if x.inherited_from else "")
                         + (f"  (overrides {_name(x.overrides.qualified)} in {_name(x.overrides.path)})"
                            if x.overrides else "")))
        if x.signature:
            out.append(f"    {_s(x.signature, 200)}")
        if x.chain:
            out.append(_line("    chain: " + " -> ".join(_name(c.qualified) for c in x.chain)))
    for r in d.hierarchy or ():
        where = f"  {_name(r.path)}:{r.line}" if r.line else f"  {_name(r.path)}" if r.path else ""
        out.append(_line(f"{r.relation:<8} {_name(r.spec)}  [{r.status}]{where}"))
    return "\n".join(out + footer(result))


def references(result: Result) -> str:
    d = result.data
    # the code's classes, then the text's count apart
    counts = ", ".join(f"{k} {v}" for k, v in d.by_resolution.items() if k != "text")
    apart = (f"; sites told apart for the first {d.definitions_attributed}"
             if d.definitions_attributed < d.definitions_total else "")
    left = (f"; {d.same_name_left_out} site(s) of the name alone left out (the bare name lists them)"
            if d.same_name_left_out else "")
    out = [_line(f"{d.definitions_total} definition(s) of {_own(d.query)}; sites by resolution: {counts}; "
                 f"text {d.text_sites}{apart}{left}")]
    if d.parse_errors is not None:
        out.append(f"note: {_shown(d.parse_errors.note)}")
    for s in d.sites:
        out.append(_line(f"{_at(s)}{_name(s.path)}:{s.line}:{s.col + 1}  {s.role}  [{s.resolution}]")
                   + (f"  {_s(s.text, 160)}" if s.text else ""))
    return "\n".join(out + footer(result))


def novelty(result: Result) -> str:
    d = result.data
    if hasattr(d, "section"):
        return render_result(result)
    out = [_line(f"{_own(d.head.rev)} ({d.head.oid[:12]}) against {_own(d.base.rev)} ({d.base.oid[:12]})")]
    out += _section("files", d.files, lambda c: f"{c.change} {_name(c.path)}"
                    + (f" (from {_name(c.previous_path)})" if c.previous_path else ""))
    out += _section("symbols", d.symbols, lambda c: f"{c.change} {c.kind} {_name(c.qualified)} {_name(c.path)}:{c.line}")
    out += _section("public API", d.public_api, lambda c: f"{c.change} {c.kind} {_name(c.qualified)} [{_s(c.basis)}]")
    out += _section("dependencies", d.dependencies, lambda c: _words(c.change, _name(c.name),
                                                                     _s(c.spec or c.previous_spec or ""),
                                                                     f"[{c.ecosystem}]"))
    out += _section("new identifiers", d.identifiers, _name)
    if d.parse_errors_note:
        out.append(f"note: {_shown(d.parse_errors_note)}")
    return "\n".join(out + footer(result))


