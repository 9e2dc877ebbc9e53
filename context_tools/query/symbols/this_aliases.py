"""The lines of a JavaScript or TypeScript file aliasing `this` under a name (`const self =
this`) and where each stays visible: a site sees such a line when no block closes between
them, reading back by braces from the site (`sites._BySyntax._instance_alias`). Each line's
braces are read once a file: a line is visible from a point until the balance of braces
drops below its own at the line's start (the block holding it closes), so a site asks for
the nearest aliasing line still open by a binary search, not by reading the file back."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from typing import Callable

from context_tools.query.symbols.rightmost import Rightmost

_BRACE = re.compile(rb"[{}]")
_NEVER = 1 << 62  # past any byte of a file


class BraceBalance:
    """Where each line of a file stays visible from: read once a file, whatever name is asked."""

    def __init__(self, lines: list[bytes]) -> None:
        # each line's first byte in the file (lines joined by one byte), and the end's
        self.starts = array("q")
        # the byte from which each line's start is inside no block it was (the balance of braces
        # first below its own there), _NEVER when none closes
        self.closes = array("q", [_NEVER]) * len(lines)
        open_lines: list[tuple[int, int]] = []  # (balance at its start, line from 0), balances rising
        balance = start = 0
        for i, text in enumerate(lines):
            self.starts.append(start)
            open_lines.append((balance, i))
            for m in _BRACE.finditer(text):
                if m.group() == b"{":
                    balance += 1
                    continue
                balance -= 1
                while open_lines and open_lines[-1][0] > balance:
                    self.closes[open_lines.pop()[1]] = start + m.start() + 1
            start += len(text) + 1
        self.starts.append(start)


class ThisAliases:
    """A file's lines declaring `name` an alias of `this` (or saying it is none), with where
    each stops being visible (`balance`, the file's); `candidates`: the indexes of the lines
    that may say so (those holding the name as a word: `sites._Reading.lines_naming`)."""

    def __init__(self, balance: BraceBalance, lines: list[bytes], name: str, alias: Callable[[bytes, str], bool | None],
                 candidates: list[int]) -> None:
        spelled = name.encode()
        self.starts = balance.starts
        self.closes = balance.closes
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
