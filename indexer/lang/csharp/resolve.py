"""C# `using` directives -> files of the tree."""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from heapq import merge
from itertools import chain, islice
from operator import attrgetter
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from indexer.lang.csharp.projects import Among, CSharpProjects
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

    What each namespace's files define is read once, when the namespace is first named, also
    a project number at a time. A `using` takes the files it reaches in path order, as they
    are taken, one past TARGETS_CAP at most: asking of each whether the importer sees it
    when they are no more than the namespace's project numbers, else merging those of the
    projects it sees. It costs the names it uses, the files it keeps and the smaller of the
    two, not every file of a namespace that many files use."""

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
            files = self._visible(importer, space, space.files, len(space.files), attrgetter("files"))
        else:
            own = self.facts.get(importer)
            # `using M = App.Models;` binds M, written `M.User`: neither `M` nor `Models` is a use of a class
            bound = {spec.rpartition(".")[2], *imp.aliases} if imp.aliases else set()
            used = set(uses_of(own)) - bound if own else set()
            files = self._visible(importer, space, space.defining(used), space.defined(used),
                                  lambda part: part.defining(used), len(used) + 1)
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
        if not self.projects.folders or None in space.groups:
            return True
        key = (self.projects.of(importer), name)
        seen = self._seen.get(key)
        if seen is None:
            seen = self._seen[key] = bool(self.projects.seen_among(importer, space.among()[0], first=True))
        return seen

    def _visible(self, importer: str, space: _Namespace, whole: Iterable[str], passed: int,
                 of_part: Callable[[_Files], Iterable[str]], part_cost: int = 1) -> Iterable[str]:
        """Of `whole` (files of the namespace in path order, `passed` of them at most), those
        `importer` sees, in path order, as they are taken. Asked file by file when they are
        no more than the namespace's project numbers times what `of_part` costs a part (a
        file asked costing one), else read only from the parts it sees, `of_part` of each:
        the smaller work, so a `using` neither passes over every file of a project it does
        not see nor asks after every project of a namespace of few files."""
        if not self.projects.folders:
            return whole
        among, _ = space.among()
        if passed <= len(among[0]) * part_cost:
            return (p for p in whole if self.projects.sees(importer, p))
        parts = space.parts()
        seen = [of_part(parts[i]) for i in self.projects.seen_among(importer, among)]
        if space.unowned is not None:
            seen.append(of_part(space.unowned))
        return _merged(seen)

    def _type(self, importer: str, spec: str) -> Iterable[str]:
        """The files of the type `spec` names that `importer` sees, in path order: its
        namespace's files named for it if there are any (seen or not), else those of its
        namespace declaring it outside any other type."""
        head, _, last = spec.rpartition(".")
        space = self._namespace(head)
        if space is None:
            return ()
        basename = last + ".cs"
        if space.named(basename):
            return self._visible(importer, space, space.named(basename), len(space.named(basename)),
                                 lambda part: part.named(basename))
        return self._visible(importer, space, space.declaring(last), len(space.declaring(last)),
                             lambda part: part.declaring(last))


def _merged(runs: Sequence[Iterable[str]]) -> Iterable[str]:
    """Runs of paths in path order, no path in two of them, as one run in path order, taken
    as they are asked for. Lists are merged by sorting their beginnings, as many as a
    resolver takes (C work), when those are few enough; more, or runs made as they are
    taken, by a heap."""
    if len(runs) == 1:
        return runs[0]
    taken = TARGETS_CAP + 2
    lists = [run for run in runs if isinstance(run, list)]
    if len(lists) == len(runs) and sum(min(len(run), taken) for run in lists) <= _SORTED_RUNS * taken:
        return sorted(chain.from_iterable(run[:taken] for run in lists))
    return merge(*runs)


class _Files:
    """Some files of one namespace (in path order) and what they define: each file's symbols
    read once, when first asked."""

    def __init__(self, files: list[str], summaries: Mapping[str, Summary]) -> None:
        self.files = files
        self.summaries = summaries
        self._definers: dict[str, list[str]] | None = None
        self._types: dict[str, list[str]] | None = None
        self._named: dict[str, list[str]] | None = None

    def defining(self, names: set[str]) -> Iterator[str]:
        """The files with a symbol of one of `names`, in path order, each once: as they are
        taken, so a `using` reaching many costs only those it keeps."""
        return in_order(self._definers_by_name(), names)

    def defined(self, names: set[str]) -> int:
        """How many files `defining(names)` may read: each name's definers, summed."""
        definers = self._definers_by_name()
        asked = names if len(names) <= len(definers) else [n for n in definers if n in names]
        return sum(len(definers.get(name, ())) for name in asked)

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


class _Namespace(_Files):
    """The files of one namespace (in path order), what they define, and the same of its
    files a project number at a time (projects that reference one another alike share one)
    and of those under no project: what a file sees of it is some of those parts."""

    def __init__(self, files: list[str], summaries: Mapping[str, Summary], projects: CSharpProjects) -> None:
        super().__init__(files, summaries)
        self.groups: dict[str | None, list[str]] = {}  # project folder (None: under none) -> its files
        for path in files:
            self.groups.setdefault(projects.of(path) if projects.folders else None, []).append(path)
        self._projects = projects
        self._among: tuple[Among, list[list[str]]] | None = None
        self._parts: list[_Files] | None = None
        unowned = self.groups.get(None)
        self.unowned = _Files(unowned, summaries) if unowned is not None else None

    def among(self) -> tuple[Among, list[list[str]]]:
        """The namespace's projects as CSharpProjects.seen_among asks about them, and the
        files of each of their numbers (projects that reference one another alike share one)."""
        if self._among is None:
            owned = [project for project in self.groups if project is not None]
            among = self._projects.numbered(owned)
            files: list[list[str]] = [[] for _ in among[0]]
            for project in owned:
                files[bisect_left(among[0], self._projects.number(project))] += self.groups[project]
            if len(files) < len(owned):
                files = [sorted(group) for group in files]
            self._among = among, files
        return self._among

    def parts(self) -> list[_Files]:
        """The files of each of `among`'s numbers, with what they define."""
        if self._parts is None:
            self._parts = [_Files(files, self.summaries) for files in self.among()[1]]
        return self._parts


_SORTED_RUNS = 4  # _merged sorts the beginnings of lists as long as this many runs of the cap, at most
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
