"""Reading Git through pygit2: a repository, a rev resolved to a commit, the tree at an OID.

Nothing here touches a working tree, so bare repositories work the same.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from contextlib import contextmanager
from operator import attrgetter
from typing import Iterable, Iterator, NamedTuple

import msgspec
import pygit2
from pygit2.branches import Branches
from pygit2.references import References
from pygit2.remotes import RemoteCollection
from pygit2.submodules import SubmoduleCollection

from indexer.contract.errors import BadTree, EmptyRepository, MissingObjects, NotARepository, UnknownRev
from indexer.contract.limits import Limits, limits
from indexer.contract.local_paths import current_folder_gone, utf8_folder
from indexer.git.loose import (
    Damaged,
    any_loose,
    check_intact,
    check_loose_commits,
    common_dir,
    loose_named,
    loose_size,
    object_dir_chain,
    read_loose,
)
from indexer.git.tree_names import TREE_TYPE, checked_entries, shown, text_name

MODE_TREE = pygit2.GIT_FILEMODE_TREE
MODE_LINK = pygit2.GIT_FILEMODE_LINK
MODE_COMMIT = pygit2.GIT_FILEMODE_COMMIT

# The views pygit2's Repository keeps on itself, each holding the repository back
_VIEWS = {"branches": Branches, "references": References, "remotes": RemoteCollection,
          "submodules": SubmoduleCollection}


class Repository(pygit2.Repository):
    """pygit2's repository in no reference cycle. pygit2's own keeps its `branches`,
    `references`, `remotes` and `submodules` views on itself, each holding it back: one let go
    of (its open packs, its object cache) was freed only by the cyclic collector's next full
    pass, which an index runs with paused. Here each view is made when it is asked for."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        out_of_cycle(self)

    def __getattr__(self, name: str) -> object:  # reached only for what the instance lacks
        view = _VIEWS.get(name)
        if view is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return view(self)


def out_of_cycle(repo: pygit2.Repository) -> pygit2.Repository:
    """`repo` without the views pygit2 keeps on it, so it is freed as its last reference goes
    (a repository pygit2 made itself, a clone's, is no `Repository` of ours)."""
    for name in _VIEWS:
        repo.__dict__.pop(name, None)
    return repo


def _named(path: str) -> str:
    """A relative path (the default `.`) with the folder it stands for, so the message and its
    receipt say which folder was not a repository."""
    return path if os.path.isabs(path) else f"{path} ({os.path.abspath(path)})"


class TreeEntry(msgspec.Struct, frozen=True, gc=False):
    path: str
    mode: int
    oid: str  # hex; for a gitlink, the submodule's commit


# What a user who ran a command outside any repository may do; an agent's face says its own
# (`context_tools.faces.dispatch`), as an agent runs nothing "inside" a folder.
RUN_INSIDE = ": run inside one, or name one as repo (--repo PATH)"


def open_repo(path: str | os.PathLike[str]) -> pygit2.Repository:
    """Open the repository containing `path` (a work tree, a subfolder of one, or a bare repository)."""
    path = os.fspath(path)
    if not os.path.isabs(path) and (gone := current_folder_gone()) is not None:  # `.` still stats
        raise gone
    if not os.path.exists(path):
        raise NotARepository(f"{path} does not exist")
    if os.path.isfile(path) and os.path.basename(path) != ".git":  # a `.git` file names a git directory
        # git reads no repository from a file (`git -C FILE` refuses it); discovery from one would
        # serve the repository around it under the file's name
        raise NotARepository(f"{path} is a file, not a repository's folder")
    try:
        found = pygit2.discover_repository(path)
    except pygit2.GitError as exc:
        raise NotARepository(f"{_named(path)} is not a git repository ({exc})") from None
    if found is None:
        raise NotARepository(f"{_named(path)} is not a git repository, nor is any folder above it"
                             + (RUN_INSIDE if path == "." else ""))
    try:
        # opened from `path`, not from the git directory found: a `.git` file naming one
        # elsewhere (`--separate-git-dir`) leaves no trace there of the work tree it serves
        repo = Repository(path)
    except (pygit2.GitError, KeyError) as exc:
        raise NotARepository(f"{path} could not be opened as a git repository ({exc})") from None
    # Its folders are kept as text (`local_paths`): refused however they were reached (the
    # current folder, a subfolder, a link), as such a `--repo` is.
    for place in (repo.workdir or repo.path, repo.path):
        utf8_folder(os.path.realpath(place), "the repository's folder", "rename it to index the repository")
    return repo


class RepositoryPlaces(NamedTuple):
    """Where on disk a repository is read from, each resolved."""

    folder: str  # its working tree, or a bare repository's git directory
    reads: tuple[str, ...]  # every place its objects and refs are read from, the folder first
    watched: tuple[str, ...]  # the entries that name those places: a change to any changes them
    # each object directory, with the serial of the newest listing of its fan-out folders that
    # the links found were taken from (`loose_unchanged`): stamps of hundreds of folders are
    # not kept for every path that finds the repository
    loose: tuple[tuple[str, int], ...] = ()


