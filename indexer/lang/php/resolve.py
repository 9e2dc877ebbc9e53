"""PHP `require`/`include` paths and `use` names -> files of the tree.

A `use` names a class (or, with `use function` / `use const`, a function or constant) by
its fully qualified name. It resolves first by the PSR-4 maps of every composer.json
(`autoload` and `autoload-dev`), the way Composer's autoloader finds the file, then to the
file that declares that name in that namespace (trees without composer.json, classmaps,
PSR-0). A path that merely ends like the name is no evidence: `Console/Exception/X.php`
declaring `Symfony\\Component\\Console\\Exception` is not `...\\DependencyInjection\\Exception\\X`.
Namespaces, classes and functions match in any case, as PHP matches them; a constant's own
name only as written.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left
from collections import defaultdict
from itertools import islice
from typing import Callable, Iterator, Mapping, NamedTuple

from indexer.contract.decode import decode_json
from indexer.model import BlobFacts, ImportSpec
from indexer.rank.weights import uses_of
from indexer.resolve.tree import (
    EXTERNAL,
    TARGETS_CAP,
    UNRESOLVED,
    Outcome,
    TreePaths,
    definers_of,
    in_order,
    join,
    nearest_sorted,
    normalize,
    parent,
)
from indexer.store.facts_table import Summary, summaries_of

QUOTED = re.compile(r"""['"]([^'"]+)['"]""")
PHP_SOURCES = (".php", ".inc")  # what Composer's classmap scans; PSR-4 files are .php
CLASS_KINDS = frozenset({"class", "interface", "trait", "enum"})
# What an import kind imports: `use` a class (or a namespace), `use function`, `use const`
USE_KINDS = {"php_use": "class", "php_use_function": "function", "php_use_const": "const"}

# (kind, namespace, name) of one top-level declaration; kind "class", "function" or "const"
Declaration = tuple[str, str, str]


class Psr4(NamedTuple):
    prefix: str  # "Acme\\Blog\\" ("" is Composer's fallback for every name)
    directory: str  # tree path, "" for the root


def declarations(facts: Summary | None) -> frozenset[Declaration] | None:
    """The classes (interfaces, traits, enums), functions and constants a PHP file declares
    outside any class, each with its namespace; None when the file was not parsed."""
    if facts is None or facts.skipped:
        return None
    symbols = facts.symbol_list()
    # A namespace, `namespace A;` or `namespace A { }`, is the container of what it holds;
    # a `define()` constant is global wherever the call runs (no container).
    spaces = {s.name for s in symbols if s.kind == "namespace"}
    out: set[Declaration] = set()
    for s in symbols:
        kind = "class" if s.kind in CLASS_KINDS else "const" if s.kind == "constant" else s.kind
        if kind not in ("class", "function", "const"):
            continue
        if s.container and s.container not in spaces:
            continue  # a method or class constant
        out.add((kind, s.container, s.name))
    return frozenset(out)


def _key(kind: str, namespace: str, name: str) -> Declaration:
    """Lookup key: namespaces, classes and functions are case-insensitive, constants not."""
    return kind, namespace.lower(), name if kind == "const" else name.lower()


def psr4_roots(tree: TreePaths, read: Callable[[str], bytes]) -> list[Psr4]:
    """Every composer.json's PSR-4 prefixes, longest first (Composer tries the longest
    matching prefix first). Unreadable JSON or entries of the wrong type are skipped."""
    roots: set[Psr4] = set()
    for path in sorted(tree.ending_with("composer.json")):
        try:
            doc = decode_json(read(path) or b"null")
        except ValueError:  # invalid JSON or UTF-8: that file maps nothing
            continue
        for section in ("autoload", "autoload-dev"):
            autoload = doc.get(section) if isinstance(doc, dict) else None
            psr4 = autoload.get("psr-4") if isinstance(autoload, dict) else None
            for prefix, dirs in psr4.items() if isinstance(psr4, dict) else ():
                for d in [dirs] if isinstance(dirs, str) else dirs if isinstance(dirs, list) else ():
                    directory = normalize(join(parent(path), d)) if isinstance(d, str) else None
                    if directory is not None:
                        roots.add(Psr4(prefix.lstrip("\\"), directory))
    return sorted(roots, key=lambda r: (-len(r.prefix), r.prefix, r.directory))


class PhpResolver:
    """File includes resolve beside the file, then from the root, then by suffix; a `use`
    by composer.json PSR-4 maps, then by the namespace and name a file declares."""

    def __init__(self, tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> None:
        self.tree = tree
        self.facts = facts
        self.summaries = summaries_of(facts)
        self.psr4 = psr4_roots(tree, read)
        self._of: dict[str, frozenset[Declaration] | None] = {}  # path -> its declarations, decoded once
        self._declared: dict[Declaration, list[str]] | None = None  # each in path order; built on first need
        # (a declared namespace's parts, lower case; a file declaring in it), sorted: a namespace
        # and those below it are one run, found by a search
        self._spaces: list[tuple[tuple[str, ...], str]] = []
        self._subtrees: dict[str, _Subtree] = {}  # a namespace `use`d (lower case) -> its files, once
        self._names: dict[str, frozenset[str]] = {}  # path -> what it declares, names in lower case
        self._used: tuple[str, frozenset[str]] = ("", frozenset())  # the last importer, the names it uses
        self._psr4_dirs: dict[str, frozenset[str]] | None = None  # a prefix -> its roots' directories
        self._psr4_lengths: list[int] = []
        # (namespace, name) of a class -> the files PSR-4 maps it to, in path order: found once a
        # class, and the nearest to each importer by a search
        self._psr4_files: dict[tuple[str, str], list[str]] = {}
        self._owned_prefixes: frozenset[str] = frozenset()  # the non-empty prefixes, lower case
        self._owned_lengths: list[int] = []

    def _declared_in(self, path: str) -> frozenset[Declaration] | None:
        if path not in self._of:
            self._of[path] = declarations(self.summaries.get(path))
        return self._of[path]

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        raw = imp.spec.strip().rstrip(";")
        quoted = QUOTED.findall(raw)
        if quoted or "/" in raw or raw.endswith((".php", ".inc")):
            return self._include(importer, raw, quoted)
        segments = [s for s in raw.lstrip("\\").split(" as ")[0].strip().split("\\") if s]
        if not segments:
            return UNRESOLVED
        return self._use(importer, USE_KINDS.get(imp.kind, "class"), segments, imp.aliases[0] if imp.aliases else "")

    def _include(self, importer: str, raw: str, quoted: list[str]) -> Outcome:
        spec = quoted[-1] if quoted else raw
        rel = spec.lstrip("/") if "__DIR__" in raw or "__FILE__" in raw else spec
        for base in (parent(importer), ""):
            cand = normalize(join(base, rel))
            if cand is not None and cand in self.tree:
                return (cand,)
        clean = normalize(rel)
        if not clean:
            return UNRESOLVED
        found = nearest_sorted(importer, self.tree.ending_with(clean))  # listed once a spelling
        return (found,) if found is not None else UNRESOLVED

    def _use(self, importer: str, kind: str, segments: list[str], alias: str) -> Outcome:
        namespace, name = "\\".join(segments[:-1]), segments[-1]
        if kind == "class":  # PSR-4 autoloads classes only
            hits = self._by_psr4(importer, namespace, name)
            if hits:
                return hits
        declared = self._index().get(_key(kind, namespace, name))
        if declared and len(declared) == 1:
            return (declared[0],)
        # in path order: the nearest is found by a search, however many files declare the name
        nearest_declaring = nearest_sorted(importer, declared) if declared else None
        if nearest_declaring is not None:
            return (nearest_declaring,)
        if kind == "class":  # `use A\B;` may import a namespace, to write `B\C` later
            space = self._under("\\".join(segments).lower())
            if space.files:
                return self._defining_used(importer, space, {name, alias} - {""})
        return UNRESOLVED if self._owned("\\".join(segments)) else EXTERNAL

    def _by_psr4(self, importer: str, namespace: str, name: str) -> tuple[str, ...]:
        """The file of the longest matching PSR-4 prefix that holds the class (a file not
        parsed is taken on the path's word), nearest the importer. The files a class maps to
        are found once a class; the nearest to each importer by a search of them."""
        hits = self._psr4_files.get((namespace, name))
        if hits is None:
            hits = self._psr4_files[namespace, name] = self._psr4_holding(namespace, name)
        found = nearest_sorted(importer, hits) if hits else None
        return (found,) if found is not None else ()

    def _psr4_holding(self, namespace: str, name: str) -> list[str]:
        """The files of the longest matching PSR-4 prefix that hold the class, in path order.
        The prefixes are kept by length: a name asks its own beginnings of those lengths,
        longest first, not every prefix of the tree."""
        full = f"{namespace}\\{name}" if namespace else name
        dirs, lengths = self._psr4_index()
        for length in lengths:
            if length > len(full) or full[:length] not in dirs:
                continue
            rel = full[length:].replace("\\", "/") + ".php"
            hits = sorted(p for p in self._under_roots(dirs[full[:length]], rel) if self._holds(p, namespace, name))
            if hits:
                return hits  # a shorter prefix is tried only when the longer ones hold nothing
        return []

    def _under_roots(self, dirs: frozenset[str], rel: str) -> list[str]:
        """The paths of the tree that are `rel` under one of the root directories `dirs`: each
        root asked, or each file named as `rel` is asked whether it sits so, whichever are
        fewer (a prefix of many roots, or a name many files bear)."""
        if len(dirs) <= len(self.tree.by_name.get(posixpath.basename(rel), ())):
            return [path for path in (join(d, rel) for d in dirs) if path in self.tree]
        found = []
        for path in self.tree.ending_with(rel):
            directory = path[:-len(rel) - 1] if path != rel else ""
            if directory in dirs and join(directory, rel) == path:  # as the root would spell it
                found.append(path)
        return found

    def _psr4_index(self) -> tuple[dict[str, frozenset[str]], list[int]]:
        """The PSR-4 roots' directories by prefix, and the prefixes' lengths, longest first."""
        if self._psr4_dirs is None:
            by_prefix: dict[str, set[str]] = {}
            for root in self.psr4:
                by_prefix.setdefault(root.prefix, set()).add(root.directory)
            self._psr4_dirs = {prefix: frozenset(dirs) for prefix, dirs in by_prefix.items()}
            self._psr4_lengths = sorted({len(p) for p in self._psr4_dirs}, reverse=True)
            self._owned_prefixes = frozenset(r.prefix.lower() for r in self.psr4 if r.prefix)
            self._owned_lengths = sorted({len(p) for p in self._owned_prefixes})
        return self._psr4_dirs, self._psr4_lengths

    def _holds(self, path: str, namespace: str, name: str) -> bool:
        found = self._declared_in(path)
        return found is None or any(_key(*d) == _key("class", namespace, name) for d in found)

    def _owned(self, full: str) -> bool:
        """A name under a PSR-4 prefix of the tree belongs to it: missing, not external (in any
        case: `app\\models\\Gone` is App\\Models\\Gone to PHP)."""
        full = full.lower()
        self._psr4_index()
        return any(full[:length] in self._owned_prefixes for length in self._owned_lengths if length <= len(full))

    def _index(self) -> dict[Declaration, list[str]]:
        if self._declared is None:
            self._declared = defaultdict(list)
            for path in sorted(self.tree.paths):
                found = self._declared_in(path) if path.endswith(PHP_SOURCES) else None
                for d in sorted(found or ()):
                    self._declared[_key(*d)].append(path)
                self._spaces.extend((tuple(n.split("\\")), path) for n in {d[1].lower() for d in found or ()})
            self._spaces.sort()
        return self._declared

    def _under(self, namespace: str) -> _Subtree:
        """The files declaring things in a namespace (lower case) or one below it: one run of
        the sorted namespaces' parts, found by a search and kept for the next `use` of it."""
        found = self._subtrees.get(namespace)
        if found is None:
            self._index()  # fills _spaces
            parts = tuple(namespace.split("\\"))
            # every part list starting with `parts` sorts from it and before this one
            beyond = (*parts[:-1], parts[-1] + "\0")
            run = self._spaces[bisect_left(self._spaces, (parts,)):bisect_left(self._spaces, (beyond,))]
            found = self._subtrees[namespace] = _Subtree(sorted({p for _, p in run}), self._names_in)
        return found

    def _names_in(self, path: str) -> frozenset[str]:
        """The names a file declares (in any namespace), lower case; read once a file."""
        names = self._names.get(path)
        if names is None:
            names = self._names[path] = frozenset(d[2].lower() for d in self._declared_in(path) or ())
        return names

    def _defining_used(self, importer: str, space: _Subtree, bound: set[str]) -> tuple[str, ...]:
        """Of a namespace's files, those declaring a name the importer uses (as C# `using`);
        the names the import binds are no uses of classes so named: `Node` of `use
        League\\CommonMark\\Node;` written as `Node\\Block\\Document`, and `Models` and `M` of
        `use App\\Models as M;`, where `M\\User` is written."""
        if self._used[0] != importer:  # a file's `use`s come one after another: its names read once
            own = self.facts.get(importer)
            self._used = importer, frozenset(n.lower() for n in uses_of(own)) if own else frozenset()
        # in path order, one past the cap at most: the rest would be left out of the edges
        return tuple(islice((p for p in space.defining(self._used[1], {b.lower() for b in bound}) if p != importer),
                            TARGETS_CAP + 1))


class _Subtree:
    """The files of a namespace and those below it (sorted), and which of them declare each
    name, read once, when a `use` first asks: a `use` costs the names it uses or the names
    the files declare, whichever are fewer, and the files it reaches."""

    def __init__(self, files: list[str], names_in: Callable[[str], frozenset[str]]) -> None:
        self.files = files
        self._names_in = names_in
        self._definers: dict[str, list[str]] | None = None

    def defining(self, names: frozenset[str], but: set[str]) -> Iterator[str]:
        """The files declaring one of `names` other than those of `but` (lower case), in path
        order, each once, as they are taken."""
        if self._definers is None:
            self._definers = definers_of(self.files, self._names_in)
        return in_order(self._definers, names, but)


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> PhpResolver:
    return PhpResolver(tree, facts, read)


def changes_others(name: str, before: Callable[[], BlobFacts | None], after: BlobFacts | None) -> bool:
    """composer.json, and the namespaced classes, functions and constants a file declares,
    change how other files' imports resolve (resolve.imports.to_resolve)."""
    if name == "composer.json":
        return True
    if not name.endswith(PHP_SOURCES):
        return False
    old = declarations(before())
    return old is None or old != declarations(after)
