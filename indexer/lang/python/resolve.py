"""Python imports -> files of the tree.

Modules live under import roots: the repository root, and every directory that
holds a top-level package (a package directory whose parent is not a package),
which finds `src/`, `lib/` and similar layouts without configuration. A script's
own directory is a root for that script when it is not inside a package, as it is
`sys.path[0]` when the script runs.
"""

from __future__ import annotations

from typing import Callable, Mapping

from indexer.lang.python.stdlib import STDLIB_MODULES
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, parent

SUFFIXES = (".py", ".pyi")


def is_python(path: str) -> bool:
    return path.endswith(SUFFIXES)


def module_candidates(base: str, dotted: list[str]) -> tuple[str, ...]:
    """The files module `dotted` under directory `base` may be, in the order the first found wins:
    package/__init__.py before module.py, as CPython's finder looks (a package wins over a module
    of its name), then their stubs in that order; a package itself when `dotted` is empty."""
    stem = join(base, *dotted)
    if not dotted:
        return join(stem, "__init__.py"), join(stem, "__init__.pyi")
    return join(stem, "__init__.py"), stem + ".py", join(stem, "__init__.pyi"), stem + ".pyi"


def relative_base(importer: str, level: int) -> str | None:
    """The folder a relative import with `level` leading dots starts from (one dot: the
    importer's own), None when it climbs above the root."""
    base = parent(importer)
    for _ in range(level - 1):
        if not base:
            return None
        base = parent(base)
    return base


def module_stem(path: str) -> str:
    """The module a Python file is, as a path without suffix: pkg/sub.py and pkg/sub/__init__.py
    are both pkg/sub, the root's __init__.py is ""."""
    stem = path.rsplit(".", 1)[0]
    if stem == "__init__" or stem.endswith("/__init__"):
        return parent(stem)
    return stem


class PythonModules:
    """Module name -> file, over the import roots found in the tree."""

    def __init__(self, tree: TreePaths) -> None:
        self.tree = tree
        self.packages = {parent(p) for name in ("__init__.py", "__init__.pyi") for p in tree.by_name.get(name, ())}
        roots = {""}
        for pkg in self.packages:
            top = pkg
            while top and parent(top) in self.packages:
                top = parent(top)
            if top:
                roots.add(parent(top))
        # Shallow roots first: the repository root wins over a nested copy of a name.
        self.roots = sorted(roots, key=lambda r: (r.count("/") + (1 if r else 0), r))
        self._root_order = {root: i for i, root in enumerate(self.roots)}
        self._dirs_named: dict[str, list[str]] | None = None  # a directory's own name -> those so named
        self._local_tops: dict[str, bool] = {}
        self._roots_for: dict[str, list[str]] = {}
        self._found: dict[tuple[str | None, tuple[str, ...]], tuple[str, str] | None] = {}

    def module_file(self, base: str, dotted: list[str]) -> str | None:
        """The file of module `dotted` under directory `base` (module.py, module.pyi or package/__init__)."""
        return self.tree.first_existing(module_candidates(base, dotted))

    def script_root(self, importer: str) -> str | None:
        d = parent(importer)
        return None if d in self.packages else d

    def find(self, dotted: list[str], importer: str = "") -> tuple[str, str] | None:
        """Resolve an absolute dotted module name to (root, file); the first root that has it wins."""
        own = self.script_root(importer) if importer else None
        key = (own, tuple(dotted))
        if key not in self._found:
            self._found[key] = self._search(self._roots(own, dotted), dotted)
        return self._found[key]

    def search_roots(self, dotted: list[str], importer: str = "") -> list[str]:
        """The roots an absolute import of `dotted` is looked for under, in order: the
        importer's own folder when it is a script, then the roots holding its first part."""
        return self._roots(self.script_root(importer) if importer else None, dotted)

    def _roots(self, own: str | None, dotted: list[str]) -> list[str]:
        return [*([own] if own is not None else []), *self.roots_for(dotted[0])]

    def _search(self, roots: list[str], dotted: list[str]) -> tuple[str, str] | None:
        for root in roots:
            hit = self.module_file(root, dotted)
            if hit:
                return root, hit
        return None

    def roots_for(self, name: str) -> list[str]:
        """The roots holding something named `name` (a module, package or directory), in root order:
        computed once per top-level name, so resolving stays cheap with many roots. A plain
        directory (a namespace package) never shadows the standard library, which any regular
        module wins over: pytest's testing/io/ leaves `import io` to the stdlib."""
        if name not in self._roots_for:
            namespace_counts = name not in STDLIB_MODULES
            self._roots_for[name] = [
                root for root in self._roots_near(name)
                if self.module_file(root, [name]) or (namespace_counts and self.tree.is_dir(join(root, name)))
            ]
        return self._roots_for[name]

    def _roots_near(self, name: str) -> list[str]:
        """The roots, in root order, that hold a file or a directory named for `name`: the
        only ones that can hold its module. Found from the files and directories of that
        name, so a tree of many roots importing many names costs what those names hold."""
        if "/" in name or name in (".", ".."):
            return self.roots
        if self._dirs_named is None:
            self._dirs_named = {}
            for d in self.tree.dirs:
                self._dirs_named.setdefault(d.rpartition("/")[2], []).append(d)
        near = {parent(p) for suffix in SUFFIXES for p in self.tree.by_name.get(name + suffix, ())}
        near.update(parent(d) for d in self._dirs_named.get(name, ()))
        return sorted((root for root in near if root in self._root_order), key=self._root_order.__getitem__)

    def is_local_top(self, name: str) -> bool:
        """A top-level name the tree provides under some root (module, package or namespace dir)."""
        if name not in self._local_tops:
            self._local_tops[name] = any(
                self.module_file(root, [name]) or any(map(is_python, self.tree.files_in(join(root, name))))
                for root in self.roots_for(name)
            )
        return self._local_tops[name]


