"""The MCP roots a client declares, asked once a session and kept until it says they changed.

Declared roots only narrow the server's own (`context_tools.faces.roots`), so they are asked
before every call that names a path; keeping them per session spares each call a round trip
to the client. A client on the handshake protocol declares them; from protocol 2026-07-28 a
server has no back-channel to ask, and such a client declares none. A call waiting on them
once the client's answer can no longer reach the server (stdio's input ended, the HTTP face
stopping) ends there, answering `interrupted` (`call_stops.CallStops.waiting_on_client`).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from context_tools.faces.roots import file_uri_path

if TYPE_CHECKING:  # the SDK loads with the server, not with this module
    from mcp.server.connection import Connection
    from mcp.server.context import ServerRequestContext

# Roots a client declares that are read: each path a call names is resolved against every one,
# so a client answering with a hundred thousand would choose seconds of work a call.
MAX_DECLARED_ROOTS = 64
# How long a client has to list its roots; one that does not answer declared none usable.
LIST_SECONDS = 10


class DeclaredRoots:
    """Each session's declared roots, asked on first need. A `roots/list_changed` notification
    forgets them; an answer asked before that notification is not kept after it."""

    def __init__(self) -> None:
        self._kept: weakref.WeakKeyDictionary[Connection, tuple[str, ...]] = weakref.WeakKeyDictionary()
        self._changes: weakref.WeakKeyDictionary[Connection, int] = weakref.WeakKeyDictionary()

    async def of(self, ctx: ServerRequestContext) -> tuple[str, ...]:
        """The local folders the client of `ctx` declared; none when it declares no roots
        capability or does not answer."""
        connection = _connection(ctx)
        if connection is None:  # nothing to keep them by: asked every call
            return await _listed(ctx)
        kept = self._kept.get(connection)
        if kept is not None:
            return kept
        changes = self._changes.get(connection, 0)
        found = await _listed(ctx)
        if self._changes.get(connection, 0) == changes:
            self._kept[connection] = found
        return found

    def changed(self, ctx: ServerRequestContext) -> None:
        connection = _connection(ctx)
        if connection is not None:
            self._kept.pop(connection, None)
            self._changes[connection] = self._changes.get(connection, 0) + 1


def _connection(ctx: ServerRequestContext) -> Connection | None:
    """The client connection a request came on: the SDK makes a session object per request, and
    keeps the connection, which lives as long as the client, on it."""
    return getattr(ctx.session, "_connection", None)


async def _listed(ctx: ServerRequestContext) -> tuple[str, ...]:
    import warnings

    import anyio
    import mcp_types as types
    from mcp.shared.message import ServerMessageMetadata

    session = ctx.session
    caps = getattr(session, "client_capabilities", None)
    if caps is None or getattr(caps, "roots", None) is None:
        return ()
    # Asked on the stream of the call that needs them: over HTTP, a request sent apart from any
    # call goes to the session's GET stream, which a client need not open, and waited unanswered.
    related = ServerMessageMetadata(related_request_id=ctx.request_id)
    try:
        with warnings.catch_warnings(), anyio.fail_after(LIST_SECONDS):
            warnings.simplefilter("ignore")
            listed = await session.send_request(types.ListRootsRequest(), types.ListRootsResult, metadata=related)
    except Exception:  # a client that cannot answer (no back-channel on 2026-07-28+) declared nothing usable
        return ()
    found = (file_uri_path(str(root.uri)) for root in listed.roots[:MAX_DECLARED_ROOTS])
    return tuple(path for path in found if path)
