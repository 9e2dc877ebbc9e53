"""C# projects: which files' namespaces a C# file sees.

A project is a folder holding a .csproj; a file belongs to the nearest one above it. A C#
namespace may span projects, but a project compiles against its own files and the projects
its .csproj names by `<ProjectReference Include="..\\B\\B.csproj" />`, and theirs in turn (an
SDK-style project passes its references on). So a file sees the files of its own project and
of the projects it reaches so; a file under no .csproj, or a tree with none, sees every file,
and every file sees one under none. A path may start at the project's own folder by name
(`$(MSBuildThisFileDirectory)`, `$(MSBuildProjectDirectory)\\`); one naming a .csproj the
tree does not hold, or built from any other MSBuild property (`$(Root)\\x.csproj`), reaches
nothing.

What the C# resolver (indexer.lang.csharp.resolve) and the references' C# rules
(context_tools/query/symbols.py) both ask: the .csproj files are read once each, all of them
when a file's visibility is first asked.

What a project sees is what a search of the references closes while it is open (the projects
closed then are numbered in a row, one interval) and what else the projects it references
see: that rest is shared with a referenced project when it adds nothing, else kept as
intervals of numbers or as bits, whichever is smaller. A chain or a tree of references
costs a few numbers a project. A tree's references can still be drawn so that what the
projects see, however kept, grows as the square of their number: past REACH_BYTES kept or
REACH_WORK spent over the whole tree, a project whose rest would not fit sees every
project, as a file under no .csproj does, and `capped` says so. The projects are closed in one
order, the sorted folders', whatever is asked first, so which ones that is depends on the
tree alone.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from typing import Callable, Iterable, Sequence, TypeAlias

from indexer.resolve.tree import normalize, parent

_REFERENCE = re.compile(rb"""<ProjectReference\s[^<>]*?Include\s*=\s*["']([^"']+)["']""", re.S)
_OWN_FOLDER = re.compile(r"^\$\(MSBuild(?:ThisFileDirectory|ProjectDirectory)\)/?")

# What finding what a tree's projects see beyond their own rows may keep, in bytes, and
# spend, in work (a byte of bits read or made, or an interval bound read or made at
# _BOUND_COST: Python handles each), before a project's would be read as every project:
# far above what real trees of thousands of projects take.
REACH_BYTES = 64 << 20
REACH_WORK = 512 << 20
_BOUND_COST = 32
_BOUND_BYTES = 4  # an interval bound, in an array of C ints
_RUN = re.compile("1+")


class _Every:
    """What a project sees whose rest would not fit under the ceiling: every project."""


_EVERY = _Every()
_TOP = 2**31 - 1  # above any project's number
_NOTHING: array[int] = array("i")
# The rest of what a project sees: interval bounds [start, end) in pairs, sorted; bits from a
# lowest number; or every project.
Rest: TypeAlias = "array[int] | tuple[int, int] | _Every"


class CSharpProjects:
    def __init__(self, paths: Iterable[str], read: Callable[[str], bytes]) -> None:
        self._manifests: dict[str, list[str]] = {}  # project folder -> its .csproj files
        for p in sorted(p for p in paths if p.endswith(".csproj")):
            self._manifests.setdefault(parent(p), []).append(p)
        self._read = read
        # the project folders, deepest first
        self.folders = sorted(self._manifests, key=lambda f: (-f.count("/"), f))
        self._of: dict[str, str | None] = {}
        self._referenced: dict[str, list[str]] = {}
        # Each project's number (its strongly connected component's, in the order they are
        # closed); the number each component's row starts at (those closed while it was
        # open, all reached from it); and the rest of what it sees.
        self._number: dict[str, int] = {}
        self._members: list[list[str]] = []  # component number -> its project folders
        self._first: list[int] = []
        self._rest: list[Rest] = []
        self._wholes: dict[int, Rest] = {}
        self.kept = 0  # bytes of the rests kept so far, at most REACH_BYTES
        self.spent = 0  # the work of the rests so far, at most REACH_WORK
        self.capped = False  # a project sees every project because its rest would not fit

    def of(self, path: str) -> str | None:
        """The folder of the file's project; None for a file under no .csproj."""
        # up from the file's folder to the first that holds a .csproj or whose answer is
        # known; every folder passed gets that answer too, so each folder is climbed once
        here = parent(path)
        climbed: list[str] = []
        while here not in self._of:
            if here in self._manifests:
                self._of[here] = here
                break
            climbed.append(here)
            if not here:
                self._of[here] = None
                break
            here = parent(here)
        found = self._of[here]
        for folder in climbed:
            self._of[folder] = found
        return found

    def sees(self, viewer: str, target: str) -> bool:
        """Does the C# file `viewer` see the names of the file `target`?"""
        if not self.folders:
            return True
        mine, theirs = self.of(viewer), self.of(target)
        if mine is None or theirs is None:
            return True
        if not self._members:
            self._close_all()
        component, other = self._number[mine], self._number[theirs]
        return self._first[component] <= other <= component or _holds(self._rest[component], other)

    def sees_every(self, viewer: str) -> bool:
        """Is what the C# file `viewer`'s project sees read as every project, past the ceiling
        (REACH_BYTES, REACH_WORK)? Its imports may then reach files it does not see."""
        mine = self.of(viewer) if self.folders else None
        if mine is None:
            return False
        self._close_all()
        return self._rest[self._number[mine]] is _EVERY

    def visible(self, project: str) -> frozenset[str]:
        """The project folders `project`'s files see: itself and what its references reach."""
        self._close_all()
        component = self._number[project]
        rest = self._rest[component]
        return frozenset(folder for number, members in enumerate(self._members)
                         if self._first[component] <= number <= component or _holds(rest, number)
                         for folder in members)

    def number(self, project: str) -> int:
        """The number of a project folder (its component's), as `seen_spans` gives them."""
        self._close_all()
        return self._number[project]

    def seen_spans(self, viewer: str, low: int, high: int) -> list[int] | None:
        """The numbers from `low` to `high` of the projects the C# file `viewer` sees, as
        bounds [start, end) of intervals in pairs, sorted, none overlapping the next; None when
        it sees every project (a file under none, or past the ceiling). The work is the
        intervals or bits of what the viewer sees between them, not a question a number."""
        mine = self.of(viewer) if self.folders else None
        if mine is None:
            return None
        self._close_all()
        component = self._number[mine]
        rest = self._rest[component]
        if rest is _EVERY:
            return None
        high += 1
        bounds: list[int] = []
        if type(rest) is array:
            start = bisect_right(rest, low)
            end = bisect_left(rest, high)
            bounds = rest[start - (start & 1):end + (end & 1)].tolist()
            if bounds:
                bounds[0], bounds[-1] = max(bounds[0], low), min(bounds[-1], high)
        elif type(rest) is tuple:
            base, bits = rest
            start = max(low, base)
            if start < high:
                window = bits >> (start - base) & ((1 << (high - start)) - 1)
                for run in _RUN.finditer(format(window, "b")[::-1]):
                    bounds += (start + run.start(), start + run.end())
        start, end = max(self._first[component], low), min(component + 1, high)
        if start < end:  # the row, which what the projects it references see may overlap
            at, past = bisect_left(bounds, start), bisect_right(bounds, end)
            bounds[at - (at & 1):past + (past & 1)] = [bounds[at - 1] if at & 1 else start,
                                                       bounds[past] if past & 1 else end]
        return bounds

    def _close_all(self) -> None:
        """Number every project and find what it sees, searching from each folder in sorted
        order: the same numbers and intervals whichever file is asked about first."""
        if self._members or not self._manifests:
            return
        for project in sorted(self._manifests):
            if project not in self._number:
                self._search(project)

    def _search(self, project: str) -> None:
        """Close the projects `project` reaches that are not closed yet, strongly connected
        component by component (Tarjan's order, with a stack of its own: a chain of any length
        recurses nowhere)."""
        order: dict[str, int] = {}  # project -> when first met; low: the earliest it reaches back to
        low: dict[str, int] = {}
        first: dict[str, int] = {}  # project -> the component number next to be given when it was met
        open_: list[str] = []
        on_open: set[str] = set()
        walk = [(project, iter(self._references(project)))]
        order[project] = low[project] = 0
        first[project] = len(self._members)
        open_.append(project)
        on_open.add(project)
        while walk:
            node, refs = walk[-1]
            for ref in refs:
                if ref in self._number:
                    continue
                if ref not in order:
                    order[ref] = low[ref] = len(order)
                    first[ref] = len(self._members)
                    open_.append(ref)
                    on_open.add(ref)
                    walk.append((ref, iter(self._references(ref))))
                    break
                if ref in on_open:
                    low[node] = min(low[node], order[ref])
            else:
                walk.pop()
                if walk:
                    above = walk[-1][0]
                    low[above] = min(low[above], low[node])
                if low[node] == order[node]:
                    self._close(open_, on_open, node, first[node])

    def _close(self, open_: list[str], on_open: set[str], root: str, first: int) -> None:
        """Number the component `root` heads (the top of `open_` down to it); its row starts
        at `first`; its rest is what the projects its members reference see beyond the row."""
        members = []
        while True:
            member = open_.pop()
            on_open.discard(member)
            members.append(member)
            if member == root:
                break
        number = len(self._members)
        for member in members:
            self._number[member] = number
        self._members.append(members)
        self._first.append(first)
        referenced = {self._number[ref] for member in members for ref in self._references(member)}
        referenced.discard(number)
        # what a referenced component closed before this one was met sees, whole; of one closed
        # since, the rest (its row is in this one's); each distinct one once
        parts: dict[int, Rest] = {}
        for ref in referenced:
            part = self._whole(ref) if ref < first else self._rest[ref]
            if part is not _NOTHING:
                parts[id(part)] = part
        self._rest.append(self._rest_of([], list(parts.values())))

    def _whole(self, component: int) -> Rest:
        """What the component sees, its row and its rest in one, made once for all that
        reference it."""
        whole = self._wholes.get(component)
        if whole is None:
            rest = self._rest[component]
            whole = self._wholes[component] = self._rest_of([self._first[component], component + 1],
                                                             [] if rest is _NOTHING else [rest])
        return whole

    def _rest_of(self, bounds: list[int], rests: list[Rest]) -> Rest:
        """The union of interval bounds `bounds` and of `rests`: one of them when it holds the
        others, else intervals or bits, whichever is smaller; every project past the ceiling."""
        if not bounds and len(rests) <= 1:
            return rests[0] if rests else _NOTHING
        bits: list[tuple[int, int]] = []
        for rest in rests:
            if type(rest) is array:
                bounds += rest
            elif type(rest) is tuple:
                bits.append(rest)
            else:
                return _EVERY
        read, ones = _BOUND_COST * len(bounds), 0
        low, high = (min(bounds[::2]), max(bounds[1::2])) if bounds else (_TOP, 0)
        for lo, b in bits:
            length = b.bit_length()
            read += (length + 7) // 8
            ones += b.bit_count()
            low, high = min(low, lo), max(high, lo + length)
        # what the union takes kept as intervals (a run of bits at most every other bit) and as bits
        as_intervals = _BOUND_BYTES * (len(bounds) + 2 * ones)
        as_bits = (high - low + 7) // 8
        kept = min(as_intervals, as_bits)
        work = read + (as_intervals // _BOUND_BYTES * _BOUND_COST if as_intervals <= as_bits else as_bits)
        if self.kept + kept > REACH_BYTES or self.spent + work > REACH_WORK:
            self.capped = True
            return _EVERY
        self.kept += kept
        self.spent += work
        if as_intervals <= as_bits:
            for lo, b in bits:
                for run in _RUN.finditer(format(b, "b")[::-1]):
                    bounds += (lo + run.start(), lo + run.end())
            return _merged(bounds)
        return _bits(bounds, bits, low)

    def _references(self, project: str) -> list[str]:
        """The project folders the .csproj files of `project` name by `ProjectReference`, each
        file read once."""
        found = self._referenced.get(project)
        if found is None:
            found = self._referenced[project] = []
            for manifest in self._manifests.get(project, ()):
                for raw in _REFERENCE.findall(self._read(manifest)):
                    include = _OWN_FOLDER.sub("", raw.decode("utf-8", "replace").strip().replace("\\", "/"))
                    target = normalize(f"{project}/{include}" if project else include) if "$(" not in include else None
                    if target is not None and target in self._manifests.get(parent(target), ()):
                        found.append(parent(target))
        return found


def _holds(rest: Rest, number: int) -> bool:
    """Does the rest of what a project sees hold the project numbered `number`?"""
    if type(rest) is tuple:
        low, bits = rest
        return number >= low and bits >> (number - low) & 1 == 1
    if type(rest) is array:
        return bisect_right(rest, number) & 1 == 1
    return True


def _bits(bounds: Sequence[int], bits: list[tuple[int, int]], low: int) -> tuple[int, int]:
    """Interval bounds and bits from their lowest numbers, as bits from `low` (below them all)."""
    union = 0
    for lo, b in bits:
        union |= b << (lo - low)
    for start, end in zip(bounds[::2], bounds[1::2]):
        union |= (1 << (end - low)) - (1 << (start - low))
    return (low, union)


def _bytes_of(bits: tuple[int, int]) -> int:
    return (bits[1].bit_length() + 7) // 8


def _merged(bounds: list[int]) -> array[int]:
    """Interval bounds [start, end) in pairs, in any order, as sorted bounds of disjoint
    intervals none of which touches the next."""
    if len(bounds) == 2:
        return array("i", bounds)
    pairs = sorted(zip(bounds[::2], bounds[1::2]))
    out = array("i", pairs[0])
    for start, end in pairs[1:]:
        if start <= out[-1]:
            if end > out[-1]:
                out[-1] = end
        else:
            out.append(start)
            out.append(end)
    return out
