"""Second views of a source whose parse has errors, for the grammars that stumble on a
construct the language allows (`indexer.lang.grammars.parse` keeps the second tree only when it
has fewer bytes in errors).

A view has the same length and lines as the source, so every offset and name read from the
source still holds; what it changes is only what the parser is shown.

- C#: tree-sitter-c-sharp takes a preprocessor directive between members or statements, but one
  inside a parameter or argument list (`void Add(ref IntPtr obj, int run` / `#if TRACE_ALLOC` /
  `, StackTrace st` / `#endif` / `)`) makes an ERROR that can swallow the whole file, with every
  class in it.
- Bash: tree-sitter-bash has no extglob in case patterns or `[[ == ]]` operands
  (`-!(-*)[hV]*)`, `*.@(jar|zip)`), ends a `=~` regex at the first `]]`, which `[^]]` holds,
  and in a `${...}` pattern takes a `{` for one more brace to close (bash closes at the first
  `}`) and stumbles on a `]` with no `[` (`${option%%[<{().[]*}`, `${host%]*}`); any of these
  may turn the rest of the file into an ERROR (every bash-completion helper after it).
"""

from __future__ import annotations

import re
from typing import Callable

from tree_sitter import Node

_NOT_LINE_BREAK = re.compile(rb"[^\r\n]")


def blanked(chunk: bytes) -> bytes:
    """`chunk` as spaces of the same length, its line breaks kept: what a view shows of a
    construct it hides, so every offset and line still holds."""
    return _NOT_LINE_BREAK.sub(b" ", chunk)

_CS_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*([a-z]*)[^\r\n]*", re.MULTILINE)


def csharp_branch_view(data: bytes, root: Node) -> bytes | None:
    """`data` with every preprocessor directive line blanked, and the `#elif`/`#else` branches
    of each `#if` too: one configuration's source (its first branches), which is what a
    compiler is shown. None when the source has no `#if`, or no directive stands in an ERROR
    of `root` (the tree of `data`): the errors are another matter, not worth a second parse."""
    if b"#" not in data or not any(_in_error(root, m.start(1)) for m in _CS_DIRECTIVE.finditer(data)):
        return None
    view: bytearray | None = None
    skipping: list[bool] = []  # per open #if: is the branch being read blanked
    blank_from = -1  # where the blanked lines since the last directive start; -1: kept
    for match in _CS_DIRECTIVE.finditer(data):
        word = match.group(1)
        if view is None:
            if word != b"if":
                continue  # `#region`, `#nullable` before any `#if`: the grammar takes those
            view = bytearray(data)
        start, end = match.span()
        if blank_from >= 0:  # the blanked branch runs up to this directive
            view[blank_from:start] = blanked(data[blank_from:start])
        if word == b"if":
            skipping.append(False)
        elif word in (b"elif", b"else") and skipping:
            skipping[-1] = True
        elif word == b"endif" and skipping:
            skipping.pop()
        view[start:end] = b" " * (end - start)
        blank_from = end if any(skipping) else -1  # a stack a handful deep
    if view is None:
        return None
    if blank_from >= 0:  # an `#if` left open to the end of the file
        view[blank_from:] = blanked(data[blank_from:])
    return bytes(view)


def _in_error(root: Node, at: int) -> bool:
    node: Node | None = root.descendant_for_byte_range(at, at)
    while node is not None:
        if node.is_error:
            return True
        node = node.parent
    return False


# A `=~` operand up to the last ` ]]` of its line (of the next line after a `\` continuation,
# which the grammar does not take there either: it becomes a space).
_BASH_REGEX = re.compile(rb"=~[ \t]+(\\(?=\r?\n))?(?:\r?\n[ \t]*)?([^\r\n]*)[ \t]\]\]")
_BASH_EXTGLOB = re.compile(rb"[?*+@!]\(")


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
    for match in _BASH_REGEX.finditer(data):
        if view is None:
            view = bytearray(data)
        if match.group(1):
            view[match.start(1)] = 0x20
        start, end = match.span(2)
        view[start:end] = b"x" * (end - start)
    pos, line_end = 0, -1
    while True:
        match = _BASH_EXTGLOB.search(data, pos)
        if match is None:
            break
        start, pos = match.start(), match.end()
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
        end = groups.get(match.end() - 1, -1)
        if end < 0:
            continue
        if view is None:
            view = bytearray(data)
        view[match.start():end] = b"x" * (end - match.start())
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


RETRY_VIEWS: dict[str, Callable[[bytes, Node], bytes | None]] = {
    "csharp": csharp_branch_view,
    "bash": bash_pattern_view,
}
