"""The universal ceiling on agent-facing replies, and the spill folder behind it.

A reply whose complete serialization exceeds the ceiling (8 kB by default,
`$RENNET_CEILING` or `rennet mcp --ceiling N` to change) is written whole to
`<store home>/spill/<UTC time>-<command>-<digest>.json` and the reply becomes
`{"head", "note", "path", "bytes"}`: the first bytes of the serialized result,
what happened, where the file is, and its size; and `cursors`, the next-page cursors the
result holds by their place in it (`page`, `data.meta.imports`), when it holds any and
they fit: an agent that cannot read the file still pages on.

Sweep rule: every time a file is spilled, files in `spill/` older than 24 hours are
removed, and of the rest only the newest 256 are kept.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

import msgspec

DEFAULT_CEILING = 8 * 1024
MAX_AGE_SECONDS = 24 * 3600
KEEP_NEWEST = 256
NOTE = ("Result exceeded the inline ceiling of {ceiling} bytes; the complete result ({bytes} bytes) "
        "is in the file at `path`: read it with your own tools, or narrow the query / use the cursor.")


MIN_CEILING = 512  # the spill envelope itself must fit


def configured_ceiling(explicit: int | None = None) -> int:
    """`--ceiling`, else `$RENNET_CEILING`, else 8 kB. One that is not a whole number of at
    least MIN_CEILING bytes is bad_input: a server never runs under a ceiling other than
    the one asked for."""
    if explicit is not None:
        value, source = str(explicit), "--ceiling"
    else:
        value, source = os.environ.get("RENNET_CEILING", ""), "$RENNET_CEILING"
        if not value:
            return DEFAULT_CEILING
    if not value.isdigit() or int(value) < MIN_CEILING:
        from indexer.contract.errors import BadInput

        raise BadInput(f"{source} {value!r} is not a ceiling: give a whole number of bytes, {MIN_CEILING} "
                       "or more (the spill envelope must fit)")
    return int(value)


def spill_dir(home: Path) -> Path:
    return home / "spill"


def sweep(folder: Path, now: float | None = None, min_age: float = 0.0) -> None:
    """`min_age`: seconds a file is kept whatever the count, so a path handed to an agent stays readable."""
    now = time.time() if now is None else now
    try:
        entries = [(p.stat().st_mtime, p) for p in folder.iterdir() if p.suffix == ".json"]
    except FileNotFoundError:
        return
    entries.sort(reverse=True)
    for rank, (mtime, path) in enumerate(entries):
        if now - mtime > MAX_AGE_SECONDS or (rank >= KEEP_NEWEST and now - mtime >= min_age):
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def spill(wire: bytes, *, command: str, home: Path, ceiling: int, min_age: float = 0.0) -> dict[str, Any]:
    """Write the complete serialized reply to the spill folder; return the envelope that
    replaces it, itself at most `ceiling` bytes once serialized."""
    folder = spill_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    sweep(folder, min_age=min_age)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = f"{stamp}-{command}-{hashlib.sha256(wire).hexdigest()[:16]}.json"
    path = folder / name
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(wire)
    os.replace(tmp, path)  # a reader never sees half a file
    reply: dict[str, Any] = {"head": "", "note": NOTE.format(ceiling=ceiling, bytes=len(wire)),
                             "path": str(path), "bytes": len(wire)}
    cursors = next_cursors(wire)
    if cursors and len(msgspec.json.encode({**reply, "cursors": cursors})) <= ceiling:
        reply["cursors"] = cursors  # before the head: a cursor is what an agent can act on
    text = wire.decode("utf-8", errors="replace")
    room = ceiling - len(msgspec.json.encode(reply))
    head = text[: max(room, 0)]
    while head:
        reply["head"] = head
        over = len(msgspec.json.encode(reply)) - ceiling
        if over <= 0:
            break
        head = head[: len(head) - max(over, 1)]  # escaping grew it: shave the overflow and retry
    else:
        reply["head"] = ""
    return reply


def next_cursors(wire: bytes) -> dict[str, str]:
    """The next-page cursors in a serialized result, by the dotted place of the object that
    holds each (`page`, `data.meta.imports`); lists are not searched (a cursor pages a
    collection, it is never an item of one)."""
    try:
        doc = msgspec.json.decode(wire)
    except msgspec.DecodeError:
        return {}
    found: dict[str, str] = {}
    stack: list[tuple[str, object]] = [("", doc)]
    while stack:
        place, node = stack.pop()
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key == "cursor" and isinstance(value, str) and value:
                found[place] = value
            elif isinstance(value, dict):
                stack.append((f"{place}.{key}" if place else key, value))
    return dict(sorted(found.items()))
