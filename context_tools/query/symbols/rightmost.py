"""The rightmost place, up to a bound, of a list of numbers whose number exceeds a threshold
(`Rightmost`): the innermost definition of a file holding a line (the last starting at or
before it whose last line is at or past it), the nearest line still visible from a point (the
last before it whose block closes past it). Asked by a binary search over a table of the
largest number of every span a power of two long, made once a list."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from indexer.model import Symbol


class Rightmost:
    """A list of numbers, asked for the last place up to a bound holding one over a threshold."""

    def __init__(self, values: Iterable[int]) -> None:
        # the largest number of each span of 1, 2, 4, ... places from each place
        self._largest = [array("q", values)]
        width = 1
        while 2 * width <= len(self._largest[0]):
            last = self._largest[-1]
            self._largest.append(array("q", (max(last[i], last[i + width]) for i in range(len(last) - width))))
            width *= 2

    def last_over(self, lo: int, hi: int, threshold: int) -> int | None:
        """The last place from `lo` to `hi` (both included) whose number exceeds `threshold`;
        None when none does."""
        if hi < lo or self._over(lo, hi) <= threshold:
            return None
        while lo < hi:  # the last `i` whose places i..hi hold one over it
            mid = (lo + hi + 1) // 2
            if self._over(mid, hi) > threshold:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _over(self, lo: int, hi: int) -> int:
        level = (hi - lo + 1).bit_length() - 1
        row = self._largest[level]
        return max(row[lo], row[hi - (1 << level) + 1])


class Holding:
    """Definitions of a file, in an order their first lines never fall in (by first line or
    by first byte, ties as the caller wants them met last first), found holding a line by a
    search over them (`holding`), not by reading them all for each line."""

    def __init__(self, symbols: list[Symbol]) -> None:
        self.symbols = symbols
        self._starts = [s.line for s in symbols]
        self._ends = Rightmost(s.end_line for s in symbols)

    @classmethod
    def by(cls, symbols: list[Symbol], key: Callable[[Symbol], int]) -> Holding:
        """`symbols` in the order of `key` (a first line or byte), those of one key met in the
        list's order: the first of them first."""
        return cls([symbols[i] for i in sorted(range(len(symbols)), key=lambda i: (key(symbols[i]), -i))])

    def holding(self, line: int) -> Iterator[Symbol]:
        """The definitions whose lines hold `line`, the last in the order first."""
        at = self._ends.last_over(0, bisect_right(self._starts, line) - 1, line - 1)
        while at is not None:
            yield self.symbols[at]
            at = self._ends.last_over(0, at - 1, line - 1)
