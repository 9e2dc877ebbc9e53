"""What git's index file says that libgit2 and pygit2 do not show: which entries are marked
skip-worktree (outside a sparse checkout's cone, or `git update-index --skip-worktree`)."""

from __future__ import annotations

import os

import pygit2

from indexer.git.read import READ_CAP

_EXTENDED = 0x4000  # an index entry's flags: 16 bits of extended flags follow
_SKIP_WORKTREE = 0x4000  # of the extended flags: the entry is not checked out (a sparse checkout's)


def skip_worktree(repo: pygit2.Repository, paths: list[str]) -> set[str]:
    """Of `paths`, those the index marks skip-worktree (outside a sparse checkout's cone, or
    `git update-index --skip-worktree`): git's status reads such a file as it is in the index, and
    `git add -A` keeps it, though it is not in the working tree. libgit2 lists it deleted, and
    pygit2 does not show the flag, so the index file is read for it (format versions 3 and 4
    alone carry it). A folder entry of a sparse index holds every path below it."""
    if not paths:
        return set()
    try:
        with open(os.path.join(repo.path, "index"), "rb") as fh:
            data = fh.read(READ_CAP + 1)
    except OSError:
        return set()
    if data[:4] != b"DIRC" or len(data) < 12 or int.from_bytes(data[4:8], "big") not in (3, 4):
        return set()
    marked = _skip_worktree_entries(data)
    wanted = set(paths)
    found = {p for p in wanted if os.fsencode(p) in marked}
    folders = sorted(m for m in marked if m.endswith(b"/"))
    if folders:
        found.update(p for p in wanted - found if any(os.fsencode(p).startswith(f) for f in folders))
    return found


def _skip_worktree_entries(data: bytes) -> set[bytes]:
    """The paths of the skip-worktree entries of an index file of version 3 or 4 (git's
    gitformat-index); what does not parse ends the reading with what was found."""
    version, count = int.from_bytes(data[4:8], "big"), int.from_bytes(data[8:12], "big")
    pos, previous, marked = 12, b"", set()
    try:
        for _ in range(count):
            flags = int.from_bytes(data[pos + 60:pos + 62], "big")
            at = pos + 62
            extended = 0
            if flags & _EXTENDED:
                extended = int.from_bytes(data[at:at + 2], "big")
                at += 2
            if version == 4:  # the name is the previous one less N bytes, then what follows
                byte = data[at]
                at += 1
                strip = byte & 0x7F
                while byte & 0x80:
                    byte = data[at]
                    at += 1
                    strip = ((strip + 1) << 7) | (byte & 0x7F)
                end = data.index(b"\0", at)
                name = previous[:len(previous) - strip] + data[at:end]
                pos = end + 1
            else:  # NUL-padded to a multiple of 8 bytes, at least one NUL
                end = data.index(b"\0", at)
                name = data[at:end]
                pos += (end - pos + 8) & ~7
            if extended & _SKIP_WORKTREE:
                marked.add(name)
            previous = name
    except (IndexError, ValueError):
        pass
    return marked
