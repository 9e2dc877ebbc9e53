"""Typed errors raised by the registry and its faces (beyond those in `indexer.contract.errors`)."""

from __future__ import annotations

from indexer.contract.errors import RennetError


class BadCursor(RennetError):
    code = "bad_cursor"


class UnknownCommand(RennetError):
    code = "unknown_command"


class Unavailable(RennetError):
    """The command cannot run here: `reason` is `not_implemented` or `surface_not_supported`;
    `available_on` names the surfaces that do run it."""

    code = "unavailable"

    def __init__(self, message: str, reason: str, available_on: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.reason = reason
        self.available_on = available_on


class InternalError(RennetError):
    code = "internal_error"


class RegistryError(RennetError):
    """A pack declared something the registry refuses (duplicate id, bad shape)."""

    code = "registry_error"


class Forbidden(RennetError):
    """A path outside the roots the server was given (or the client declared)."""

    code = "forbidden"


class OutputFailed(RennetError):
    """The answer could not be written to standard output (a full device, a quota, an I/O
    error): the command ran, its answer is lost."""

    code = "output_error"
