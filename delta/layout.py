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

from delta.testdirs import closeness, join, subject

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


def _shared_leading(a: str, b: str) -> int:
    return closeness([p for p in a.split("/") if p], [p for p in b.split("/") if p], a == b)


def suggest(placements: Iterable[Placement], folder: str, stem: str, ext: str,
            folders: frozenset[str] = frozenset()) -> tuple[str, Placement] | None:
    """The test path the nearest tested neighbours' placements agree on, with one placement
    that gives it. Nearest: the most leading folders shared with the tested implementation (the
    same folder nearest of all; one under another top-level folder is no neighbour). Among the nearest: a path in a folder that exists (of the
    folders in `folders`) first, since the repository already keeps tests there (django/
    dispatch/ by tests/dispatch/, not a tests/dispatch_tests/ nobody made); then the path most
    of them give; then the path, so a tie is stable. None when no placement carries over."""
    best: list[tuple[str, Placement]] = []
    best_score = -1
    for pl in placements:
        path = pl.path_for(folder, stem, ext)
        if path is None:
            continue
        score = _shared_leading(folder, posixpath.dirname(pl.source))
        if score == 0:
            continue  # another top-level folder (scripts/ for docs/, action/) says nothing of this one
        if score > best_score:
            best, best_score = [], score
        if score == best_score:
            best.append((path, pl))
    if not best:
        return None
    votes = Counter(path for path, _ in best)
    chosen = min(votes, key=lambda p: (posixpath.dirname(p) not in folders, -votes[p], p))
    return chosen, min((pl for path, pl in best if path == chosen), key=lambda pl: pl.source)
