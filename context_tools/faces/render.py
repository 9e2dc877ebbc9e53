"""Plain-text rendering of a Result for people at a terminal (`--json` is for programs).
A name the repository chose (a path, a symbol) shows as git quotes a path; what the operator
named (the repository's folder, a rev) is sanitized, then shown so; every other string passes
the sanitizer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from context_tools.faces.sanitize import sanitize_line, shown_name, shown_own

if TYPE_CHECKING:
    from indexer.contract.result import Result


# The fields (and the sections of names) whose strings the repository chose, and those the
# operator's machine or command line gave
_NAMES = frozenset({"path", "previous_path", "old_path", "qualified", "name", "manifest", "package", "target",
                    "source", "member", "identifiers"})
_OWN = frozenset({"repo", "rev", "workspace"})


def _scalar(value: object, field: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and set(value) == {"unknown", "reason"}:
        return sanitize_line(f"<{value['unknown']}: {value['reason']}>", 200)
    if isinstance(value, str) and field in _NAMES:
        return shown_name(value)
    if isinstance(value, str) and field in _OWN:
        return shown_own(value)
    return sanitize_line(str(value), 200)


def _key(key: object) -> str:
    """A mapping's key, which may be a name the repository chose (a path, a ref) as well as a field's."""
    return shown_name(str(key))


def _lines(value: object, indent: int, out: list[str], field: str = "") -> None:
    """`value` drawn at `indent`; `field` is the key it is under (a section's items are under
    the section's name), which says whether its strings are names."""
    pad = "  " * indent
    if isinstance(value, dict) and not (set(value) == {"unknown", "reason"}):
        section = value.get("section") if isinstance(value.get("section"), str) else None
        for key, item in value.items():
            under = section if key == "items" and section else str(key)
            if isinstance(item, (dict, list)) and item and not (isinstance(item, dict) and set(item) == {"unknown", "reason"}):
                out.append(f"{pad}{_key(key)}:")
                _lines(item, indent + 1, out, under)
            else:
                out.append(f"{pad}{_key(key)}: {_scalar(item, under) if item != [] and item != {} else '(none)'}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and item and not set(item) == {"unknown", "reason"}:
                first = True
                for key, sub in item.items():
                    lead = "- " if first else "  "
                    first = False
                    if isinstance(sub, (dict, list)) and sub:
                        out.append(f"{pad}{lead}{_key(key)}:")
                        _lines(sub, indent + 2, out, str(key))
                    else:
                        out.append(f"{pad}{lead}{_key(key)}: {_scalar(sub, str(key))}")
            else:
                out.append(f"{pad}- {_scalar(item, field)}")
    else:
        out.append(pad + _scalar(value, field))


def render_result(result: Result) -> str:
    out: list[str] = []
    _lines(msgspec.to_builtins(result.data), 0, out)
    return "\n".join(out + footer(result))


def footer(result: Result) -> list[str]:
    """The page and freshness lines every human rendering ends with."""
    out = []
    page = result.page
    if page is not None:
        # the cursor holds only for the query that printed it: options left out make another query
        more = f"  next: the same command with --cursor {page.cursor}" if page.cursor else ""
        out.append(f"[{page.returned} of {page.total}{', truncated' if page.truncated else ''}]{more}")
    f = result.freshness
    if f is not None:
        out.append(f"[{f.status}] {shown_own(f.repo)} {shown_own(f.rev)} @ {f.pinned_oid[:12]}"
                   + ("" if f.status == "current" else f" — {sanitize_line(f.reason)}"))
    return out
