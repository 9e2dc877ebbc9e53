"""What a tree object may name, for a snapshot to name each of its files by one path.

A snapshot keys every file by its path and finds one by bisecting the sorted paths, so two
files read as one path would make one of them unreachable or a lookup answer the other.
Git's fsck refuses a tree whose entries repeat a name (two `a.py`, or a file and a folder
`a`), are out of git's order, or are named ``, `.`, `..` or with a `/` in them; hosts that
check what is pushed refuse them and no checkout has them, but an object database may hold
one written by hand. Such a tree cannot be described truthfully (which `a.py` is the file?),
so it is refused whole with `bad_tree`, as fsck refuses it, before anything is stored.

A name git reads as `.git` (`is_dot_git`) is refused the same way, at any depth and whatever
the entry is: fsck reports such a tree (hasDotgit), hosts that check what is pushed refuse
it, and no checkout writes it, since the entry would stand for the repository's own folder.

Names git allows are kept, byte for byte where they are UTF-8 and with their other bytes
written as `\\xff` escapes (`text_name`). Two names of one tree that read the same after
that (the byte 0xff beside the four characters `\\xff`) are refused the same way: the
escape must not let one file stand for another.
"""

from __future__ import annotations

import re

import pygit2

from indexer.contract.errors import BadTree
from indexer.contract.paths import PATH_CHARS

TREE_TYPE = int(pygit2.enums.ObjectType.TREE)  # an entry's type: cheaper to read than its file mode

_NOT_NAMES = frozenset({b"", b".", b".."})

# The version of the rules above, recorded with each snapshot (`SnapshotRecord.tree_rules`):
# a snapshot's trees are trusted as checked only under the rules of this code, so a re-index
# from a snapshot stored under older rules (or before they were recorded: "") checks every
# tree of the commit again. Bump it whenever a rule is added.
# 1: names fsck refuses (``, `.`, `..`, a `/`), a name read twice, git's order, PATH_CHARS
# 2: names git reads as `.git` (`is_dot_git`)
TREE_RULES = "2"

