"""Paths of this machine that Rennet keeps as text, and the folder they are taken from.

A repository, the store and the MCP server's roots are known by their folders' paths: kept in
the store's keys and records, shown in replies, written into JSON. Those are UTF-8 text, while
a folder's name on Linux is any bytes (Python reads the others as surrogate escapes, which no
UTF-8 encoder takes). Such a folder is refused with a typed error where its path is first
taken, never left to fail later as an internal error.
"""

from __future__ import annotations

import os

from indexer.contract.errors import BadInput


def utf8_folder(path: str, what: str, advice: str) -> str:
    """`path` when it is UTF-8 text; else BadInput naming `what` (the repository's folder, the
    store's folder, ...) with the bytes escaped as `\\xff`, and `advice`."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
        raise BadInput(f"{what} {shown} is named in bytes that are not UTF-8: {advice}") from None
    return path


def folder_gone(exc: BaseException) -> BadInput | None:
    """`exc` as `bad_input` when it came of the current folder being gone: a relative path,
    the default repository `.` or the store's folder made absolute needs it, and the failing
    call names no file. None for any other exception, or while the current folder is there."""
    return current_folder_gone() if isinstance(exc, FileNotFoundError) else None


def current_folder_gone() -> BadInput | None:
    """`bad_input` when the current folder no longer exists (deleted, or moved away, after the
    shell entered it), else None."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return BadInput("the current folder no longer exists (deleted or moved since the shell entered it): "
                        "cd to a folder that exists, or give absolute paths")
    return None
