"""Ruby `require`, C# `using` and shell `source` -> files of the tree (PHP: resolve_php.py)."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Callable, Mapping

from indexer.lang.csharp.projects import CSharpProjects
from indexer.model import BlobFacts, ImportSpec
from indexer.rank.weights import uses_of
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, common_prefix_len, join, normalize, parent
from indexer.store.facts_table import summaries_of


class RubyResolver:
    """Paths beside the file ("./x": `require_relative`, or built from `__dir__`) resolve
    there; `require` and `autoload` names on the load path: the lib/ folders nearest the
    importer first, then spec/ and test/ folders (what RSpec and `rake test` add), then the
    root. Never the importer's own folder: Ruby's load path does not hold it, so a
    lib/rack/handler/thin.rb requiring "thin" means the gem, not itself."""

    def __init__(self, tree: TreePaths) -> None:
        self.tree = tree
        self.lib_dirs = sorted(d for d in tree.dirs if d == "lib" or d.endswith("/lib"))
        self.test_dirs = sorted(d for d in tree.dirs if d.rpartition("/")[2] in ("spec", "test"))
        self._load_paths: dict[str, list[str]] = {}

    def load_path(self, importer: str) -> list[str]:
        here = parent(importer)
        if here not in self._load_paths:
            def by_nearness(dirs: list[str]) -> list[str]:
                # nearest first; among equally near ones the shallowest (the repository's own lib/)
                return sorted(dirs, key=lambda d: (-common_prefix_len(importer, d + "/-"), d.count("/"), d))
            self._load_paths[here] = [*by_nearness(self.lib_dirs), *by_nearness(self.test_dirs), ""]
        return self._load_paths[here]

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip()
        if not spec or "#{" in spec:
            return UNRESOLVED  # empty or interpolated: a path only known when it runs
        names = [spec] if spec.endswith(".rb") else [spec + ".rb", spec]
        beside = spec.startswith(("./", "../"))
        for base in [parent(importer), ""] if beside else self.load_path(importer):
            for name in names:
                cand = normalize(join(base, name))
                if cand is not None and cand in self.tree and cand != importer:
                    return (cand,)
        return UNRESOLVED if beside else EXTERNAL


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


SHELL_VAR = re.compile(r"^(?:\$\{?\w+\}?|\$\(dirname [^)]*\)|\$\(cd [^)]*\))/")


class BashResolver:
    """`source x.sh` / `. "$DIR/x.sh"`: a leading directory variable is taken as the
    script's own directory (the `DIR=$(dirname "$0")` idiom); then the tree root."""

    def __init__(self, tree: TreePaths) -> None:
        self.tree = tree

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = SHELL_VAR.sub("", imp.spec.strip().strip("'\""))
        if not spec or "$" in spec:
            return UNRESOLVED
        if spec.startswith("/"):
            return EXTERNAL  # an absolute path on the machine (/etc/profile)
        for base in (parent(importer), ""):
            cand = normalize(join(base, spec))
            if cand is not None and cand in self.tree:
                return (cand,)
        return UNRESOLVED
