"""C# `using` directives -> files of the tree."""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from itertools import islice
from typing import Callable, Iterator, Mapping

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

    What each namespace's files define is read once, when the namespace is first named, and
    which of them a file sees is asked a project at a time: a `using` costs the names it uses
    and the files it reaches, not every file of a namespace that many files use."""

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
            return tuple(p for p in self._type(spec) if self.projects.sees(importer, p)) or EXTERNAL
        if imp.kind == "csharp_global_using":
            return tuple(islice((p for p in self._visible(importer, space) if p != importer), TARGETS_CAP + 1))
        own = self.facts.get(importer)
        # `using M = App.Models;` binds M, written `M.User`: neither `M` nor `Models` is a use of a class
        bound = {spec.rpartition(".")[2], *imp.aliases} if imp.aliases else set()
        used = set(uses_of(own)) - bound if own else set()
        # in path order, one past the cap at most: the rest would be left out of the edges
        return tuple(islice((p for p in space.defining(used) if p != importer and self.projects.sees(importer, p)),
                            TARGETS_CAP + 1))

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

    def _visible(self, importer: str, space: _Namespace) -> list[str]:
        """The files of the namespace `importer` sees, in path order."""
        if not self.projects.folders:
            return space.files
        among, files = space.among()
        seen = [files[i] for i in self.projects.seen_among(importer, among)]
        if None in space.groups:
            seen.append(space.groups[None])
        return seen[0] if len(seen) == 1 else sorted(p for group in seen for p in group)

    def _type(self, spec: str) -> tuple[str, ...]:
        """The files of the type `spec` names: its namespace's file named for it, else those
        of its namespace declaring it outside any other type."""
        head, _, last = spec.rpartition(".")
        space = self._namespace(head)
        if space is None:
            return ()
        return space.named(last + ".cs") or space.declaring(last)


class _Namespace:
    """The files of one namespace (in path order), by project, and what they define: each
    file's symbols read once."""

    def __init__(self, files: list[str], summaries: Mapping[str, Summary], projects: CSharpProjects) -> None:
        self.files = files
        self.summaries = summaries
        self.groups: dict[str | None, list[str]] = {}  # project folder (None: under none) -> its files
        for path in files:
            self.groups.setdefault(projects.of(path) if projects.folders else None, []).append(path)
        self._projects = projects
        self._among: tuple[Among, list[list[str]]] | None = None
        self._definers: dict[str, list[str]] | None = None
        self._types: dict[str, list[str]] | None = None
        self._named: dict[str, list[str]] | None = None

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

    def defining(self, names: set[str]) -> Iterator[str]:
        """The files with a symbol of one of `names`, in path order, each once: as they are
        taken, so a `using` reaching many costs only those it keeps."""
        if self._definers is None:
            self._definers = definers_of(self.files, lambda path: (s.name for s in self.summaries[path].symbol_list()))
        return in_order(self._definers, names)

    def named(self, basename: str) -> tuple[str, ...]:
        if self._named is None:
            self._named = defaultdict(list)
            for path in self.files:
                self._named[path.rsplit("/", 1)[-1]].append(path)
        return tuple(self._named.get(basename, ()))

    def declaring(self, name: str) -> tuple[str, ...]:
        """The files declaring the type `name` outside any other type."""
        if self._types is None:
            self._types = defaultdict(list)
            for path in self.files:
                facts = self.summaries[path]
                for type_name in {s.name for s in facts.symbol_list()
                                  if s.container == facts.package_name and s.kind in _CSHARP_TYPES}:
                    self._types[type_name].append(path)
        return tuple(self._types.get(name, ()))


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
