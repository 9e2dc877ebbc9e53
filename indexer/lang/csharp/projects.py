"""C# projects: which files' namespaces a C# file sees.

A project is a folder holding a .csproj; a file belongs to the nearest one above it. A C#
namespace may span projects, but a project compiles against its own files and the projects
its .csproj names by `<ProjectReference Include="..\\B\\B.csproj" />`, and theirs in turn (an
SDK-style project passes its references on). So a file sees the files of its own project and
of the projects it reaches so; a file under no .csproj, or a tree with none, sees every file,
and every file sees one under none. A path may start at the project's own folder by name
(`$(MSBuildThisFileDirectory)`, `$(MSBuildProjectDirectory)\\`); one naming a .csproj the
tree does not hold, or built from any other MSBuild property (`$(Root)\\x.csproj`), reaches
nothing.

What the C# resolver (indexer.lang.csharp.resolve) and the references' C# rules
(context_tools/query/symbols.py) both ask: the .csproj files are read once each, on first need.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from indexer.resolve.tree import normalize, parent

_REFERENCE = re.compile(rb"""<ProjectReference\s[^<>]*?Include\s*=\s*["']([^"']+)["']""", re.S)
_OWN_FOLDER = re.compile(r"^\$\(MSBuild(?:ThisFileDirectory|ProjectDirectory)\)/?")


class CSharpProjects:
    def __init__(self, paths: Iterable[str], read: Callable[[str], bytes]) -> None:
        self._manifests: dict[str, list[str]] = {}  # project folder -> its .csproj files
        for p in sorted(p for p in paths if p.endswith(".csproj")):
            self._manifests.setdefault(parent(p), []).append(p)
        self._read = read
        # deepest first: the first folder holding a file is its nearest project
        self.folders = sorted(self._manifests, key=lambda f: (-f.count("/"), f))
        self._seen: dict[str, frozenset[str]] = {}
        self._of: dict[str, str | None] = {}
        self._referenced: dict[str, list[str]] = {}

    def of(self, path: str) -> str | None:
        """The folder of the file's project; None for a file under no .csproj."""
        here = parent(path)
        if here not in self._of:
            self._of[here] = next((f for f in self.folders if not f or here == f or here.startswith(f + "/")), None)
        return self._of[here]

    def sees(self, viewer: str, target: str) -> bool:
        """Does the C# file `viewer` see the names of the file `target`?"""
        if not self.folders:
            return True
        mine, theirs = self.of(viewer), self.of(target)
        return mine is None or theirs is None or theirs in self.visible(mine)

    def visible(self, project: str) -> frozenset[str]:
        """The project folders `project`'s files see: itself and what its references reach."""
        seen = self._seen.get(project)
        if seen is None:
            found, todo = {project}, [project]
            while todo:
                for ref in self._references(todo.pop()):
                    if ref not in found:
                        found.add(ref)
                        todo.append(ref)
            seen = self._seen[project] = frozenset(found)
        return seen

    def _references(self, project: str) -> list[str]:
        """The project folders the .csproj files of `project` name by `ProjectReference`, each
        file read once."""
        found = self._referenced.get(project)
        if found is None:
            found = self._referenced[project] = []
            for manifest in self._manifests.get(project, ()):
                for raw in _REFERENCE.findall(self._read(manifest)):
                    include = _OWN_FOLDER.sub("", raw.decode("utf-8", "replace").strip().replace("\\", "/"))
                    target = normalize(f"{project}/{include}" if project else include) if "$(" not in include else None
                    if target is not None and target in self._manifests.get(parent(target), ()):
                        found.append(parent(target))
        return found
