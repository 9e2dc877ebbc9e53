"""The grammar languages the names in a repository's HEAD tree say it holds, or those of the
repositories under a folder that is in none: what a resident host's forkserver sets up before
its first index (indexer/extract/prepared.py).

A guess from names alone, read without opening a blob: a language only the content names (a
shebang, a mode line) is left out, and a worker compiles its query when it first meets it.
"""

from __future__ import annotations

import os
from typing import Iterable

import pygit2

from indexer.git.loose import Damaged, check_intact
from indexer.git.read import MODE_COMMIT, MODE_LINK, MODE_TREE, Repository, intact_tree_of
from indexer.lang.registry import CONTENT_H, GRAMMAR_LANGUAGES, HEADER_LANGUAGES, name_language

# Names read before giving up on a guess, in trees and in the folders listed to find the
# repositories under a root: the walk delays the preload of the forkserver every index waits
# on, and no tree or folder must choose how long that is. A folder's name costs several times
# a tree's to read: `--root /` gives up after a fraction of a second.
ENTRY_LIMIT = 250_000
FOLDER_LIMIT = 20_000


def head_languages(dirs: Iterable[str], limit: int = ENTRY_LIMIT,
                   folders: int = FOLDER_LIMIT) -> frozenset[str] | None:
    """The grammar languages named in the HEAD trees of the repositories holding `dirs`, or, for
    a folder in no repository, of the repositories under it (a root of many checkouts, `--root
    ~/src`); None when that is not known (a folder in no repository and holding none, over
    `limit` names read in trees or `folders` in folders, objects that do not read or are
    damaged), which means every language. An unborn HEAD names none."""
    found: set[str] = set()
    read, listed = _Read(limit), _Read(folders)
    for folder in dirs:
        try:
            git_dir = pygit2.discover_repository(folder)
            places = [git_dir] if git_dir is not None else _repositories_under(folder, listed)
            if not places:
                return None
            for place in places:  # each freed as its walk ends: pygit2's own is kept by a cycle
                if not _head_names(Repository(place), found, read):
                    return None
        except (pygit2.GitError, KeyError, ValueError, OSError, Damaged):
            return None
    return frozenset(found)


class _Read:
    """The names read so far, against the limit."""

    def __init__(self, limit: int) -> None:
        self.left = limit

    def one(self) -> bool:
        """Count a name read: False once past the limit."""
        self.left -= 1
        return self.left >= 0


def _repositories_under(folder: str, read: _Read) -> list[str] | None:
    """The repositories under `folder`: each folder holding a `.git`, or laid out as a bare
    repository, found by listing the folders below `folder` down to it, no link followed (a
    link leads out of the root, where nothing is served); None past the limit."""
    found: list[str] = []
    stack = [folder]
    while stack:
        here = stack.pop()
        below: list[str] = []
        names: set[str] = set()
        with os.scandir(here) as entries:
            for entry in entries:
                if not read.one():
                    return None
                names.add(entry.name)
                if entry.is_dir(follow_symlinks=False):
                    below.append(entry.path)
        if ".git" in names or _BARE <= names:
            found.append(here)
        else:
            stack.extend(below)
    return found


# What a bare repository's folder holds (git's own test of one)
_BARE = frozenset({"HEAD", "objects", "refs"})


def _head_names(repo: pygit2.Repository, found: set[str], read: _Read) -> bool:
    """Add the languages the names of `repo`'s HEAD tree say to `found`; False past the limit."""
    if repo.head_is_unborn:
        return True
    intact_tree_of(repo, str(repo.head.target))  # a damaged loose one would hold libgit2 for good
    stack = [repo.head.peel(pygit2.Tree)]
    while stack:
        for entry in stack.pop():
            if not read.one():
                return False
            mode = entry.filemode
            if mode == MODE_TREE:
                check_intact(repo, str(entry.id))
                tree = repo[entry.id]
                if not isinstance(tree, pygit2.Tree):
                    return False
                stack.append(tree)
            elif mode not in (MODE_COMMIT, MODE_LINK) and entry.name is not None:
                language = name_language(entry.name)
                if language == CONTENT_H:
                    found.update(HEADER_LANGUAGES)
                elif language in GRAMMAR_LANGUAGES:
                    found.add(language)
    return True
