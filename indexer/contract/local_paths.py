"""Paths of this machine that Rennet keeps as text.

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
