"""Import resolution at snapshot assembly: every ImportSpec of the blob facts becomes
edges to files of the tree, or one UnresolvedImport marked "external" (outside the
tree) or "unresolved" (should be in the tree, is not). Edges are capped an import and a
file (TARGETS_CAP, FILE_EDGES); an import resolved short of the tree also has an
UnresolvedImport beside its edges, marked with one of resolve.tree.CAVEATS.

A pure function of the file table, the blob facts and the bytes of configuration files
(go.mod, go.work, tsconfig.json, package.json, Cargo.toml, composer.json). Each language
family's rules live in the package of the language that owns it (`Language.resolver`); this
one dispatches by import kind and sorts the results.

Re-indexing after a small change starts from an earlier snapshot with the same paths
(`Prior`): only the changed files, and the importers of a family whose inputs changed
(a config file, a Java package, C# namespace or PHP declaration), are resolved again.
"""

from __future__ import annotations

import importlib
from bisect import bisect_left, bisect_right
from collections import Counter
from functools import cache, partial
from operator import attrgetter
from typing import Callable, Mapping, NamedTuple, Protocol, TypeVar

import msgspec

from indexer.contract.errors import RennetError
from indexer.lang.language import part
from indexer.lang.registry import LANGUAGES
from indexer.model import (
    BlobFacts,
    Edge,
    FileEntry,
    ImportSpec,
    UnresolvedImport,
    earlier_rows,
    edge_order,
    unresolved_order,
)
from indexer.resolve.tree import TARGETS_CAP, TARGETS_CAPPED, UNRESOLVED, Outcome, TreePaths
from indexer.store.facts_table import summaries_of

REGULAR_MODES = (0o100644, 0o100755, 0o100664)


# An import reaches many files when it names a package or namespace (Go, Java `.*`, C#, PHP):
# a tree can be drawn so that n files each reach n, n² edges where honest trees hold a few per
# import. An import keeps at most TARGETS_CAP of its files (the first its resolver gives: in
# path order for packages and namespaces), and a file at most FILE_EDGES edges over all its
# imports, in the order they are written; an import that lost any is marked TARGETS_CAPPED
# beside the edges it kept. Both caps are far above what the largest honest packages reach
# (TARGETS_CAP is resolve.tree's, where resolvers read it).
FILE_EDGES = 4096


class Resolver(Protocol):
    """Resolves a family's imports. One whose answers for a file can be approximate also has
    `caveat(importer) -> str`: a status of resolve.tree (VISIBILITY_CAPPED) marking the edges of
    `importer`'s imports, "" when they are exact."""

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome: ...


Factory = Callable[[TreePaths, Mapping[str, BlobFacts], Callable[[str], bytes]], Resolver]