def repository_places(path: str | os.PathLike[str]) -> RepositoryPlaces | None:
    """The places the repository `open_repo(path)` opens is read from: its folder (discovery
    climbs from `path` to the nearest repository, which may hold it from far above), its git
    directory (a `.git` file may name one anywhere), the common directory a linked worktree
    shares (`commondir`), its objects and refs (either may be a link), the object
    directories `objects/info/alternates` names, followed as git follows them, and where the
    links among the entries of each object directory, of its `pack` folder and of its fan-out
    folders lead (`linked_entries`). None when `path` opens no repository."""
    try:
        found = pygit2.discover_repository(os.fspath(path))
        if found is None:
            return None
        repo = Repository(os.fspath(path))  # as `open_repo` opens it
    except (pygit2.GitError, KeyError, ValueError, OSError):
        return None
    git_dir = os.path.realpath(repo.path)
    common = common_dir(git_dir)
    objects = os.path.join(common, "objects")
    reads = [os.path.realpath(repo.workdir or repo.path), git_dir, common,
             os.path.realpath(os.path.join(common, "refs")), os.path.realpath(os.path.join(common, "packed-refs"))]
    watched = [found, os.path.join(git_dir, "commondir"), common, objects, os.path.join(common, "refs"),
               os.path.join(common, "packed-refs")]
    links: list[str] = []
    loose: list[tuple[str, int]] = []
    for folder, real, listed in object_dir_chain(objects):
        reads.append(real)
        pack = os.path.join(real, "pack")
        watched += [folder, pack]  # an entry made, removed or replaced changes its folder's stamp
        links += linked_entries(real) + linked_entries(os.path.realpath(pack))
        linked_loose, serial = _loose(real)
        links += linked_loose
        loose.append((real, serial))
        if listed is not None:
            watched.append(listed)
    if len(links) > OBJECT_LINKS:
        reads.append(UNCHECKED)
    else:
        # each link watched as itself: a link in the chain it starts replaced changes where it leads
        reads += map(os.path.realpath, links)
        watched += links
    return RepositoryPlaces(reads[0], tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(watched)), tuple(loose))


# Links among the entries of a repository's object directories that are followed and watched;
# past them the repository is read from places not looked for (`UNCHECKED`). Git makes none.
OBJECT_LINKS = 1024
# The place a repository whose links were not all followed is read from: any, as far as is known.
UNCHECKED = os.path.abspath(os.sep)


class _Listed(NamedTuple):
    """What a folder held when last listed, kept while its stamp is the same."""

    stamp: tuple[int, int, int]  # device, inode, modification time
    links: tuple[str, ...]  # the entries that are links, at most OBJECT_LINKS + 1
    fan_outs: tuple[str, ...]  # the folders (no links) named as an object directory's fan-out folders
    serial: int  # greater than that of every listing before it


# folder -> what it held when last listed. An object directory has up to 256 fan-out folders,
# each kept: this many is 64 object directories with all of theirs.
_LINKED: dict[str, _Listed] = {}
_LINKED_FOLDERS = 64 * 258
_FAN_OUT_NAMES = frozenset(f"{i:02x}" for i in range(256))
_SERIALS = itertools.count()


def _listed(folder: str) -> _Listed | None:
    """The links and fan-out folders among the entries of `folder`, listed again only once its
    stamp changed, so one of many entries costs a `stat` a call, not a listing; None when it
    cannot be listed."""
    try:
        st = os.stat(folder)
    except OSError:
        return None
    stamp = (st.st_dev, st.st_ino, st.st_mtime_ns)
    known = _LINKED.get(folder)
    if known is not None and known.stamp == stamp:
        return known
    links: list[str] = []
    fan_outs: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:  # the type the listing gave: no stat
                if entry.is_symlink():
                    links.append(entry.path)
                    if len(links) > OBJECT_LINKS:
                        break
                elif entry.name in _FAN_OUT_NAMES and entry.is_dir(follow_symlinks=False):
                    fan_outs.append(entry.path)
    except OSError:
        return None
    if len(_LINKED) >= _LINKED_FOLDERS:
        _LINKED.clear()
    listed = _LINKED[folder] = _Listed(stamp, tuple(links), tuple(sorted(fan_outs)), next(_SERIALS))
    return listed


def linked_entries(folder: str) -> list[str]:
    """The entries of `folder` that are links (at most `OBJECT_LINKS + 1`): libgit2 follows a link
    as an object directory's `pack`, `info` or fan-out folder, as a pack or index file, or as a
    loose object in a fan-out folder, wherever it leads."""
    listed = _listed(folder)
    return list(listed.links) if listed is not None else []


def _loose(objects: str) -> tuple[list[str], int]:
    """The links among the loose objects of the object directory `objects` (at most
    `OBJECT_LINKS + 1`), each fan-out folder listed again only once its stamp changed, and the
    newest serial of those listings: greater than before once any of them was listed again.
    A fan-out folder made or removed changes the stamp of `objects`, watched as itself."""
    listed = _listed(objects)
    links: list[str] = []
    serial = -1
    for fan_out in listed.fan_outs if listed is not None else ():
        one = _listed(fan_out)
        if one is not None:
            serial = max(serial, one.serial)
            if len(links) <= OBJECT_LINKS:
                links += one.links
    return links[:OBJECT_LINKS + 1], serial


def loose_unchanged(places: RepositoryPlaces) -> bool:
    """Were the loose objects of `places` listed as they are now, no fan-out folder of its object
    directories changed since? Each is `stat`ed; one that changed is listed again."""
    return all(_loose(objects)[1] == serial for objects, serial in places.loose)


def repo_identity(repo: pygit2.Repository) -> str:
    """A stable identity for a repository on this machine: a digest of its git directory's real path."""
    return hashlib.sha256(os.path.realpath(repo.path).encode()).hexdigest()[:16]


def repo_display_path(repo: pygit2.Repository) -> str:
    return os.path.realpath(repo.workdir or repo.path).rstrip("/")


def _branches_instead(repo: pygit2.Repository, rev: str) -> str:
    """For a rev written as a plain name that names nothing (`main` in a repository whose branch
    is `master`): the local branches it may have meant, the first five in name order."""
    if any(c in rev for c in "~^@:{"):
        return ""
    try:
        names = sorted(repo.branches.local)
    except pygit2.GitError:
        return ""
    if not names:
        return ""
    shown = [n if len(n) <= 100 else n[:100] + "…" for n in names[:5]]  # a ref name may run to kilobytes
    return f"; the repository's branches: {', '.join(shown)}" + (", ..." if len(names) > 5 else "")


