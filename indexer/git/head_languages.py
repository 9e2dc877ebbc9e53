"""The grammar languages the names in a repository's HEAD tree say it holds: what a resident
host's forkserver sets up before its first index (indexer/extract/prepared.py).

A guess from names alone, read without opening a blob: a language only the content names (a
shebang, a mode line) is left out, and a worker compiles its query when it first meets it.
"""

from __future__ import annotations

from typing import Iterable

import pygit2

from indexer.git.loose import Damaged, check_intact
from indexer.git.read import MODE_COMMIT, MODE_LINK, MODE_TREE, intact_tree_of
from indexer.lang.registry import CONTENT_H, GRAMMAR_LANGUAGES, HEADER_LANGUAGES, name_language

# Names read before giving up on a guess: the walk delays the preload of the forkserver every
# index waits on, and a tree of any size must not choose how long that is.
ENTRY_LIMIT = 250_000


def head_languages(dirs: Iterable[str], limit: int = ENTRY_LIMIT) -> frozenset[str] | None:
    """The grammar languages named in the HEAD trees of the repositories holding `dirs`; None
    when that is not known (a folder in no repository, a tree of over `limit` entries, objects
    that do not read or are damaged), which means every language. An unborn HEAD names none."""
    found: set[str] = set()
    seen = 0
    for folder in dirs:
        try:
            git_dir = pygit2.discover_repository(folder)
            if git_dir is None:
                return None
            repo = pygit2.Repository(git_dir)
            if repo.head_is_unborn:
                continue
            intact_tree_of(repo, str(repo.head.target))  # a damaged loose one would hold libgit2 for good
            stack = [repo.head.peel(pygit2.Tree)]
            while stack:
                for entry in stack.pop():
                    seen += 1
                    if seen > limit:
                        return None
                    mode = entry.filemode
                    if mode == MODE_TREE:
                        check_intact(repo, str(entry.id))
                        tree = repo[entry.id]
                        if not isinstance(tree, pygit2.Tree):
                            return None
                        stack.append(tree)
                    elif mode not in (MODE_COMMIT, MODE_LINK) and entry.name is not None:
                        language = name_language(entry.name)
                        if language == CONTENT_H:
                            found.update(HEADER_LANGUAGES)
                        elif language in GRAMMAR_LANGUAGES:
                            found.add(language)
        except (pygit2.GitError, KeyError, ValueError, OSError, Damaged):
            return None
    return frozenset(found)
