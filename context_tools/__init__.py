"""The command registry and its faces. The Python face:

    import context_tools
    result = context_tools.call("context.symbol", repo="path/to/repo", name="Flask.route")
    result.data, result.freshness, result.page

`call` returns the typed `Result` and raises the typed `RennetError` on failure (its `code`
says which: `not_a_repository`, `unknown_rev`, ...). `Client(store=DIR)` does the same against a
chosen store home.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from indexer.contract.errors import RennetError

if TYPE_CHECKING:
    from indexer.contract.result import Result

# RennetError is re-exported so a caller catches what `call` raises without knowing which module
# of the indexer defines it.
__all__ = ["call", "Client", "RennetError"]


class Client:
    """A Python face bound to one store home (default: `$RENNET_HOME` or `~/.rennet`)."""

    def __init__(self, store: str | None = None, ceiling: int | str | None = None) -> None:
        """`ceiling` (none by default in process): a size, bytes or e.g. "16k", as `rennet mcp --ceiling`."""
        from context_tools.faces.dispatch import Executor
        from context_tools.faces.spill import MAX_CEILING, MIN_CEILING
        from indexer.contract.sizes import parse_size

        limit = None if ceiling is None else parse_size(ceiling, what="ceiling", low=MIN_CEILING, high=MAX_CEILING)
        self._executor = Executor("python", store=store, ceiling=limit)

    def call(self, command_id: str, /, **input: object) -> Result:
        reply = self._executor.run(command_id, input)
        if reply.error is not None:
            raise reply.error
        assert reply.result is not None  # a reply holds its error or its result
        return reply.result

    def envelope(self, command_id: str, /, **input: object) -> dict[str, Any]:
        """The result contract as plain data (what `rennet call` prints)."""
        return self._executor.run(command_id, input).wire


_default: Client | None = None


def call(command_id: str, /, **input: object) -> Result:
    """Run a registered command in process; returns its typed `Result`."""
    global _default
    from context_tools.faces.context import default_home

    if _default is None or _default._executor.handle.home != default_home():
        _default = Client()  # follow a changed $RENNET_HOME
    return _default.call(command_id, **input)