# the version a rev names (`v3.0.3`, `release-2.1`): a tag holding it may be what was meant
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)+")


def _tags_instead(repo: pygit2.Repository, rev: str) -> str:
    """For a rev that holds a version and names nothing (`v3.0.3` where the tag is `3.0.3` or
    `flask-3.0.3`): the first five tags, in name order, holding that version whole."""
    found = _VERSION.search(rev)
    if found is None:
        return ""
    whole = re.compile(rf"(?<![0-9.]){re.escape(found.group())}(?![0-9]|\.[0-9])")
    try:
        names = sorted(name[len("refs/tags/"):] for name in repo.references if name.startswith("refs/tags/")
                       and whole.search(name, len("refs/tags/")))
    except pygit2.GitError:
        return ""
    if not names:
        return ""
    shown = [n if len(n) <= 100 else n[:100] + "…" for n in names[:5]]
    return f"; tags holding {found.group()}: {', '.join(shown)}" + (", ..." if len(names) > 5 else "")


# the first parents a hint counts back from a rev's base, at most: `HEAD~N` past the root
# names the history's length only when it is no longer than this
_HISTORY_HINT = 10_000
_BACK = re.compile(r"(.+?)~([0-9]{1,9})")


def _history_instead(repo: pygit2.Repository, rev: str) -> str:
    """For `X~N` past the first commit (`HEAD~5` in a history of two): how many first parents
    `X` has, so the reader sees how far back it may go."""
    back = _BACK.fullmatch(rev)
    if back is None:
        return ""
    try:
        commit = repo.revparse_single(back[1]).peel(pygit2.Commit)
        count = 0
        while commit.parent_ids and count < _HISTORY_HINT:
            commit = repo[commit.parent_ids[0]].peel(pygit2.Commit)
            count += 1
    except (KeyError, ValueError, pygit2.InvalidSpecError, pygit2.GitError):
        return ""
    if commit.parent_ids or count >= int(back[2]):
        return ""
    if count == 0:
        return f"; {back[1]} has no commit before it"
    return f"; {back[1]} has {count} commit{'' if count == 1 else 's'} before it on its first-parent line"


def resolve_rev(repo: pygit2.Repository, rev: str) -> str:
    """The hex OID of the commit `rev` names (branch, tag, full or short sha, `HEAD~3`, ...)."""
    if repo.head_is_unborn or repo.is_empty:
        if rev in ("HEAD", "@"):
            if not repo.is_empty:  # commits on other branches; HEAD's own branch has none
                branch = str(repo.references["HEAD"].target).removeprefix("refs/heads/")  # symbolic: a name
                raise EmptyRepository(f"HEAD of {repo_display_path(repo)} is on {branch!r}, which has no commits "
                                      f"yet; name a rev that has (--rev)")
            raise EmptyRepository(f"{repo_display_path(repo)} has no commits yet")
    if not rev or rev.startswith("-") or "\n" in rev or "\x00" in rev:  # libgit2 would read up to a NUL
        raise UnknownRev(f"{rev!r} is not a revision")
    if ":" in _BRACES.sub("", rev) and not rev.startswith(":/"):
        # `rev:path`, `:path`: a file or folder, never a commit; read here, where libgit2 would read
        # the trees on the way unchecked
        raise UnknownRev(f"{rev!r} names {_named_by_path(repo, rev)}, not a commit")
    try:
        _check_commits_of(repo, rev)
    except Damaged as exc:
        raise MissingObjects(f"{rev} reads a damaged object: {exc}") from None
    except (ValueError, pygit2.GitError) as exc:  # whole, but no commit or tag libgit2 parses
        raise MissingObjects(f"{rev} reads an object that does not parse: {_first_line(exc)} "
                             "(`git fsck` shows it)") from None
    try:
        obj = repo.revparse_single(rev)
    except (KeyError, ValueError, pygit2.InvalidSpecError, pygit2.GitError) as exc:
        if repo.is_shallow and ("~" in rev or "^" in rev):
            raise MissingObjects(f"{rev} reaches past the shallow boundary of this clone; fetch more history") from None
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if detail.strip("'\"") == rev:  # pygit2's KeyError says only the rev again
            raise UnknownRev(f"unknown revision {rev!r}{_tags_instead(repo, rev)}{_branches_instead(repo, rev)}"
                             f"{_history_instead(repo, rev)}") from None
        raise UnknownRev(f"unknown revision {rev!r} ({detail})") from None
    try:
        return str(obj.peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.InvalidSpecError, pygit2.GitError):
        raise UnknownRev(f"{rev!r} names {_kind_of(repo, obj)}, not a commit") from None


# What a rev holds in braces (`@{2026-12-01 10:00}`, `^{/fix: x}`): no colon there names a path
_BRACES = re.compile(r"\{[^}]*\}")
# The steps of a rev Rennet follows itself: `~N`, `^N`, and a peel to a commit (`^{}`, `^{commit}`)
_STEP = r"\^\{(?:commit)?\}|[~^][0-9]*"
_STEPS = re.compile(rf"(.+?)((?:{_STEP})*)")