def _factory(module: str) -> Factory:
    def make(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> Resolver:
        return part(module, "make_resolver")(tree, facts, read)  # type: ignore[operator]
    return make


# Each import family's resolver, from the language package that owns it (`Language.resolver`),
# imported when a snapshot first resolves an import of that family.
FACTORIES: dict[str, Factory] = {language.family: _factory(language.resolver)
                                 for language in LANGUAGES.values() if language.resolver}

# The family of each import kind, as the languages name the kinds their imports have.
FAMILY: dict[str, str] = {kind: language.family for language in LANGUAGES.values() for kind in language.import_kinds}

# The languages whose facts can hold imports of each family (their queries capture those
# import kinds): when a family's resolution changes, only their files are looked at.
FAMILY_LANGUAGES: dict[str, tuple[str, ...]] = {
    family: tuple(name for name, language in LANGUAGES.items() if language.family == family)
    for family in FACTORIES
}


def tree_of(files: list[FileEntry]) -> TreePaths:
    """The paths an import can land on: regular files (not symlinks, not submodules)."""
    return TreePaths(f.path for f in files if f.mode in REGULAR_MODES)


def forgiving(read: Callable[[str], bytes]) -> Callable[[str], bytes]:
    """A configuration file that cannot be read counts as empty: resolution degrades, never crashes."""

    def safe(path: str) -> bytes:
        try:
            return read(path)
        except (OSError, KeyError, ValueError, RennetError):
            return b""

    return safe


class Prior(msgspec.Struct, frozen=True):
    """The resolution of an earlier snapshot, to start from: its file table, edges and
    unresolved imports, and a way to its blob facts by path (None when not at hand)."""

    files: list[FileEntry]
    edges: list[Edge]
    unresolved: list[UnresolvedImport]
    facts: Callable[[str], BlobFacts | None]


# (a file's name, its facts before (read only when asked for), its facts after) -> can the
# change alter how other files' imports of a family resolve? Its configuration files do, and
# what the family's resolution reads of a file's facts: `changes_others` in the resolve module
# of the language that owns the family (a family without one reads neither).
ChangesOthers = Callable[[str, Callable[[], BlobFacts | None], BlobFacts | None], bool]


@cache
def changes_others() -> dict[str, ChangesOthers]:
    """family -> its `changes_others`, every language's resolver module imported."""
    out = {}
    for language in LANGUAGES.values():
        if language.resolver:
            found = getattr(importlib.import_module(language.resolver), "changes_others", None)
            if found is not None:
                out[language.family] = found
    return out


def to_resolve(files: list[FileEntry], facts: Mapping[str, BlobFacts], tree: TreePaths,
               prior: Prior) -> set[str] | None:
    """The files whose imports must be resolved anew when starting from `prior`; every other
    file resolves exactly as it did there. None when a full resolution is needed: the tree's
    paths differ (any path can be a target or change a lookup)."""
    if tree.paths != {f.path for f in prior.files if f.mode in REGULAR_MODES} or not _within_caps(prior.edges):
        return None
    changed = set()
    for f, b in earlier_rows(files, prior.files):
        if b is None or b.blob != f.blob or b.language != f.language:
            changed.add(f.path)
    dirty: set[str] = set()
    families = changes_others()
    for path in changed:
        name = path.rsplit("/", 1)[-1]
        earlier = partial(prior.facts, path)
        for family, reaches in families.items():
            if family not in dirty and reaches(name, earlier, facts.get(path)):
                dirty.add(family)
    if dirty:
        # full facts (their imports) only of files whose language can import from those families
        languages = {language for family in dirty for language in FAMILY_LANGUAGES[family]}
        for path, summary in summaries_of(facts).items():
            if (path not in changed and summary.language in languages
                    and any(FAMILY.get(imp.kind) in dirty for imp in facts[path].imports)):
                changed.add(path)
    return changed


def _within_caps(edges: list[Edge]) -> bool:
    """Does an earlier snapshot's resolution keep to TARGETS_CAP and FILE_EDGES? One made
    before them may hold more edges a file or an import: its files' outcomes cannot be kept
    as they are, so all are resolved anew, as a cold index resolves them. A file's edges are
    one run of the sorted edges, and a run longer than TARGETS_CAP holds one of every
    TARGETS_CAP-th edge: only the runs found from those are measured, and only a run longer
    than an import may be counted a import at a time."""
    at = 0
    while at < len(edges):
        source = edges[at].source
        start = bisect_left(edges, source, hi=at, key=_source)
        end = bisect_right(edges, source, lo=at, key=_source)
        if end - start > FILE_EDGES:
            return False
        if end - start > TARGETS_CAP and max(Counter(map(_import_of, edges[start:end])).values()) > TARGETS_CAP:
            return False
        at = max(at + TARGETS_CAP, end)
    return True


_import_of = attrgetter("line", "kind", "spec")


class Resolution(NamedTuple):
    """What `resolve_since` found."""

    edges: list[Edge]
    unresolved: list[UnresolvedImport]
    redone: set[str] | None  # the files resolved anew (every other one kept its outcome); None: all


def resolve_since(
    files: list[FileEntry],
    facts: Mapping[str, BlobFacts],
    read: Callable[[str], bytes],
    prior: Prior | None = None,
    tree: TreePaths | None = None,
) -> Resolution:
    """Resolve every import of every parsed file. Edges and unresolved imports come back
    sorted and free of duplicates; an import of the importing file itself is dropped.

    With `prior` (an earlier snapshot of the same repository, resolved by this same code),
    only the files `to_resolve` names are resolved and the others keep their earlier
    outcome: the same result as a full resolution, in a fraction of the time; `redone` says
    which files were resolved anew (only their import targets can differ from `prior`'s).
    `tree` is `tree_of(files)`, when the caller has it."""
    tree = tree if tree is not None else tree_of(files)
    read = forgiving(read)
    resolvers: dict[str, Resolver] = {}
    # Insertion-ordered sets (dicts): filled path by path in sorted order, the final sorts
    # meet presorted runs and cost little; a hash-ordered set would cost a full sort.
    edges: dict[Edge, None] = {}
    unresolved: dict[UnresolvedImport, None] = {}
    todo = to_resolve(files, facts, tree, prior) if prior is not None else None
    caveats: dict[str, Callable[[str], str] | None] = {}  # family -> its resolver's `caveat`, if any
    for path in sorted(facts) if todo is None else sorted(todo):
        if path not in tree or path not in facts:
            continue
        budget = FILE_EDGES
        for imp in facts[path].imports:
            family = FAMILY.get(imp.kind)
            if family is None:
                unresolved[UnresolvedImport(path, imp.spec, imp.kind, imp.line, UNRESOLVED)] = None
                continue
            if family not in resolvers:
                resolvers[family] = FACTORIES[family](tree, facts, read)
                caveats[family] = getattr(resolvers[family], "caveat", None)
            outcome = resolvers[family].resolve(path, imp)
            if isinstance(outcome, str):
                unresolved[UnresolvedImport(path, imp.spec, imp.kind, imp.line, outcome)] = None
                continue
            taken = 0
            for target in outcome:
                if target == path:
                    continue
                if taken == TARGETS_CAP or budget == 0:
                    unresolved[UnresolvedImport(path, imp.spec, imp.kind, imp.line, TARGETS_CAPPED)] = None
                    break
                edge = Edge(path, target, imp.kind, imp.line, imp.spec)
                if edge not in edges:
                    edges[edge] = None
                    budget -= 1
                taken += 1
            caveat = caveats[family]
            status = caveat(path) if caveat is not None and taken else ""
            if status:
                unresolved[UnresolvedImport(path, imp.spec, imp.kind, imp.line, status)] = None
    fresh_edges = sorted(edges, key=edge_order)
    fresh_unresolved = sorted(unresolved, key=unresolved_order)
    if todo is None or prior is None:
        return Resolution(fresh_edges, fresh_unresolved, None)
    # The earlier outcome of every other file, sorted and free of duplicates as this function
    # returned it: each resolved file's lines go in as one block where its path sorts.
    return Resolution(
        _replace_by_file(prior.edges, todo, fresh_edges, _source),
        _replace_by_file(prior.unresolved, todo, fresh_unresolved, _path),
        todo)


_source = attrgetter("source")
_path = attrgetter("path")
Line = TypeVar("Line", Edge, UnresolvedImport)


def _replace_by_file(earlier: list[Line], todo: set[str], fresh: list[Line], path_of: Callable[[Line], str]
                     ) -> list[Line]:
    """`earlier` (sorted by file path first, `path_of` each line) without the lines of the
    files in `todo`, and `fresh` (the same order, all in `todo`) in their place: one sorted
    list, without a sort, each file's lines a block where its path sorts. Only the files in
    `todo` are looked up, not every line (nor is a list of every line's path made)."""
    out: list[Line] = []
    start = 0  # the next line of `earlier` not yet in `out`
    i = 0  # the next line of `fresh` not yet in `out`
    for path in sorted(todo):
        at = bisect_left(earlier, path, lo=start, key=path_of)
        end = bisect_right(earlier, path, lo=at, key=path_of)
        out.extend(earlier[start:at])
        j = bisect_right(fresh, path, lo=i, key=path_of)
        out.extend(fresh[i:j])
        start, i = end, j
    out.extend(earlier[start:])
    return out
