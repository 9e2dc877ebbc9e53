"""The stop events of an MCP server's calls in flight, so that a server told to stop (SIGTERM,
SIGHUP, a Ctrl-C over HTTP; over stdio, the end of its input) tells each call as a client's
cancel does.

A call's index ends at its next report of progress once its event is set
(`mcp_progress.CallProgress`). Told to stop, the HTTP server gives calls in flight a grace
(`mcp_http.SHUTDOWN_SECONDS`): an index that ran on would be cut at its end, its answer lost,
and a signal sent to the server's whole group ends the index's workers, so the call answered
`worker_lost` as though one had crashed. Each call ends instead with `interrupted`, saying the
server is stopping, within the grace; what was stored stays whole. A stdio server whose
client closed its input (the MCP spec's way to end one) ends its calls so too, its answers
still written to a client that reads them.

A call may also wait on its client: for the roots it declares (`declared_roots`), whose answer
the client sends as a message of its own. Once the server takes no new request (the HTTP face
stopping: a new connection is refused, a new POST 503) or reads no more (the end of stdio's
input), that answer cannot reach it, so such a wait ends there and the call answers
`interrupted` at once, rather than waiting out the grace or the roots' deadline unanswered.

`stop_all` runs in a signal's handler, on the thread that runs the event loop, where `begin`
and `end` run too: no lock is taken, so none can be held by the code the handler interrupts,
and a wait on the client is ended by a callback the loop runs next, not from the handler.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from indexer.contract.errors import Interrupted

if TYPE_CHECKING:  # anyio loads with the server, not with this module
    import asyncio

    import anyio

# What a call ended by the server's stop may have answered instead: its own stop (`cancelled`),
# or the workers a signal to the group ended (`worker_lost`, or the pool's failure to start).
_STOP_CODES = frozenset({"cancelled", "worker_lost", "internal_error"})
_AFTER_STOP = "this call stopped where it was; what was stored stays whole: call again once the server is back"


class CallStops:
    def __init__(self) -> None:
        self._live: set[threading.Event] = set()
        self._waits: set[tuple[asyncio.AbstractEventLoop, anyio.CancelScope]] = set()
        self.ending: str | None = None  # why the server ends, once it does
        self.deaf: str | None = None  # why the client's messages reach the server no more, once they do not

    def begin(self) -> threading.Event:
        """A new call's stop event, already set when the server is ending."""
        stop = threading.Event()
        self._live.add(stop)
        if self.ending is not None:
            stop.set()
        return stop

    def end(self, stop: threading.Event) -> None:
        self._live.discard(stop)

    def stop_all(self, sig: int) -> None:
        """The server is told to stop by `sig`: every call in flight is told, and every call to come;
        over HTTP it takes no new request, the client's answers to its own among them."""
        self.end_all(f"the server is stopping ({signal.Signals(sig).name})")

    def end_all(self, why: str) -> None:
        """The server ends, for `why`, and hears its client no more: every call in flight is told,
        as a cancel tells it, and every call to come."""
        self.ending = why
        for stop in list(self._live):
            stop.set()
        self.unheard(why)

    def unheard(self, why: str) -> None:
        """The client's messages reach the server no more, for `why`: each wait on its answer
        ends, and every wait to come ends at its first await."""
        self.deaf = why
        for loop, scope in list(self._waits):
            loop.call_soon_threadsafe(scope.cancel)

    @contextmanager
    def waiting_on_client(self) -> Iterator[anyio.CancelScope]:
        """A scope for a wait on the client's answer, cancelled once that answer cannot come
        (`unheard`); its `cancelled_caught` says the wait was ended so."""
        import asyncio

        import anyio

        with anyio.CancelScope() as scope:
            if self.deaf is not None:
                scope.cancel()
            wait = (asyncio.get_running_loop(), scope)
            self._waits.add(wait)
            try:
                yield scope
            finally:
                self._waits.discard(wait)

    def unanswered(self) -> Interrupted:
        """The error of a call whose wait on its client was ended (`waiting_on_client`): it ran nothing."""
        return Interrupted(f"{self.deaf or 'the server is stopping'}: this call was waiting for the client's roots "
                           "(roots/list), whose answer can no longer reach the server, and ran nothing: call again "
                           "once the server is back")

    def interrupted(self, code: str | None) -> Interrupted | None:
        """The error a call answers in place of its failure `code`, when the server's end caused it."""
        if self.ending is None or code not in _STOP_CODES:
            return None
        return Interrupted(f"{self.ending}: {_AFTER_STOP}")