def _check_commits_of(repo: pygit2.Repository, rev: str) -> None:
    """Before libgit2 resolves `rev`: `Damaged` when an object its resolution reads is a loose
    one that does not read back (see `indexer.git.loose`): what its name (a ref, an OID or its start)
    names, the tags peeled on the way, and the commits its `~N` and `^N` steps pass. A rev of
    another form (`@{upstream}`, `:/message`, `^{/message}`) has libgit2 read a reflog or walk
    history: every loose commit and tag is checked before it does."""
    match = _STEPS.fullmatch(rev)
    if match is None:
        return
    name, steps = match.groups()
    try:
        oid = str(repo.lookup_reference_dwim("HEAD" if name == "@" else name).resolve().target)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        if "{" in name or name.startswith(":/"):
            check_loose_commits(repo)
            return
        if not re.fullmatch(r"[0-9a-f]{4,40}", name):
            return  # a name of no ref, read by no object: libgit2 says so
        for candidate in loose_named(repo, name):  # an OID or its start: each loose one it may name
            check_intact(repo, candidate)
        try:
            oid = str(repo.revparse_single(name).id)  # a loose one checked, a packed one safe
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return  # libgit2 says what is wrong with the rev
    current = _commit_under(repo, oid)
    for step in re.findall(_STEP, steps):
        if step.startswith("^{"):
            continue  # tags are peeled already; libgit2 says so if what is left is no commit
        if len(step) > 10:  # a count past any history: libgit2 says so
            return
        count = int(step[1:]) if len(step) > 1 else 1
        hops = itertools.repeat(0, count) if step[0] == "~" else iter([count - 1] if count else [])
        for pick in hops:  # as long as the history is, at most: no parent left ends it
            if not isinstance(current, pygit2.Commit) or pick >= len(current.parent_ids):
                return  # libgit2 says what is wrong with the rev
            current = _commit_under(repo, str(current.parent_ids[pick]))


def require_commit(repo: pygit2.Repository, oid: str) -> None:
    """`missing_objects` unless the full OID `oid` (a bundle's, say) names a commit of `repo`
    that reads back; each object on the way is checked before libgit2 reads it."""
    try:
        found = _commit_under(repo, oid) if re.fullmatch(r"[0-9a-f]{40}", oid) else None
    except Damaged as exc:
        raise MissingObjects(f"commit {oid[:12]} is damaged in {repo_display_path(repo)}: {exc}") from None
    except (KeyError, ValueError, pygit2.GitError):
        found = None
    if not isinstance(found, pygit2.Commit):
        raise MissingObjects(f"commit {oid[:12]} is not in {repo_display_path(repo)}; "
                             f"fetch it first (the tools read file content from Git)")


def _commit_under(repo: pygit2.Repository, oid: str) -> pygit2.Object | None:
    """What `oid` names, each tag on the way peeled, every object checked before libgit2
    reads it; None when it names no object."""
    for _ in range(16):  # tags of tags, as deep as anyone makes them
        check_intact(repo, oid)
        obj = repo.get(oid)
        if not isinstance(obj, pygit2.Tag):
            return obj
        oid = str(obj.target)
    return None


def check_history(repo: pygit2.Repository) -> None:
    """Before libgit2 walks history (a merge base, a log): `missing_objects` when a loose
    commit it could read does not read back, where libgit2 would loop on it without end
    (`indexer.git.loose`)."""
    try:
        check_loose_commits(repo)
    except Damaged as exc:
        # a file cut before its header may be of any kind: the walk may or may not read it
        raise MissingObjects(f"the history of {repo_display_path(repo)} is not walked, as a damaged object "
                             f"may be read on the way: {exc}") from None


@contextmanager
def history_read(repo: pygit2.Repository) -> Iterator[None]:
    """Around libgit2's walk of history (a merge base, a log), after `check_history`: a commit
    naming a parent that is missing from the object database, no commit (a blob, a tree) or no
    commit libgit2 parses (git's fsck finds each) is `missing_objects`, where libgit2 raises its
    own error as the walk meets it.
    Hold it around the walk alone, so that no error of other code is taken for one."""
    try:
        yield
    except (KeyError, ValueError, pygit2.GitError) as exc:  # NotFoundError, InvalidError, GitError
        raise MissingObjects(f"the history of {repo_display_path(repo)} does not read: {_first_line(exc)} "
                             "(a commit names a parent that is missing, no commit, or does not parse; `git fsck` shows it)") from None


def _named_by_path(repo: pygit2.Repository, rev: str) -> str:
    """What `rev:path` (or `:path`, `:N:path`, of the index) names, as `_kind_of` says it: the
    commit `rev` names and each tree on the way read checked; `unknown_rev` when nothing is there."""
    colon = _BRACES.sub(lambda m: "x" * len(m.group()), rev).index(":")
    head, path = rev[:colon], rev[colon + 1:]
    if not head:  # the index: its entry names the object, none is read
        path = re.sub(r"^[0-3]:", "", path)
        try:
            entry = repo.index[path]
        except (KeyError, ValueError, pygit2.GitError):
            raise UnknownRev(f"unknown revision {rev!r} (no {path!r} in the index)") from None
        return f"a {_kind_by_mode(entry.mode)} ({str(entry.id)[:12]})"
    tree = root_tree(repo, resolve_rev(repo, head))
    parts = [p for p in path.split("/") if p]
    if not parts:
        return f"a tree ({str(tree.id)[:12]})"
    found, why = _entry_at(repo, tree, parts)
    if found is None:
        raise UnknownRev(f"unknown revision {rev!r} ({why} in {head})")
    if found.type == TREE_TYPE:
        _subtree(repo, found, "/".join(parts))  # what it names, read checked as the trees above it
    return f"a {_kind_by_mode(found.filemode)} ({str(found.id)[:12]})"


def _kind_by_mode(mode: int) -> str:
    return "tree" if mode == MODE_TREE else "commit" if mode == MODE_COMMIT else "blob"


