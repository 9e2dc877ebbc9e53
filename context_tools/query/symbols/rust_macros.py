"""Where a Rust `#[macro_export]` macro is named: at its crate's root, whatever module defines
it (`demo::bail!`, `use demo::bail;` for src/macros.rs's `macro_rules! bail`), as rustc
places it. The attribute is no part of the definition's facts: it is read from the lines
above the macro's."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from indexer.lang.bindings import Scopes
    from indexer.model import Symbol
    from indexer.store.snapshot import Snapshot

# how many lines above a macro its attributes and doc comments are read over, at most
_ABOVE = 200


def exported_at(snap: Snapshot, scopes: Scopes, path: str, sym: Symbol) -> str | None:
    """The root file of the crate a `#[macro_export]` macro of the file at `path` is named at
    (src/lib.rs), None for another definition, a macro not so marked, or one no crate reaches
    (a macro in a function's body is not exported: its container says so)."""
    if sym.kind != "macro" or sym.container or not path.endswith(".rs") or not _marked(snap, path, sym.line):
        return None
    return scopes.crate_root(path)


def _marked(snap: Snapshot, path: str, line: int) -> bool:
    """Is the macro on `line` (1-based) under a `#[macro_export]` among the attributes and doc
    comments right above it?"""
    lines = snap.blob_bytes(path).splitlines()
    for i in range(line - 2, max(-1, line - 2 - _ABOVE), -1):
        text = lines[i].strip() if i < len(lines) else b""
        if text.startswith(b"#[macro_export"):
            return True
        if not (text.startswith((b"#[", b"//")) or (text.endswith(b"]") and not text.endswith(b"[]"))):
            return False
    return False
