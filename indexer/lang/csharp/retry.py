"""The C# view of a source whose parse has errors (indexer.lang.retry_views).

tree-sitter-c-sharp takes a preprocessor directive between members or statements, but one
inside a parameter or argument list (`void Add(ref IntPtr obj, int run` / `#if TRACE_ALLOC` /
`, StackTrace st` / `#endif` / `)`) makes an ERROR that can swallow the whole file, with every
class in it.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.retry_views import blanked, in_error

_CS_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*([a-z]*)[^\r\n]*", re.MULTILINE)


def csharp_branch_view(data: bytes, root: Node) -> bytes | None:
    """`data` with every preprocessor directive line blanked, and the `#elif`/`#else` branches
    of each `#if` too: one configuration's source (its first branches), which is what a
    compiler is shown. None when the source has no `#if`, or no directive stands in an ERROR
    of `root` (the tree of `data`): the errors are another matter, not worth a second parse."""
    if b"#" not in data or not any(in_error(root, m.start(1)) for m in _CS_DIRECTIVE.finditer(data)):
        return None
    view: bytearray | None = None
    skipping: list[bool] = []  # per open #if: is the branch being read blanked
    skipped = 0  # how many of them are: the stack is as deep as a file leaves `#if`s open
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
            skipped += not skipping[-1]
            skipping[-1] = True
        elif word == b"endif" and skipping:
            skipped -= skipping.pop()
        view[start:end] = b" " * (end - start)
        blank_from = end if skipped else -1
    if view is None:
        return None
    if blank_from >= 0:  # an `#if` left open to the end of the file
        view[blank_from:] = blanked(data[blank_from:])
    return bytes(view)


retry_view = csharp_branch_view
