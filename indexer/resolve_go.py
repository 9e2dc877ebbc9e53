"""Go import paths -> the files of a package directory of the tree.

Every go.mod of the tree declares a module path rooted at its directory; an import of
`<module>/x/y` names the package in directory x/y under it (longest module path
wins, so nested modules take their own imports). A package is the non-test .go files of
its directory that are part of a build: not excluded by `//go:build ignore`, and declaring
the directory's package name (a `package main` generator beside a library is no member).
As the go tool does, directories named testdata or starting with `_` or `.` hold no
importable package, and neither do their go.mod files claim a module path another declares.
Other imports land in the importing module's vendor/ copy when there is one.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Callable, Mapping

from indexer.facts_table import summaries_of
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve_tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, normalize, parent

MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)


def go_module_path(data: bytes) -> str | None:
    m = MODULE_LINE.search(data)
    return m.group(1).decode("utf-8", "replace") if m else None


def ignored_dir(directory: str) -> bool:
    """The go tool skips testdata and `_`/`.` directories: no package of an import lives there."""
    return any(part == "testdata" or part[:1] in ("_", ".")
               for part in directory.split("/") if part not in ("", ".", ".."))


def candidate_files(tree: TreePaths, directory: str) -> list[str]:
    """The .go files a build of the directory looks at (test files and `_x.go`, `.x.go` not)."""
    return [p for p in tree.files_in(directory)
            if p.endswith(".go") and not p.endswith("_test.go") and p.rpartition("/")[2][:1] not in ("_", ".")]


def package_name_of(names: Counter[str], directory: str) -> str:
    """The package of a directory whose files disagree (Go refuses to build it): the name most
    files declare, a library's before `main` (a program is not importable), then the
    directory's own name, then the first in order."""
    base = directory.rpartition("/")[2]
    return min(names, key=lambda n: (n == "main", -names[n], n != base, n))


class GoResolver:
    def __init__(self, tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> None:
        self.tree = tree
        self.summaries = summaries_of(facts)  # package name and build exclusion, never full facts
        self.packages: dict[str, tuple[str, ...]] = {}  # directory -> its package's files
        self.modules: dict[str, str] = {}  # module path -> directory of its go.mod
        # a fixture module under testdata/ never takes a module path from the real one
        for path in sorted(tree.by_name.get("go.mod", []), key=lambda p: (ignored_dir(parent(p)), p)):
            try:
                module = go_module_path(read(path))
            except OSError:
                module = None
            if module and module not in self.modules:
                self.modules[module] = parent(path)
        # longest module path first, so a nested module claims its own subtree
        self.ordered = sorted(self.modules, key=lambda m: (-len(m), m))

    def package_files(self, directory: str) -> tuple[str, ...]:
        """The files of the package in `directory` (see the module docstring); memoized."""
        if directory not in self.packages:
            self.packages[directory] = self._members(candidate_files(self.tree, directory), directory)
        return self.packages[directory]

    def _members(self, candidates: list[str], directory: str) -> tuple[str, ...]:
        names: Counter[str] = Counter()
        declared: dict[str, str] = {}
        for path in candidates:
            f = self.summaries.get(path)
            if f is not None and f.build_ignored:
                continue
            declared[path] = f.package_name if f is not None else ""
            if declared[path]:
                names[declared[path]] += 1
        if len(names) <= 1:
            return tuple(declared)
        name = package_name_of(names, directory)
        # a file whose package clause was not read (not parsed) is kept: nothing says it is foreign
        return tuple(p for p, n in declared.items() if n in ("", name))

    def _vendored(self, importer: str, spec: str) -> tuple[str, ...]:
        """`go mod vendor` copies dependencies to <module>/vendor/<import path>: the nearest module's copy."""
        d = parent(importer)
        while True:
            if join(d, "go.mod") in self.tree:
                return self.package_files(join(d, "vendor", spec))
            if not d:
                return ()
            d = parent(d)

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip()
        for module in self.ordered:
            if spec == module or spec.startswith(module + "/"):
                below = spec[len(module) + 1 :]
                if ignored_dir(below):
                    return UNRESOLVED
                return self.package_files(join(self.modules[module], below)) or UNRESOLVED
        vendored = self._vendored(importer, spec)
        if vendored:
            return vendored
        if spec.startswith("."):
            directory = normalize(join(parent(importer), spec))
            files = self.package_files(directory) if directory is not None and not ignored_dir(spec) else ()
            return files or UNRESOLVED
        return EXTERNAL