def _entry_at(repo: pygit2.Repository, tree: pygit2.Tree, parts: list[str]) -> tuple[pygit2.Object | None, str]:
    """The entry at the path `parts` below `tree`, each tree on the way read checked
    (`_subtree`); else None and why: the first part missing, or a file where a folder was to be."""
    entry: pygit2.Object | None = None
    for depth, part in enumerate(parts):
        if entry is not None:
            above = "/".join(parts[:depth])
            if entry.type != TREE_TYPE:
                return None, f"{above!r} is not a folder"
            tree = _subtree(repo, entry, above)
        try:
            entry = tree[part]
        except (KeyError, ValueError):  # no such name, or none at all (`a//b`)
            return None, f"no {'/'.join(parts[:depth + 1])!r}"
    return entry, ""


def _kind_of(repo: pygit2.Repository, obj: pygit2.Object) -> str:
    """What a rev that is not a commit names: "a tree (c7b75b5d45d2)", "a tag of a blob (...)"."""
    tags = ""
    while isinstance(obj, pygit2.Tag):
        tags += "a tag of "
        tag = obj
        try:
            obj = tag.get_object()
        except (KeyError, ValueError, pygit2.GitError):
            # libgit2 reads the target as the type the tag states: one of another type is there
            try:
                kind = pygit2.enums.ObjectType(repo.odb.read_header(tag.target)[0]).name.lower()
            except (KeyError, ValueError, pygit2.GitError):
                return f"{tags}a missing object"
            return f"{tags}a {kind} ({str(tag.target)[:12]}) mislabelled as another type"
    return f"{tags}a {obj.type_str} ({str(obj.id)[:12]})"


_PATH = attrgetter("path")


def text_path(name: str) -> str:
    """A path as pygit2 gives it, made fit for JSON and store keys. Git stores names as
    bytes; pygit2 decodes those that are not UTF-8 with surrogate escapes, which no UTF-8
    encoder takes. Their undecodable bytes become `\\xff` escapes (as `--json` strings
    and the text renderings show control characters), so such a file is indexed like any
    other rather than failing the whole snapshot."""
    if name.isascii():
        return name
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return text_name(name.encode("utf-8", "surrogateescape"))


def walk_tree(repo: pygit2.Repository, commit_oid: str) -> tuple[str, list[TreeEntry]]:
    """The tree OID and every non-tree entry of the commit's tree (or of the tree itself, a
    working-tree snapshot's), sorted by path."""
    root = root_tree(repo, commit_oid)
    entries: list[TreeEntry] = []
    stack: list[tuple[pygit2.Tree, str]] = [(root, "")]
    folders = chars = 0
    cap = limits()
    while stack:
        tree, prefix = stack.pop()
        for path, entry, is_tree in checked_entries(tree, prefix):
            if is_tree:
                folders += 1
                if folders > cap.files:
                    raise _over_cap(f"the tree of {commit_oid[:12]} holds", "folders", cap)
                stack.append((_subtree(repo, entry, path), path + "/"))
            else:
                entries.append(TreeEntry(path, entry.filemode, str(entry.id)))
                chars += len(path)
                if len(entries) > cap.files:
                    raise _over_cap(f"the tree of {commit_oid[:12]} holds", "files", cap)
                if chars > cap.path_chars:
                    raise _over_chars(f"the files of {commit_oid[:12]} have paths", cap)
    entries.sort(key=_PATH)
    return str(root.id), entries


def _over_cap(what: str, of: str, cap: Limits) -> BadTree:
    """`BadTree` for a walk past the limit of files or folders (`of`); `what` says whose."""
    return BadTree(f"{what} over {cap.files:,} {of}, the most a snapshot holds ({cap.raise_hint('files')}); "
                   f"not read further")


def _over_chars(what: str, cap: Limits) -> BadTree:
    """`BadTree` for paths past the limit of characters together; `what` says whose paths."""
    return BadTree(f"{what} of over {cap.path_chars:,} characters together, the most a snapshot holds "
                   f"({cap.raise_hint('path_chars')}); not read further")


def root_tree(repo: pygit2.Repository, oid: str) -> pygit2.Tree:
    """The tree of commit `oid` (or the tree `oid`): `missing_objects` when the object
    database lacks it, `bad_tree` when it holds a tree that does not parse (an entry named
    by no bytes, say)."""
    try:
        intact_tree_of(repo, oid)
        return repo[oid].peel(pygit2.Tree)
    except Damaged as exc:
        raise BadTree(f"the tree of {oid[:12]} is damaged in the object database: {exc}") from None
    except (KeyError, ValueError, pygit2.GitError) as exc:
        try:
            obj = repo[oid]
            tree_id = obj.tree_id if isinstance(obj, pygit2.Commit) else obj.id
        except (KeyError, ValueError, pygit2.GitError):
            tree_id = None
        if tree_id is not None and tree_id in repo.odb:
            complaint = _first_line(exc)
            try:
                repo[tree_id]
            except (KeyError, ValueError, pygit2.GitError) as why:
                complaint = _first_line(why)  # the tree's own, not the peel's
            raise BadTree(f"the tree of {oid[:12]} ({str(tree_id)[:12]}) does not parse: {complaint}") from None
        raise MissingObjects(f"objects of commit {oid[:12]} are missing ({exc})") from None


def intact_tree_of(repo: pygit2.Repository, oid: str) -> None:
    """`Damaged` when commit (or tree) `oid`, or the tree a commit names, is a loose object that
    does not read back: checked before libgit2 reads either."""
    loose = read_loose(repo, oid, keep=45)  # `tree <hex>`: a commit's message may be of any size
    if loose is None:  # packed, which libgit2 reads safely: its tree may still be loose
        obj = repo.get(oid)
        tree = str(obj.tree_id) if isinstance(obj, pygit2.Commit) else None
    else:
        tree = loose.data[5:45].decode("ascii", "replace") if loose.kind == _COMMIT else None
    if tree is not None:
        check_intact(repo, tree)


