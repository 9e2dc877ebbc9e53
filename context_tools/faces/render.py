"""Plain-text rendering of a Result for people at a terminal (`--json` is for programs).
Every string shown passes the sanitizer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from context_tools.faces.sanitize import sanitize_line

if TYPE_CHECKING:
    from indexer.contract.result import Result


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and set(value) == {"unknown", "reason"}:
        return sanitize_line(f"<{value['unknown']}: {value['reason']}>", 200)
    return sanitize_line(str(value), 200)


def _key(key: Any) -> str:
    """A mapping's key, which may be a name the repository chose (a path, a ref) as well as a field's."""
    return sanitize_line(str(key), 200)


def _lines(value: Any, indent: int, out: list[str]) -> None:
    pad = "  " * indent
    if isinstance(value, dict) and not (set(value) == {"unknown", "reason"}):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item and not (isinstance(item, dict) and set(item) == {"unknown", "reason"}):
                out.append(f"{pad}{_key(key)}:")
                _lines(item, indent + 1, out)
            else:
                out.append(f"{pad}{_key(key)}: {_scalar(item) if item != [] and item != {} else '(none)'}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and item and not set(item) == {"unknown", "reason"}:
                first = True
                for key, sub in item.items():
                    lead = "- " if first else "  "
                    first = False
                    if isinstance(sub, (dict, list)) and sub:
                        out.append(f"{pad}{lead}{_key(key)}:")
                        _lines(sub, indent + 2, out)
                    else:
                        out.append(f"{pad}{lead}{_key(key)}: {_scalar(sub)}")
            else:
                out.append(f"{pad}- {_scalar(item)}")
    else:
        out.append(pad + _scalar(value))


def render_result(result: Result) -> str:
    out: list[str] = []
    _lines(msgspec.to_builtins(result.data), 0, out)
    return "\n".join(out + footer(result))


def footer(result: Result) -> list[str]:
    """The page and freshness lines every human rendering ends with."""
    out = []
    page = result.page
    if page is not None:
        more = f"  next: --cursor {page.cursor}" if page.cursor else ""
        out.append(f"[{page.returned} of {page.total}{', truncated' if page.truncated else ''}]{more}")
    f = result.freshness
    if f is not None:
        out.append(f"[{f.status}] {sanitize_line(f.repo)} {sanitize_line(f.rev)} @ {f.pinned_oid[:12]}"
                   + ("" if f.status == "current" else f" — {sanitize_line(f.reason)}"))
    return out
