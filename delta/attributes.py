"""`.gitattributes` of a commit's tree (never the working tree), read with the indexer's
`indexer.git.attributes.GitAttributes`, so the noise classifier and the Repo Map's marks agree.

Only the `.gitattributes` files on the way to the asked paths are read.
"""

from __future__ import annotations

from typing import Iterable, Iterator

import pygit2

from indexer.git.attributes import GitAttributes, read_once
from indexer.git.read import blob_oid_at, blob_size, check_blob_intact, read_blob, root_tree

_TREE_MODE = pygit2.GIT_FILEMODE_TREE
_BLOB_MODES = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE, pygit2.GIT_FILEMODE_LINK)

Value = bool | str | None


def _folders(path: str) -> list[str]:
    parts = path.split("/")
    return [""] + ["/".join(parts[:i]) for i in range(1, len(parts))]


def _folder_trees(repo: pygit2.Repository, commit_oid: str, folders: set[str]
                  ) -> Iterator[tuple[str, pygit2.Tree]]:
    """(folder, its tree) for each of `folders` (each folder's own folders among them) the
    commit's tree holds. The folders are walked down once, from the tree of the folder above,
    each tree read checked (`root_tree`), where looking each up from the root read every tree
    above it again: the square of a path's depth (a path of 4,096 characters holds 2,048
    folders)."""
    above: list[tuple[str, pygit2.Tree | None]] = []  # the folders above the one at hand, with their trees
    for folder in sorted(folders, key=lambda f: f.split("/") if f else []):  # each after those holding it
        if not folder:
            tree: pygit2.Tree | None = root_tree(repo, commit_oid)
        else:
            parent, _, name = folder.rpartition("/")
            while above and above[-1][0] != parent:
                above.pop()
            held = above[-1][1] if above else None
            entry = None
            if held is not None:
                try:
                    entry = held[name]
                except (KeyError, ValueError):
                    entry = None
            tree = root_tree(repo, str(entry.id)) if entry is not None and entry.filemode == _TREE_MODE else None
        above.append((folder, tree))
        if tree is not None:
            yield folder, tree


def _attribute_files(repo: pygit2.Repository, commit_oid: str, folders: set[str]) -> dict[str, str]:
    """The `.gitattributes` regular files of `folders` (each folder's own folders among them) in
    the commit's tree, by path, each blob checked (`blob_oid_at`)."""
    found: dict[str, str] = {}
    for folder, tree in _folder_trees(repo, commit_oid, folders):
        if (oid := blob_oid_at(repo, str(tree.id), ".gitattributes")) is not None:
            found[f"{folder}/.gitattributes" if folder else ".gitattributes"] = oid
    return found


def check_attribute_files(repo: pygit2.Repository, commit_oid: str, paths: Iterable[str]) -> None:
    """Check the `.gitattributes` libgit2 reads for an attribute of `paths` with the commit as its
    source (`get_attr` with INCLUDE_COMMIT), before it reads them: each folder's on the way, a
    link's too (libgit2 reads its target as rules). A damaged loose object is then a typed error
    (`missing_objects`), where libgit2 would read it without end (`indexer.git.loose`)."""
    for folder, tree in _folder_trees(repo, commit_oid, {f for p in paths for f in _folders(p)}):
        try:
            entry = tree[".gitattributes"]
        except (KeyError, ValueError):
            continue
        if entry.filemode in _BLOB_MODES:
            check_blob_intact(repo, str(entry.id), f"{folder}/.gitattributes" if folder else ".gitattributes")


class TreeAttributes:
    """Attributes of the given paths in one commit's tree."""

    def __init__(self, repo: pygit2.Repository, commit_oid: str, paths: Iterable[str]) -> None:
        paths = list(paths)
        found = _attribute_files(repo, commit_oid, {f for p in paths for f in _folders(p)})
        named = [(name, found[name]) for name in sorted(found, key=lambda n: n.rpartition("/")[0])]
        self._attrs = GitAttributes(read_once(named, lambda _, oid: blob_size(repo, oid),
                                              lambda _, oid: read_blob(repo, oid)))
        self._attrs.check_cost(paths)

    def value(self, path: str, name: str) -> Value:
        return self._attrs.value(path, name) if self._attrs else None
