"""Where a missing test would go, by the layout the repository's own tests follow.

Every implementation that already has a test shows one placement: how its test's folder
follows from its own folder, and how the test's name follows from its stem. The missing
test of another implementation is placed the way its nearest tested neighbours are: Django's
django/utils/text.py is tested at tests/utils_tests/test_text.py, so django/utils/html.py's
test would be tests/utils_tests/test_html.py, not tests/test_html.py. The repository's own
convention is read from its tree; the language's convention is the fallback where no
tested neighbour's placement carries over.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from delta.testdirs import join, subject

BESIDE, BELOW, MIRROR, FIXED = "beside", "below", "mirror", "fixed"


@dataclass(frozen=True)
class Placement:
    """How one implementation's test sits relative to it, as a rule for another file.

    beside: the same folder (x.test.ts next to x.ts, Go's x_test.go).
    below: a test folder inside the implementation's (src/__tests__/x.test.ts).
    mirror: a test tree repeating the implementation's folders by subject (lib/acme ->
        spec/acme, django/utils -> tests/utils_tests), each repeated folder carrying the
        same affix as the innermost one did ("_tests").
    fixed: one test folder for the implementation's whole subtree (src/attr -> tests/).
    """

    source: str  # the tested implementation: django/utils/text.py
    test: str  # its test: tests/utils_tests/test_text.py
    kind: str
    impl_root: str  # mirror: the implementation folders above the mirrored ones; fixed: the subtree's folder
    test_root: str  # mirror: the test folders above the mirrored ones; fixed: the test folder; below: the subfolder
    affix: tuple[str, str]  # mirror: what the test tree adds around each folder name ("", "_tests")
    name: str  # the test's file name with "{stem}" (and "{ext}" when it keeps the implementation's)
    depth: int = 0  # mirror: how many folders the tested neighbour mirrored

    def folder_for(self, folder: str) -> str | None:
        """The test folder for an implementation in `folder`, or None where this placement says nothing."""
        if self.kind == BESIDE:
            return folder
        if self.kind == BELOW:
            return join(folder, self.test_root)
        if not _under(folder, self.impl_root):
            return None
        if self.kind == FIXED:
            return self.test_root
        rest = [p for p in folder[len(self.impl_root):].split("/") if p]
        pre, suf = self.affix
        if pre or suf:
            # a test tree whose folders are named for what they test (gis_tests/gdal_tests) names
            # as many levels as the tested neighbour showed: Django tests gis/gdal/raster/ in
            # tests/gis_tests/gdal_tests/; a plain mirror (lib/ -> spec/) repeats every folder
            rest = rest[: self.depth]
        return "/".join([p for p in self.test_root.split("/") if p] + [f"{pre}{p}{suf}" for p in rest])

    def path_for(self, folder: str, stem: str, ext: str) -> str | None:
        where = self.folder_for(folder)
        return None if where is None else join(where, self.name.format(stem=stem, ext=ext))


def _under(folder: str, root: str) -> bool:
    return root == "" or folder == root or folder.startswith(root + "/")


def _name_template(rule: str, test: str, ext: str) -> str | None:
    """The test's file name as a template, from the rule that paired it ("python:test_<stem>.py"
    -> "test_{stem}.py"). A rule without a stem (Django's tests.py named by its folder) gives
    none: the name of such a test says nothing another file's test could be called."""
    name = rule.split(":", 1)[-1].rsplit("/", 1)[-1]
    if "<stem>" not in name or "{" in name or "}" in name:
        return None
    name = name.replace("<stem>", "{stem}")
    if ext and name.endswith(ext) and test.endswith(ext):
        name = name[: -len(ext)] + "{ext}"  # x.test.tsx for x.tsx, x.test.ts for x.ts
    return name


def placement(impl: str, test: str, rule: str, ext: str) -> Placement | None:
    """The placement one tested implementation shows, or None when its test's name is no template."""
    name = _name_template(rule, test, ext)
    if name is None:
        return None
    own, where = posixpath.dirname(impl), posixpath.dirname(test)
    if where == own:
        return Placement(impl, test, BESIDE, own, where, ("", ""), name)
    if own and where.startswith(own + "/") and all(not subject(p) for p in where[len(own) + 1:].split("/")):
        return Placement(impl, test, BELOW, own, where[len(own) + 1:], ("", ""), name)
    a = [p for p in own.split("/") if p]
    b = [p for p in where.split("/") if p]
    k = 0
    while k < min(len(a), len(b)) and subject(a[-1 - k]) and subject(a[-1 - k]) == subject(b[-1 - k]):
        k += 1
    if k == 0:
        return Placement(impl, test, FIXED, own, where, ("", ""), name)
    inner_impl, inner_test = a[-1], b[-1]
    affix = ("", "")
    if inner_impl != inner_test and inner_impl in inner_test:
        pre, suf = inner_test.split(inner_impl, 1)
        affix = (pre, suf)
    return Placement(impl, test, MIRROR, "/".join(a[:-k]), "/".join(b[:-k]), affix, name, k)


class _Node:
    """One folder of the tested implementations' folders: the layouts of those in it, and of those
    in it or below it whose placement holds for a folder that shares only this one's path."""

    __slots__ = ("children", "exact", "below")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.exact: dict[tuple, list] = {}  # a way of placing -> [how many, the one of the least source]
        self.below: dict[tuple, list] = {}


def _way(pl: Placement) -> tuple:
    """What a placement's path for another folder depends on: placements alike in it give one
    path for any folder they hold for, so their votes are counted together."""
    if pl.kind == BESIDE:
        return (BESIDE, pl.name)
    if pl.kind in (BELOW, FIXED):
        return (pl.kind, pl.test_root, pl.name)
    pre, suf = pl.affix
    return (MIRROR, pl.impl_root, pl.test_root, pl.affix, pl.name, pl.depth if pre or suf else 0)


def _count(ways: dict[tuple, list], pl: Placement) -> None:
    held = ways.get(key := _way(pl))
    if held is None:
        ways[key] = [1, pl]
    else:
        held[0] += 1
        if pl.source < held[1].source:
            held[1] = pl


def _parts(folder: str) -> list[str]:
    return [p for p in folder.split("/") if p]


class Layouts:
    """The placements of a family's tested implementations, kept by their folders, so that the
    nearest neighbours of a folder are found down its path, not by weighing every placement for
    each file (the product of the files missing a test and the tested ones).

    A neighbour's nearness is the folders it shares with the file from the root (`testdirs.closeness`):
    the same folder nearest, then the deepest shared. A placement holds for a folder unless it is
    a mirror or a fixed test folder whose implementation folder the folder is not under, which,
    the implementation folder being one above the neighbour's, is whether it is no deeper than
    the folders shared: so the nearest neighbours whose placements hold are those of the folder
    itself, else those below the deepest folder of its path holding any placement no deeper than
    it. Each folder keeps those counted by their way of placing."""

    def __init__(self, placements: Iterable[Placement]) -> None:
        self._root = _Node()
        for pl in placements:
            reach = 0 if pl.kind in (BESIDE, BELOW) else len(_parts(pl.impl_root))
            node = self._root
            on_way = [node]
            for part in _parts(posixpath.dirname(pl.source)):
                node = node.children.setdefault(part, _Node())
                on_way.append(node)
            _count(node.exact, pl)
            for depth in range(max(1, reach), len(on_way)):
                _count(on_way[depth].below, pl)

    def suggest(self, folder: str, stem: str, ext: str,
                folders: frozenset[str] = frozenset()) -> tuple[str, Placement] | None:
        """The test path the nearest tested neighbours' placements agree on, with one placement
        that gives it. Nearest: the most leading folders shared with the tested implementation (the
        same folder nearest of all; one under another top-level folder is no neighbour). Among the
        nearest: a path in a folder that exists (of the folders in `folders`) first, since the
        repository already keeps tests there (django/dispatch/ by tests/dispatch/, not a
        tests/dispatch_tests/ nobody made); then the path most of them give; then the path, so a
        tie is stable. None when no placement carries over."""
        parts = _parts(folder)
        on_way = [self._root]
        for part in parts:
            child = on_way[-1].children.get(part)
            if child is None:
                break
            on_way.append(child)
        ways: dict[tuple, list] = {}
        if len(on_way) == len(parts) + 1 and on_way[-1].exact:
            ways = on_way[-1].exact
        else:
            for node in reversed(on_way[1:]):
                if node.below:
                    ways = node.below
                    break
        votes: Counter[str] = Counter()
        least: dict[str, Placement] = {}
        for count, pl in ways.values():
            path = pl.path_for(folder, stem, ext)
            if path is None:  # cannot be: the folder is under every implementation folder kept here
                continue
            votes[path] += count
            if path not in least or pl.source < least[path].source:
                least[path] = pl
        if not votes:
            return None
        chosen = min(votes, key=lambda p: (posixpath.dirname(p) not in folders, -votes[p], p))
        return chosen, least[chosen]
