"""The universal ceiling on agent-facing replies, and the spill folder behind it.

A reply whose complete serialization exceeds the ceiling (8k = 8192 bytes by default,
`$RENNET_CEILING` or `rennet mcp --ceiling SIZE` to change, e.g. `16k`) is written whole to
`<store home>/spill/<UTC time>-<command>-<digest>.json` and the reply becomes
`{"head", "note", "path", "bytes"}`: the first bytes of the serialized result,
what happened, where the file is, and its size. The file holds the result indented, a key or
a value a line: agents' hosts read files by lines and cut a long one (Gemini CLI's `read_file`
at 2,000 characters), so a result written on one line could not be read past its start; and `cursors`, the next-page cursors the
result holds by their place in it (`page`, `data.meta.imports`), when it holds any and
they fit: an agent that cannot read the file still pages on.

Bounds and sweep rule: the folder holds at most 256 spill files and 256 MB, and one spill
file at most 32 MB. Every time a reply is spilled, the folder is swept: files older than 24
hours go, and so do `*.tmp` files older than 5 minutes (left by a writer that was killed);
then, oldest first, files older than 15 minutes go while the folder, with the new file, would
be over either bound. A file younger than 15 minutes is never removed, so the file a reply
names is there for at least 15 minutes after it. When the new file does not fit (larger than
32 MB, or the folder is full of files younger than that), it is not written: the envelope's
`path` is a typed unknown saying why, and so is its note; `head` and `cursors` are there all the same.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

import msgspec

from indexer.contract.encode import encode_json

DEFAULT_CEILING = 8 * 1024
MAX_AGE_SECONDS = 24 * 3600
MIN_AGE_SECONDS = 15 * 60  # a file a reply names is kept at least this long
TMP_AGE_SECONDS = 5 * 60  # a `.tmp` this old has no writer left: a write takes seconds
KEEP_NEWEST = 256  # files
MAX_FOLDER_BYTES = 256 * 1024 * 1024
MAX_FILE_BYTES = 32 * 1024 * 1024
NOTE = ("Result exceeded the inline ceiling of {ceiling} bytes; the complete result ({bytes} bytes) "
        "is in the file at `path`: read it with your own tools, or narrow the query / use the cursor.")
NOT_WRITTEN = ("Result exceeded the inline ceiling of {ceiling} bytes and was not written to a file "
               "({why}): narrow the query or use the cursor.")


MIN_CEILING = 512  # the spill envelope itself must fit
MAX_CEILING = 1 << 30  # past this nothing is ever spilled: a typo, not a ceiling


def configured_ceiling(explicit: int | str | None = None) -> int:
    """`--ceiling`, else `$RENNET_CEILING`, else 8k: a size (`indexer.contract.sizes`, so
    `16k` is 16384 bytes) from MIN_CEILING to MAX_CEILING; any other is bad_input: a server
    never runs under a ceiling other than the one asked for."""
    from indexer.contract.sizes import configured_size

    return configured_size(explicit, option="--ceiling", variable="RENNET_CEILING", default=DEFAULT_CEILING,
                           low=MIN_CEILING, high=MAX_CEILING)


def spill_dir(home: Path) -> Path:
    return home / "spill"


def sweep(folder: Path, now: float | None = None, incoming: int = 0) -> bool:
    """Apply the sweep rule (module docstring) to `folder`; True when a new file of `incoming`
    bytes then fits within the folder's bounds."""
    now = time.time() if now is None else now
    kept: list[tuple[float, int, Path]] = []
    try:
        paths = list(folder.iterdir())
    except FileNotFoundError:
        return incoming <= MAX_FILE_BYTES
    for path in paths:
        try:
            st = path.stat()
        except FileNotFoundError:
            continue  # swept by another process meanwhile
        age = now - st.st_mtime
        if path.suffix == ".tmp":
            if age > TMP_AGE_SECONDS:
                _remove(path)
            else:
                kept.append((st.st_mtime, st.st_size, path))  # a write in progress takes room too
        elif path.suffix == ".json":
            if age > MAX_AGE_SECONDS:
                _remove(path)
            else:
                kept.append((st.st_mtime, st.st_size, path))
    kept.sort()  # oldest first
    files = sum(1 for _, _, p in kept if p.suffix == ".json") + (1 if incoming else 0)
    size = sum(s for _, s, _ in kept) + incoming
    for mtime, bytes_, path in kept:
        if files <= KEEP_NEWEST and size <= MAX_FOLDER_BYTES:
            break
        if now - mtime <= MIN_AGE_SECONDS or path.suffix != ".json":
            continue
        _remove(path)
        files -= 1
        size -= bytes_
    return incoming <= MAX_FILE_BYTES and files <= KEEP_NEWEST and size <= MAX_FOLDER_BYTES


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def spill(wire: bytes, *, command: str, home: Path, ceiling: int) -> dict[str, Any]:
    """Write the complete serialized reply to the spill folder; return the envelope that
    replaces it, itself at most `ceiling` bytes once serialized."""
    folder = spill_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    where: str | dict[str, str]
    lines = msgspec.json.format(wire, indent=1)
    if sweep(folder, incoming=len(lines)):
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        name = f"{stamp}-{command}-{hashlib.sha256(wire).hexdigest()[:16]}.json"
        path = folder / name
        tmp = path.with_suffix(f".{os.getpid()}.tmp")  # one writer a name: no two share a .tmp
        tmp.write_bytes(lines)
        os.replace(tmp, path)  # a reader never sees half a file
        note, where = NOTE.format(ceiling=ceiling, bytes=len(lines)), str(path)
    else:
        why = (f"it is over the {MAX_FILE_BYTES}-byte cap of a spill file" if len(lines) > MAX_FILE_BYTES
               else f"the spill folder is at its bounds of {KEEP_NEWEST} files and {MAX_FOLDER_BYTES} bytes "
                    f"with files younger than {MIN_AGE_SECONDS // 60} minutes")
        note = NOT_WRITTEN.format(ceiling=ceiling, why=why)
        where = {"unknown": "not_recorded", "reason": f"the complete result was not written: {why}"}
    reply: dict[str, Any] = {"head": "", "note": note, "path": where, "bytes": len(lines)}
    cursors = next_cursors(wire)
    if cursors and len(encode_json({**reply, "cursors": cursors})) <= ceiling:
        reply["cursors"] = cursors  # before the head: a cursor is what an agent can act on
    text = wire.decode("utf-8", errors="replace")
    room = ceiling - len(encode_json(reply))
    head = text[: max(room, 0)]
    while head:
        reply["head"] = head
        over = len(encode_json(reply)) - ceiling
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
