"""The Bash view of a source whose parse has errors (indexer.lang.retry_views).

tree-sitter-bash has no extglob in case patterns or `[[ == ]]` operands
(`-!(-*)[hV]*)`, `*.@(jar|zip)`), ends a `=~` regex at the first `]]`, which `[^]]` holds,
and in a `${...}` pattern takes a `{` for one more brace to close (bash closes at the first
`}`) and stumbles on a `]` with no `[` (`${option%%[<{().[]*}`, `${host%]*}`); any of these
may turn the rest of the file into an ERROR (every bash-completion helper after it).
"""

from __future__ import annotations

import re
from typing import Iterator

from tree_sitter import Node

# A `=~` operand up to the last ` ]]` of its line (of the next line after a `\` continuation,
# which the grammar does not take there either: it becomes a space).
_BASH_REGEX = re.compile(rb"=~[ \t]+(\\(?=\r?\n))?(?:\r?\n[ \t]*)?([^\r\n]*)[ \t]\]\]")
_BASH_EXTGLOB = re.compile(rb"[?*+@!]\(")
_BASH_REGEX_START = re.compile(rb"=~[ \t]+")
_BASH_REGEX_NEXT_LINE = re.compile(rb"\\?\r?\n")  # what lets the operand start on the next line
_BASH_BREAK = re.compile(rb"[\r\n]")


def _regex_operands(data: bytes) -> Iterator[re.Match[bytes]]:
    """The matches of `_BASH_REGEX` in `data`, as its `finditer` gives them. A `=~` matches
    when a ` ]]` follows it on its line (or on the next, after a break right behind it); each
    line's last ` ]]` is looked up once, so the `=~`s of a line with none fail without the
    pattern reading on to the line's end for each of them."""
    pos, line_end, last = 0, -1, -1

    def closed_from(at: int) -> bool:  # a ` ]]` at or after `at` on its line; `at` never decreases
        nonlocal line_end, last
        if at > line_end:
            found = _BASH_BREAK.search(data, at)
            line_end = found.start() if found else len(data)
            last = max(data.rfind(b" ]]", at, line_end), data.rfind(b"\t]]", at, line_end))
        return last >= at

    while (start := data.find(b"=~", pos)) >= 0:
        pos = start + 2
        spaces = _BASH_REGEX_START.match(data, start)
        if spaces is None:
            continue
        below = _BASH_REGEX_NEXT_LINE.match(data, spaces.end())
        if not closed_from(start + 3) and not (below and closed_from(below.end())):
            continue
        match = _BASH_REGEX.match(data, start)
        if match is not None:
            yield match
            pos = match.end()


# A `${name...}` or `${name[subscript]...}` whose rest (group 1) runs to the first `}` with no
# quote, `$`, backslash or line break in it: bash ends it there, whatever `{` or `[` it holds.
# (A nested `${...}` or `$(...)`, or a quote, may hold a `}` that does not end it: left be.)
# Atomic and possessive, so a failed attempt gives nothing back (a name of a million letters
# with no `}` would otherwise be read again for each shorter name); each class stops before
# the next `${` (or `[`), so a line is read in linear time.
_BASH_EXPANSION = re.compile(
    rb"\$\{(?>[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[-@*#?$!])(?:\[[^\]\[}\r\n]*\])?)"
    rb"([^}$'\"`\\\r\n]*+)\}")


def _expansion_view(data: bytes) -> bytearray | None:
    """A copy of `data` with each `{` of a `${...}` pattern, and each `]` there closing no `[`,
    made an `x` (`${option%%[<{().[]*}`, `${host%]*}`): the grammar counts that `{` as one more
    brace to close and turns the `]` into an ERROR. None when no expansion holds either."""
    view: bytearray | None = None
    for match in _BASH_EXPANSION.finditer(data):
        start, end = match.span(1)
        if b"{" not in data[start:end] and b"]" not in data[start:end]:
            continue
        depth = 0  # brackets open in the pattern (`[[:alpha:]]` closes both)
        for at in range(start, end):
            char = data[at]
            if char == 0x5B:  # [
                depth += 1
            elif char == 0x5D and depth:  # ] closing a [
                depth -= 1
            elif char in (0x7B, 0x5D):  # { or a stray ]
                if view is None:
                    view = bytearray(data)
                view[at] = 0x78  # x
    return view


def bash_pattern_view(data: bytes, root: Node) -> bytes | None:
    """`data` with each `=~` regex operand and each extglob group (`@(a|b)`, `!(-*)`) turned
    into a word of `x`s, and in a `${...}` pattern each `{` and each `]` closing no `[` an `x`.
    None holds a definition; a variable written inside one loses its occurrence in this view.
    An extglob-like `*(` in arithmetic (`$(( a*(b+c) ))`) is left be. None when there is none
    of these. (Where the grammar stumbles, the ERROR often starts lines later, so `root` is
    not consulted.)"""
    view: bytearray | None = _expansion_view(data)
    for match in _regex_operands(data):
        if view is None:
            view = bytearray(data)
        if match.group(1):
            view[match.start(1)] = 0x20
        start, end = match.span(2)
        view[start:end] = b"x" * (end - start)
    pos, line_end = 0, -1
    while True:
        glob = _BASH_EXTGLOB.search(data, pos)
        if glob is None:
            break
        start, pos = glob.start(), glob.end()
        if start > line_end:  # a new line: its bounds and its groups, read once however many matches it holds
            line_start = data.rfind(b"\n", 0, start) + 1
            line_end = data.find(b"\n", start)
            line_end = len(data) if line_end < 0 else line_end
            groups = _group_ends(data, line_start, line_end)
            scanned, opened, closed = line_start, -1, -1  # the last `((` and `))` before the match
        # read on from the last match, not back from the line's start
        opened = max(opened, data.rfind(b"((", max(scanned - 1, line_start), start))
        closed = max(closed, data.rfind(b"))", max(scanned - 1, line_start), start))
        scanned = start
        if opened > closed:
            continue  # inside `(( ))`: arithmetic, not a pattern
        end = groups.get(glob.end() - 1, -1)
        if end < 0:
            continue
        if view is None:
            view = bytearray(data)
        view[glob.start():end] = b"x" * (end - glob.start())
        pos = end
    return bytes(view) if view is not None else None


_PAREN = re.compile(rb"[()]")


def _group_ends(data: bytes, start: int, end: int) -> dict[int, int]:
    """Each `(` of the line `data[start:end]` to one past the `)` closing it on that line."""
    ends: dict[int, int] = {}
    opened: list[int] = []
    for m in _PAREN.finditer(data, start, end):
        if m.group() == b"(":
            opened.append(m.start())
        elif opened:
            ends[opened.pop()] = m.end()
    return ends


retry_view = bash_pattern_view
