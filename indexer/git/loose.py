"""Loose objects read and checked here, before libgit2 meets them.

libgit2 (as pygit2 bundles it) loops without end, at full CPU, reading a loose object whose
compressed stream ends early (libgit2 issue 7342, fixed after the release we pin): the
inflate reports that it wants more input, and its drain loop asks again forever. A
repository under review, or one an agent may write into, can hold such a file, and a blob,
a tree or a commit read through libgit2 would then hold its process for good. Each object
Rennet asks libgit2 for by its OID is looked for here first, in the repository's object
directories (its own, a linked worktree's common one, the alternates git follows): a loose
one is inflated here, where a stream that ends early is an error, and checked against its
OID. A packed object is left to libgit2, whose pack reads do not loop so.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from functools import lru_cache
from typing import BinaryIO, Iterator, NamedTuple

import pygit2

# git and libgit2 read the alternates of object directories this many hops from a repository's
# own, so the objects of directories one hop further are read too, and none past them
ALTERNATES_DEPTH = 5
# How much of a loose file is read at once: most objects are smaller
_CHUNK = 1 << 16
_KINDS = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
# The kinds a walk of history or a peel reads without naming them
_HISTORY = frozenset({_KINDS[b"commit"], _KINDS[b"tag"]})


class Damaged(Exception):
    """A loose object that does not read back: its stream ends early or is no zlib, its header
    is none, or its bytes hash to another OID."""


class Loose(NamedTuple):
    kind: int  # pygit2's object type number
    data: bytes
    size: int = -1  # what its header says the object holds (all of it, however much is kept)


def object_dirs(repo: pygit2.Repository) -> tuple[str, ...]:
    """The object directories `repo` reads from, in git's order (kept by its git directory as
    pygit2 names it: each read asks, and resolving the path again would cost every read)."""
    return _dirs(repo.path)


@lru_cache(maxsize=64)
def _dirs(git_dir: str) -> tuple[str, ...]:
    objects = os.path.join(common_dir(os.path.realpath(git_dir)), "objects")
    return tuple(real for _, real, _ in object_dir_chain(objects))


def common_dir(git_dir: str) -> str:
    """The directory a linked worktree's git directory shares with its main one (`commondir`),
    resolved; `git_dir` itself for any other."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8", errors="replace") as f:
            return os.path.realpath(os.path.join(git_dir, f.read(4096).strip()))
    except OSError:
        return git_dir


def object_dir_chain(objects: str) -> Iterator[tuple[str, str, str | None]]:
    """Each object directory read from, `objects` first, then those its alternates name, as
    deep as git follows them, each once: (as named, resolved, the alternates file read for the
    next, or None at the last depth)."""
    seen: set[str] = set()
    level = [objects]
    for depth in range(ALTERNATES_DEPTH + 2):
        following: list[str] = []
        for folder in level:
            real = os.path.realpath(folder)
            if real in seen:
                continue
            seen.add(real)
            listed = os.path.join(real, "info", "alternates") if depth <= ALTERNATES_DEPTH else None
            yield folder, real, listed
            if listed is not None:
                following += alternates_of(listed, real)
        level = following


def alternates_of(listed: str, objects: str) -> list[str]:
    """The object directories an alternates file names (a relative one from `objects`)."""
    try:
        with open(listed, encoding="utf-8", errors="replace") as f:
            lines = f.read(1 << 20).splitlines()
    except OSError:
        return []
    return [os.path.join(objects, line.strip()) for line in lines if line.strip() and not line.startswith("#")]


def read_loose(repo: pygit2.Repository, oid: str, keep: int | None = None,
               most: int | None = None) -> Loose | None:
    """The object `oid` when it is stored loose (its kind and bytes, no more than `keep` of
    them when given, the whole object checked all the same), None when it is not; `Damaged`
    when it is and does not read back. An object whose header says it holds over `most` bytes
    is not inflated past its header: its kind comes with no bytes and `size` says why."""
    f = _opened(repo, oid)
    if f is None:
        return None
    with f:
        if most is not None:
            kind, size = _sized(f, oid)
            if size > most:
                return Loose(kind, b"", size)
            f.seek(0)
        return _inflated(f, oid, keep)


def loose_size(repo: pygit2.Repository, oid: str) -> tuple[int, int] | None:
    """(kind, size) of a loose object from its header alone, None when it is not loose: the
    rest is checked when the object is read."""
    f = _opened(repo, oid)
    if f is None:
        return None
    with f:
        return _sized(f, oid)


def _sized(f: BinaryIO, oid: str) -> tuple[int, int]:
    z = zlib.decompressobj()
    head = b""
    try:
        while b"\0" not in head and len(head) < _HEADER_MAX and not z.eof:
            chunk = z.unconsumed_tail or f.read(256)
            if not chunk:
                raise _damaged(oid, "is cut short: its compressed stream ends before its header does")
            head += z.decompress(chunk, _HEADER_MAX - len(head))
    except zlib.error as exc:
        raise _damaged(oid, f"is not a zlib stream ({exc})") from None
    return _header(head, oid)[:2]


def loose_named(repo: pygit2.Repository, start: str) -> list[str]:
    """The loose objects whose OIDs begin with `start` (a hex OID, whole or its first four or
    more digits), at most 16: a start that many share is refused by libgit2 as ambiguous."""
    found: list[str] = []
    for folder in object_dirs(repo):
        names = _named(os.path.join(folder, start[:2]), 38)
        found += [start[:2] + n for n in names if n.startswith(start[2:])][:16 - len(found)]
        if len(found) >= 16:
            break
    return found


