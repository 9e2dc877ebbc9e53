"""Where a snapshot's files did not parse cleanly, as the answers say it.

tree-sitter recovers from a syntax error (a file mid-edit: a half-written function, an
unclosed bracket) and the facts are read from what it recovered, so a definition in or after
the error may be missing or misread (`BlobFacts.parse_errors`). A miss of a name must not then
read as its absence: `context.file` says where its file's parse failed, and `context.symbol` and
`context.references` name the files with parse errors whose text holds the name (those a
lookup may have missed it in), reading the text of a bounded number of them. What a file's text
holds is kept by its blob (`_WORDS`): the next page of an answer, or the next lookup of another
name, reads none of them again.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from msgspec import Struct

from indexer.contract.errors import MissingObjects, TooLarge
from indexer.contract.parse_errors import regions_text
from indexer.git.worktree import WORKTREE

if TYPE_CHECKING:
    from indexer.store.snapshot import Snapshot

# Files with parse errors whose text one lookup reads for the name, in path order: each was
# parsed, so is under the parse cap, and most are a handful of files being edited.
ERROR_READS = 32
HOLDERS_SHOWN = 5


class UnseenHolders(Struct, omit_defaults=True):
    """Files of the snapshot whose parse had errors and whose text holds the name: a definition
    or site of it there may be missing from the answer, or misread."""

    paths: list[str]  # the first HOLDERS_SHOWN, in path order
    total: int  # how many of the files read hold it
    note: str
    unread: int = 0  # files with parse errors whose text was not read (past ERROR_READS, or gone)


# The words of the broken files' texts kept, in bytes over all blobs: a file's distinct words
# are a small part of its text, so a page of a handful of files being edited takes little
WORDS_BYTES = 8 << 20
_RUN = re.compile(rb"[\w$]+")  # a word as the lookup's pattern bounds it: a run of ASCII word characters or `$`


class _Words:
    """Blob OID -> the distinct words of its text, one a line between newlines (`\nword\n`
    finds one), the least recently used dropped past `budget` bytes. Keyed by the blob, whose
    text never changes: shared by every snapshot, page and name. Safe from several threads."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, blob: str) -> bytes | None:
        with self._lock:
            words = self._items.get(blob)
            if words is not None:
                self._items.move_to_end(blob)
            return words

    def put(self, blob: str, words: bytes) -> None:
        if len(words) > self.budget // 4:  # one file does not push out the others
            return
        with self._lock:
            if blob in self._items:
                return
            self._items[blob] = words
            self._bytes += len(words)
            while self._bytes > self.budget:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


_WORDS = _Words(WORDS_BYTES)


def unseen_holders(snap: Snapshot, name: str) -> UnseenHolders | None:
    """The files of `snap` with parse errors whose text holds `name` as a word; None when none
    does (or no file has parse errors: then nothing is read). A name of word characters alone
    is looked up among the words kept of each file's blob (`_WORDS`), read once; another (an
    operator's, a name of other letters) is searched for in the text."""
    broken = snap.parse_errors
    if not broken:
        return None
    raw = name.encode("utf-8", "surrogatepass")
    line = b"\n" + raw + b"\n" if _RUN.fullmatch(raw) else None
    word = re.compile(rb"(?<![\w$])" + re.escape(raw) + rb"(?![\w$])")
    holders = []
    unread = max(len(broken) - ERROR_READS, 0)
    for path in broken[:ERROR_READS]:
        entry = snap.file(path)
        if entry is None:  # a record's list names only its own files; read no other
            continue
        words = _WORDS.get(entry.blob) if line is not None else None
        if words is None:
            try:
                data = snap.blob_bytes(path)
            except (MissingObjects, TooLarge):  # its blob gone from the object database since: the miss stands unexplained
                unread += 1
                continue
            words = b"\n" + b"\n".join(sorted(set(_RUN.findall(data)))) + b"\n"
            _WORDS.put(entry.blob, words)
            if line is None:
                if word.search(data):
                    holders.append(path)
                continue
        if line is not None and line in words:
            holders.append(path)
    if not holders and not unread:
        return None
    shown = holders[:HOLDERS_SHOWN]
    one = len(holders) == 1
    note = ""
    if holders:
        where = ", ".join(f"{path} at {_lines_of(snap, path)}" for path in shown) + (
            ", ..." if len(holders) > len(shown) else "")
        note = (f"{len(holders)} file{'' if one else 's'} that do{'es' if one else ''} not parse cleanly hold{'s' if one else ''} {name!r} in "
                f"{'its' if one else 'their'} text, where a definition or site of it may be missing or misread: "
                f"{where}")
        if snap.rev == WORKTREE:  # the agent's own edit, half written: the commit holds the file whole
            note += "; `rev: HEAD` reads the last commit instead"
    if unread:
        note += ("; " if note else "") + (f"{unread} more file{'' if unread == 1 else 's'} that do{'es' if unread == 1 else ''} not parse cleanly "
                                          f"{'was' if unread == 1 else 'were'} not read for it")
    return UnseenHolders(shown, len(holders), note, unread)


def _lines_of(snap: Snapshot, path: str) -> str:
    facts = snap.core_facts(path, keep=False)
    if facts is None or not facts.parse_error_total:  # its facts gone from the store since
        return "lines not read"
    return regions_text(facts.parse_errors, facts.parse_error_total)


def miss_note(snap: Snapshot, name: str) -> str:
    """What a not_found of `name` adds: the files it may be in, unseen ("" when none)."""
    found = unseen_holders(snap, name)
    return f"; {found.note}" if found is not None else ""
