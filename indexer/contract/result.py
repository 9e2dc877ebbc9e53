"""The typed result every command handler returns, and its wire envelope.

A handler returns `Result(data=..., freshness=..., page=...)`; every face
serializes it the same way, once, at its boundary:

    {"ok": true, "command": "context.symbol", "data": {...},
     "freshness": {...} | null, "page": {...} | null}

A failure is `{"ok": false, "command": ..., "error": {"code", "message"}}`
(plus `reason` / `available_on` for `unavailable`). A value the index cannot
know is an `Unknown`, never a blank or a plausible default.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

import msgspec
from msgspec import Struct

UnknownKind = Literal["not_recorded", "not_applicable", "not_assessed", "redacted"]
FreshnessStatus = Literal["current", "stale", "unknown", "worktree", "dirty", "partial"]


class Unknown(Struct, frozen=True):
    """A value the index cannot know, with why."""

    unknown: UnknownKind
    reason: str


T = TypeVar("T")


class Listed(Struct, Generic[T], frozen=True):
    """A list the index may not know: `{items, unknown}`, so the field is an object whatever
    happens (never a list in one answer and an Unknown in the next). `unknown` says why `items`
    is empty when it could not be assessed; null when `items` is the answer."""

    items: list[T]
    unknown: Unknown | None = None


def not_recorded(reason: str) -> Unknown:
    return Unknown("not_recorded", reason)


def current_or_gone(oid: str | None, rev: str) -> str | Unknown:
    """What `rev` resolves to now, or the unknown of a rev that no longer resolves."""
    return oid if oid is not None else Unknown("not_applicable", f"{rev} no longer resolves in the repository")


def remote_of(url: str | None) -> str | Unknown:
    """A repository's remote URL, or the unknown of one that has none."""
    return url if url is not None else Unknown("not_applicable", "the repository has no remote")


def not_applicable(reason: str) -> Unknown:
    return Unknown("not_applicable", reason)


def not_assessed(reason: str) -> Unknown:
    return Unknown("not_assessed", reason)


def redacted(reason: str) -> Unknown:
    return Unknown("redacted", reason)


class WorktreeState(Struct, frozen=True):
    """How an answer relates to the checkout's working tree. `snapshot`: read from the
    working-tree snapshot (`tree_oid`, what `git add -A && git write-tree` would write);
    `dirty`: read from the commit HEAD names while the working tree differs from it."""

    state: Literal["snapshot", "dirty"]
    base_oid: str  # the commit HEAD names, that the working tree is compared against
    tree_oid: str | Unknown
    changed: int  # paths that differ from the base commit (`dirty`: the paths `git status` lists)
    skipped: list[str] = []  # files that could not be read, left out of the snapshot (the first 20)
    skipped_total: int = 0


# Every reply carries this block and an agent's client puts every reply in its model's context:
# a field at its default is left out, the schema giving its value, rather than spelled out each time.
class Freshness(Struct, frozen=True, omit_defaults=True):
    """How the pinned snapshot an answer was read from relates to the repository now.
    `status`: `current`, `stale` (the rev moved), `unknown` (it no longer resolves),
    `worktree` (read from the working-tree snapshot), `dirty` (read from the commit the
    checkout is on, while its working tree differs: `worktree` says how much) or `partial`
    (the rev still resolves to the pinned commit, but `missing_objects` of its blobs were
    missing from the object database when it was indexed, as in a partial clone).
    A field past `indexed_at` is left out where it holds its default: not read from one snapshot
    (`fingerprint`), not from a working tree (`worktree`), no blob missing (`missing_objects`)."""

    repo: str
    rev: str
    pinned_oid: str
    current_oid: str | Unknown  # what `rev` resolves to now; unknown when it no longer resolves
    status: FreshnessStatus
    reason: str
    indexed_at: str | Unknown
    # the snapshot's fingerprint, so a receipt names exactly what was read; unknown, and so left
    # out, when the answer was not read from one snapshot (a Delta packet, a dossier)
    fingerprint: str | Unknown = Unknown("not_recorded", "this answer was not read from one snapshot")
    worktree: WorktreeState | None = None  # with status `worktree` or `dirty`
    missing_objects: int = 0  # blobs listed as skipped (`missing_object`) rather than read


class Page(Struct, frozen=True):
    """One page of the main collection of a result."""

    total: int
    returned: int
    truncated: bool
    cursor: str | None = None


class Result(Struct):
    """What a handler returns: typed data, and freshness / page when they apply."""

    data: Any
    freshness: Freshness | None = None
    page: Page | None = None


def ok_envelope(command: str, result: Result) -> dict[str, Any]:
    """The success envelope as plain builtins (the one place a Result becomes wire data)."""
    return {
        "ok": True,
        "command": command,
        "data": msgspec.to_builtins(result.data),
        "freshness": msgspec.to_builtins(result.freshness),
        "page": msgspec.to_builtins(result.page),
    }


def error_envelope(command: str, code: str, message: str, **extra: object) -> dict[str, Any]:
    error: dict[str, object] = {"code": code, "message": message}
    error.update({k: v for k, v in extra.items() if v is not None})
    return {"ok": False, "command": command, "error": error}
