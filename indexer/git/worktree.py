"""Reading a checkout's working tree as git would commit it: the working-tree snapshot's tree.

`read_worktree` gives the tree OID that `git add -A && git write-tree` would write: tracked
files with their working-tree content, untracked files that no .gitignore rule ignores,
deleted files gone, symlinks as links, the executable bit as git records it, submodules
(and nested repositories) as gitlinks to their checked-out commit. Neither the index nor
the working tree is written: git's status (which reads the index's stat data, so unchanged
files are not read at all) names the paths that differ from the base commit, only those are
hashed, and an in-memory index built from the base commit's tree (its tree cache makes
writing the new tree cost only the folders that changed) produces the tree.

The blobs and trees hashed are written to the repository's object database as loose
objects, exactly as `git add` and `git stash create` write theirs: the indexer, the file
view and the Delta packet read content from there like any commit's. Nothing refers to
them, so `git gc` prunes them after its grace period; reading the working tree again
writes them again.
"""

from __future__ import annotations

import os
import stat
from typing import NamedTuple

import pygit2
from pygit2.enums import FileMode

from indexer.contract.errors import BadInput, EmptyRepository
from indexer.git.checkout_memo import CheckoutMemos, settled
from indexer.git.index_file import skip_worktree
from indexer.git.read import MODE_COMMIT, MODE_LINK, READ_CAP, Repository, check_trees_intact, text_path
from indexer.git.rule_files import check_rule_files
from indexer.git.tree_names import is_dot_git
from indexer.model import Skipped

WORKTREE = "WORKTREE"  # the rev that names a checkout's working tree (`--rev WORKTREE`, `--head WORKTREE`)

MODE_BLOB = pygit2.GIT_FILEMODE_BLOB
MODE_EXEC = pygit2.GIT_FILEMODE_BLOB_EXECUTABLE

_S = pygit2.enums.FileStatus
_IGNORED = int(_S.IGNORED)


# A changed or untracked file larger than this is not hashed: a build artifact or data file that
# no .gitignore names must not decide how much time and disk a read of the working tree takes.
# It is the size past which indexing reads no blob either.
FILE_CAP = READ_CAP


class NotACheckout(BadInput):
    """A bare repository (or a git dir) has no working tree to read."""

    code = "not_a_checkout"


class Worktree(NamedTuple):
    base_oid: str  # the commit HEAD names: what the working tree is compared against
    tree_oid: str  # what `git add -A && git write-tree` would write
    changed: list[str]  # paths whose entry differs from the base commit's tree, sorted
    skipped: list[Skipped]  # files not read (unreadable, over FILE_CAP): left out of the tree


def require_checkout(repo: pygit2.Repository) -> str:
    """The checkout's work tree folder; `not_a_checkout` for a bare repository."""
    if repo.is_bare or not repo.workdir:
        raise NotACheckout(f"{os.path.realpath(repo.path).rstrip('/')} is a bare repository: it has no working "
                           "tree to read (drop --worktree, or point --repo at a checkout)")
    return repo.workdir


def base_commit(repo: pygit2.Repository) -> pygit2.Commit:
    if repo.head_is_unborn:
        raise EmptyRepository(f"{repo.workdir.rstrip('/')} has no commit yet: a working-tree snapshot is read against HEAD's "
                              "commit; commit once first")
    check_trees_intact(repo, str(repo.head.target))  # before libgit2 reads the commit and its trees
    return repo.head.peel(pygit2.Commit)


def status_paths(repo: pygit2.Repository) -> dict[str, int]:
    """path -> git status flags, for every path whose index or working-tree state differs from
    HEAD (untracked files that are not ignored included, ignored ones not): `git status`.
    Unchanged files are judged by the index's stat data, so they are not read."""
    if not repo.head_is_unborn:
        check_trees_intact(repo, str(repo.head.target))  # libgit2's status reads them all
    check_rule_files(repo)
    try:
        status = repo.status(untracked_files="all")
    except pygit2.GitError as exc:  # an index libgit2 cannot read: a sparse index's `sdir` extension
        sparse = "'sdir'" in str(exc)
        raise BadInput(f"git's status of the checkout failed: {_why(exc)}" + (
            " (a sparse index, which libgit2 cannot read: `git sparse-checkout init --no-sparse-index` "
            "keeps the sparse checkout and writes an index it reads)" if sparse else "")) from None
    listed = {path: int(flags) for path, flags in status.items() if flags and not int(flags) & _IGNORED}
    gone = [path for path, flags in listed.items() if flags & _WT_DELETED]
    for path in skip_worktree(repo, gone):  # not checked out, not deleted: git's add -A keeps them
        listed[path] &= ~_WT_DELETED
        if not listed[path]:
            del listed[path]
    return listed


