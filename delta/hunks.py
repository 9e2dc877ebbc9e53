"""The hunk index: each hunk of a patch with a stable, content-derived id.

The id is patch-id style: a hash over the file path, the hunk's function context
(the section text of its header) and its +/- lines with all whitespace removed.
Line numbers are not part of it, so a hunk keeps its id when a rebase shifts its
lines. Two identical hunks in one file are told apart by their order of appearance.

The bodies stay in this process (`HunkRecord.body`) for the successor account and
the region map; the packet carries only ids, headers, spans and sizes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import pygit2

from delta.inventory import FileChange

ID_HEX = 20  # 80 bits: collision-free for any realistic range, short enough to cite
_SPACE = re.compile(rb"\s+")


@dataclass(frozen=True)
class HunkRecord:
    id: str
    path: str
    header: str  # "@@ -12,7 +12,9 @@ def parse(...)"
    section: str  # function context: the header text after the second "@@"
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    additions: int
    deletions: int
    size: int  # bytes of the hunk's diff text (header and lines)
    whitespace_only: bool
    body: tuple[bytes, ...]  # normalized "+..." / "-..." lines; never leaves the process
    # hash of the +/- lines byte for byte (no line numbers, no path): the same change wherever it
    # sits. `id` and `body` drop whitespace, which can be the change itself (an indentation that
    # moves a line out of its block, a space inside a string), so a successor is carried or moved
    # only where this agrees too
    body_key: str
    old_changed: tuple[int, int] | None  # first and last deleted line (1-based), None if none
    new_changed: tuple[int, int] | None  # first and last added line


def section_of(header: str) -> str:
    parts = header.split("@@", 2)
    return parts[2].strip() if len(parts) == 3 else ""


def normalize(raw: bytes) -> bytes:
    return _SPACE.sub(b"", raw)


# Where leading whitespace is syntax, re-indenting a line changes what it means (a Python
# `return` moved out of its `if`, a YAML key moved under another, a Makefile recipe line):
# there a change is whitespace-only when every non-blank line keeps its indentation.
_INDENT_SUFFIXES = (".py", ".pyi", ".pyw", ".yaml", ".yml", ".sass", ".pug", ".jade", ".haml", ".coffee",
                    ".nim", ".hs", ".fs", ".mk")
_INDENT_NAMES = frozenset({"Makefile", "GNUmakefile", "makefile", "Snakefile", "SConstruct", "SConscript"})
_WHITESPACE = b" \t\n\r\f\v"
_EOFNL = ("=", ">", "<")  # libgit2's origins of the "\ No newline at end of file" marker


def indent_significant(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in _INDENT_NAMES or path.endswith(_INDENT_SUFFIXES)


def indents(lines: list[bytes]) -> list[bytes]:
    """The leading whitespace of each non-blank line."""
    out = []
    for line in lines:
        stripped = line.lstrip(b" \t")
        if stripped.strip():
            out.append(line[:len(line) - len(stripped)])
    return out


def words(lines: list[bytes]) -> list[bytes]:
    """The non-blank lines, each as its words one space apart: what a change of whitespace alone
    keeps. Whitespace put between two characters, or taken from between them, is no change of
    whitespace alone: `rm -rf /tmp/x` and `rm -rf / tmp/x`, `'a b'` and `'ab'`, `return x` and a
    `return` whose `x` went to the next line (JavaScript returns nothing there) do different things."""
    out = []
    for line in lines:
        parts = line.split()
        if parts:
            out.append(b" ".join(parts))
    return out


def same_but_whitespace(old: bytes, new: bytes, path: str) -> bool:
    """Whether two versions of the file at `path` differ in whitespace only: the same words on
    the same lines, blank lines, the spacing between words and line ends (a CRLF) aside (see
    `words`, and `indent_significant`)."""
    if old.translate(None, _WHITESPACE) != new.translate(None, _WHITESPACE):
        return False  # a quick answer for most: other characters
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    if words(old_lines) != words(new_lines):
        return False
    return not indent_significant(path) or indents(old_lines) == indents(new_lines)


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def hunk_id(path: str, section: str, body: tuple[bytes, ...], ordinal: int = 0) -> str:
    parts = [b"rennet-hunk/1", path.encode(), section.encode(), b"\n".join(body)]
    if ordinal:
        parts.append(str(ordinal).encode())
    return "h" + _digest(*parts)[:ID_HEX]


def index_hunks(change: FileChange) -> list[HunkRecord]:
    """The hunks of one file's patch, in patch order. Binary patches have none."""
    made = None if change.binary else change.patch()
    if made is None:
        return []
    patch: pygit2.Patch = made.patch  # `made` holds the bytes its lines point into until we return
    records: list[HunkRecord] = []
    seen: dict[str, int] = {}
    indented = indent_significant(change.path)
    for hunk in patch.hunks:
        # git drops trailing whitespace from the function context after cutting it at 80
        # bytes; libgit2 keeps it. The header travels so a reader finds it in `git diff`.
        header = hunk.header.rstrip()
        section = section_of(header)
        body: list[bytes] = []
        added: list[bytes] = []
        removed: list[bytes] = []
        old_lines: list[int] = []
        new_lines: list[int] = []
        added_raw: list[bytes] = []
        removed_raw: list[bytes] = []
        exact: list[bytes] = []
        # as `git diff` prints the hunk: its header as git cuts it, a line an origin byte and its
        # text; libgit2 gives a "\ No newline at end of file" marker the line break of the line
        # before it, which git prints with that line, and no origin byte of its own
        size = len(header.encode()) + 1
        for line in hunk.lines:
            raw = line.raw_content
            size += len(raw) if line.origin in _EOFNL else 1 + len(raw)
            if line.origin in "+-" or line.origin in _EOFNL:
                exact.append(line.origin.encode() + raw)
            if line.origin == "+":
                norm = normalize(raw)
                body.append(b"+" + norm)
                added.append(norm)
                added_raw.append(raw)
                new_lines.append(line.new_lineno)
            elif line.origin == "-":
                norm = normalize(raw)
                body.append(b"-" + norm)
                removed.append(norm)
                removed_raw.append(raw)
                old_lines.append(line.old_lineno)
        frozen = tuple(body)
        base_id = hunk_id(change.path, section, frozen)
        ordinal = seen.get(base_id, 0)
        seen[base_id] = ordinal + 1
        records.append(HunkRecord(
            id=hunk_id(change.path, section, frozen, ordinal) if ordinal else base_id,
            path=change.path,
            header=header,
            section=section,
            old_start=hunk.old_start, old_lines=hunk.old_lines,
            new_start=hunk.new_start, new_lines=hunk.new_lines,
            additions=len(added), deletions=len(removed),
            size=size,
            whitespace_only=b"".join(added) == b"".join(removed) and words(added_raw) == words(removed_raw) and (
                not indented or indents(added_raw) == indents(removed_raw)),
            body=frozen,
            body_key=_digest(b"rennet-body/2", *exact)[:ID_HEX],
            old_changed=(min(old_lines), max(old_lines)) if old_lines else None,
            new_changed=(min(new_lines), max(new_lines)) if new_lines else None,
        ))
    return records
