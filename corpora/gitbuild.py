"""Build real Git histories with pygit2, deterministically, for tests and corpora.

A commit is described as a mapping path -> content: bytes or str for a regular file,
`Exec(bytes)` for an executable, `Link("target")` for a symlink, `Submodule("<sha>")`
for a gitlink, and None to delete the path. Author, committer and times are fixed, so
the same description always yields the same commit OIDs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import pygit2

FIXED_SIG_TIME = 1_700_000_000


@dataclass(frozen=True)
class Exec:
    data: bytes | str


@dataclass(frozen=True)
class Link:
    target: str


@dataclass(frozen=True)
class Submodule:
    commit: str


File = bytes | str | Exec | Link | Submodule  # what a path holds
Content = File | None  # None deletes the path


def _sig(tick: int) -> pygit2.Signature:
    return pygit2.Signature("Rennet Fixture", "fixture@example.invalid", FIXED_SIG_TIME + tick, 0)


def _blob(repo: pygit2.Repository, content: File) -> tuple[pygit2.Oid, int]:
    if isinstance(content, Link):
        return repo.create_blob(content.target.encode()), pygit2.GIT_FILEMODE_LINK
    if isinstance(content, Submodule):
        return pygit2.Oid(hex=content.commit), pygit2.GIT_FILEMODE_COMMIT
    if isinstance(content, Exec):
        data = content.data.encode() if isinstance(content.data, str) else content.data
        return repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB_EXECUTABLE
    data = content.encode() if isinstance(content, str) else content
    return repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB


def _write_tree(repo: pygit2.Repository, entries: dict[str, tuple[pygit2.Oid, int]]) -> pygit2.Oid:
    """Write nested trees from flat path -> (oid, mode) entries."""
    children: dict[str, dict[str, tuple[pygit2.Oid, int]]] = {}
    builder = repo.TreeBuilder()
    for path, (oid, mode) in entries.items():
        head, _, rest = path.partition("/")
        if rest:
            children.setdefault(head, {})[rest] = (oid, mode)
        else:
            builder.insert(head, oid, mode)
    for name, sub in children.items():
        builder.insert(name, _write_tree(repo, sub), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


class RepoBuilder:
    """Grows a history commit by commit; each commit starts from its parent's files."""

    def __init__(self, path: str | Path, bare: bool = False, branch: str = "main") -> None:
        self.path = Path(path)
        self.repo = pygit2.init_repository(str(self.path), bare=bare, initial_head=branch)
        self.branch = branch
        self._files: dict[str, tuple[pygit2.Oid, int]] = {}
        self._tick = 0

    def commit(self, changes: Mapping[str, Content], message: str = "change",
               branch: str | None = None, parents: list[str] | None = None,
               replace: bool = False) -> str:
        """Apply `changes` to the current files (or to nothing when `replace`), commit, return the OID."""
        files = {} if replace else dict(self._files)
        for path, content in changes.items():
            if content is None:
                files.pop(path, None)
            else:
                files[path] = _blob(self.repo, content)
        tree = _write_tree(self.repo, files)
        branch = branch or self.branch
        ref = f"refs/heads/{branch}"
        if parents is None:
            parents = [str(self.repo.references[ref].target)] if ref in self.repo.references else []
        self._tick += 1
        sig = _sig(self._tick)
        oid = self.repo.create_commit(None, sig, sig, message, tree, [pygit2.Oid(hex=p) for p in parents])
        self.repo.references.create(ref, oid, force=True)
        self._files = files
        return str(oid)

    def checkout(self, commit: str) -> None:
        """Make `commit`'s files the base of the next commit (for branching)."""
        tree = self.repo[commit].peel(pygit2.Tree)
        files: dict[str, tuple[pygit2.Oid, int]] = {}

        def walk(t: pygit2.Tree, prefix: str) -> None:
            for e in t:
                name = e.name or ""  # a tree's entries are all named
                if isinstance(e, pygit2.Tree):
                    walk(e, prefix + name + "/")
                else:
                    files[prefix + name] = (e.id, e.filemode)
        walk(tree, "")
        self._files = files

    def tag(self, name: str, commit: str) -> None:
        self.repo.references.create(f"refs/tags/{name}", pygit2.Oid(hex=commit), force=True)


def make_repo(path: str | Path, commits: list[Mapping[str, Content]], bare: bool = False) -> list[str]:
    """A linear history on `main`, one commit per mapping; returns the commit OIDs in order."""
    builder = RepoBuilder(path, bare=bare)
    return [builder.commit(c, message=f"commit {i}") for i, c in enumerate(commits)]
