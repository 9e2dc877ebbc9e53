"""The tree's paths as lookups that import resolution needs: membership, files per
directory, files by basename, and path arithmetic that never leaves the tree."""

from __future__ import annotations

import posixpath
from bisect import bisect_left
from collections import defaultdict
from heapq import merge
from typing import Callable, Collection, Container, Iterable, Iterator, Mapping, Sequence

_SCANNED = 32  # files of one name scanned for a suffix; more are searched

EXTERNAL = "external"  # a package outside the tree (stdlib, third-party, system header)
UNRESOLVED = "unresolved"  # looks like it belongs to the tree, but no file of the tree matches
# Resolved, but not as far as the tree would take it, and so marked beside its edges (an
# UnresolvedImport of these statuses is a caveat on the import's edges, never its outcome):
# files past the caps of indexer.resolve.imports were left out of its edges,
TARGETS_CAPPED = "targets_capped"
# or what the importer sees was past a ceiling of its language and read as everything
# (C#: indexer/lang/csharp/projects.py REACH_BYTES), so its edges may reach files it does not see.
VISIBILITY_CAPPED = "visibility_capped"
CAVEATS = frozenset({TARGETS_CAPPED, VISIBILITY_CAPPED})

# The most files one import's edges go to (resolve.imports, which also caps a file's edges):
# a resolver that lists an import's files lazily may stop one past it, the importer left out.
TARGETS_CAP = 1024

# A resolver answers with the files an import resolves to, or with one of the statuses above.
Outcome = tuple[str, ...] | str


def parent(path: str) -> str:
    """Directory of a path, "" for the repository root (posixpath.dirname, quicker on the
    usual case of a relative path without doubled slashes)."""
    head = path.rpartition("/")[0]
    if head and head[-1] != "/":
        return head
    return posixpath.dirname(path)


def join(*parts: str) -> str:
    return "/".join(filter(None, parts))


def normalize(path: str) -> str | None:
    """Collapse `.` and `..` segments; None when the path climbs above the root."""
    out: list[str] = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(seg)
    return "/".join(out)


def common_prefix_len(a: str, b: str) -> int:
    """Number of leading directory segments two paths share (for nearest-match tie breaks)."""
    n = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1]):
        if x != y:
            break
        n += 1
    return n


def nearest(importer: str, candidates: Iterable[str]) -> str:
    """The candidate sharing the longest directory prefix with the importer; ties by path."""
    return min(candidates, key=lambda c: (-common_prefix_len(importer, c), c))


def nearest_sorted(importer: str, candidates: Sequence[str], skip: str | None = None) -> str | None:
    """`nearest` of candidates in path order, without `skip`; None when none is left. The
    candidates sharing the importer's first k folders are one run of the order, so the
    answer is the first of the longest such run: a search a folder of the importer, however
    many candidates there are (those asked again and again: an include many files name)."""
    folders = importer.split("/")[:-1]
    for k in range(len(folders), -1, -1):
        prefix = "".join(f + "/" for f in folders[:k])
        i = bisect_left(candidates, prefix)
        while i < len(candidates) and candidates[i] == skip:
            i += 1
        if i < len(candidates) and candidates[i].startswith(prefix):
            return candidates[i]
    return None


def backwards(paths: Iterable[str]) -> list[str]:
    """`paths` spelled backwards, sorted: what `ending_in` searches."""
    return sorted(p[::-1] for p in paths)


def ending_in(reversed_sorted: Sequence[str], suffix: str) -> list[str]:
    """The paths of `reversed_sorted` (`backwards` of them) that end in `/suffix`, spelled
    forwards again: one run of the reversed order, found by a search rather than a scan."""
    key = ("/" + suffix)[::-1]
    i = bisect_left(reversed_sorted, key)
    out = []
    while i < len(reversed_sorted) and reversed_sorted[i].startswith(key):
        out.append(reversed_sorted[i][::-1])
        i += 1
    return out


class TreePaths:
    """Read-only lookups over the paths of one snapshot."""

    def __init__(self, paths: Iterable[str]) -> None:
        # sorted from the caller's order (a tree walk's, nearly sorted: timsort runs through
        # it), not from a set's; a 100,000-file tree is read on every re-index
        ordered = sorted(paths)
        self.paths: frozenset[str] = frozenset(ordered)
        if len(self.paths) < len(ordered):
            ordered = sorted(self.paths)
        self.by_dir: dict[str, list[str]] = defaultdict(list)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.dirs: set[str] = {""}
        self._backwards: dict[str, list[str]] = {}  # a name of many files -> their paths reversed, sorted
        self._ending: dict[str, list[str]] = {}  # a suffix asked -> `ending_with`'s answer
        by_dir, by_name, dirs = self.by_dir, self.by_name, self.dirs
        last: str | None = None  # the folder part of the path before, whose files are `here`
        here: list[str] = []
        for p in ordered:
            head, _, name = p.rpartition("/")
            if head != last:  # sorted: a folder's files mostly come one after another
                last = d = head
                if d.endswith("/"):  # not a tree's path (`a//b`): as posixpath reads it
                    d = parent(p)
                here = by_dir[d]
                while d and d not in dirs:
                    dirs.add(d)
                    d = parent(d)
            here.append(p)
            by_name[name].append(p)

    def __contains__(self, path: str) -> bool:
        return path in self.paths

    def files_in(self, directory: str) -> list[str]:
        return self.by_dir.get(directory, [])

    def is_dir(self, directory: str) -> bool:
        return directory in self.dirs

    def ending_with(self, suffix: str) -> list[str]:
        """Paths equal to `suffix` or ending in `/suffix` (segment-aligned), sorted: found once a
        suffix, as many importers may ask the same (the same list each time, not to be changed)."""
        found = self._ending.get(suffix)
        if found is None:
            found = self._ending[suffix] = self._ending_with(suffix)
        return found

    def _ending_with(self, suffix: str) -> list[str]:
        name = posixpath.basename(suffix)
        same = self.by_name.get(name, [])
        if len(same) <= _SCANNED:
            return [p for p in same if p == suffix or p.endswith("/" + suffix)]
        # Many files of one name: those ending so are one run of their reversed paths, so
        # each question costs a search and its answer, not the files of that name.
        reversed_sorted = self._backwards.get(name)
        if reversed_sorted is None:
            reversed_sorted = self._backwards[name] = backwards(same)
        return sorted(([suffix] if suffix in self.paths else []) + ending_in(reversed_sorted, suffix))

    def first_existing(self, candidates: Iterable[str]) -> str | None:
        for c in candidates:
            if c in self.paths:
                return c
        return None


def definers_of(files: Iterable[str], names_of: Callable[[str], Iterable[str]]) -> dict[str, list[str]]:
    """Each name -> the files of `files` declaring it (`names_of` a file), in the order of
    `files`, each once: what `in_order` merges."""
    found: defaultdict[str, list[str]] = defaultdict(list)
    for path in files:
        for name in set(names_of(path)):
            found[name].append(path)
    return found


def in_order(definers: Mapping[str, list[str]], names: Collection[str], but: Container[str] = frozenset()
             ) -> Iterator[str]:
    """The paths `definers` lists (each name's in path order) for the names of `names` not in
    `but`, merged into path order, each once, as they are taken. The lists asked are those of
    the names or of the definers, whichever are fewer."""
    asked = names if len(names) <= len(definers) else [n for n in definers if n in names]
    runs = [definers[n] for n in asked if n in definers and n not in but]
    if len(runs) == 1:
        yield from runs[0]
        return
    last = None
    for path in merge(*runs):
        if path != last:
            yield path
            last = path
