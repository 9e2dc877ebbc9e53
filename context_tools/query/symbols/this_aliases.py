"""The lines of a JavaScript or TypeScript file aliasing `this` under a name (`const self =
this`) and where each stays visible: a site sees such a line when no block closes between
them, reading back by braces from the site (`sites._BySyntax._instance_alias`). Each line's
braces are read once a file: a line is visible from a point until the balance of braces
drops below its own at the line's start (the block holding it closes), so a site asks for
the nearest aliasing line still open by a binary search, not by reading the file back."""

from __future__ import annotations

from bisect import bisect_left
from typing import Callable

from context_tools.query.symbols.rightmost import Rightmost
from context_tools.query.symbols.script_blocks import Braces


class ThisAliases:
    """A file's lines declaring `name` an alias of `this` (or saying it is none), with where
    each stops being visible (`Braces.closes`, the file's); `candidates`: the indexes of the lines
    that may say so (those holding the name as a word: `sites._Reading.lines_naming`)."""

    def __init__(self, braces: Braces, lines: list[bytes], name: str, alias: Callable[[bytes, str], bool | None],
                 candidates: list[int]) -> None:
        spelled = name.encode()
        self.starts = braces.starts
        self.closes = braces.closes
        # the lines saying something of the name as an alias, in order, what each says, and
        # where each stops being visible
        self.lines: list[int] = []
        self.said: list[bool] = []
        for i in candidates:
            text = lines[i]
            if spelled in text and (said := alias(text, name)) is not None:
                self.lines.append(i + 1)
                self.said.append(said)
        self._closes = Rightmost(self.closes[n - 1] for n in self.lines)

    def visible(self, line: int, at: int) -> bool:
        """Is the start of `line` (from 1) inside no block closed before byte `at` of the file?"""
        return self.closes[line - 1] > at

    def nearest(self, first: int, last: int, at: int) -> bool | None:
        """What the nearest line from `last` up to `first` (from 1) saying something of the name
        that is visible from byte `at` says; None when no such line is."""
        found = self._closes.last_over(bisect_left(self.lines, first), bisect_left(self.lines, last + 1) - 1, at)
        return self.said[found] if found is not None else None
