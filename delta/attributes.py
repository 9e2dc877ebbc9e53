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


class _Trie(dict[str, "_Trie"]):
    """The folders of some paths, a level a key: each folder once, spelled by its own name."""


def _folder_trees(repo: pygit2.Repository, commit_oid: str, paths: Iterable[str]
                  ) -> Iterator[tuple[str, pygit2.Tree]]:
    """(folder, its tree) for each folder on the way to `paths` (the root first) that the
    commit's tree holds. The folders are kept as a trie of their names and walked down once,
    from the tree of the folder above, each tree read checked (`root_tree`). Was: each looked up
    from the root, reading every tree above it again, then the folders spelled out and sorted by
    their parts: both the square of a path's depth (a path of 4,096 characters holds 2,048
    folders), in memory too (1,000 files 2,000 folders deep, each under a folder of its own,
    over 20 GB)."""
    trie = _Trie()
    for path in paths:
        node = trie
        for name in path.split("/")[:-1]:
            node = node.setdefault(name, _Trie())
    stack: list[tuple[str, pygit2.Tree, _Trie]] = [("", root_tree(repo, commit_oid), trie)]
    while stack:
        folder, tree, node = stack.pop()
        yield folder, tree
        for name, below in node.items():
            try:
                entry = tree[name]
            except (KeyError, ValueError):
                continue
            if entry.filemode == _TREE_MODE:
                stack.append((f"{folder}/{name}" if folder else name, root_tree(repo, str(entry.id)), below))


def _attribute_files(repo: pygit2.Repository, commit_oid: str, paths: Iterable[str]) -> dict[str, str]:
    """The `.gitattributes` regular files of the folders on the way to `paths` in the commit's
    tree, by path, each blob checked (`blob_oid_at`)."""
    found: dict[str, str] = {}
    for folder, tree in _folder_trees(repo, commit_oid, paths):
        if (oid := blob_oid_at(repo, str(tree.id), ".gitattributes")) is not None:
            found[f"{folder}/.gitattributes" if folder else ".gitattributes"] = oid
    return found


def check_attribute_files(repo: pygit2.Repository, commit_oid: str, paths: Iterable[str]) -> None:
    """Check the `.gitattributes` libgit2 reads for an attribute of `paths` with the commit as its
    source (`get_attr` with INCLUDE_COMMIT), before it reads them: each folder's on the way, a
    link's too (libgit2 reads its target as rules). A damaged loose object is then a typed error
    (`missing_objects`), where libgit2 would read it without end (`indexer.git.loose`)."""
    for folder, tree in _folder_trees(repo, commit_oid, paths):
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
        found = _attribute_files(repo, commit_oid, paths)
        named = [(name, found[name]) for name in sorted(found, key=lambda n: n.rpartition("/")[0])]
        self._attrs = GitAttributes(read_once(named, lambda _, oid: blob_size(repo, oid),
                                              lambda _, oid: read_blob(repo, oid)))
        self._attrs.check_cost(paths)

    def value(self, path: str, name: str) -> Value:
        return self._attrs.value(path, name) if self._attrs else None