_WT_DELETED = int(_S.WT_DELETED)
_INDEX_CHANGES = int(_S.INDEX_NEW | _S.INDEX_MODIFIED | _S.INDEX_RENAMED | _S.INDEX_TYPECHANGE)
def read_worktree(repo: pygit2.Repository) -> Worktree:
    """The checkout's working tree as a tree OID, with the base commit and what changed."""
    workdir = require_checkout(repo)
    base = base_commit(repo)
    base_tree = base.tree
    listed = status_paths(repo)
    # staged, and not checked out: git's add -A keeps what the index holds
    skipped_out = skip_worktree(repo, [p for p, f in listed.items() if f & _INDEX_CHANGES and not
                                       os.path.lexists(os.path.join(workdir, p))])
    filemode = _config_bool(repo, "core.filemode", True)
    memo = _memo_of(workdir)
    index = pygit2.Index()
    index.read_tree(base_tree)  # its tree cache: write_tree redoes only the folders touched below
    adds: list[pygit2.IndexEntry] = []
    removes: list[str] = []
    skipped: list[Skipped] = []
    folders: dict[str, bool] = {}
    for path in sorted(listed):
        name = path.rstrip("/")  # an untracked nested repository is listed as a folder
        if reads_as_dot_git(name):
            # it would stand for the repository's own folder: git's fsck refuses a tree holding
            # it, as the indexer does (`bad_tree`), and `git add` refuses most such paths
            skipped.append(Skipped(text_path(name), "invalid_path: git reads a part of it as .git; its fsck "
                                                    "refuses a tree holding it"))
            continue
        full = os.path.join(workdir, name)
        if _beyond_link(workdir, name, folders):  # git adds nothing there: the file is gone
            removes.append(name)
            continue
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):  # deleted, or its folder is a file now
            kept = _index_entry_of(repo, name) if skipped_out and name in skipped_out else None
            if kept is not None:
                adds.append(kept)
            else:
                removes.append(name)
            continue
        except OSError as exc:
            removes.append(name)
            skipped.append(Skipped(text_path(name), f"unreadable: {exc.strerror or type(exc).__name__}"))
            continue
        if stat.S_ISREG(st.st_mode) and st.st_size > FILE_CAP:
            removes.append(name)
            skipped.append(Skipped(text_path(name), f"too_large: {st.st_size} bytes, over the working-tree cap "
                                                    f"of {FILE_CAP}"))
            continue
        try:
            entry = _entry(repo, memo, name, full, st, filemode, _base_mode(base_tree, name))
        except (OSError, pygit2.GitError, ValueError) as exc:
            removes.append(name)
            skipped.append(Skipped(text_path(name), f"unreadable: {_why(exc)}"))
            continue
        if entry is None:  # a FIFO, a socket, a folder that is no repository: git adds none
            removes.append(name)
        else:
            adds.append(entry)
    # status lists both sides of a file that became a folder (or back): removals go first
    for name in removes:
        try:
            index.remove(name)
        except (OSError, KeyError, pygit2.GitError):
            pass  # never tracked (an untracked file deleted again, a FIFO)
    added: list[pygit2.IndexEntry] = []
    for entry in adds:
        try:
            index.add(entry)
        except (pygit2.GitError, ValueError) as exc:  # a path libgit2 will not put in an index
            skipped.append(Skipped(text_path(str(entry.path)), f"invalid_path: {_why(exc)}"))
            continue
        added.append(entry)
    adds = added
    tree_oid = str(index.write_tree(repo))
    changed = _changed(base_tree, adds, removes)
    return Worktree(str(base.id), tree_oid, changed, skipped)


def reads_as_dot_git(path: str) -> bool:
    """Does git read a part of the working-tree path `path` as `.git` (`tree_names.is_dot_git`)?"""
    return any(map(is_dot_git, os.fsencode(path).split(b"/")))


def _beyond_link(workdir: str, name: str, folders: dict[str, bool]) -> bool:
    """Does `name` lie beyond a symlink (or anything but a folder) of the working tree? A
    tracked `dir/passwd` whose `dir` became a link to `/etc` is listed as changed, and reading
    it would read `/etc/passwd`: git adds nothing beyond a link (`has_symlink_leading_path`),
    and neither does this. `folders` keeps each leading folder's answer for one read."""
    end = name.find("/")
    while end >= 0:
        prefix = name[:end]
        is_folder = folders.get(prefix)
        if is_folder is None:
            try:
                is_folder = stat.S_ISDIR(os.lstat(os.path.join(workdir, prefix)).st_mode)
            except OSError:
                is_folder = False
            folders[prefix] = is_folder
        if not is_folder:
            return True
        end = name.find("/", end + 1)
    return False


def count_changed(repo: pygit2.Repository) -> int:
    """How many paths `git status` lists for the checkout (0: the working tree is the HEAD
    commit's). Cheap: the index's stat data spares reading unchanged files."""
    return len(status_paths(repo))


def changed_on(repo: pygit2.Repository, oid: str) -> int:
    """How many paths `git status` lists when the checkout at `repo` has the commit `oid` checked
    out; 0 when it has not (a bare repository, another commit, no commit yet), when its index was
    never written (a history made without a checkout has none to compare) or when git cannot
    read its status. Every freshness that says a commit's answer is `current` asks it."""
    try:
        if repo.is_bare or not repo.workdir or repo.head_is_unborn or str(repo.head.target) != oid:
            return 0
        if not os.path.exists(os.path.join(repo.path, "index")):
            return 0
        return count_changed(repo)
    except Exception:  # a checkout git cannot read the status of: the commit's freshness stands
        return 0


