"""YAML read without a parser, for what a change of whitespace alone may keep: which lines
are a block scalar's text, and where a blank line may come and go.

A file no grammar reads is compared as lines (`delta.syntax.plain`): indentation, blank lines
and trailing whitespace aside. In YAML those are data inside a block scalar (`run: |`, `>-`):
a blank line, a trailing space, a line of spaces past the block's indentation are the string's
own. And a blank line inside a multi-line quoted or plain scalar is a line break of its value.
So `view` gives each line as it is compared:

- A CRLF is a line end (YAML reads it as LF).
- A line of a block scalar (the lines after a header ending in `|` or `>`, with its indicators
  and a comment, that are blank or indented past the header's line) is kept whole: a line of
  spaces alone keeps those past the block's indentation. The blank lines that end a block
  whose header does not keep them (`+`), each no deeper than its indentation, are no part of it
  and drop out. A file that ends in a block keeps whether its last line ends.
- Any other line is compared as `plain` reads it; a blank line drops out only where no scalar
  can run across it: before the document's first line, or before a key or a comment, or an
  item or a document at the margin, in a document whose first line is a key or an item, with
  every line before it (but comments) holding its quotes in pairs and its brackets closed (a
  plain scalar's line holds no `key: `, and a comment ends it). The empty rest after a file's
  last line end is no line.

Each reading errs toward data: a header found where YAML sees none (`key: a |`), a block
taken deeper than it runs, a quote in a plain scalar (`it's`) or a blank line before a nested
item keep the lines they touch, so a change there is signal. None of it makes a change of data
whitespace only.
"""

from __future__ import annotations

import re

# A block scalar's header: an indicator ending the line (after a key, an item, a tag, an anchor,
# a document's start, or alone), with its chomping and indentation indicators and a comment
_HEADER = re.compile(rb"(?:^|[ \t])[|>]([-+1-9]{0,2})[ \t]*(?:#.*)?$")
# A key (plain, opening no quote nor flow), which no plain scalar's line may hold (`: `), or an
# item: a node of a collection
_KEY = re.compile(rb"[^\s#'\"\[{?|>!&*%@`-][^#]*?:(?:[ \t]|$)")
_NODE = re.compile(_KEY.pattern + rb"|-(?:[ \t]|$)")
_BLANK = b" \t\r"


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" "))


def _balanced(line: bytes) -> bool:
    """Whether no quoted scalar or flow collection runs past the line: its quotes in pairs
    (an escaped double quote aside), its brackets closed."""
    return (len(re.findall(rb'(?<!\\)"', line)) % 2 == 0 and line.count(b"'") % 2 == 0
            and line.count(b"[") == line.count(b"]") and line.count(b"{") == line.count(b"}"))


def _block(lines: list[bytes], at: int) -> tuple[int, list[bytes | None]]:
    """The block scalar whose header is line `at`: where it ends and its lines as compared."""
    header = lines[at]
    found = _HEADER.search(header)
    assert found is not None
    keep = b"+" in found.group(1)
    depth = _indent(header)
    root = depth == 0 and not _NODE.match(header)  # `--- |`, `!tag |`: its text may start at the margin
    end = at + 1
    while end < len(lines):
        line = lines[end]
        if root:
            if line.startswith((b"---", b"...")):
                break
        elif line.strip(_BLANK) and _indent(line) <= depth:
            break
        end += 1
    body = lines[at + 1:end]
    content = [line for line in body if line.strip(_BLANK)]
    margin = _indent(content[0]) if content else 0
    out: list[bytes | None] = []
    for line in body:
        spaces = not line.strip(b" ")
        out.append(b" " * max(0, len(line) - margin) if spaces and content else line)
    tail = len(body)
    while tail and not body[tail - 1].strip(_BLANK):
        tail -= 1
    if content and not keep and all(not body[i].strip(b" ") and len(body[i]) <= margin
                                    for i in range(tail, len(body))):
        out[tail:] = [None] * (len(body) - tail)
    return end, out


def view(lines: list[bytes]) -> list[bytes | None]:
    """Each line of a YAML file as a change of whitespace alone keeps it: None where it drops
    out (a blank line YAML reads as layout)."""
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]  # YAML reads a CRLF as LF
    out: list[bytes | None] = []
    outside: list[int] = []  # the lines read as plain, by index into `out`
    i = 0
    while i < len(lines):
        out.append(_plain(lines[i]))
        outside.append(i)
        if _HEADER.search(lines[i]):
            i, body = _block(lines, i)
            out.extend(body)
        else:
            i += 1
    # a blank line outside the blocks drops out where no scalar may run across it: before a
    # document's first node, or before a node at the margin of one that is a collection
    balanced, started, collection, continued = True, False, False, False
    pending: list[int] = []
    for n in outside:
        line = lines[n]
        if not line.strip(_BLANK):
            if continued:
                out[n] = b""
            else:
                pending.append(n)
            continue
        comment = line.lstrip().startswith(b"#")
        margin = comment or line.startswith((b"---", b"...")) or _NODE.match(line) is not None or (
            _KEY.match(line.lstrip(b" ")) is not None)  # a key, at any depth: no scalar's line
        drop = balanced and (not started or (collection and margin))
        for blank in pending:
            out[blank] = None if drop else b""
        pending = []
        continued = line.rstrip(_BLANK).endswith(b"\\")
        if line.startswith(b"---"):  # a document: what follows the marker is its root
            started = bool(line[3:].strip(_BLANK)) and not line[3:].lstrip().startswith(b"#")
            collection = False
        elif not comment and not line.startswith((b"...", b"%")) and not started:
            started, collection = True, _NODE.match(line) is not None
        if not comment:
            balanced = balanced and _balanced(line)
    for blank in pending:  # the blank lines that end the file; the empty rest after its last line end is no line
        out[blank] = None if balanced or (blank == len(lines) - 1 and not lines[blank]) else b""
    if outside[-1] != len(lines) - 1:  # it ends in a block scalar: whether its last line ends is data
        out[-1] = b"\0end " + lines[-1]
    return out


def _plain(line: bytes) -> bytes:
    """A line outside a block as `delta.syntax.plain` keeps it: without its indentation and
    trailing whitespace, but after a line-end backslash, which may escape what follows it."""
    inner = line.strip()
    return line.lstrip(b" \t") if inner.endswith(b"\\") else inner


def compared(lines: list[bytes]) -> list[bytes]:
    """The lines a change of whitespace alone keeps, in order."""
    return [line for line in view(lines) if line is not None]