class PythonResolver:
    def __init__(self, tree: TreePaths) -> None:
        self.modules = PythonModules(tree)

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        dotted = [s for s in imp.spec.split(".") if s]
        if imp.level:
            base = relative_base(importer, imp.level)
            if base is None:
                return UNRESOLVED
            module = self.modules.module_file(base, dotted)
            if module is None:
                # `from . import x`, `from .ns import x` of a namespace package (a folder of no
                # __init__): only its submodules can resolve.
                return self._names(base, dotted, None, imp) or UNRESOLVED
            return self._names(base, dotted, module, imp)
        if not dotted:
            return UNRESOLVED
        found = self.modules.find(dotted, importer)
        if found is None:
            # `from ns import x` of a namespace package, as above; never one of a standard-library
            # module's name, which a plain folder does not shadow (`roots_for`)
            spaced_ok = imp.names and dotted[0] not in STDLIB_MODULES
            for root in self.modules.search_roots(dotted, importer) if spaced_ok else ():
                spaced = self._names(root, dotted, None, imp)
                if spaced:
                    return spaced
            return UNRESOLVED if self._looks_local(dotted, importer) else EXTERNAL
        root, module = found
        return self._names(root, dotted, module, imp)

    def _names(self, base: str, dotted: list[str], module: str | None, imp: ImportSpec) -> tuple[str, ...]:
        """`from M import a, b`: a name that is a submodule of M resolves to that file, any other to M."""
        targets: list[str] = []
        for name in imp.names:
            sub = None if name == "*" else self.modules.module_file(base, [*dotted, name])
            if sub:
                targets.append(sub)
            elif module:
                targets.append(module)
        if not imp.names and module:
            targets.append(module)
        return tuple(dict.fromkeys(targets))

    def _looks_local(self, dotted: list[str], importer: str) -> bool:
        if self.modules.is_local_top(dotted[0]):
            return True
        own = self.modules.script_root(importer)
        return own is not None and self.modules.module_file(own, dotted[:1]) is not None


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> PythonResolver:
    return PythonResolver(tree)