def any_loose(repo: pygit2.Repository) -> bool:
    """May the repository hold a loose object: has one of its object directories a fan-out
    folder? A clone, or a repository after `git gc`, has none, so reads of it need no check."""
    for folder in object_dirs(repo):
        try:
            with os.scandir(folder) as entries:
                if any(len(e.name) == 2 and e.is_dir() for e in entries):
                    return True
        except OSError:
            continue
    return False


def check_loose_commits(repo: pygit2.Repository) -> None:
    """`Damaged` when any loose commit or tag of the repository does not read back: called
    before libgit2 walks history (a merge base, a log, a search of messages) or peels a rev
    Rennet does not follow itself, reading objects no rev names. Each loose object's header
    tells these from the rest; a file checked before, unchanged since (its size, time and
    inode), is not read again in this process."""
    for folder in object_dirs(repo):
        for fan in _named(folder, 2):
            where = os.path.join(folder, fan)
            for name in _named(where, 38):
                path = os.path.join(where, name)
                try:
                    st = os.stat(path)
                    stamp = (path, st.st_size, st.st_mtime_ns, st.st_ino)
                    if stamp in _CHECKED:
                        continue
                    with open(path, "rb") as f:
                        if _sized(f, fan + name)[0] in _HISTORY:
                            f.seek(0)  # the header told a commit or a tag: the whole of it now
                            _inflated(f, fan + name, keep=0)  # a chunk at a time: a commit may be huge
                except OSError:  # gone, or unreadable: libgit2 fails on it too, at once
                    continue
                if len(_CHECKED) >= _CHECKED_MAX:
                    _CHECKED.clear()
                _CHECKED.add(stamp)


def _named(folder: str, length: int) -> list[str]:
    """The entries of `folder` whose names are `length` long (a fan-out folder's two hex
    digits, a loose object's other 38); none when it cannot be listed."""
    try:
        return [n for n in os.listdir(folder) if len(n) == length]
    except OSError:
        return []


# Loose files found whole (commits) or of another kind, by their stamps; cleared when this full
_CHECKED: set[tuple[str, int, int, int]] = set()
_CHECKED_MAX = 1 << 20


def check_intact(repo: pygit2.Repository, oid: str) -> None:
    """`Damaged` when `oid` is a loose object that does not read back: called before libgit2
    reads it. Checked a chunk at a time, so the check holds no more than a chunk of it."""
    read_loose(repo, oid, keep=0)


def _opened(repo: pygit2.Repository, oid: str) -> BinaryIO | None:
    for folder in object_dirs(repo):
        try:
            return open(os.path.join(folder, oid[:2], oid[2:]), "rb", buffering=0)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            raise Damaged(f"loose object {oid[:12]} cannot be read ({exc.strerror or exc})") from None
    return None


# An object header (`blob 1234\0`) is shorter than this
_HEADER_MAX = 64


def _header(out: bytes | bytearray, oid: str) -> tuple[int, int, int]:
    """(kind, size, where the body starts) of an object's inflated bytes."""
    nul = out.find(b"\0", 0, _HEADER_MAX)
    name, _, size = bytes(out[:nul]).partition(b" ") if nul >= 0 else (b"", b"", b"")
    kind = _KINDS.get(name)
    if kind is None or not size.isdigit() or len(size) > 20:
        raise _damaged(oid, "has no object header")
    return kind, int(size), nul + 1


def _inflated(f: BinaryIO, oid: str, keep: int | None = None) -> Loose:
    """The object in `f`, inflated no further than its header says (a small file inflating
    to gigabytes is refused as it passes its size), its stream ending where it should, its
    bytes hashing to `oid`. `keep`: how much of its body to keep (None: all of it); the rest
    is inflated a chunk at a time, hashed and let go, so a check of an object of any size
    holds no more than a chunk of it."""
    z = zlib.decompressobj()
    digest = hashlib.sha1()
    head = bytearray()  # the inflated bytes until the header is read
    body = bytearray()
    inflated = 0
    whole: int | None = None  # header and body, once the header is read
    kind = start = 0
    try:
        while not z.eof:
            pending = z.unconsumed_tail or f.read(_CHUNK)
            if not pending:
                raise _damaged(oid, "is cut short: its compressed stream ends before the object does"
                               if whole is not None else "is cut short: its compressed stream ends before its header does")
            room = _HEADER_MAX if whole is None else whole - inflated + 1  # one past: longer is damage
            if keep is not None:
                room = min(room, _CHUNK)
            piece = z.decompress(pending, max(room, 1))
            inflated += len(piece)
            digest.update(piece)
            if whole is None:
                head += piece
                if b"\0" not in head and len(head) < _HEADER_MAX:
                    continue
                kind, size, start = _header(head, oid)
                whole = start + size
                piece = bytes(head[start:])
            if keep is None or len(body) < keep:
                body += piece if keep is None else piece[:keep - len(body)]
            if inflated > whole:
                raise _damaged(oid, "is longer than its header says")
    except zlib.error as exc:
        raise _damaged(oid, f"is not a zlib stream ({exc})") from None
    if whole is None:
        kind, size, start = _header(head, oid)
        whole = start + size
    if inflated != whole or digest.hexdigest() != oid:
        raise _damaged(oid, "does not hash to its name")
    return Loose(kind, bytes(body), size)


def _damaged(oid: str, what: str) -> Damaged:
    """`Damaged`, said of the object and with what shows it: git's own check finds the file."""
    return Damaged(f"loose object {oid[:12]} {what} (`git fsck` shows it; restore it from another copy "
                   f"of the repository)")
