"""The HTTP sessions the server issued and has not closed, as the guard in front of the MCP app
sees them: a session id is the server's to give, in the `Mcp-Session-Id` header of its answer
to an `initialize` sent with none, so a request naming any other is answered 404 before the
guard counts it against a session's share of the requests in flight (`in_flight.Shared`).

The SDK's session manager keeps its own table of live sessions, but privately: the guard keeps
this one from what passes through it. A session ends in the SDK when its client deletes it
(seen here), when it has had no request in flight for its idle timeout (kept here alike, from
stamps taken after the SDK's own, so it never ends here first), or when its server task fails
(not seen as it happens: the guard closes the id here on the SDK's 404 to its next request).
"""

from __future__ import annotations

import time
from typing import Callable


class _Held:
    __slots__ = ("requests", "since")

    def __init__(self, since: float) -> None:
        self.requests = 1  # the request that opened it is in flight
        self.since = since  # when its last request ended


class Issued:
    """Session ids issued and not closed, each with its requests in flight and when the last
    ended; one idle `idle_seconds` is closed. At most `most` are kept: the SDK keeps fewer live
    at once, so past that some kept here are gone there, and the one idle longest goes."""

    def __init__(self, idle_seconds: float, most: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_seconds = idle_seconds
        self.most = most
        self.clock = clock
        self._held: dict[str, _Held] = {}

    def __len__(self) -> int:
        return len(self._held)

    def issue(self, session: str) -> None:
        """The server gave `session` in answer to the request that opened it, still in flight."""
        now = self.clock()
        for gone in [s for s, held in self._held.items() if self._idle(held, now)]:
            del self._held[gone]
        if session not in self._held and len(self._held) >= self.most:
            idle = [(held.since, s) for s, held in self._held.items() if not held.requests]
            if idle:
                del self._held[min(idle)[1]]
        self._held[session] = _Held(now)

    def live(self, session: str) -> bool:
        """Was `session` issued, and is it not closed?"""
        held = self._held.get(session)
        if held is not None and self._idle(held, self.clock()):
            del self._held[session]
            return False
        return held is not None

    def begin(self, session: str) -> None:
        """A request naming the live `session` is in flight (it holds the session open)."""
        self._held[session].requests += 1

    def end(self, session: str) -> None:
        """A request naming `session`, or the one that opened it, was answered or let go."""
        held = self._held.get(session)
        if held is not None:
            held.requests -= 1
            held.since = self.clock()

    def close(self, session: str) -> None:
        """Its client deleted `session`."""
        self._held.pop(session, None)

    def _idle(self, held: _Held, now: float) -> bool:
        return not held.requests and now - held.since > self.idle_seconds
