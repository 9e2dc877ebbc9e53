"""Range identity: which commits a Delta packet reviews.

The reviewed range is merge-base..head, the way a pull request is read: changes
made on the base side since the branch forked are not the author's. Unrelated
histories have no merge base and are refused with a typed error; base == head
is a valid, empty range.
"""

from __future__ import annotations

import os
import posixpath
from typing import Callable

import pygit2
from msgspec import Struct

from indexer.contract.errors import RennetError
from indexer.git.read import check_history, history_read, open_repo, resolve_rev


class NoMergeBase(RennetError):
    code = "no_merge_base"


class PathOutsideRepository(RennetError):
    code = "path_outside_repository"


class RangeIdentity(Struct, frozen=True, omit_defaults=True):
    repo: str  # the repository's work tree (or git dir when bare)
    base_ref: str  # as the caller named it
    head_ref: str
    base_oid: str
    head_oid: str
    merge_base_oid: str
    reviewed: str  # "<merge_base>..<head>", what `git diff` is run over
    # head WORKTREE: head_oid is the working tree's tree OID (`git add -A && git write-tree`)
    # and this the commit HEAD names, that the merge base is taken with
    worktree_base_oid: str | None = None
    # head WORKTREE: how many paths of the working tree differ from that commit, as every answer
    # read from the working tree counts them (the range's files are counted from the merge base)
    worktree_changed: int | None = None

    @property
    def empty(self) -> bool:
        return self.merge_base_oid == self.head_oid


def open_repository(path: str | os.PathLike[str]) -> pygit2.Repository:
    """The repository at `path`; `not_a_repository` for a missing or unreadable one."""
    return open_repo(path)


def repo_root(repo: pygit2.Repository) -> str:
    return os.path.realpath(repo.workdir or repo.path).rstrip("/")


def resolve_range(repo: pygit2.Repository, base: str, head: str) -> RangeIdentity:
    """The range base..head; head `WORKTREE` is the checkout's working tree, reviewed from
    the merge base of base and the commit HEAD names (an agent's own uncommitted change)."""
    from indexer.git.worktree import WORKTREE, read_worktree

    base_oid = resolve_rev(repo, base)
    worktree_base = None
    worktree_changed = None
    if head == WORKTREE:
        tree = read_worktree(repo)
        head_oid, worktree_base, worktree_changed = tree.tree_oid, tree.base_oid, len(tree.changed)
    else:
        head_oid = resolve_rev(repo, head)
    tip = worktree_base or head_oid
    if base_oid == tip:
        merge_base = tip
    else:
        check_history(repo)
        with history_read(repo):
            found = repo.merge_base(base_oid, tip)
        if found is None:
            raise NoMergeBase(f"{base} and {head} share no history (no merge base); "
                              "a Delta packet needs a common ancestor")
        merge_base = str(found)
    return RangeIdentity(repo=repo_root(repo), base_ref=base, head_ref=head, base_oid=base_oid,
                         head_oid=head_oid, merge_base_oid=merge_base,
                         reviewed=f"{merge_base}..{head_oid}", worktree_base_oid=worktree_base,
                         worktree_changed=worktree_changed)


def normalize_paths(repo: pygit2.Repository, paths: list[str] | None) -> list[str] | None:
    """Repository-relative POSIX forms of path filters; a path that leaves the repository
    (absolute elsewhere, or climbing out with `..`) is `path_outside_repository`."""
    if not paths:
        return None
    root = repo_root(repo)
    out: list[str] = []
    for raw in paths:
        if not raw or "\0" in raw:
            raise PathOutsideRepository(f"{raw!r} is not a path in the repository")
        path = raw
        if os.path.isabs(path):
            real = os.path.realpath(path)
            if real != root and not real.startswith(root + os.sep):
                raise PathOutsideRepository(f"{raw} is outside the repository {root}")
            path = os.path.relpath(real, root)
        norm = posixpath.normpath(path.replace(os.sep, "/"))
        if norm == ".." or norm.startswith("../"):
            raise PathOutsideRepository(f"{raw} is outside the repository {root}")
        out.append("" if norm == "." else norm)
    return out


def check_paths_named(repo: pygit2.Repository, rng: RangeIdentity, selected: list[str] | None) -> None:
    """`bad_input` for a path filter that names no file or folder at the range's merge base
    nor at its head: the packet would be empty, read as "nothing changed there", where the
    caller named a path that is not there (`src/hanlders`). A path the trees hold but the range
    did not change is a filter like any, its packet empty."""
    from indexer.contract.errors import BadInput

    trees = [repo[oid].peel(pygit2.Tree) for oid in dict.fromkeys((rng.merge_base_oid, rng.head_oid))]
    for path in selected or ():
        if path and not any(_holds(tree, path) for tree in trees):
            raise BadInput(f"`paths` ({path!r}) names no file or folder at the merge base ({rng.merge_base_oid[:12]}) "
                           f"or the head ({rng.head_oid[:12]}) of the range")


def _holds(tree: pygit2.Tree, path: str) -> bool:
    """Does `tree` hold `path`? A lookup that fails otherwise than by not finding it (a damaged
    tree on the way) is no proof of absence: the inventory reads that tree and says what it is."""
    try:
        tree[path]
    except KeyError:
        return False
    except (ValueError, pygit2.GitError):
        return True
    return True


_NAMED = "/"  # a trie node's mark that a selected path ends there: no name of a path holds a `/`


def selection(selected: list[str] | None) -> Callable[[str], bool]:
    """Whether a path is `selected`: named, under a folder named, or anywhere for `""` (the
    root) or no selection. The selected paths are kept as a trie of their names, so a path is
    looked up a name at a time, whatever the number selected (was: each tried in turn, for
    every changed file)."""
    if selected is None or "" in selected:
        return lambda path: True
    trie: dict[str, dict] = {}
    for chosen in selected:
        node = trie
        for name in chosen.split("/"):
            node = node.setdefault(name, {})
        node[_NAMED] = {}

    def within(path: str) -> bool:
        node = trie
        for name in path.split("/"):
            found = node.get(name)
            if found is None:
                return False
            if _NAMED in found:
                return True
            node = found
        return False

    return within


def path_selected(path: str, selected: list[str] | None) -> bool:
    return selection(selected)(path)