def _subtree(repo: pygit2.Repository, entry: pygit2.Object, path: str) -> pygit2.Tree:
    try:
        check_intact(repo, str(entry.id))
        sub = repo[entry.id]
    except Damaged as exc:
        raise BadTree(f"tree {shown(path)}/ ({str(entry.id)[:12]}) is damaged: {exc}") from None
    except KeyError:
        raise MissingObjects(f"tree {shown(path)}/ ({entry.id}) is missing from the object database") from None
    except (ValueError, pygit2.GitError) as exc:
        raise BadTree(f"tree {shown(path)}/ ({str(entry.id)[:12]}) does not parse: {_first_line(exc)}") from None
    if not isinstance(sub, pygit2.Tree):
        raise MissingObjects(f"tree {shown(path)}/ ({entry.id}) is a {sub.type_str} in the object database")
    return sub


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def check_trees_since(repo: pygit2.Repository, root: pygit2.Tree, base_root: pygit2.Tree | None) -> None:
    """Check the names of every tree of `root` that `base_root` (a tree already walked under
    these rules, `tree_names.TREE_RULES`) does not hold at the same place, as `walk_tree`
    checks them all: a tree git's fsck refuses is refused whether or not an earlier snapshot
    is at hand. Reads the trees a diff of the two would, before the diff spells out any path.
    Without `base_root` (one checked under older rules, or never), every tree is checked."""
    stack: list[tuple[pygit2.Tree, pygit2.Tree | None, str]] = [(root, base_root, "")]
    folders = 0
    cap = limits()
    while stack:
        tree, base, prefix = stack.pop()
        if base is not None and base.id == tree.id:
            continue
        before = {e.raw_name: e for e in base if e.type == TREE_TYPE} if base is not None else {}
        for path, entry, is_tree in checked_entries(tree, prefix):
            if not is_tree:
                continue
            was = before.get(entry.raw_name)
            if was is None or was.id != entry.id:
                folders += 1
                if folders > cap.files:
                    raise _over_cap(f"tree {str(root.id)[:12]} holds", "folders", cap)
                sub = _subtree(repo, entry, path)
                stack.append((sub, _subtree(repo, was, path) if was is not None else None, path + "/"))


def check_tree(repo: pygit2.Repository, oid: str) -> None:
    """Check the names of every tree of commit (or tree) `oid`, as `walk_tree` does, without
    listing its files: `bad_tree`, `missing_objects` as it gives them."""
    check_trees_since(repo, root_tree(repo, oid), None)


def check_diff_reads(repo: pygit2.Repository, old: str, new: str) -> None:
    """Before libgit2 diffs the trees of `old` and `new` (commits or trees) and spells out its
    patches: `bad_tree` or `missing_objects` when a tree or blob it would read is a loose object
    that does not read back (`indexer.git.loose`). libgit2's tree diff reads every tree of both
    sides, those the two share too (`check_trees_intact`); of the blobs, only those that differ.
    Each tree that differs, on either side, has its names checked as `walk_tree` checks them
    (`bad_tree`): libgit2 walks entries out of git's order or named twice as it finds them, and
    would give a file that did not change as deleted and added (paired then as a rename of
    itself). A tree both sides share gives the diff nothing, and is checked by the walks."""
    check_trees_intact(repo, old)
    check_trees_intact(repo, new)
    checked: set[pygit2.Oid] = set()  # a blob many paths hold (an empty file) is read once
    for path, x, y in _differences(repo, root_tree(repo, old), root_tree(repo, new), names=True):
        for e in (x, y):
            if e is not None and e.filemode in _BLOB_MODES and e.id not in checked:
                checked.add(e.id)
                check_blob_intact(repo, str(e.id), path)
                _of_a_blob(repo, str(e.id), path)


def _of_a_blob(repo: pygit2.Repository, oid: str, path: str) -> None:
    """`missing_objects` when a file's entry names an object that is no blob (a tree or a commit
    written under a file's mode, which git's fsck finds): libgit2 makes no patch of it. Read
    from the object's header alone; one missing is said where it is read."""
    try:
        kind = repo.odb.read_header(oid)[0]
    except (KeyError, ValueError, pygit2.GitError):
        return
    if kind != pygit2.enums.ObjectType.BLOB:
        what = pygit2.enums.ObjectType(kind).name.lower()
        raise MissingObjects(f"blob {shown(path)} ({oid[:12]}) is a {what} in the object database")


def _differences(repo: pygit2.Repository, old: pygit2.Tree, new: pygit2.Tree, names: bool = False
                 ) -> Iterator[tuple[str, pygit2.Object | None, pygit2.Object | None]]:
    """(path, its entry in `old`, in `new`; None where absent) for each entry but a tree that
    differs between the two trees, in no set order. Only the subtrees that differ are read,
    each checked (`_subtree`); a folder on one side alone gives every entry below it. Past
    the limit of files or folders that differ, `BadTree`: no snapshot holds so many files.
    `names`: each tree read has its names checked first (`checked_entries`), on both sides."""
    stack: list[tuple[pygit2.Tree | None, pygit2.Tree | None, str]] = [(old, new, "")]
    given = folders = chars = 0
    cap = limits()
    differ = f"trees {str(old.id)[:12]} and {str(new.id)[:12]} differ in"
    while stack:
        a, b, prefix = stack.pop()
        if a is not None and b is not None and a.id == b.id:
            continue
        olds, news = (_entries(t, prefix, names) for t in (a, b))
        for name in olds.keys() | news.keys():
            x, y = olds.get(name), news.get(name)
            if x is not None and y is not None and x.id == y.id and x.filemode == y.filemode:
                continue
            path = prefix + text_name(name or b"")
            if (x is not None and x.type == TREE_TYPE) or (y is not None and y.type == TREE_TYPE):
                folders += 1
                if folders > cap.files:
                    raise _over_cap(differ, "folders", cap)
            sides = [_subtree(repo, e, path) if e is not None and e.type == TREE_TYPE else None for e in (x, y)]
            if sides != [None, None]:
                stack.append((sides[0], sides[1], path + "/"))
            x, y = (None if tree is not None else e for tree, e in zip(sides, (x, y)))  # a folder is no file
            if x is not None or y is not None:
                given += 1
                chars += len(path)
                if given > cap.files:
                    raise _over_cap(differ, "files", cap)
                if chars > cap.path_chars:
                    raise _over_chars(f"{differ} files with paths", cap)
                yield path, x, y