_STATE = pygit2.enums.RepositoryState
# What each operation git can leave in progress is called in a reason (`git status` names them so)
_UNDERWAY = {_STATE.MERGE: "a merge", _STATE.REVERT: "a revert", _STATE.REVERT_SEQUENCE: "a revert",
             _STATE.CHERRYPICK: "a cherry-pick", _STATE.CHERRYPICK_SEQUENCE: "a cherry-pick",
             _STATE.BISECT: "a bisect", _STATE.REBASE: "a rebase", _STATE.REBASE_INTERACTIVE: "a rebase",
             _STATE.REBASE_MERGE: "a rebase", _STATE.APPLY_MAILBOX: "a `git am`",
             _STATE.APPLY_MAILBOX_OR_REBASE: "a rebase or `git am`"}


def in_progress(repo: pygit2.Repository) -> str:
    """The operation git has in progress in the checkout (`a rebase`, `a merge`, `a cherry-pick`,
    ...: what `.git/rebase-merge`, `MERGE_HEAD`, `CHERRY_PICK_HEAD` and the like mark), "" for
    none: a working tree mid-rebase differs from HEAD for that reason, and HEAD itself is a step
    of it."""
    try:
        return _UNDERWAY.get(_STATE(repo.state()), "")
    except (pygit2.GitError, ValueError):  # a state libgit2 cannot read, or one it added since
        return ""


# --- one path ------------------------------------------------------------------------------

class _Seen(NamedTuple):
    stamp: tuple[int, int, int, int, int]  # mtime_ns, ctime_ns, size, inode, mode
    oid: pygit2.Oid


def _memo_of(workdir: str) -> dict[str, _Seen]:
    """path -> the blob last hashed for it and the stat data it had then, for one checkout:
    an edited file is hashed once, not on every read while the edit stays uncommitted (git's
    index keeps the same for the files it holds)."""
    return _MEMOS.of(workdir)


_MEMOS: CheckoutMemos[_Seen] = CheckoutMemos()


def _entry(repo: pygit2.Repository, memo: dict[str, _Seen], name: str, full: str, st: os.stat_result,
           filemode: bool, base_mode: int | None) -> pygit2.IndexEntry | None:
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        return _gitlink(name, full)
    if stat.S_ISLNK(mode):
        kind = MODE_LINK
    elif stat.S_ISREG(mode):
        if filemode:
            kind = MODE_EXEC if mode & stat.S_IXUSR else MODE_BLOB
        else:  # core.fileMode off: git keeps the mode it had, new files are not executable
            kind = base_mode if base_mode in (MODE_BLOB, MODE_EXEC) else MODE_BLOB
    else:
        return None
    stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, mode)
    seen = memo.get(name)
    if seen is not None and seen.stamp == stamp:
        return _index_entry(name, seen.oid, kind)
    # clean filters applied as `git add` applies them (line endings, ident, ...)
    oid = repo.create_blob_fromworkdir(name)
    if settled(st):
        memo[name] = _Seen(stamp, oid)
    return _index_entry(name, oid, kind)


def _gitlink(name: str, full: str) -> pygit2.IndexEntry | None:
    """A submodule or nested repository, as `git add` records it: its checked-out commit."""
    try:
        nested = Repository(full)
    except (pygit2.GitError, KeyError):
        return None
    if nested.head_is_unborn:
        return None
    commit = nested.head.target  # HEAD resolved: an OID
    return _index_entry(name, commit, MODE_COMMIT) if isinstance(commit, pygit2.Oid) else None


def _index_entry_of(repo: pygit2.Repository, name: str) -> pygit2.IndexEntry | None:
    """The entry the checkout's index holds for `name`, None when it holds none."""
    try:
        entry = repo.index[name]
    except (KeyError, ValueError, OSError, pygit2.GitError):
        return None
    return _index_entry(name, entry.id, entry.mode)


def _index_entry(name: str, oid: pygit2.Oid, mode: int) -> pygit2.IndexEntry:
    return pygit2.IndexEntry(name, oid, FileMode(mode))


def _base_mode(tree: pygit2.Tree, name: str) -> int | None:
    try:
        return tree[name].filemode
    except (KeyError, ValueError):
        return None


def _changed(base_tree: pygit2.Tree, adds: list[pygit2.IndexEntry], removes: list[str]) -> list[str]:
    changed: set[str] = set()
    for entry in adds:
        path = str(entry.path)  # ours: made from a str
        try:
            was = base_tree[path]
            if was.id != entry.id or was.filemode != entry.mode:
                changed.add(path)
        except (KeyError, ValueError):
            changed.add(path)
    for name in removes:
        try:
            base_tree[name]
            changed.add(name)
        except (KeyError, ValueError):
            pass
    return sorted(text_path(p) for p in changed)


def _config_bool(repo: pygit2.Repository, key: str, default: bool) -> bool:
    try:
        return repo.config.get_bool(key)
    except (KeyError, ValueError, pygit2.GitError):
        return default


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
