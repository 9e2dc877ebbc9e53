"""Go import paths -> the files of a package directory of the tree.

Every go.mod of the tree declares a module path rooted at its directory; an import of
`<module>/x/y` names the package in directory x/y under it (longest module path
wins, so nested modules take their own imports). A package is its non-test .go files.
Other imports land in the importing module's vendor/ copy when there is one.
"""

from __future__ import annotations

import re
from typing import Callable

from indexer.model import ImportSpec
from indexer.resolve_tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, normalize, parent

MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)


def go_module_path(data: bytes) -> str | None:
    m = MODULE_LINE.search(data)
    return m.group(1).decode("utf-8", "replace") if m else None


def package_files(tree: TreePaths, directory: str) -> list[str]:
    return [p for p in tree.files_in(directory) if p.endswith(".go") and not p.endswith("_test.go")]


class GoResolver:
    def __init__(self, tree: TreePaths, read: Callable[[str], bytes]) -> None:
        self.tree = tree
        self.modules: dict[str, str] = {}  # module path -> directory of its go.mod
        for path in tree.by_name.get("go.mod", []):
            try:
                module = go_module_path(read(path))
            except OSError:
                module = None
            if module and module not in self.modules:
                self.modules[module] = parent(path)
        # longest module path first, so a nested module claims its own subtree
        self.ordered = sorted(self.modules, key=lambda m: (-len(m), m))

    def _vendored(self, importer: str, spec: str) -> tuple[str, ...]:
        """`go mod vendor` copies dependencies to <module>/vendor/<import path>: the nearest module's copy."""
        d = parent(importer)
        while True:
            if join(d, "go.mod") in self.tree:
                return tuple(package_files(self.tree, join(d, "vendor", spec)))
            if not d:
                return ()
            d = parent(d)

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip()
        for module in self.ordered:
            if spec == module or spec.startswith(module + "/"):
                directory = join(self.modules[module], spec[len(module) + 1 :])
                files = package_files(self.tree, directory)
                return tuple(files) if files else UNRESOLVED
        vendored = self._vendored(importer, spec)
        if vendored:
            return vendored
        if spec.startswith("."):
            directory = normalize(join(parent(importer), spec))
            files = package_files(self.tree, directory) if directory is not None else []
            return tuple(files) if files else UNRESOLVED
        return EXTERNAL
