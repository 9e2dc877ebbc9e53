"""A node of thousands of children on one line, which a file of a commit under review may
hold (comments between `export` and what it exports, ...), costs work in proportion to its
children: what is read of each child does not walk its siblings again. The work is counted
(the children tree-sitter walks, lines run), at n children and 2n."""

from __future__ import annotations

from typing import Callable

import pytest
from tree_sitter import Node

from indexer.extract.blob import extract_blob
from indexer.lang.javascript import imports as js_imports


class _Walked:
    """A node counting the children tree-sitter walks for what is asked of it: `child(i)`
    walks the i before the one asked, `children` lists them all."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self.walked = 0

    def child(self, i: int) -> Node | None:
        self.walked += i + 1
        return self._node.child(i)

    @property
    def children(self) -> list[Node]:
        self.walked += self._node.child_count
        return self._node.children

    def __getattr__(self, name: str) -> object:
        return getattr(self._node, name)


def _walked_in(monkeypatch: pytest.MonkeyPatch, module: object, function: str) -> Callable[[], int]:
    """Patch `module.function` (of one node) to be given a `_Walked` node; the children walked
    so far, summed over its calls."""
    original = getattr(module, function)
    total = 0

    def counted(node: Node) -> object:
        nonlocal total
        walked = _Walked(node)
        try:
            return original(walked)
        finally:
            total += walked.walked

    monkeypatch.setattr(module, function, counted)
    return lambda: total


@pytest.mark.parametrize(("path", "language"), [("a.ts", "typescript"), ("a.tsx", "tsx"), ("a.js", "javascript")])
def test_the_form_of_an_export_of_many_comments_is_read_walking_them_once(path, language, monkeypatch):
    """`export /*c0*/ /*c1*/ ... default x;`: the form after the comments was found asking
    tree-sitter for each child by its index, which walks the children before it."""
    def walked(n: int) -> int:
        total = _walked_in(monkeypatch, js_imports, "_export_form")
        src = b"const x = 1;\nexport " + b" ".join(b"/*c%d*/" % i for i in range(n)) + b" default x;\n"
        src += b"\n" * (len(src) // 100)  # lines short on average: not read as minified
        facts = extract_blob(src, path, language)
        assert facts.exported_as == [("x", "default")] and facts.es_module
        monkeypatch.undo()
        return total()

    small, large = walked(500), walked(1000)
    assert large <= 2.5 * small, (small, large)
