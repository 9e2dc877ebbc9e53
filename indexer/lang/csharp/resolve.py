"""C# `using` directives -> files of the tree."""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from heapq import merge
from itertools import islice
from typing import Callable, Hashable, Iterable, Iterator, Mapping

from indexer.lang.csharp.numbered import NumberedPaths
from indexer.lang.csharp.projects import CSharpProjects
from indexer.model import BlobFacts, ImportSpec
from indexer.rank.weights import uses_of
from indexer.resolve.tree import (
    EXTERNAL,
    TARGETS_CAP,
    VISIBILITY_CAPPED,
    Outcome,
    TreePaths,
    definers_of,
    in_order,
)
from indexer.store.facts_table import Summary, summaries_of


class CSharpResolver:
    """`using A.B;` names a namespace, which many files declare. An edge goes only to the
    files of that namespace defining a name the importer uses, so a big namespace does
    not make every user depend on every file of it. A `global using A.B;` is every file of
    its project's: its edges go to every file of the namespace (which of them the project
    uses is for the query to tell, context_tools/query/symbols.py). `using static A.B;` and an
    alias of a name that is no namespace name a type: the file A/B.cs or else the files of
    namespace A declaring B. Only files of projects the importer's project sees count
    (indexer/lang/csharp/projects.py: its own, and those its .csproj reaches by ProjectReference);
    a namespace the importer sees no file of is external.

    What each namespace's files define is read once, when the namespace is first named. A
    `using` takes the files it reaches in path order, as they are taken, one past TARGETS_CAP
    at most: asking of each whether the importer sees it when they are few, else reading each
    list it takes from (a used name's definers, the namespace's files, a type's) a span of
    the project numbers the importer's project sees at a time (NumberedPaths, made once a
    list). It costs the names it uses, the spans of what its project sees among the list's
    projects and the files it keeps, not the namespace's files nor its projects."""

    def __init__(self, tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> None:
        self.projects = CSharpProjects((p for name, paths in tree.by_name.items() if name.endswith(".csproj")
                                        for p in paths), read)
        self.facts = facts
        self.summaries = summaries_of(facts)  # namespaces and symbols: no file's facts decoded in full
        self.by_namespace: dict[str, list[str]] = defaultdict(list)
        for path in sorted(tree.paths):
            f = self.summaries.get(path)
            if f is not None and f.package_name and path.endswith(".cs"):
                self.by_namespace[f.package_name].append(path)
        self._namespaces: dict[str, _Namespace] = {}
        self._seen: dict[tuple[str | None, str], bool] = {}  # (project, namespace) -> sees a file of it

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip().rstrip(";")
        if spec.startswith("static "):
            spec = spec[len("static ") :].strip()
        if "=" in spec:
            spec = spec.split("=", 1)[1].strip()
        space = None if imp.names == ("*",) else self._namespace(spec)  # `using static`: a type
        if space is None or not self._sees_any(importer, spec, space):
            # the importer itself is kept in (it makes no edge, but is no EXTERNAL either), so
            # two past the cap: one past it besides the importer
            return tuple(islice(self._type(importer, spec), TARGETS_CAP + 2)) or EXTERNAL
        if imp.kind == "csharp_global_using":
            files = self._visible(importer, space, space.files, len(space.files), lambda: [(("all",), space.files)])
        else:
            own = self.facts.get(importer)
            # `using M = App.Models;` binds M, written `M.User`: neither `M` nor `Models` is a use of a class
            bound = {spec.rpartition(".")[2], *imp.aliases} if imp.aliases else set()
            used = set(uses_of(own)) - bound if own else set()
            files = self._visible(importer, space, space.defining(used), space.defined(used),
                                  lambda: space.definers(used))
        # in path order, one past the cap at most: the rest would be left out of the edges
        return tuple(islice((p for p in files if p != importer), TARGETS_CAP + 1))

    def caveat(self, importer: str) -> str:
        """VISIBILITY_CAPPED when what `importer`'s project sees was past the ceiling of
        indexer/lang/csharp/projects.py and read as every project (resolve.imports marks its
        edges so), else ""."""
        return VISIBILITY_CAPPED if self.projects.sees_every(importer) else ""

    def _namespace(self, name: str) -> _Namespace | None:
        space = self._namespaces.get(name)
        if space is None:
            files = self.by_namespace.get(name)
            if not files:
                return None
            space = self._namespaces[name] = _Namespace(files, self.summaries, self.projects)
        return space

    def _sees_any(self, importer: str, name: str, space: _Namespace) -> bool:
        """Does `importer` see any file of the namespace? Asked once a project."""
        if not self.projects.folders or space.numbers[0] < 0:
            return True
        key = (self.projects.of(importer), name)
        seen = self._seen.get(key)
        if seen is None:
            numbers = space.numbers
            bounds = self.projects.seen_spans(importer, numbers[0], numbers[-1])
            seen = self._seen[key] = bounds is None or any(
                bisect_left(numbers, start) < bisect_left(numbers, end) for start, end in zip(bounds[::2], bounds[1::2]))
        return seen

    def _visible(self, importer: str, space: _Namespace, whole: Iterable[str], passed: int,
                 lists: Callable[[], Iterable[tuple[Hashable, list[str]]]]) -> Iterable[str]:
        """Of `whole` (files of the namespace in path order, `passed` of them at most), those
        `importer` sees, in path order, as they are taken: asked file by file when they are
        few, else from `lists` (the lists of paths whose union `whole` is, each with a key
        to keep what is made of it by), each read a span of what the importer's project sees
        at a time (NumberedPaths), so a `using` neither passes over files it does not see
        nor asks after every project of the namespace that it sees."""
        if not self.projects.folders:
            return whole
        if passed <= _ASKED:
            return (p for p in whole if self.projects.sees(importer, p))
        runs = []
        for key, paths in lists():
            if not paths:
                continue
            numbered = space.numbered(key, paths)
            low, high = max(numbered.numbers[0], 0), numbered.numbers[-1]
            bounds = self.projects.seen_spans(importer, low, high) if high >= 0 else []
            if bounds is not None and numbered.numbers[0] < 0:  # files under no project: seen by all
                bounds = [-1, 0, *bounds]
            runs.append(numbered.seen(bounds))
        return _merged(runs)

    def _type(self, importer: str, spec: str) -> Iterable[str]:
        """The files of the type `spec` names that `importer` sees, in path order: its
        namespace's files named for it if there are any (seen or not), else those of its
        namespace declaring it outside any other type."""
        head, _, last = spec.rpartition(".")
        space = self._namespace(head)
        if space is None:
            return ()
        basename = last + ".cs"
        named = space.named(basename)
        if named:
            return self._visible(importer, space, named, len(named), lambda: [(("named", basename), named)])
        declaring = space.declaring(last)
        return self._visible(importer, space, declaring, len(declaring), lambda: [(("declaring", last), declaring)])


def _merged(runs: list[Iterator[str]]) -> Iterable[str]:
    """Runs of paths each in path order as one run in path order, each path once, taken as
    they are asked for."""
    if len(runs) == 1:
        return runs[0]
    return _unique(merge(*runs))


def _unique(paths: Iterable[str]) -> Iterator[str]:
    last = None
    for path in paths:
        if path != last:
            yield path
            last = path


class _Namespace:
    """The files of one namespace (in path order) and what they define: each file's symbols
    read once, when first asked; and each list of them asked a project number at a time,
    made once (NumberedPaths)."""

    def __init__(self, files: list[str], summaries: Mapping[str, Summary], projects: CSharpProjects) -> None:
        self.files = files
        self.summaries = summaries
        self._definers: dict[str, list[str]] | None = None
        self._types: dict[str, list[str]] | None = None
        self._named: dict[str, list[str]] | None = None
        self._projects = projects
        # each file's project number (-1: under none), and those of the namespace, sorted
        self._number: dict[str, int] = {}
        if projects.folders:
            for path in files:
                project = projects.of(path)
                self._number[path] = -1 if project is None else projects.number(project)
        self.numbers = sorted(set(self._number.values())) or [-1]
        self._numbered: dict[Hashable, NumberedPaths] = {}

    def numbered(self, key: Hashable, paths: list[str]) -> NumberedPaths:
        """`paths` (some of the files, in path order) with their project numbers, kept by `key`."""
        found = self._numbered.get(key)
        if found is None:
            number = self._number
            found = self._numbered[key] = NumberedPaths(paths, [number[p] for p in paths])
        return found

    def defining(self, names: set[str]) -> Iterator[str]:
        """The files with a symbol of one of `names`, in path order, each once: as they are
        taken, so a `using` reaching many costs only those it keeps."""
        return in_order(self._definers_by_name(), names)

    def defined(self, names: set[str]) -> int:
        """How many files `defining(names)` may read: each name's definers, summed."""
        return sum(len(paths) for _, paths in self.definers(names))

    def definers(self, names: set[str]) -> list[tuple[Hashable, list[str]]]:
        """The files defining each of `names` that any file does, in path order, keyed by name.
        The names asked are those of `names` or of the namespace's, whichever are fewer."""
        definers = self._definers_by_name()
        asked = names if len(names) <= len(definers) else [n for n in definers if n in names]
        return [(("name", name), definers[name]) for name in asked if name in definers]

    def _definers_by_name(self) -> dict[str, list[str]]:
        if self._definers is None:
            self._definers = definers_of(self.files, lambda path: (s.name for s in self.summaries[path].symbol_list()))
        return self._definers

    def named(self, basename: str) -> list[str]:
        """The files of this name, in path order (the index's own list: not to be changed)."""
        if self._named is None:
            self._named = defaultdict(list)
            for path in self.files:
                self._named[path.rsplit("/", 1)[-1]].append(path)
        return self._named.get(basename, [])

    def declaring(self, name: str) -> list[str]:
        """The files declaring the type `name` outside any other type, in path order (the
        index's own list: not to be changed)."""
        if self._types is None:
            self._types = defaultdict(list)
            for path in self.files:
                facts = self.summaries[path]
                for type_name in {s.name for s in facts.symbol_list()
                                  if s.container == facts.package_name and s.kind in _CSHARP_TYPES}:
                    self._types[type_name].append(path)
        return self._types.get(name, [])


# Files of an import asked one by one whether the importer sees them, at most: more are read
# from what its project sees.
_ASKED = 32
_CSHARP_TYPES = frozenset({"class", "interface", "struct", "enum", "type"})


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> CSharpResolver:
    return CSharpResolver(tree, facts, read)


def changes_others(name: str, before: Callable[[], BlobFacts | None], after: BlobFacts | None) -> bool:
    """A .csproj's ProjectReferences say which projects' namespaces C# files see, and a file's
    namespace (any change of one, with its symbols) what a `using` reaches
    (resolve.imports.to_resolve)."""
    if name.endswith(".csproj"):
        return True
    if not name.endswith(".cs"):
        return False
    old = _namespace(before())
    return old is None or bool(old) or bool(_namespace(after))


def _namespace(facts: BlobFacts | None) -> str | None:
    return None if facts is None else facts.package_name