# The code points HFS+ ignores in a name, which git skips when it asks whether a name is
# `.git` there (ZERO WIDTH NON-JOINER and JOINER, the direction marks and embeddings, the
# deprecated shaping controls, ZERO WIDTH NO-BREAK SPACE).
_HFS_IGNORED = frozenset("\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                         "\u206a\u206b\u206c\u206d\u206e\u206f\ufeff")
# Where git stops reading a name as HFS+ would, besides its end: a `/`, bytes that are not
# UTF-8 (decoded here as surrogate escapes), and U+FFFE and U+FFFF, which git's UTF-8 reader
# refuses and Python's takes.
_HFS_ENDS = frozenset("/\ufffe\uffff") | frozenset(map(chr, range(0xDC80, 0xDD00)))
_PARTS = re.compile(rb"[\\/]")  # what git separates a name's parts by when it asks as NTFS would


def text_name(raw: bytes) -> str:
    """A name as paths take it: its UTF-8 as is, any other byte as a `\\xff` escape (what
    `read.text_path` makes of pygit2's surrogate-escaped name)."""
    return raw.decode("utf-8", "backslashreplace")


def is_dot_git(raw: bytes) -> bool:
    """Does git read the tree entry name `raw` as `.git`? Its fsck does (hasDotgit) where the
    name is `.git` in any case once the code points HFS+ ignores are left out (and up to
    where it stops being UTF-8), or where any of its backslash-separated parts is `.git` or
    `git~1` in any case followed only by dots and spaces, then the end or a `:` (the names
    NTFS gives the same folder: trailing dots and spaces dropped, the short name, an alternate
    data stream such as `.git::$INDEX_ALLOCATION`)."""
    return _hfs_dot_git(raw) or any(map(_ntfs_dot_git, _PARTS.split(raw)))


def _may_name_dot_git(joined: bytes) -> bool:
    """Whether a listing's names (joined) may hold one git reads as `.git`: each such name
    holds `git` in some case, or code points HFS+ ignores (not ASCII). Most listings hold
    neither, and these two searches cost less than asking the rule of each name."""
    return not joined.isascii() or b"git" in joined.lower()


def _hfs_dot_git(raw: bytes) -> bool:
    kept: list[str] = []
    for char in raw.decode("utf-8", "surrogateescape"):
        if char in _HFS_ENDS:
            break
        if char not in _HFS_IGNORED:
            kept.append(char)
            if len(kept) > 4:
                return False
    # ASCII letters alone fold: "İ" (U+0130) is no "i" to git
    return len(kept) == 4 and kept[0] == "." and kept[1] in "gG" and kept[2] in "iI" and kept[3] in "tT"


def _ntfs_dot_git(part: bytes) -> bool:
    head = part[:5].lower()  # bytes fold ASCII letters alone
    if head.startswith(b".git"):
        rest = part[4:]
    elif head == b"git~1":
        rest = part[5:]
    else:
        return False
    return not rest.partition(b":")[0].strip(b". ")


def checked_entries(tree: pygit2.Tree, folder: str) -> list[tuple[str, pygit2.Object, bool]]:
    """(path, entry, is it a tree) for each entry of `tree`, the tree at `folder` ("" or
    ending in "/"), once its names are checked: `BadTree` for a name git's fsck refuses, a
    name read twice, entries out of git's order, or a path over `PATH_CHARS`. The checks run
    on the whole listing at once, so a tree costs little more than reading its entries. A
    name git reads as `.git` is `BadTree` too."""
    raws: list[bytes] = []
    names: list[str] = []
    keys: list[bytes] = []  # git orders a tree's entries by name, a folder's name with a "/" after it
    out: list[tuple[str, pygit2.Object, bool]] = []
    for entry in tree:
        raw = entry.raw_name
        assert raw is not None, "a tree's entries are named"
        name = text_name(raw)
        is_tree = entry.type == TREE_TYPE
        raws.append(raw)
        names.append(name)
        keys.append(raw + b"/" if is_tree else raw)
        out.append((folder + name, entry, is_tree))
    joined = b"\0".join(raws)
    if not (_NOT_NAMES.isdisjoint(raws) and b"/" not in joined and len(set(names)) == len(names)
            and keys == sorted(keys) and len(folder) + max(map(len, names), default=0) <= PATH_CHARS
            and not (_may_name_dot_git(joined) and any(map(is_dot_git, raws)))):
        raise _fault(tree, folder)
    return out


def _fault(tree: pygit2.Tree, folder: str) -> BadTree:
    """What is wrong with a tree `checked_entries` refused, said of the first entry at fault."""
    seen: dict[str, bytes] = {}
    last = b""
    where = f"tree {shown(folder) if folder else '/'} ({str(tree.id)[:12]})"
    for entry in tree:
        raw = entry.raw_name
        assert raw is not None, "a tree's entries are named"
        if raw in _NOT_NAMES or b"/" in raw:
            return BadTree(f"{where} has an entry named {shown(raw)}; git's fsck refuses such a name and no "
                           f"checkout has it")
        if is_dot_git(raw):
            return BadTree(f"{where} has an entry named {shown(raw)}, which git reads as .git; git's fsck "
                           f"refuses such a tree (hasDotgit) and no checkout writes it")
        name = text_name(raw)
        other = seen.get(name)
        if other is not None:
            how = "twice" if other == raw else "twice, once with its bytes escaped"
            return BadTree(f"{where} names {shown(name)} {how}; a snapshot names each file by one path")
        seen[name] = raw
        key = raw + b"/" if entry.type == TREE_TYPE else raw
        if key < last:
            return BadTree(f"{where} lists {shown(name)} out of git's order; git's fsck refuses such a tree")
        last = key
        if len(folder + name) > PATH_CHARS:
            return BadTree(f"path {shown(folder + name)} is over {PATH_CHARS} characters; no checkout has it")
    return BadTree(f"{where} names its entries as git's fsck does not allow")


def shown(text: str | bytes, limit: int = 80) -> str:
    """A name for a one-line message: quoted with its control characters escaped, and cut."""
    if isinstance(text, bytes):
        text = text_name(text)
    cut = text[:limit]
    return repr(cut) + (f"... ({len(text)} characters)" if len(text) > limit else "")
