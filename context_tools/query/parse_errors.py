"""Where a snapshot's files did not parse cleanly, as the answers say it.

tree-sitter recovers from a syntax error (a file mid-edit: a half-written function, an
unclosed bracket) and the facts are read from what it recovered, so a definition in or after
the error may be missing or misread (`BlobFacts.parse_errors`). A miss of a name must not then
read as its absence: `context.file` says where its file's parse failed, and `context.symbol` and
`context.references` name the files with parse errors whose text holds the name (those a
lookup may have missed it in), reading the text of a bounded number of them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec import Struct

from indexer.contract.errors import MissingObjects, TooLarge
from indexer.contract.parse_errors import regions_text

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


def unseen_holders(snap: Snapshot, name: str) -> UnseenHolders | None:
    """The files of `snap` with parse errors whose text holds `name` as a word; None when none
    does (or no file has parse errors: then nothing is read)."""
    broken = snap.parse_errors
    if not broken:
        return None
    word = re.compile(rb"(?<![\w$])" + re.escape(name.encode("utf-8", "surrogatepass")) + rb"(?![\w$])")
    holders = []
    unread = max(len(broken) - ERROR_READS, 0)
    for path in broken[:ERROR_READS]:
        if snap.file(path) is None:  # a record's list names only its own files; read no other
            continue
        try:
            data = snap.blob_bytes(path)
        except (MissingObjects, TooLarge):  # its blob gone from the object database since: the miss stands unexplained
            unread += 1
            continue
        if word.search(data):
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
