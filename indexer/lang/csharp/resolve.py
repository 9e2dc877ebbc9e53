"""C# `using` directives -> files of the tree."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Mapping

from indexer.lang.csharp.projects import CSharpProjects
from indexer.model import BlobFacts, ImportSpec
from indexer.rank.weights import uses_of
from indexer.resolve.tree import EXTERNAL, Outcome, TreePaths
from indexer.store.facts_table import summaries_of


class CSharpResolver:
    """`using A.B;` names a namespace, which many files declare. An edge goes only to the
    files of that namespace defining a name the importer uses, so a big namespace does
    not make every user depend on every file of it. A `global using A.B;` is every file of
    its project's: its edges go to every file of the namespace (which of them the project
    uses is for the query to tell, context_tools/query/symbols.py). `using static A.B;` and an
    alias of a name that is no namespace name a type: the file A/B.cs or else the files of
    namespace A declaring B. Only files of projects the importer's project sees count
    (indexer/lang/csharp/projects.py: its own, and those its .csproj reaches by ProjectReference);
    a namespace the importer sees no file of is external."""

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

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip().rstrip(";")
        if spec.startswith("static "):
            spec = spec[len("static ") :].strip()
        if "=" in spec:
            spec = spec.split("=", 1)[1].strip()
        files = None if imp.names == ("*",) else self.by_namespace.get(spec)  # `using static`: a type
        if files and self.projects.folders:
            files = [p for p in files if self.projects.sees(importer, p)]
        if not files:
            return tuple(p for p in self._type(spec) if self.projects.sees(importer, p)) or EXTERNAL
        if imp.kind == "csharp_global_using":
            return tuple(p for p in files if p != importer)
        own = self.facts.get(importer)
        # `using M = App.Models;` binds M, written `M.User`: neither `M` nor `Models` is a use of a class
        bound = {spec.rpartition(".")[2], *imp.aliases} if imp.aliases else set()
        used = set(uses_of(own)) - bound if own else set()
        return tuple(p for p in files if any(s.name in used for s in self.summaries[p].symbol_list()))

    def _type(self, spec: str) -> tuple[str, ...]:
        """The files of the type `spec` names: its namespace's file named for it, else those
        of its namespace declaring it outside any other type."""
        head, _, last = spec.rpartition(".")
        files = self.by_namespace.get(head, [])
        named = tuple(p for p in files if p.rsplit("/", 1)[-1] == last + ".cs")
        return named or tuple(p for p in files if any(s.name == last and s.container == head and s.kind in _CSHARP_TYPES
                                                      for s in self.summaries[p].symbol_list()))


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
