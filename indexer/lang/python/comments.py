"""What tree-sitter-python is shown of a source: its long runs of comment-only lines blanked.

Its scanner, at each comment standing on a line of its own, looks on past the comments after
it for the next line's indentation, and the parser reads the file again from there: a run of
thousands of comment lines (which a file of a commit under review may hold) was parsed in the
square of its length, blank lines among them too. A comment names nothing, so a run of them
is shown as blank lines, which the scanner passes over at once (same length and lines: every
offset read from the source still holds). A line of `#` may also stand within a string: the
source is shown so only once a parse of it so shown finds every run outside its strings and
errors; else only the lines holding no quote, backslash or brace are blanked, which leave a
string as it was."""

from __future__ import annotations

import re
from bisect import bisect_right

from tree_sitter import Node

from indexer.lang import grammars

RUN = 32  # comment lines in a run that are blanked: a shorter run costs little to parse

# A run: comment-only lines, blank lines among them (which the scanner passes as it passes
# comments), holding at least RUN comments.
_RUN = re.compile(rb"(?:^[ \t]*(?:#[^\r\n]*)?\r?\n){%d,}" % RUN, re.MULTILINE)
_SAFE_RUN = re.compile(rb"(?:^[ \t]*(?:#[^'\"\\{}\r\n]*)?\r?\n){%d,}" % RUN, re.MULTILINE)
_COMMENT = re.compile(rb"^[ \t]*#[^\r\n]*", re.MULTILINE)


def parser_view(name: str, data: bytes) -> bytes:
    """`data` with each run of at least `RUN` comment-only lines blanked (`_SAFE_RUN`'s alone
    where a run may be within a string)."""
    if data.count(b"#") < RUN:
        return data
    runs = _runs(_RUN, data)
    if not runs:
        return data
    view = _blanked(data, runs)
    tree = grammars.parse_shown(name, view)
    if tree is not None and not _in_strings(tree.root_node, runs):
        return view
    return _blanked(data, _runs(_SAFE_RUN, data))


def _runs(pattern: re.Pattern[bytes], data: bytes) -> list[tuple[int, int]]:
    """The spans `pattern` finds that hold at least `RUN` comments (a run of blank lines alone
    is no run)."""
    return [m.span() for m in pattern.finditer(data) if data.count(b"#", *m.span()) >= RUN]


def _blanked(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    parts = []
    at = 0
    for start, end in spans:  # each comment line to spaces, the blank ones as they are
        parts += [data[at:start], _COMMENT.sub(lambda m: b" " * len(m.group()), data[start:end])]
        at = end
    parts.append(data[at:])
    return b"".join(parts)


def _in_strings(root: Node, runs: list[tuple[int, int]]) -> bool:
    """Whether a string or an error of the tree overlaps a run. A run within a string of the
    source is within one of the tree of the source so shown: the runs before it were comments,
    whose blanking leaves the string where it starts, and its text up to the run the same."""
    starts = [start for start, _ in runs]
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is None:  # a cursor stands on a node: no tree to read
            return False
        kind = node.type
        descend = node.child_count > 0
        if kind == "ERROR" or (kind == "string" and node.start_point[0] != node.end_point[0]):
            k = bisect_right(starts, node.end_byte - 1) - 1
            if k >= 0 and runs[k][1] > node.start_byte:
                return True  # or where the parser could not place the run: shown as it is
            descend = kind == "ERROR"
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
