"""The parents of a file's nodes, found by walking down from the root once for the nodes asked
near one another.

tree-sitter keeps no parent pointers: `Node.parent` walks down from the root every time, a step
a level. A walk up from a node to the root then costs the square of its depth, and one for each
of a file's nested definitions the cube. An `Ancestry` keeps the path from the root to the last
node asked; the next node's parent is found walking down from the deepest node on that path
that holds it, so nodes asked in document order (as a query's matches come) cost, all together,
about one step per node on their paths, and a walk up the path costs a step a level.

The parent found is the one `Node.parent` gives: the walk down is the one tree-sitter makes
(`Node.child_with_descendant`), begun part of the way down.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from tree_sitter import Node

T = TypeVar("T")
_NOT_KEPT = object()


class Ancestry:
    """The parents of the nodes of the tree under `root`."""

    def __init__(self, root: Node) -> None:
        self.root = root
        # The nodes from the root down to the last node's parent: each the parent of the next.
        self._path: list[tuple[Node, int, int]] = [(root, root.start_byte, root.end_byte)]
        self._at: dict[int, int] = {root.id: 0}  # node id -> its place on the path
        self.steps = 0  # nodes passed walking down, all told
        self._children: dict[int, tuple[list[Node], dict[int, int]]] = {}  # node id -> its children, their places
        self._found: dict[str, dict[int, Node | None]] = {}  # a question's name -> node id -> its answer
        self._carried: dict[str, dict[int, Any]] = {}  # a carry's name -> node id -> what it made there

    def parent(self, node: Node) -> Node | None:
        """`node.parent`, the same node, found from the path kept."""
        path, at = self._path, self._at
        place = at.get(node.id)
        if place is not None:
            return path[place - 1][0] if place else None
        start, end = node.start_byte, node.end_byte
        # Off the path, the nodes not certainly above `node`. A node holding its bytes is above
        # it unless both span the same bytes (either may hold the other) or, for a node of no
        # bytes, it stands at one end of the holder's.
        while len(path) > 1:
            _, above_start, above_end = path[-1]
            if above_start <= start and end <= above_end and (
                    above_start < start < above_end if start == end else (above_start, above_end) != (start, end)):
                break
            del at[path.pop()[0].id]
        current = path[-1][0]
        while True:
            child = current.child_with_descendant(node)
            self.steps += 1
            if child is None:  # not under this root: as tree-sitter finds it
                return node.parent
            if child.id == node.id:
                return current
            at[child.id] = len(path)
            path.append((child, child.start_byte, child.end_byte))
            current = child

    def descendant(self, start: int, end: int) -> Node | None:
        """`root.descendant_for_byte_range(start, end)`: the same walk down, begun at the deepest
        node on the path that holds the range with bytes to spare on both sides (the walk from
        the root passes through it: nothing before it can hold the range). Places asked in
        order then cost about the levels between them, not each its whole depth."""
        path, at = self._path, self._at
        while len(path) > 1 and not (path[-1][1] < start and end < path[-1][2]):
            del at[path.pop()[0].id]
        return path[-1][0].descendant_for_byte_range(start, end)

    def first_above(self, node: Node, question: str, passes: Callable[[Node], bool]) -> Node | None:
        """The nearest node above `node` for which `passes` is false (None past the root). The
        answer is kept for every node passed, under `question` (the name of `passes`), so walks
        up through the same nodes are made once for the file, not once a node below them."""
        found = self._found.setdefault(question, {})
        passed: list[int] = []
        up = self.parent(node)
        while up is not None and passes(up):
            if up.id in found:
                up = found[up.id]
                break
            passed.append(up.id)
            up = self.parent(up)
        for seen in passed:
            found[seen] = up
        return up

    def carried(self, node: Node, question: str, carry: Callable[[T, Node], T], start: T) -> T:
        """What `carry` makes of the way down from the root to `node`'s parent, a node at a time
        from `start` (`node` excluded; `start` for the root). Kept for every node passed, under
        `question` (the name of `carry`): each node of the file is carried once."""
        kept = self._carried.setdefault(question, {})
        passed: list[Node] = []
        value = start
        up = self.parent(node)
        while up is not None:
            found = kept.get(up.id, _NOT_KEPT)
            if found is not _NOT_KEPT:
                value = found
                break
            passed.append(up)
            up = self.parent(up)
        for each in reversed(passed):
            value = kept[each.id] = carry(value, each)
        return value

    def place(self, node: Node, parent: Node) -> tuple[list[Node], int]:
        """The children of `parent` (`node`'s parent) and `node`'s place among them, kept for
        the file: a node's sibling is found through its parent, walked to from the root."""
        kept = self._kept_children(parent)
        return kept[0], kept[1][node.id]

    def children(self, parent: Node) -> list[Node]:
        """`parent.children`, kept for the file."""
        return self._kept_children(parent)[0]

    def _kept_children(self, parent: Node) -> tuple[list[Node], dict[int, int]]:
        kept = self._children.get(parent.id)
        if kept is None:
            children = parent.children
            kept = self._children[parent.id] = children, {child.id: i for i, child in enumerate(children)}
        return kept


_THREAD = threading.local()  # one a thread, as files may be read in several at once


def of(root: Node) -> Ancestry:
    """The Ancestry of the tree under `root`: the one last made on this thread when it is that
    root's (the same node object), else a new one, kept in its place."""
    kept: Ancestry | None = getattr(_THREAD, "kept", None)
    if kept is None or kept.root is not root:
        kept = _THREAD.kept = Ancestry(root)
    return kept


@contextmanager
def reading(root: Node) -> Iterator[Ancestry]:
    """While a file's tree is read: `parent`, `first_above`, `carried` and `place` walk it
    through one Ancestry (the one `of(root)` gives)."""
    _THREAD.kept = None
    ancestry = _THREAD.reading = of(root)
    try:
        yield ancestry
    finally:
        _THREAD.reading = _THREAD.kept = None


def _reading() -> Ancestry | None:
    reading_now: Ancestry | None = getattr(_THREAD, "reading", None)
    return reading_now


def held_at(root: Node, start: int, end: int, question: str, holds: Callable[[Node], bool]) -> bool:
    """Whether the node at bytes `start`..`end` of the tree under `root`, or a node above it,
    `holds`. Places asked in order cost about the levels between them (`Ancestry.descendant`),
    and what each node passed on the way up said is kept under `question` for the tree
    (`Ancestry.first_above`), not walked again from each place through every level above."""
    walk = of(root)
    node = walk.descendant(start, end)
    return node is not None and (holds(node) or walk.first_above(node, question, lambda n: not holds(n)) is not None)


def parent(node: Node) -> Node | None:
    """`node.parent` for a node of the file being read (`reading`), found through its
    Ancestry; outside a reading, as tree-sitter finds it."""
    reading_now = _reading()
    return node.parent if reading_now is None else reading_now.parent(node)


def first_above(node: Node, question: str, passes: Callable[[Node], bool]) -> Node | None:
    """`Ancestry.first_above` in the file being read (`reading`); outside a reading, a walk up
    as tree-sitter finds parents."""
    reading_now = _reading()
    if reading_now is not None:
        return reading_now.first_above(node, question, passes)
    up = node.parent
    while up is not None and passes(up):
        up = up.parent
    return up


def carried(node: Node, question: str, carry: Callable[[T, Node], T], start: T) -> T:
    """`Ancestry.carried` in the file being read (`reading`); outside a reading, over a walk up
    as tree-sitter finds parents."""
    reading_now = _reading()
    if reading_now is not None:
        return reading_now.carried(node, question, carry, start)
    way = []
    up = node.parent
    while up is not None:
        way.append(up)
        up = up.parent
    value = start
    for each in reversed(way):
        value = carry(value, each)
    return value


def children(parent: Node) -> list[Node]:
    """`parent.children`, kept for the file being read (`reading`): a node of many children,
    asked of each, lists them once (tree-sitter makes the list, and reaches a child by its
    index, walking the children before it)."""
    reading_now = _reading()
    return parent.children if reading_now is None else reading_now.children(parent)


def place(node: Node, parent: Node) -> tuple[list[Node], int]:
    """The children of `parent` (`node`'s parent) and `node`'s place among them: kept for the
    file being read (`reading`), so a node of many children lists them once."""
    reading_now = _reading()
    if reading_now is not None:
        return reading_now.place(node, parent)
    children = parent.children
    return children, next(i for i, child in enumerate(children) if child.id == node.id)
