"""Java imports -> source files, found by package path rather than by configured
source roots: `import a.b.C` names any file ending in a/b/C.java (src/main/java, module
subdirectories and other roots match by suffix) or declaring `package a.b` in C.java,
else a Kotlin a/b/C.kt (Java calling Kotlin in a mixed module) unless a.b.C is a package
of the tree. Not found, an import is external. Platform packages (java., javax., jdk.,
sun., com.sun.) get no exception: a project may own one (JNA's com.sun.jna, the JDK's own
sources)."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Mapping

from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, Outcome, TreePaths, backwards, ending_in, nearest_sorted, parent
from indexer.store.facts_table import summaries_of

SOURCE_SUFFIXES = (".java", ".kt")


class JavaResolver:
    def __init__(self, tree: TreePaths, facts: Mapping[str, BlobFacts]) -> None:
        self.tree = tree
        self.by_package: dict[str, list[str]] = defaultdict(list)
        summaries = summaries_of(facts)  # the package declarations alone
        sources = sorted(p for p in tree.paths if p.endswith(SOURCE_SUFFIXES))  # not every path of the tree
        for path in sources:
            f = summaries.get(path)
            if path.endswith(".java") and f is not None and f.package_name:
                self.by_package[f.package_name].append(path)
        self.java_dirs = sorted({parent(p) for p in sources})
        # the source folders' paths reversed, sorted: the folders ending in a package's path
        # are one run of them, found by a search rather than a scan of every folder
        self._backwards = backwards(self.java_dirs)
        self._java_dir_set = frozenset(self.java_dirs)
        # the most segments a class's spelling can have and name a file: a path's, or a
        # declared package's and the class's
        self._deepest = max([p.count("/") + 1 for p in sources] + [pkg.count(".") + 2 for pkg in self.by_package],
                            default=0)
        self._packages: dict[str, tuple[str, ...]] = {}  # a package -> its files, the outcome of its `.*`
        self._classes: dict[str, list[str]] = {}
        self._by_stem: dict[str, dict[str, list[str]]] = {}  # package -> file name -> its files declaring it

    def _class_files(self, segments: list[str]) -> list[str]:
        """The files a class's spelling may name, in path order: found once a spelling, as
        many files may ask for a class that many roots hold."""
        key = "/".join(segments)
        hits = self._classes.get(key)
        if hits is None:
            hits = self._classes[key] = self._find_class(segments)
        return hits

    def _find_class(self, segments: list[str]) -> list[str]:
        hits = self.tree.ending_with("/".join(segments) + ".java")
        if not hits:
            pkg, stem = ".".join(segments[:-1]), segments[-1] + ".java"
            hits = self._declared(pkg).get(stem, [])
        # by path alone (Kotlin files have no package facts here), and never a spelling that
        # names a package of the tree: a Kotlin file's name declares no class, so util.kt
        # beside the package com.acme.util is no class com.acme.util
        if not hits and not self._package_files(segments):
            hits = self.tree.ending_with("/".join(segments) + ".kt")
        return hits

    def _declared(self, pkg: str) -> dict[str, list[str]]:
        """The files declaring package `pkg`, by file name (in path order)."""
        by_stem = self._by_stem.get(pkg)
        if by_stem is None:
            by_stem = self._by_stem[pkg] = {}
            for p in self.by_package.get(pkg, []):
                by_stem.setdefault(p.rsplit("/", 1)[-1], []).append(p)
        return by_stem

    def _package_files(self, segments: list[str]) -> tuple[str, ...]:
        key = ".".join(segments)
        if key not in self._packages:
            self._packages[key] = self._scan_package(segments)
        return self._packages[key]

    def _scan_package(self, segments: list[str]) -> tuple[str, ...]:
        pkg_path = "/".join(segments)
        files: set[str] = set(self.by_package.get(".".join(segments), []))
        folders = ([pkg_path] if pkg_path in self._java_dir_set else []) + ending_in(self._backwards, pkg_path)
        for d in folders:
            files.update(p for p in self.tree.files_in(d) if p.endswith(SOURCE_SUFFIXES))
        return tuple(sorted(files))

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip().rstrip(";")
        if spec.startswith("static "):
            spec = spec[len("static ") :].strip()
        segments = [s for s in spec.split(".") if s]
        if not segments:
            return EXTERNAL
        if segments[-1] == "*":
            files = self._package_files(segments[:-1])
            if files:
                return files  # one tuple a package, however many import it
            segments = segments[:-1]  # `import static a.b.C.*`: the class itself
        # a.b.C, a.b.C.Inner and static a.b.C.member all live in a/b/C.java: deepest match wins;
        # no spelling longer than `_deepest` names a file
        for k in range(min(len(segments), self._deepest), 1, -1):
            hits = self._class_files(segments[:k])
            if hits:
                found = nearest_sorted(importer, hits)
                assert found is not None
                return (found,)
        return EXTERNAL


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> JavaResolver:
    return JavaResolver(tree, facts)


def changes_others(name: str, before: Callable[[], BlobFacts | None], after: BlobFacts | None) -> bool:
    """A file's package declaration says where its classes are imported from
    (resolve.imports.to_resolve)."""
    if not name.endswith(".java"):
        return False
    old = _package(before())
    return old is None or old != _package(after)


def _package(facts: BlobFacts | None) -> str | None:
    return None if facts is None else facts.package_name
