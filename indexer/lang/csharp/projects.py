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
        # the project folders, deepest first
        self.folders = sorted(self._manifests, key=lambda f: (-f.count("/"), f))
        self._of: dict[str, str | None] = {}
        self._referenced: dict[str, list[str]] = {}
        # What a project sees, as bits (one a project, numbered as first met): a set a
        # project would hold the whole chain below it, quadratic in a chain's length.
        self._bit: dict[str, int] = {}
        self._reach: dict[str, int] = {}

    def of(self, path: str) -> str | None:
        """The folder of the file's project; None for a file under no .csproj."""
        # up from the file's folder to the first that holds a .csproj or whose answer is
        # known; every folder passed gets that answer too, so each folder is climbed once
        here = parent(path)
        climbed: list[str] = []
        while here not in self._of:
            if here in self._manifests:
                self._of[here] = here
                break
            climbed.append(here)
            if not here:
                self._of[here] = None
                break
            here = parent(here)
        found = self._of[here]
        for folder in climbed:
            self._of[folder] = found
        return found

    def sees(self, viewer: str, target: str) -> bool:
        """Does the C# file `viewer` see the names of the file `target`?"""
        if not self.folders:
            return True
        mine, theirs = self.of(viewer), self.of(target)
        if mine is None or theirs is None:
            return True
        reach = self._reached(mine)  # numbers the projects it reaches
        bit = self._bit.get(theirs)
        return bit is not None and bool(reach >> bit & 1)

    def visible(self, project: str) -> frozenset[str]:
        """The project folders `project`'s files see: itself and what its references reach."""
        reach = self._reached(project)
        return frozenset(p for p, bit in self._bit.items() if reach >> bit & 1)

    def _reached(self, project: str) -> int:
        """The bits of the projects `project` reaches, itself among them. The projects it
        reaches are closed strongly connected component by component (Tarjan's order, with
        a stack of its own: a chain of any length recurses nowhere), each once, so the work
        is the references read plus one union of bits a reference."""
        reach = self._reach.get(project)
        if reach is not None:
            return reach
        order: dict[str, int] = {}  # project -> when first met; low: the earliest it reaches back to
        low: dict[str, int] = {}
        open_: list[str] = []
        on_open: set[str] = set()
        walk = [(project, iter(self._references(project)))]
        order[project] = low[project] = 0
        open_.append(project)
        on_open.add(project)
        while walk:
            node, refs = walk[-1]
            for ref in refs:
                if ref in self._reach:
                    continue
                if ref not in order:
                    order[ref] = low[ref] = len(order)
                    open_.append(ref)
                    on_open.add(ref)
                    walk.append((ref, iter(self._references(ref))))
                    break
                if ref in on_open:
                    low[node] = min(low[node], order[ref])
            else:
                walk.pop()
                if walk:
                    above = walk[-1][0]
                    low[above] = min(low[above], low[node])
                if low[node] == order[node]:
                    self._close(open_, on_open, node)
        return self._reach[project]

    def _close(self, open_: list[str], on_open: set[str], root: str) -> None:
        """Give every project of the component `root` heads (the top of `open_` down to it)
        the bits of the component and of all it references, closed before it."""
        members = []
        while True:
            member = open_.pop()
            on_open.discard(member)
            members.append(member)
            if member == root:
                break
        reach = 0
        for member in members:
            reach |= 1 << self._bit.setdefault(member, len(self._bit))
        for member in members:
            for ref in self._references(member):
                reach |= self._reach.get(ref, 0)  # a member's own bit is in already
        for member in members:
            self._reach[member] = reach

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
