"""Paths in path order, each with a project number: those whose number lies in some
intervals, in path order, as they are taken."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from heapq import heapify, heappop, heappush
from typing import Iterable, Iterator, Sequence


class NumberedPaths:
    """The paths are cut into runs of one number, one after another in path order (a
    project's files mostly are one). The runs are kept sorted by number, with a table of the
    least path position over every span of them a power of two long: the runs of an interval
    of numbers are one span of that order, the first of them in path order is found in two
    reads of the table, and the rest by splitting the span around it. So the paths of k
    intervals come in path order for the intervals and a heap operation a run taken, never a
    look at a run whose number lies in none of them. With intervals at least a quarter as many
    as the runs, each run is asked in path order instead (an interval costs more than a
    question), until as many as are taken."""

    def __init__(self, paths: list[str], numbers: Sequence[int]) -> None:
        self.paths = paths
        self._starts = [i for i in range(len(paths)) if i == 0 or numbers[i] != numbers[i - 1]]
        self._run_numbers = [numbers[i] for i in self._starts]
        by_number = sorted(range(len(self._starts)), key=self._run_numbers.__getitem__)  # stable: path order within
        self.numbers = [self._run_numbers[r] for r in by_number]
        self._at = array("i", [0]) * len(paths)  # a run's first path position -> its place by number
        least = array("i", (self._starts[r] for r in by_number))
        ends = self._starts[1:] + [len(paths)]
        self._ends = array("i", (ends[r] for r in by_number))  # a run's end, by its place
        for place, start in enumerate(least):
            self._at[start] = place
        # the place past the runs from each place on that each come before all runs after them
        self._tail = array("i", [0]) * (len(least) + 1)
        self._tail[len(least)] = len(least)
        later = len(paths)
        for place in range(len(least) - 1, -1, -1):
            self._tail[place] = self._tail[place + 1] if least[place] < later else place
            later = min(later, least[place])
        self._least = [least]  # level k: the least first position of 2**k runs from each place
        width = 1
        while 2 * width <= len(least):
            last = self._least[-1]
            self._least.append(array("i", map(min, last[: len(last) - width], last[width:])))
            width *= 2

    def seen(self, bounds: Sequence[int] | None) -> Iterator[str]:
        """The paths whose number lies in one of the intervals `bounds` ([start, end) in
        pairs, sorted, none overlapping the next), or every path for None, in path order."""
        paths = self.paths
        if bounds is None:
            yield from paths
            return
        if 2 * len(bounds) >= len(self._starts):
            for start, end, number in zip(self._starts, self._starts[1:] + [len(paths)], self._run_numbers):
                if bisect_right(bounds, number) & 1:
                    if end - start == 1:  # the usual run of a hostile tree: no copy made
                        yield paths[start]
                    else:
                        yield from _run(paths, start, end)
            return
        numbers, first = self.numbers, self._first
        heap = []
        for start, end in zip(bounds[::2], bounds[1::2]):
            low = bisect_left(numbers, start)
            high = bisect_left(numbers, end, low)
            if low < high:
                heap.append((first(low, high), low, high))
        heapify(heap)
        at, ends, least, tail = self._at, self._ends, self._least[0], self._tail
        while heap:
            start, low, high = heappop(heap)
            place = at[start]
            if low < place:
                heappush(heap, (first(low, place), low, place))
            end = ends[place]
            if end - start == 1:
                yield paths[start]
            else:
                yield from _run(paths, start, end)
            # the runs after it that come before any later one, and before the other intervals'
            # first, follow it at once, without a heap operation each
            bound = heap[0][0] if heap else len(paths)
            place += 1
            stop = min(tail[place], high)
            while place < stop and least[place] < bound:
                start, end = least[place], ends[place]
                if end - start == 1:
                    yield paths[start]
                else:
                    yield from _run(paths, start, end)
                place += 1
            if place < high:
                heappush(heap, (first(place, high), place, high))

    def _first(self, low: int, high: int) -> int:
        """The least first path position of the runs at places [low, high) by number."""
        level = (high - low).bit_length() - 1
        least = self._least[level]
        return min(least[low], least[high - (1 << level)])


def _run(paths: list[str], start: int, end: int) -> Iterable[str]:
    """paths[start:end]; a long run copied out a few at a time, so a reader stopping early
    has copied few."""
    return paths[start:end] if end - start <= _COPIED else _copied(paths, start, end)


def _copied(paths: list[str], start: int, end: int) -> Iterator[str]:
    for at in range(start, end, _COPIED):
        yield from paths[at:min(at + _COPIED, end)]


_COPIED = 64