def _entries(tree: pygit2.Tree | None, prefix: str, names: bool) -> dict[bytes | None, pygit2.Object]:
    """A tree's entries by name (none for no tree), its names checked first with `names`."""
    if tree is None:
        return {}
    if names:
        return {entry.raw_name: entry for _, entry, _ in checked_entries(tree, prefix)}
    return {e.raw_name: e for e in tree}


def check_trees_intact(repo: pygit2.Repository, oid: str) -> None:
    """Before libgit2 reads every tree of commit (or tree) `oid` (a status, an index read from
    it): `bad_tree` or `missing_objects` when the commit or one of those trees is a loose object
    that does not read back (`indexer.git.loose`). A tree checked before in this process is not
    checked again, nor what it holds: a new HEAD costs the trees it changed."""
    if not any_loose(repo):
        return
    seen = _INTACT_TREES.setdefault(common_dir(os.path.realpath(repo.path)), set())
    root = root_tree(repo, oid)
    stack = [(root, "")] if root.id not in seen else []
    walked = []
    cap = limits()
    while stack:
        tree, prefix = stack.pop()
        walked.append(tree.id)
        for entry in tree:
            if entry.type == TREE_TYPE and entry.id not in seen:
                if len(walked) + len(stack) > cap.files:
                    raise _over_cap(f"the tree of {oid[:12]} holds", "folders", cap)
                path = prefix + text_name(entry.raw_name or b"")
                stack.append((_subtree(repo, entry, path), path + "/"))
    if sum(map(len, _INTACT_TREES.values())) + len(walked) > _INTACT_MAX:
        for held in _INTACT_TREES.values():
            held.clear()
    seen.update(walked)  # only once the whole walk is through: each holds only trees found intact


# Trees found intact, by the common git directory of their repository; all cleared when they
# hold this many together
_INTACT_TREES: dict[str, set[pygit2.Oid]] = {}
_INTACT_MAX = 1 << 17


def blob_oid_at(repo: pygit2.Repository, oid: str, path: str) -> str | None:
    """The OID of the regular file at `path` in the tree of commit (or tree) `oid`; None when
    nothing is there, or a folder, a link or a submodule is. Each tree on the way and the blob
    are checked before libgit2 reads them (`indexer.git.loose`)."""
    entry, _ = _entry_at(repo, root_tree(repo, oid), path.split("/"))
    if entry is None or entry.filemode not in (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE):
        return None
    check_blob_intact(repo, str(entry.id), path)
    return str(entry.id)


_BLOB_MODES = frozenset({pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE, MODE_LINK})


def check_blob_intact(repo: pygit2.Repository, oid: str, path: str) -> None:
    """`missing_objects` naming `path` when blob `oid` is a loose object that does not read
    back: called before libgit2 reads it (`indexer.git.loose`)."""
    try:
        check_intact(repo, oid)
    except Damaged as exc:
        raise MissingObjects(f"blob {shown(path)} ({oid[:12]}) is damaged in the object database: {exc}") from None


def walk_tree_since(repo: pygit2.Repository, commit_oid: str, base_tree: str,
                    base: list[TreeEntry], base_checked: bool = True) -> tuple[str, list[TreeEntry]]:
    """`walk_tree(repo, commit_oid)`, from the entries of an earlier tree (`base`, those of
    `base_tree`) and the diff of the two trees: only subtrees that differ are read."""
    since = tree_since(repo, commit_oid, base_tree, base, base_checked)
    return since.tree_oid, since.entries


class TreeSince(NamedTuple):
    tree_oid: str
    entries: list[TreeEntry]  # every non-tree entry, sorted by path, as walk_tree gives them
    changed: list[TreeEntry] | None  # the entries the diff adds or changes; None: not known (a whole walk)


def tree_since(repo: pygit2.Repository, commit_oid: str, base_tree: str, base: list[TreeEntry],
               base_checked: bool = True) -> TreeSince:
    """`walk_tree_since`, and which of the entries differ from `base`. Anything the diff cannot
    answer (a missing or damaged object) falls back to the whole walk. `base_checked`:
    `base_tree`'s names were checked under this code's rules; else every tree of the commit is
    checked, those it shares with `base_tree` too. The diff is read here, not by libgit2, whose
    tree diff reads every tree of both sides: only the trees that differ are read, each checked."""
    try:
        intact_tree_of(repo, commit_oid)
        root = repo[commit_oid].peel(pygit2.Tree)
        base_root = repo[base_tree].peel(pygit2.Tree)
    except (KeyError, ValueError, pygit2.GitError, Damaged):  # the whole walk says what it is
        return TreeSince(*walk_tree(repo, commit_oid), None)
    gone: set[str] = set()
    added: list[TreeEntry] = []
    try:
        check_trees_since(repo, root, base_root if base_checked else None)
        for path, x, y in _differences(repo, base_root, root):
            if x is not None:
                gone.add(path)
            if y is not None:
                added.append(TreeEntry(path, y.filemode, str(y.id)))
    except (KeyError, ValueError, pygit2.GitError, MissingObjects, BadTree):  # the whole walk says what it is
        return TreeSince(*walk_tree(repo, commit_oid), None)
    added.sort(key=_PATH)
    in_place = {e.path: e for e in added}
    if gone and gone == in_place.keys() and sum(1 for e in base if e.path in gone) == len(gone):
        # every change in place (the common re-index): the paths stay base's, in its order
        return TreeSince(str(root.id), [in_place.get(e.path, e) for e in base], added)
    entries = [e for e in base if e.path not in gone] if gone else list(base)
    entries.extend(added)
    cap = limits()
    if len(entries) > cap.files:
        raise _over_cap(f"the tree of {commit_oid[:12]} holds", "files", cap)
    if sum(len(e.path) for e in entries) > cap.path_chars:
        raise _over_chars(f"the files of {commit_oid[:12]} have paths", cap)
    entries.sort(key=_PATH)
    return TreeSince(str(root.id), entries, added)


