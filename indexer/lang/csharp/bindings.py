"""What a C# `using` and namespace bind, as the references and symbol queries ask it
(indexer/lang/bindings.py).

A `using` names the importing file's own names: nothing importing that file sees them, so it
re-exports nothing (`using U = A.B;` binds B as U). A `global using` is every file's of its
project. A namespace's files see its names without a `using`, but a file sees the files of a
namespace only in its own project and those its .csproj references (indexer/lang/csharp/projects.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from indexer.lang import member_syntax
from indexer.lang.bindings_base import Bindings, Projects, SiteSyntax, public_modifier

if TYPE_CHECKING:
    from indexer.lang.csharp.projects import CSharpProjects
    from indexer.model import ImportSpec
    from indexer.store.snapshot import Snapshot

GLOBAL_USING = "csharp_global_using"


class CSharpBindings(Bindings):
    language = "csharp"
    implicit_self = True
    has_projects = True

    def site_syntax(self, line: bytes, col: int, name: str) -> SiteSyntax | None:
        return member_syntax.dotted(line, col, name, member_syntax.CSHARP_SPECIALS, named_arguments=True)

    def file_own(self, spec: ImportSpec) -> bool:
        return spec.kind in ("csharp_using", GLOBAL_USING)

    def project_wide(self, kind: str) -> bool:
        return kind == GLOBAL_USING

    def binds(self, spec: ImportSpec) -> Iterable[tuple[str, str]]:
        if self.file_own(spec):
            return ((spec.spec.replace("\\", ".").rpartition(".")[2], spec.aliases[0]),) if spec.aliases else ()
        return super().binds(spec)

    def public_basis(self, parts: list[str], kind: str, signature: str) -> str | None:
        return public_modifier(self.language, kind, signature, interface_members=True)

    def package_of(self, snap: Snapshot, path: str) -> tuple[str, ...] | None:
        facts = snap.core_facts(path)
        if not facts or not facts.package_name:
            return None
        return (self.language, facts.package_name)

    def sees_in_package(self, projects: Projects, viewer: str, targets: list[str]) -> bool:
        """A C# namespace may span projects, each seeing those its .csproj references."""
        return any(projects.sees(viewer, p) for p in targets)


class ProjectView:
    """The C# projects of a snapshot, as the resolver reads them: a `global using` is every
    file of its project's, and a file sees the namespaces of its own project and of those its
    .csproj references. The .csproj files are found on first need, in one pass over the paths,
    and read only when a file's visibility is asked."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._projects: CSharpProjects | None = None

    def _read(self) -> CSharpProjects:
        if self._projects is None:
            from indexer.lang.csharp.projects import CSharpProjects

            self._projects = CSharpProjects((p for p in self.snap.paths if p.endswith(".csproj")), self.snap.blob_bytes)
        return self._projects

    def of(self, path: str) -> str | None:
        return self._read().of(path)

    def sees(self, viewer: str, target: str) -> bool:
        return self._read().sees(viewer, target)

    def sharing(self, path: str, name: str) -> list[str]:
        """The C# files of `path`'s project that have sites of `name` (the name index tells)."""
        project = self.of(path)
        files = {p for p, _ in self.snap.occurrences(name) if p.endswith(".cs")}
        return sorted(p for p in files if self.of(p) == project)
