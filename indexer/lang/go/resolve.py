"""Go import paths -> the files of a package directory of the tree.

Every go.mod of the tree declares a module path rooted at its directory. An import resolves
as the go tool, run in the importing file's module (its nearest go.mod), would find it:
0. a standard-library path (no dot in its first segment) from a file at or below a go.mod
   declaring `module std` (Go's own src/, the cmd module inside it too): the package in that
   directory, as the go tool takes such a path from GOROOT/src before any module;
1. under that module's own path: the package in that directory of the module;
2. when a go.work at or above the module names it in a `use` directive (workspace mode):
   a member module's package by its path;
3. the vendor/<import path> copy (`go mod vendor`) of the module, or in workspace mode of
   the go.work's directory (`go work vendor`): that one vendor dir only, never one nested
   below it nor an enclosing module's;
4. a `replace <module> => ../dir` of its go.mod, or of its workspace's go.work (which
   wins): the package under that directory of the tree (a replacement by a module version
   or by a directory outside the tree: external);
5. the package under another go.mod of the tree whose module path prefixes the import
   (longest module path wins, so nested modules take their own imports);
6. a file under no go.mod is built GOPATH-style: the vendor/ dirs of its directory and every
   directory above it (nearest first), then <src>/<import path> for every `src` directory
   enclosing it, then rule 5. Both are rules over the tree's paths alone, never over which
   files changed, so a re-index resolves as a cold index;
7. in a tree without any go.mod (a GOPATH-era repository checked out as its root, imported
   as `github.com/org/repo/...`), an import path none of the above resolves, whose first
   segment has a dot (never the standard library's), resolves to the package at the longest
   tail of it, two segments or more, that is a directory path of the tree from its root
   (`github.com/org/repo/pkg/x` -> pkg/x/): again a rule over the paths alone.
A package is the non-test .go files of its directory that are part of a build: not excluded
by `//go:build ignore`, and declaring the directory's package name (a `package main`
generator beside a library is no member). A directory named testdata or starting with `_` or
`.` holds a package an import names as any other does (the go tool passes over them only in
`...` patterns), but its go.mod claims no module path another declares, and rule 7, a guess
over paths, never lands there; a go.mod under vendor/ is a vendored copy's, no module root.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Container, Iterator, Mapping, NamedTuple

from indexer.manifests.go import GoMod, parse_go_mod
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, normalize, parent
from indexer.store.facts_table import FactsSummary, summaries_of


def outside_its_package(facts: BlobFacts | FactsSummary) -> bool:
    """A file no build takes into its folder's package: one `//go:build ignore` excludes, or a
    `package documentation` file, which go/build passes over."""
    return facts.build_ignored or facts.package_name == "documentation"


def ignored_dir(directory: str) -> bool:
    """A testdata or `_`/`.` directory, which `...` patterns skip: a fixture's go.mod there
    loses a module path to another, and rule 7 does not guess a package there."""
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


def prefixes(spec: str, lengths: Container[int] | None = None) -> Iterator[str]:
    """`a/b/c`, `a/b`, `a`: the import paths a module path could be, longest first; only
    those of `lengths` when given (the lengths of the paths looked for: a path of many
    segments is not copied out once a segment)."""
    end = len(spec)
    while end > 0:
        if lengths is None or end in lengths:
            yield spec[:end]
        end = spec.rfind("/", 0, end)


class _Either:
    """Lengths in either of two sets, without making their union."""

    def __init__(self, first: frozenset[int], second: frozenset[int]) -> None:
        self.first, self.second = first, second

    def __contains__(self, length: object) -> bool:
        return length in self.first or length in self.second


def below(spec: str, module: str) -> str:
    """The directory of `spec` under `module`, one of its prefixes ("" for the module itself)."""
    return spec[len(module) + 1:]


def _parsed(read: Callable[[str], bytes], path: str) -> GoMod:
    try:
        return parse_go_mod(read(path).decode("utf-8", "replace"))
    except OSError:
        return GoMod()


class Module(NamedTuple):
    """A go.mod of the tree: its module path and where its `replace` directives point."""

    path: str
    replaced: dict[str, str]  # module path -> directory of the tree, or "" (outside it)


class Workspace(NamedTuple):
    """A go.work: its directory, the module directories its `use` directives name, and where
    its `replace` directives point (they win over the modules' own)."""

    directory: str
    members: frozenset[str]
    replaced: dict[str, str]


class GoResolver:
    def __init__(self, tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> None:
        self.tree = tree
        self.summaries = summaries_of(facts)  # package name and build exclusion, never full facts
        self.packages: dict[str, tuple[str, ...]] = {}  # directory -> its package's files
        self.roots: dict[str, Module] = {}  # directory of a go.mod -> its module
        self.modules: dict[str, str] = {}  # module path -> directory of its go.mod (the first claim)
        self.workspaces = {parent(p): self._workspace(parent(p), _parsed(read, p))
                           for p in tree.by_name.get("go.work", [])}
        self.root_of: dict[str, str | None] = {}  # directory -> its nearest module root; memoized
        self.workspace_memo: dict[str, Workspace | None] = {}  # module root -> its go.work's workspace
        self.outcomes: dict[tuple, Outcome] = {}  # see resolve
        # directory -> its GOPATH vendor dirs, src dirs and both (see gopath_roots)
        self.gopath: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}
        # a fixture module under testdata/ never takes a module path from the real one
        for path in sorted(tree.by_name.get("go.mod", []), key=lambda p: (ignored_dir(parent(p)), p)):
            directory = parent(path)
            if "vendor" in directory.split("/"):
                continue  # a vendored copy's go.mod: its packages are found through vendor/
            parsed = _parsed(read, path)
            module = parsed.module if not parsed.module.startswith("/") else ""
            self.roots[directory] = Module(module, self._replaced(directory, parsed))
            if module and module not in self.modules:
                self.modules[module] = directory

        self._module_lengths = frozenset(len(m) for m in self.modules)
        # Go's own source: its standard library is the tree's, not the installed one
        self.std_dirs = frozenset(d for d, m in self.roots.items() if m.path == "std" and not ignored_dir(d))
        self._table_lengths: dict[tuple[str, str], frozenset[int]] = {}

    def _replaced(self, directory: str, parsed: GoMod) -> dict[str, str]:
        """A file's `replace` directives: the directory of the tree each names, or "" when it
        names none (a module version, a directory outside the tree)."""
        out = {}
        for r in parsed.replacements():
            target = normalize(join(directory, r.target)) if r.local else None
            out[r.module] = target if target is not None and target in self.tree.dirs else ""
        return out

    def _workspace(self, directory: str, parsed: GoMod) -> Workspace:
        uses = (normalize(join(directory, words[0])) for words in parsed.words("use") if words)
        return Workspace(directory, frozenset(d for d in uses if d is not None), self._replaced(directory, parsed))

    def module_root(self, directory: str) -> str | None:
        """The directory of the go.mod governing `directory`: its own or the nearest above."""
        for d in self._unknown_upwards(directory, self.root_of):
            above = self.root_of[parent(d)] if d else None
            self.root_of[d] = d if d in self.roots else above
        return self.root_of[directory]

    def workspace_of(self, root: str) -> Workspace | None:
        """The go.work the go tool would find from the module at `root` (the nearest at or
        above it), when its `use` directives name that module; memoized."""
        if root not in self.workspace_memo:
            found = None
            d: str | None = root
            while d is not None:
                if d in self.workspaces:
                    found = self.workspaces[d] if root in self.workspaces[d].members else None
                    break
                d = parent(d) if d else None
            self.workspace_memo[root] = found
        return self.workspace_memo[root]

    def replaced(self, root: str, spec: str) -> tuple[str, str] | None:
        """The longest prefix of `spec` the module at `root` replaces, with its directory (""
        for none of the tree): its go.mod's replacements, overridden by its workspace's. The
        two tables are asked as they are, not copied into one a module: a go.work's many
        replacements for its many modules would be as many copies."""
        workspace = self.workspace_of(root)
        mine = self.roots[root].replaced
        theirs = workspace.replaced if workspace is not None else {}
        if not mine and not theirs:
            return None
        lengths = _Either(self._lengths(("mod", root), mine), self._lengths(("work", workspace.directory), theirs)
                          if workspace is not None else frozenset())
        for m in prefixes(spec, lengths):
            if m in theirs:
                return m, theirs[m]
            if m in mine:
                return m, mine[m]
        return None

    def _lengths(self, key: tuple[str, str], table: dict[str, str]) -> frozenset[int]:
        """The lengths of a replacement table's module paths, made once a table."""
        lengths = self._table_lengths.get(key)
        if lengths is None:
            lengths = self._table_lengths[key] = frozenset(len(m) for m in table)
        return lengths

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
            if f is not None and outside_its_package(f):
                continue
            declared[path] = f.package_name if f is not None else ""
            if declared[path]:
                names[declared[path]] += 1
        if len(names) <= 1:
            return tuple(declared)
        name = package_name_of(names, directory)
        # a file whose package clause was not read (not parsed) is kept: nothing says it is foreign
        return tuple(p for p, n in declared.items() if n in ("", name))

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip()
        if spec.startswith("."):
            return self._relative(importer, spec)
        directory = parent(importer)
        root = self.module_root(directory)
        # a function of (module, import path), or under no module of (GOPATH import roots,
        # import path): many files import the same path, each answer is looked up once
        key = (root, spec) if root is not None else (self.gopath_roots(directory), spec)
        if key not in self.outcomes:
            std = self._standard(root, spec) if root is not None and self.std_dirs else None
            if std:
                self.outcomes[key] = std
                return std
            owner = next((m for m in prefixes(spec, self._module_lengths) if m in self.modules), None)
            found = self._from_module(root, spec, owner) if root is not None else \
                next(filter(None, (self._package_at(r, spec) for r in key[0])), None)
            if found is None and owner is not None:  # another module of the tree
                found = self._in_module(self.modules[owner], below(spec, owner))
            if found is None and root is None and not self.tree.by_name.get("go.mod"):
                found = self._root_tail(spec)
            self.outcomes[key] = found or EXTERNAL
        return self.outcomes[key]

    def _from_module(self, root: str, spec: str, owner: str | None) -> Outcome | None:
        """What the module at `root` makes of `spec` (rules 1 to 4 of the module docstring);
        None: none of them applies."""
        if owner is not None and owner == self.roots[root].path:
            return self._in_module(root, below(spec, owner))
        workspace = self.workspace_of(root)
        if workspace is not None and owner is not None and self.modules[owner] in workspace.members:
            return self._in_module(self.modules[owner], below(spec, owner))
        vendored = self._package_at(join(workspace.directory if workspace else root, "vendor"), spec)
        if vendored:
            return vendored
        found = self.replaced(root, spec)
        if found is None:
            return None
        replaced, target = found
        return self._in_module(target, below(spec, replaced)) if target else EXTERNAL

    def _standard(self, root: str, spec: str) -> tuple[str, ...] | None:
        """Rule 0: the package of a standard-library path in the `module std` directory at or
        above the module at `root`; None when there is none or it holds no such package
        (`C`, an installed-only path), so the other rules still apply."""
        if "." in spec.partition("/")[0]:
            return None
        d: str | None = root
        while d is not None and d not in self.std_dirs:
            d = parent(d) if d else None
        if d is None:
            return None
        return self._package_at(d, spec) or None

    def _root_tail(self, spec: str) -> tuple[str, ...]:
        """Rule 7: the package at the longest tail of `spec`, of two segments or more, that is a
        directory of the tree holding one; () for a path of the standard library (no dot in
        its first segment) and when no tail is one."""
        segments = spec.split("/")
        if "." not in segments[0]:
            return ()
        for start in range(len(segments) - 1):
            tail = "/".join(segments[start:])
            if tail in self.tree.dirs and not ignored_dir(tail):
                found = self.package_files(tail)
                if found:
                    return found
        return ()

    def _in_module(self, directory: str, sub: str) -> Outcome:
        return self.package_files(join(directory, sub)) or UNRESOLVED

    def _relative(self, importer: str, spec: str) -> Outcome:
        directory = normalize(join(parent(importer), spec))
        files = self.package_files(directory) if directory is not None else ()
        return files or UNRESOLVED

    def gopath_roots(self, directory: str) -> tuple[str, ...]:
        """Where a file under no go.mod, in `directory`, finds an import path: the vendor/ dirs
        of `directory` and every directory above it, nearest first, then every such `src`
        directory (a GOPATH's, or GOROOT's). Memoized."""
        for d in self._unknown_upwards(directory, self.gopath):
            vendors, sources, _ = self.gopath[parent(d)] if d else ((), (), ())
            if join(d, "vendor") in self.tree.dirs:
                vendors = (join(d, "vendor"),) + vendors
            if d == "src" or d.endswith("/src"):
                sources = (d,) + sources
            self.gopath[d] = (vendors, sources, vendors + sources)
        return self.gopath[directory][2]

    @staticmethod
    def _unknown_upwards(directory: str, memo: Mapping[str, object]) -> list[str]:
        """`directory` and the directories above it not yet in `memo`, the topmost first: each
        can then be derived from its parent's entry (iterative, as deep as a path goes)."""
        out = []
        d = directory
        while d not in memo:
            out.append(d)
            if not d:
                break
            d = parent(d)
        return out[::-1]

    def _package_at(self, root: str, spec: str) -> tuple[str, ...]:
        """The package of `spec` under an import root found by a rule over paths, which may
        name no directory: those are not looked at (nor memoized, one per import path)."""
        directory = join(root, spec)
        if directory not in self.tree.dirs:
            return ()
        return self.package_files(directory)


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> GoResolver:
    return GoResolver(tree, facts, read)


def changes_others(name: str, before: Callable[[], BlobFacts | None], after: BlobFacts | None) -> bool:
    """go.mod and go.work, and a file's package clause and `//go:build ignore` (whether it is
    in its package), change how other files' imports resolve (resolve.imports.to_resolve)."""
    if name in ("go.mod", "go.work"):
        return True
    if not name.endswith(".go") or name.endswith("_test.go"):
        return False
    old = _membership(before())
    return old is None or old != _membership(after)


def _membership(facts: BlobFacts | None) -> tuple[str, bool] | None:
    return None if facts is None else (facts.package_name, facts.build_ignored)
