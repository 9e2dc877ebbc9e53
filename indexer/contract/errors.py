"""Typed errors. A caller routes on `code`, never on the message wording."""

from __future__ import annotations


class RennetError(Exception):
    """An expected failure with a typed code and a one-line message for the user."""

    code = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __reduce__(self):
        # pickled across processes (the facts writer's answers, a batch worker's) with its code
        return type(self), (self.message, self.code)


class NotARepository(RennetError):
    code = "not_a_repository"


class UnknownRev(RennetError):
    code = "unknown_rev"


class EmptyRepository(RennetError):
    code = "empty_repository"


class MissingObjects(RennetError):
    code = "missing_objects"


class BadTree(RennetError):
    """A tree object of the commit names a file in a way git refuses (twice, out of order,
    `.`, `..`, empty, holding a `/`, read as `.git`, past the path cap), or the tree holds
    more files or folders than a snapshot holds: the snapshot could not name each file once,
    or would name the repository's own folder, so the commit is refused whole, before
    anything is stored."""

    code = "bad_tree"


class TooLarge(RennetError):
    """The commit's files together define more than a snapshot holds: git stores a file once
    however many paths hold it, so a repository of kilobytes can name millions of
    definitions. Refused before its snapshot is assembled; nothing stored is lost."""

    code = "too_large"


class StoreLocked(RennetError):
    code = "store_locked"


class StoreError(RennetError):
    code = "store_error"


class StoreFull(RennetError):
    """The device holding the store has no space left (or the store's file may not grow):
    nothing stored was lost, and the same command succeeds once space is freed."""

    code = "store_full"


class SchemaMismatch(RennetError):
    code = "schema_mismatch"


class NotIndexed(RennetError):
    code = "not_indexed"


class NotFound(RennetError):
    code = "not_found"


class BadInput(RennetError):
    code = "bad_input"


class Busy(RennetError):
    """Another indexer held the store's write lock for longer than a read waits; retry later."""

    code = "busy"


class SnapshotLeft(Busy):
    """A snapshot left the store while a call read it: a `store gc` dropped it once nothing held
    it (its rev indexed again at another commit), or a partial snapshot gave way to the complete
    one. Nothing is damaged: asked again, the call reads what its rev names now."""


class Cancelled(RennetError):
    """The caller withdrew the call (an MCP client's `notifications/cancelled`): its index
    stopped at the next point it reports progress; what was stored stays whole."""

    code = "cancelled"


class Interrupted(RennetError):
    """The server was told to stop (SIGTERM, SIGHUP, a Ctrl-C) while the call ran: its index
    stopped at the next point it reports progress; what was stored stays whole."""

    code = "interrupted"


class OutOfMemory(RennetError):
    """The address-space limit set on this process (`ulimit -v`) is too small for what the
    command had to load or build: a limit the user chose, not a bug; nothing stored was lost."""

    code = "out_of_memory"
