"""The stop events of an MCP server's calls in flight, so that a server told to stop (SIGTERM,
SIGHUP, a Ctrl-C over HTTP) tells each call as a client's cancel does.

A call's index ends at its next report of progress once its event is set
(`mcp_progress.CallProgress`). Told to stop, the HTTP server gives calls in flight a grace
(`mcp_http.SHUTDOWN_SECONDS`): an index that ran on would be cut at its end, its answer lost,
and a signal sent to the server's whole group ends the index's workers, so the call answered
`worker_lost` as though one had crashed. Each call ends instead with `interrupted`, saying the
server is stopping, within the grace; what was stored stays whole.

`stop_all` runs in a signal's handler, on the thread that runs the event loop, where `begin`
and `end` run too: no lock is taken, so none can be held by the code the handler interrupts.
"""

from __future__ import annotations

import signal
import threading

from indexer.contract.errors import Interrupted

# What a call ended by the server's stop may have answered instead: its own stop (`cancelled`),
# or the workers a signal to the group ended (`worker_lost`, or the pool's failure to start).
_STOP_CODES = frozenset({"cancelled", "worker_lost", "internal_error"})


class CallStops:
    def __init__(self) -> None:
        self._live: set[threading.Event] = set()
        self.signal: int | None = None  # set once the server is told to stop

    def begin(self) -> threading.Event:
        """A new call's stop event, already set when the server is stopping."""
        stop = threading.Event()
        self._live.add(stop)
        if self.signal is not None:
            stop.set()
        return stop

    def end(self, stop: threading.Event) -> None:
        self._live.discard(stop)

    def stop_all(self, sig: int) -> None:
        """The server is told to stop by `sig`: every call in flight is told, and every call to come."""
        self.signal = sig
        for stop in list(self._live):
            stop.set()

    def interrupted(self, code: str | None) -> Interrupted | None:
        """The error a call answers in place of its failure `code`, when the server's stop caused it."""
        if self.signal is None or code not in _STOP_CODES:
            return None
        return Interrupted(f"the server is stopping ({signal.Signals(self.signal).name}): this call stopped where "
                           "it was; what was stored stays whole: call again once the server is back")
