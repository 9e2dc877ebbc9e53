"""The files of git's rules in a checkout that git would wait on: a `.gitignore`,
`.gitattributes`, the index or `info/exclude` that is a FIFO, a device or a link to one."""

from __future__ import annotations

import os
import stat
from typing import NamedTuple

import pygit2

from indexer.contract.errors import BadInput
from indexer.git.checkout_memo import CheckoutMemos, settled
from indexer.git.loose import common_dir
from indexer.git.read import text_path

# The files of rules libgit2 opens as it walks a checkout (its status) and filters a file into
# a blob. It opens them blocking and following links, so a FIFO in the place of one (or a link
# to a FIFO or a device) waits for a writer for good, holding the call and the checkout's turn.
RULE_FILES = frozenset({".gitignore", ".gitattributes"})
_GIT_DIR_RULES = ("info/exclude", "info/attributes")


class UnreadableRules(BadInput):
    """A file of git's rules in the checkout that is no regular file: git would wait on it."""


def check_rule_files(repo: pygit2.Repository) -> None:
    """`bad_input` naming the first file of rules libgit2 would open in the checkout and that is
    no regular file (nor folder): a `.gitignore` or `.gitattributes` of a folder its status
    walks (any not ignored, and an ignored one the base commit holds), the checkout's index, or
    the git directory's `info/exclude` and `info/attributes`. No other file is looked at, and a folder is listed
    again only once its entries changed."""
    workdir = repo.workdir
    if not workdir:
        return
    common = common_dir(repo.path)  # where `info/` lives, shared by linked worktrees
    for held in (os.path.join(repo.path, "index"), *(os.path.join(common, rule) for rule in _GIT_DIR_RULES)):
        if _waits_on_open(held):
            raise UnreadableRules(_waiting(held))
    tracked = _tracked_folders(repo)
    listed = _LISTINGS.of(workdir)
    folders = [""]
    while folders:
        folder = folders.pop()
        path = os.path.join(workdir, folder)
        seen = _listing(path, listed, folder)
        if seen is None:  # gone, or not readable: libgit2 reads no rules there either
            continue
        below, rules = seen
        for rule in rules:  # a regular file stays one until its folder's entries change
            if _waits_on_open(os.path.join(path, rule)):
                raise UnreadableRules(_waiting(folder + rule))
        folders.extend(f for f in below if f[:-1] in tracked or not repo.path_is_ignored(f))


class _Listing(NamedTuple):
    stamp: tuple[int, int, int]  # the folder's mtime_ns, ctime_ns, inode
    below: list[str]  # its subfolders as `folder/name/`
    rules: list[str]  # its files of rules that are no regular file (a link, a FIFO, ...)


# checkout -> folder -> its listing: a folder whose entries are unchanged is not listed again (an
# entry made, removed or renamed in it changes its stamp)
_LISTINGS: CheckoutMemos[_Listing] = CheckoutMemos()


def _listing(path: str, listed: dict[str, _Listing], folder: str) -> tuple[list[str], list[str]] | None:
    """(the subfolders of `folder`, at `path`, as `folder/name/` with `.git` aside; its files of
    rules to look at), None when it cannot be listed. A nested repository is walked too: git's
    status reads the rules of a submodule's working tree, and of a nested repository's."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    kept = listed.get(folder)
    if kept is None or kept.stamp != stamp:
        try:
            with os.scandir(path) as entries:
                names, rules = [], []
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        names.append(entry.name)
                    elif entry.name in RULE_FILES and not entry.is_file(follow_symlinks=False):
                        rules.append(entry.name)
        except OSError:
            return None
        kept = _Listing(stamp, [f"{folder}{n}/" for n in names if n != ".git"], rules)
        if settled(st):  # else a change may follow unseen
            listed[folder] = kept
    return kept.below, kept.rules


def _tracked_folders(repo: pygit2.Repository) -> _BaseFolders:
    """The folders of the base commit's tree: status walks an ignored folder holding tracked files."""
    return _BaseFolders(None if repo.head_is_unborn else repo.head.peel(pygit2.Commit).tree)


class _BaseFolders:
    """Whether a folder (no trailing `/`) is one of a tree's, looked up by its path."""

    def __init__(self, tree: pygit2.Tree | None) -> None:
        self.tree = tree

    def __contains__(self, folder: object) -> bool:
        if self.tree is None or not isinstance(folder, str):
            return False
        try:
            return self.tree[folder].type == pygit2.enums.ObjectType.TREE
        except (KeyError, ValueError):
            return False


def _waits_on_open(path: str) -> bool:
    """Would opening `path` for reading, as libgit2 does (links followed), wait or read no file?"""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # nothing there (a dangling link): libgit2 reads no rules from it
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _waiting(path: str) -> str:
    return (f"{text_path(path)} is not a regular file (a FIFO, a device or a link to one): git reads it "
            "and would wait for good; make it a regular file or remove it")
