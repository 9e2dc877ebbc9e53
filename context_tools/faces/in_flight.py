"""What a client may have in flight on an MCP face: requests handed to the server and not yet
answered, counted and weighed by the bytes they came in.

The SDK's server starts a task for every request it reads, and a task holds its arguments until
its answer is sent. A client that sends without reading its answers (or faster than calls are
answered) would otherwise make the server hold every request it ever sent. On stdio a request
past the bound waits, read, in a small room (`ROOM_REQUESTS`, `ROOM_BYTES`) while the reader
reads on for answers and notifications, and the reader stops once that room is full too. Over
HTTP a request past it is answered 503, before its body is read unless there is room to read
it as one that may be an answer or a notification, which free places (`answer_room`). Over
HTTP, where clients share one server, each session is held to a share of the bound (`Shared`),
so a session that sends without end is refused while the others are still taken; a session is
one the server issued, as the guard checks before a request is counted (`http_sessions.Issued`).
A request handed to the server stays counted until the server is done with it, whether its
client waits for the answer or hangs up (`Taken`).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Generic, Hashable, Literal, TypeVar

if TYPE_CHECKING:  # the SDK loads with the server, not with this module
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

T = TypeVar("T")

MAX_REQUESTS = 64  # calls run 8 at a time (`mcp.CONCURRENT_CALLS`): the rest wait their turn
MAX_BYTES = 64 * 1024 * 1024  # sixteen requests at the 4 MiB a message may hold
# What one HTTP session (`Mcp-Session-Id`) may hold of those: eight calls running and as many
# waiting, at most four of the largest messages.
SESSION_REQUESTS = MAX_REQUESTS // 4
SESSION_BYTES = MAX_BYTES // 4
# What requests of no session may hold together: an `initialize`, and every request of the
# 2026 protocol, which has no sessions, so all its clients share this part.
UNNAMED_REQUESTS = MAX_REQUESTS // 2
UNNAMED_BYTES = MAX_BYTES // 2
# Over HTTP, POSTs past those bounds that may yet be answers or notifications (`answer_room`):
# a few a session, and a quarter of the whole bound in all. On stdio, the requests read past
# the bound while the reader reads on for those.
ROOM_REQUESTS = MAX_REQUESTS // 4
ROOM_BYTES = MAX_BYTES // 4
ROOM_SESSION = (4, MAX_BYTES // 16)


class InFlight:
    """Requests taken and not answered: how many and their bytes, by request id (a client may
    reuse an id, so each id holds the sizes of every request taken under it)."""

    def __init__(self, requests: int = MAX_REQUESTS, max_bytes: int = MAX_BYTES) -> None:
        self.requests = requests
        self.max_bytes = max_bytes
        self.count = 0
        self.bytes = 0
        self._sizes: dict[Hashable, list[int]] = {}

    def fits(self, size: int) -> bool:
        """May one more request of `size` bytes be taken? One always may when none is in flight,
        whatever its size (a message is bounded where it is read)."""
        return self.count == 0 or (self.count < self.requests and self.bytes + size <= self.max_bytes)

    def holds(self, key: Hashable) -> bool:
        """Is a request taken under `key` still unanswered?"""
        return key in self._sizes

    def take(self, key: Hashable, size: int) -> None:
        self._sizes.setdefault(key, []).append(size)
        self.count += 1
        self.bytes += size

    def grow(self, key: Hashable, size: int) -> None:
        """The newest request taken under `key` grew by `size` bytes (a body read in chunks)."""
        self._sizes[key][-1] += size
        self.bytes += size

    def over(self) -> bool:
        """Past the bound: more bytes in flight than it allows, held by more than one request."""
        return self.count > 1 and self.bytes > self.max_bytes

    def done(self, key: Hashable) -> None:
        """The request `key` names was answered, or cancelled (no answer follows); the oldest
        taken under that id is released. An id none was taken under releases nothing."""
        sizes = self._sizes.get(key)
        if not sizes:
            return
        size = sizes.pop(0)
        if not sizes:
            del self._sizes[key]
        self.count -= 1
        self.bytes -= size


class Admission(Generic[T]):
    """The requests a stdio reader has read, on their way to the server: those handed over and
    not answered (`pending`, within the bound of all in flight), and those read past that bound,
    waiting their turn in a room of their own (`held`). Requests reach the server in the order
    they came; one cancelled while it waits never does."""

    def __init__(self, pending: InFlight | None = None, held: InFlight | None = None) -> None:
        self.pending = pending if pending is not None else InFlight()
        self.held = held if held is not None else InFlight(ROOM_REQUESTS, ROOM_BYTES)
        self._waiting: deque[tuple[Hashable, int, T]] = deque()

    def room_for(self, size: int) -> bool:
        """May a request of `size` bytes be taken now, handed over or held? Past both bounds
        the reader reads no more until answers go out."""
        return (not self._waiting and self.pending.fits(size)) or self.held.fits(size)

    def arrive(self, key: Hashable, size: int, item: T) -> bool:
        """Takes a request there is room for: True when it is handed over now (the caller sends
        it), False when it waits its turn (`next`)."""
        if not self._waiting and self.pending.fits(size):
            self.pending.take(key, size)
            return True
        self.held.take(key, size)
        self._waiting.append((key, size, item))
        return False

    def next(self) -> T | None:
        """The oldest request waiting, now handed over, if it fits among those in flight."""
        if not self._waiting or not self.pending.fits(self._waiting[0][1]):
            return None
        key, size, item = self._waiting.popleft()
        self.held.done(key)
        self.pending.take(key, size)
        return item

    def answered(self, key: Hashable) -> None:
        self.pending.done(key)

    def cancel(self, key: Hashable) -> None:
        """The client cancelled the request `key` names, which gets no answer: the oldest under
        it in flight is let go, else the oldest waiting is dropped, never to be handed over."""
        if self.pending.holds(key):
            self.pending.done(key)
            return
        for at, (waiting_key, _, _) in enumerate(self._waiting):
            if waiting_key == key:
                del self._waiting[at]
                self.held.done(key)
                return

    @property
    def waiting(self) -> bool:
        return bool(self._waiting)

    @property
    def idle(self) -> bool:
        """No request waits nor awaits its answer."""
        return not self._waiting and self.pending.count == 0


class Shared:
    """Requests taken and not answered over HTTP, by the session each was sent in (None for a
    request of no session): within the bound of all, and each session within its share."""

    def __init__(self, requests: int = MAX_REQUESTS, max_bytes: int = MAX_BYTES,
                 session: tuple[int, int] = (SESSION_REQUESTS, SESSION_BYTES),
                 unnamed: tuple[int, int] = (UNNAMED_REQUESTS, UNNAMED_BYTES)) -> None:
        self.all = InFlight(requests, max_bytes)
        self.shares = session, unnamed  # (requests, bytes) of a session, and of no session
        self.sessions: dict[str | None, InFlight] = {}  # only those holding a request

    def part(self, session: str | None) -> InFlight:
        """What `session` holds, within its share (none held: an empty part, not kept)."""
        part = self.sessions.get(session)
        return part if part is not None else InFlight(*self.shares[session is None])

    def past(self, session: str | None, size: int) -> Literal["all", "session"] | None:
        """Which bound one more request of `session`, of `size` bytes, would be past, or None."""
        if not self.all.fits(size):
            return "all"
        return None if self.part(session).fits(size) else "session"

    def take(self, session: str | None, key: Hashable, size: int) -> None:
        self.all.take((session, key), size)  # a key is a session's own: another may use it too
        self.sessions[session] = part = self.part(session)
        part.take(key, size)

    def grow(self, session: str | None, key: Hashable, size: int) -> None:
        self.all.grow((session, key), size)
        self.sessions[session].grow(key, size)

    def over(self, session: str | None) -> Literal["all", "session"] | None:
        """Which bound the bytes held are past, or None."""
        if self.all.over():
            return "all"
        return "session" if self.part(session).over() else None

    def done(self, session: str | None, key: Hashable) -> None:
        """The request `key` names, taken in `session`, was answered or let go."""
        self.all.done((session, key))
        part = self.sessions.get(session)
        if part is not None:
            part.done(key)
            if part.count == 0:
                del self.sessions[session]


def answer_room() -> Shared:
    """Where the HTTP guard reads a POST that came past the bounds of the requests in flight: an
    answer the client owes the server or a notification is handed over from there, a request
    refused. Its own bounds keep what is read there small."""
    return Shared(ROOM_REQUESTS, ROOM_BYTES, session=ROOM_SESSION, unnamed=ROOM_SESSION)


# Where the HTTP guard puts a request's `Taken` in the ASGI scope it hands the SDK; the SDK
# keeps that scope on the request context its handlers get (`ctx.request.scope`).
TAKEN_KEY = "rennet.taken"
# How long a request whose client left may take to reach the server's handlers: it was handed
# over whole, so it is on its way; one never taken up (the SDK refused it) holds no longer.
TAKE_SECONDS = 5.0


class Taken:
    """A request the HTTP guard handed to the SDK, as the server's handlers see it: taken up,
    then done. A client that leaves before its answer does not end the call, which runs on:
    the guard holds the request's place and its id until the call is done (`settled`), so a
    client that sends and hangs up cannot have more calls running than its share, nor reuse
    the id and be sent the old call's answer."""

    def __init__(self) -> None:
        import anyio

        self.begun = anyio.Event()
        self.done = anyio.Event()

    async def settled(self) -> None:
        """Until the handler the request started has ended; at once if it never started."""
        import anyio

        with anyio.move_on_after(TAKE_SECONDS):
            await self.begun.wait()
        if self.begun.is_set():
            await self.done.wait()


async def held_to_its_end(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Server middleware: marks the guard's `Taken` of an HTTP request begun and done around
    whatever the server does with it (a request of no guard, on stdio, has none)."""
    taken = getattr(getattr(ctx, "request", None), "scope", {}).get(TAKEN_KEY)
    if not isinstance(taken, Taken):
        return await call_next(ctx)
    taken.begun.set()
    try:
        return await call_next(ctx)
    finally:
        taken.done.set()