_BLOB = int(pygit2.enums.ObjectType.BLOB)
_COMMIT = int(pygit2.enums.ObjectType.COMMIT)


def read_blob(repo: pygit2.Repository, oid: str) -> bytes:
    """The blob's bytes, read from the object database as they are (no Blob object is made:
    about half the cost of `repo[oid].data`); a loose one read here (`indexer.git.loose`)."""
    data = read_blob_within(repo, oid, None).data
    assert data is not None  # nothing is too large without a bound
    return data


# A blob larger than this is never read whole by indexing or a query: libgit2 inflates an
# object whole, and git stores a blob of gigabytes of one repeated line in a few megabytes.
READ_CAP = 64 << 20


class BlobRead(NamedTuple):
    size: int  # what the blob holds, read or not
    data: bytes | None  # None: over the bound it was read within


def read_blob_within(repo: pygit2.Repository, oid: str, most: int | None = READ_CAP) -> BlobRead:
    """The blob's size, and its bytes when it holds at most `most` of them (None: any size):
    a larger one's size is read from its header and its bytes never inflated."""
    try:
        loose = read_loose(repo, oid, most=most)
        if loose is not None:
            kind, data, size = loose
        else:
            odb = repo.odb
            if most is not None:
                kind, size = odb.read_header(oid)
                if size > most:
                    return _blob_read(oid, kind, size, None)
            kind, data = odb.read(oid)
            size = len(data)
    except Damaged as exc:
        raise MissingObjects(f"blob {oid[:12]} is damaged in the object database: {exc}") from None
    except (KeyError, ValueError, pygit2.GitError):  # a GitError's class does not pickle out of a worker
        raise MissingObjects(f"blob {oid[:12]} is missing from the object database") from None
    return _blob_read(oid, kind, size, data if most is None or size <= most else None)


def _blob_read(oid: str, kind: int, size: int, data: bytes | None) -> BlobRead:
    if kind != _BLOB:
        raise MissingObjects(f"object {oid[:12]} is not a blob")
    return BlobRead(size, data)


def blob_object(repo: pygit2.Repository, oid: str) -> pygit2.Blob:
    """The blob as libgit2's object, for a patch that picks its diff driver by path (libgit2 does
    so only for a side it is given as a blob); a loose one checked first (`indexer.git.loose`)."""
    try:
        check_intact(repo, oid)
        obj = repo[oid]
    except Damaged as exc:
        raise MissingObjects(f"blob {oid[:12]} is damaged in the object database: {exc}") from None
    except (KeyError, ValueError, pygit2.GitError):
        raise MissingObjects(f"blob {oid[:12]} is missing from the object database") from None
    if not isinstance(obj, pygit2.Blob):
        raise MissingObjects(f"object {oid[:12]} is not a blob")
    return obj


def blob_size(repo: pygit2.Repository, oid: str) -> int:
    size = present_size(repo, oid)
    if size is None:
        raise MissingObjects(f"blob {oid[:12]} is missing from the object database")
    return size


def partial_clone(repo: pygit2.Repository) -> bool:
    """Is the repository a partial clone (`git clone --filter=...`), whose object database may
    lack blobs its trees name? Git marks one so in its config: `extensions.partialClone`, or a
    remote that is a promisor."""
    try:
        config = repo.config
        if "extensions.partialclone" in config:
            return True
        return any(entry.name.startswith("remote.") and entry.name.endswith(".promisor")
                   and (entry.value or "").lower() in ("true", "yes", "on", "1") for entry in config)
    except pygit2.GitError:  # a config git cannot read: the index reads what it finds
        return False


def present_sizes(repo: pygit2.Repository, oids: Iterable[str]) -> Iterator[int | None]:
    """`present_size` of each of `oids`; where the repository holds no loose object (a clone,
    after `git gc`), each is asked of libgit2 alone, with no look for its loose file."""
    loose = any_loose(repo)
    for oid in oids:
        yield present_size(repo, oid, loose)


def present_size(repo: pygit2.Repository, oid: str, loose: bool = True) -> int | None:
    """The size of the object `oid` from its header alone, None when the object database lacks
    it (a partial clone's blob); a damaged one is `missing_objects`. `loose=False`: the
    repository is known to hold no loose object."""
    try:
        found = loose_size(repo, oid) if loose else None
        return found[1] if found is not None else repo.odb.read_header(oid)[1]
    except Damaged as exc:
        raise MissingObjects(f"blob {oid[:12]} is damaged in the object database: {exc}") from None
    except KeyError:
        return None
    except (ValueError, pygit2.GitError):
        raise MissingObjects(f"blob {oid[:12]} is missing from the object database") from None
