"""The HTTP face's guard: what a request must carry before the MCP app sees it.

1. `Host` names the address the server is bound to (any loopback address, IPv6 in any
   spelling, compared as addresses, with the bound port), or `localhost` when bound to
   127.0.0.1 or ::1: a page that rebinds its own DNS name to the loopback address sends its
   own name and is refused (421).
2. `Origin`, when sent, is that same address over http: a page of any other origin is
   refused (403).
3. `Authorization: Bearer <token>` with the server's token: anything else is 401.
4. A POST body is framed as on stdio (`context_tools.faces.mcp_stdio.check_line`): over 4 MiB
   nested deeper than 64 levels or holding over 65,536 arrays and objects, not JSON, or not a
   JSON-RPC message, it is answered here with its JSON-RPC error (-32600, -32700) and status
   400, before the SDK parses it again on the event loop.
5. `Mcp-Session-Id`, when sent, names a session the server issued and has not closed
   (`http_sessions.Issued`): any other is answered 404 with JSON-RPC error -32600, as the MCP
   spec asks of an unknown or expired session, before a body is read or a place taken, so a
   client cannot name sessions of its own to hold more than one session's share below.
6. A request whose id reads, as text, as that of a request of its session still in flight (5
   again, or 5 and "5") is answered 409 with JSON-RPC error -32600: the SDK routes a
   session's answers by that text, and the first request's answer went nowhere. A request
   whose client hung up before its answer keeps its id until the server is done with it.
7. At most `in_flight.MAX_REQUESTS` POSTs (and `MAX_BYTES` of their bodies) are held at once,
   from the first byte of the body read to the last of the answer sent (or, its client gone,
   to the end of the call the SDK's server runs on: `in_flight.Taken`); of those at most
   `SESSION_REQUESTS` (and `SESSION_BYTES`) with one `Mcp-Session-Id`, and `UNNAMED_REQUESTS`
   with none. One past a bound is answered 503 (`Retry-After`), so clients that send and stall
   cannot make the server hold their bodies without end, nor one session take every place. A
   POST past a bound is first read in a small room of its own (`in_flight.answer_room`) while
   there is room: an answer to the server's request or a notification goes on from there.
8. A connection sends a request's headers within HEADER_SECONDS of opening (or of the first
   byte of a request after an answer), and a POST its body within BODY_SECONDS, else it is
   closed (408 for a body): uvicorn waits for either without end, so connections that
   trickle a byte at a time, or send nothing, were kept open for good (`HeaderDeadline`). A
   connection idle after an answer is kept KEEP_ALIVE_SECONDS, longer than clients keep one.
   An answer that starts before the request's body has all come closes the connection, so a
   refused body is never read on (`_closing_unread`).
9. Told to stop (a Ctrl-C, SIGTERM, SIGHUP), the server tells its calls in flight to stop, as
   a cancel does (an index answers `interrupted`), and answers 503 to any request that reaches
   it after that (`Guard.stop`); uvicorn stops accepting connections and closes idle ones. A
   client's answer to the server's own request is a POST too: a call waiting on one (the
   client's roots) answers `interrupted` at once (`call_stops.CallStops.waiting_on_client`). The
   requests it had begun to serve get their answers if they end within SHUTDOWN_SECONDS
   (`--stop-grace`); once none is in flight the sessions' own streams are ended and the server
   leaves, at the grace's end at the latest (`bounded_shutdown_server`).
10. uvicorn writes a warning to stderr for each connection that sends no HTTP, and any local
   process may open such connections without the token: each such warning is written at most
   once a minute, how many were held back said at the minute's end or the server's (`Summarized`).

The token is generated at start and printed once to stderr, or read from the environment
variable `--token-env` names.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator, Literal
from urllib.parse import urlsplit

from context_tools.faces.http_sessions import Issued
from context_tools.faces.in_flight import TAKEN_KEY, Shared, Taken, answer_room

if TYPE_CHECKING:  # uvicorn, starlette and the SDK load with the server, not with this module
    import socket
    from types import FrameType

    import uvicorn
    from mcp_types import RequestId
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Idle HTTP sessions: an abandoned session is closed after this many seconds without a
# request, and at most this many live at once (a new one beyond is refused).
SESSION_IDLE_SECONDS = 10 * 60
MAX_SESSIONS = 256
# A request's headers, from the connection opening (or a next request's first byte) to their blank line,
# and a POST's body, from its first byte to its last: a loopback client sends either at once.
HEADER_SECONDS = 30.0
# A kept-alive connection idle after an answer is closed after this many seconds: longer than
# clients keep one idle (Node's fetch, Go's net/http), as a request a client sends while the
# server closes the connection is cut, and clients do not send a POST again.
KEEP_ALIVE_SECONDS = 120.0
# Connections open at once: a session's event stream and its requests in flight need far fewer,
# while a process opening idle ones could otherwise spend every file descriptor the server has
MAX_CONNECTIONS = 512
BODY_SECONDS = 60.0
# After a Ctrl-C, SIGTERM or SIGHUP, how long calls in flight may still take (`--stop-grace`,
# which a service manager stopping the server with its own timeout may want shorter or longer).
SHUTDOWN_SECONDS = 5.0
MAX_STOP_GRACE = 3600.0
MCP_PATH = "/mcp"  # where the SDK's app answers
# A warning uvicorn writes (one per malformed connection) is written at most once this often
WARNING_SECONDS = 60.0


class Summarized(logging.Filter):
    """Lets each warning through at most once every `seconds`, and says how many were held back
    since: on the next one let through, or at the end of their `seconds`, or at `flush`,
    whichever comes first; errors always pass. A warning is known by the line of code that
    logged it, not its text, so what is kept per warning stays bounded.

    The end of the `seconds` is a timer on the event loop the warning was logged from (uvicorn
    logs from its loop), not a thread of its own; a warning logged off any loop is told on the
    next one or at `flush`."""

    def __init__(self, seconds: float = WARNING_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.seconds = seconds
        self.clock = clock
        self.shown: dict[tuple[str, int], _Shown] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or getattr(record, _TOLD, False):
            return True
        now = self.clock()
        where = (record.pathname, record.lineno)
        last = self.shown.get(where)
        if last is not None and now - last.when < self.seconds:
            last.held += 1
            if last.held == 1:
                self._told_at_end(where, last)
            return False
        self.shown[where] = _Shown(now, record.name, record.getMessage())
        if last is not None and last.held:
            record.msg = f"{record.msg} ({last.held} more like it in the {now - last.when:.0f} s before, not shown)"
        return True

    def flush(self) -> None:
        """Say now how many of each warning were held back: the server is ending."""
        for where in list(self.shown):
            self._tell(where, self.shown[where])

    def _told_at_end(self, where: tuple[str, int], shown: _Shown) -> None:
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop.call_later(max(0.0, shown.when + self.seconds - self.clock()), self._tell, where, shown)

    def _tell(self, where: tuple[str, int], shown: _Shown) -> None:
        # a timer of a minute whose count was told already, with the next warning, finds it gone
        if self.shown.get(where) is not shown or not shown.held:
            return
        now = self.clock()
        told = logging.makeLogRecord({"name": shown.logger, "levelno": logging.WARNING, "levelname": "WARNING",
                                      "pathname": where[0], "lineno": where[1], _TOLD: True,
                                      "msg": f"{shown.message} ({shown.held} more like it in the "
                                             f"{now - shown.when:.0f} s after the last one shown, not shown)"})
        self.shown[where] = _Shown(now, shown.logger, shown.message)  # the count told is this minute's line
        logging.getLogger(shown.logger).handle(told)


@dataclass
class _Shown:
    """A warning's last line written: when, by which logger, its text; how many held back since."""
    when: float
    logger: str
    message: str
    held: int = 0


# Marks the line that tells a count, which the filter lets through
_TOLD = "rennet_held_back_told"


def summarize_warnings(seconds: float = WARNING_SECONDS) -> Summarized:
    """uvicorn's warnings (`uvicorn.error`), from now on, each written at most once every
    `seconds` (`Summarized`); called once uvicorn's Config has set its logging up. The filter,
    to be flushed at the server's end."""
    summary = Summarized(seconds)
    logging.getLogger("uvicorn.error").addFilter(summary)
    return summary


def new_token() -> str:
    return secrets.token_urlsafe(32)


def _split_host(value: str) -> tuple[str, str]:
    """(host, port) of a Host header value: `127.0.0.2:8765`, `[::1]:8765`, `localhost`."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return "", ""
        host, rest = value[1:end], value[end + 1:]
        return host, rest[1:] if rest.startswith(":") else ""
    host, _, port = value.partition(":")
    return host, port


class Guard:
    """ASGI middleware in front of the MCP app; lifespan and other scopes pass through."""

    def __init__(self, app: ASGIApp, bind_host: str, port: int, token: str, body_seconds: float = BODY_SECONDS,
                 mcp_path: str = MCP_PATH) -> None:
        self.app = app
        self.mcp_path = mcp_path  # where the SDK's app answers MCP (`streamable_http_path`)
        self.body_seconds = body_seconds
        self.port = str(port)
        self.address = ipaddress.ip_address(bind_host) if bind_host != "localhost" else ipaddress.ip_address("127.0.0.1")
        self.localhost_ok = self.address in (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))
        self.token = token.encode()
        self.held = Shared()  # POSTs from their body's first byte to their answer's last
        self.answers = answer_room()  # POSTs past that bound, read to learn whether they are requests
        self.routes: set[tuple[str, str]] = set()  # (session, id as text) of the requests in flight
        # the SDK keeps MAX_SESSIONS live; past that, ids it dropped unseen wait here until idle
        self.sessions = Issued(SESSION_IDLE_SECONDS, 2 * MAX_SESSIONS)
        self.stopped_by: int | None = None  # the signal that told the server to stop
        self.calls = 0  # requests being served, but for the sessions' own streams (GETs)

    def stop(self, sig: int) -> None:
        """The server is told to stop by `sig`: a request that reaches the guard from now on is
        refused; those it serves already go on."""
        self.stopped_by = sig

    def idle(self) -> bool:
        """Is no request in flight but the sessions' own streams, which live until they are ended?"""
        return self.calls == 0

    def host_ok(self, value: str) -> bool:
        host, port = _split_host(value.strip().lower())
        if port != self.port:
            return False
        if host == "localhost":
            return self.localhost_ok
        try:
            return ipaddress.ip_address(host) == self.address
        except ValueError:
            return False

    def origin_ok(self, value: str) -> bool:
        try:
            parts = urlsplit(value.strip())
        except ValueError:
            return False
        return parts.scheme == "http" and not parts.path.strip("/") and self.host_ok(parts.netloc)

    def token_ok(self, value: str) -> bool:
        scheme, _, given = value.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.stopped_by is not None:
            import signal

            # Only a request that came with the signal gets here: uvicorn then accepts no more
            # connections and closes those kept alive between requests.
            await _json_rpc_error(send, 503, None, SERVER_BUSY,
                                  f"Service Unavailable: the server is stopping ({signal.Signals(self.stopped_by).name}) "
                                  "and takes no new request; send it again once the server is back",
                                  [(b"connection", b"close")])
            return
        call = scope.get("method") != "GET"
        if call:
            self.calls += 1
        try:
            await self._checked(scope, *_closing_unread(scope, receive, send))
        finally:
            if call:
                self.calls -= 1

    async def _checked(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if not self.host_ok(headers.get("host", "")):
            await _refuse(send, 421, "Invalid Host header: this server answers only at its own loopback address")
        elif "origin" in headers and not self.origin_ok(headers["origin"]):
            await _refuse(send, 403, "Invalid Origin header: requests from web pages of other origins are refused")
        elif not self.token_ok(headers.get("authorization", "")):
            await _refuse(send, 401, "Unauthorized: send the server's token as `Authorization: Bearer <token>`",
                          [(b"www-authenticate", b'Bearer realm="rennet"')])
        elif sum(k.lower() == b"mcp-session-id" for k, _ in scope.get("headers", [])) > 1:
            # the SDK reads the first, this guard the last: two could set one session's place
            # against another's, so a request naming more than one is none of theirs
            from context_tools.faces.mcp_stdio import INVALID_REQUEST

            await _json_rpc_error(send, 400, None, INVALID_REQUEST,
                                  "Bad Request: more than one Mcp-Session-Id header; send the one session's id once")
        elif "mcp-session-id" not in headers:
            await self._unnamed(scope, receive, send)
        elif not self.sessions.live(session := headers["mcp-session-id"]):
            from context_tools.faces.mcp_stdio import INVALID_REQUEST

            await _json_rpc_error(send, 404, None, INVALID_REQUEST,
                                  "Session not found: this server did not issue that Mcp-Session-Id, or the session "
                                  "has closed; send an initialize without one to open a new session")
        else:
            await self._named(scope, receive, send, session)

    async def _route(self, scope: Scope, receive: Receive, send: Send, session: str | None) -> None:
        if scope.get("method") == "POST":
            await self._checked_post(scope, receive, send, session)
        else:
            await self.app(scope, receive, send)

    async def _unnamed(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request of no session: the id the server gives in its answer (to an initialize) is
        issued from then on, recorded before the client can read it."""
        issued: list[str] = []

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                for key, value in message.get("headers", []):
                    if key.lower() == b"mcp-session-id" and not issued:
                        issued.append(value.decode("latin-1"))
                        self.sessions.issue(issued[0])
            await send(message)

        try:
            await self._route(scope, receive, watched, None)
        finally:
            if issued:
                self.sessions.end(issued[0])

    async def _named(self, scope: Scope, receive: Receive, send: Send, session: str) -> None:
        """A request of a session the server issued, which it holds open while in flight; one
        deleting it closes it, and so does the SDK's 404 at the MCP path: the SDK has dropped
        the session unseen here (its server task failed), and asks the client for a new one."""
        delete = scope.get("method") == "DELETE"
        at_mcp = scope.get("path") == self.mcp_path

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and (
                    (delete and message["status"] < 400) or (at_mcp and message["status"] == 404)):
                self.sessions.close(session)
            await send(message)

        self.sessions.begin(session)
        try:
            await self._route(scope, receive, watched, session)
        finally:
            self.sessions.end(session)

    async def _checked_post(self, scope: Scope, receive: Receive, send: Send, session: str | None) -> None:
        """A POST is held within the in-flight bounds, its body framed as on stdio: bounded,
        depth-scanned, and answered with its JSON-RPC error (-32700, -32600) here when it is
        not a request the server can take."""
        past = self.held.past(session, 0)
        pool = self.held
        if past is not None:
            # An answer the client owes the server (its roots) or a notification (a cancel) frees
            # places rather than takes one: a client whose calls hold its share must still be able
            # to send them. Past the bound a POST is read in a small room of its own, and is
            # refused there if it is a request.
            if self.answers.past(session, 0) is not None:
                await _busy(send, self.held, session, past)
                return
            pool = self.answers
        key = object()
        pool.take(session, key, 0)
        try:
            await self._framed_post(scope, receive, send, session, key, pool, past)
        finally:
            pool.done(session, key)

    async def _framed_post(self, scope: Scope, receive: Receive, send: Send, session: str | None, key: object,
                           pool: Shared, refused: Literal["all", "session"] | None) -> None:
        import json

        import anyio
        import mcp_types as types

        from context_tools.faces.mcp_stdio import INVALID_REQUEST, MAX_LINE_BYTES, check_line

        body = bytearray()
        more = True
        with anyio.move_on_after(self.body_seconds):
            while more:
                event = await receive()
                if event["type"] != "http.request":
                    return  # the client went away
                chunk = event.get("body", b"")
                body.extend(chunk)
                pool.grow(session, key, len(chunk))
                past = pool.over(session)
                if past is not None:
                    await _busy(send, pool, session, past)
                    return
                more = event.get("more_body", False)
                if len(body) > MAX_LINE_BYTES:
                    break
        if more and len(body) <= MAX_LINE_BYTES:  # the deadline came first
            await _json_rpc_error(send, 408, None, INVALID_REQUEST,
                                  f"Request Timeout: the body was not sent within {self.body_seconds:g} seconds",
                                  [(b"connection", b"close")])
            return
        message, error = check_line(bytes(body))
        if error is not None:
            await _json_rpc_error(send, 400, *error)
            return
        if refused is not None and isinstance(message, types.JSONRPCRequest):
            await _busy(send, self.held, session, refused)
            return
        replayed = False
        taken = Taken()
        scope = {**scope, TAKEN_KEY: taken}  # the server's handlers mark it (`in_flight.held_to_its_end`)
        answered = False
        routed: tuple[str, str] | None = None  # (session, id as text) of a request the SDK routes by id

        async def answering(event: Message) -> None:
            nonlocal answered
            if event["type"] == "http.response.body" and not event.get("more_body", False):
                answered = True
                # free before the answer's last bytes go out: a client that reads it may send the
                # id again at once, before this coroutine runs on
                if routed is not None:
                    self.routes.discard(routed)
            await send(event)

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        # The SDK routes a session's answers by the text of their request's id: a second
        # request whose id reads the same while the first is in flight (5 and "5", distinct in
        # JSON-RPC, or 5 again) took the first one's route, which then waited for good.
        rid = message.id if isinstance(message, types.JSONRPCRequest) else None
        if session is not None and rid is not None:
            routed = (session, str(rid))
            if routed in self.routes:
                shown = json.dumps(rid)[:80]
                await _json_rpc_error(send, 409, rid, INVALID_REQUEST,
                                      f"Invalid Request: a request of this session whose id reads {shown} is in "
                                      "flight; the server tells a session's requests apart by their id's text: send "
                                      "another id")
                return
            self.routes.add(routed)
        try:
            await self.app(scope, replay, answering)
            if not answered:
                # The client left (or the SDK closed its stream) before the answer: the call runs
                # on, and keeps its place and its id until it ends. Its answer is then routed, to
                # no stream, before a new request's body can have been read and routed there.
                await taken.settled()
        finally:
            if routed is not None:
                self.routes.discard(routed)


def _closing_unread(scope: Scope, receive: Receive, send: Send) -> tuple[Receive, Send]:
    """`receive` and `send` for a request whose answer, when it starts before the request's body
    has all come, says `connection: close`: uvicorn then reads no more of that connection. Kept
    alive, it read on to the body's end, or of an endless chunked body until the header deadline,
    on the event loop every session shares."""
    declared = {k.lower(): v for k, v in scope.get("headers", [])}
    came = b"transfer-encoding" not in declared and declared.get(b"content-length", b"0").strip() == b"0"

    async def receiving() -> Message:
        nonlocal came
        event = await receive()
        if event["type"] != "http.request" or not event.get("more_body", False):
            came = True
        return event

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and not came:
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
            message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await send(message)

    return receiving, sending


async def _json_rpc_error(send: Send, status: int, rid: RequestId | None, code: int, text: str,
                          extra: list[tuple[bytes, bytes]] | None = None) -> None:
    import json

    reply = json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": text}}).encode()
    await _respond(send, status, b"application/json", reply, extra)


SERVER_BUSY = -32000  # JSON-RPC's range for a server's own errors


async def _busy(send: Send, held: Shared, session: str | None, past: Literal["all", "session"]) -> None:
    if past == "all":
        text = (f"Server busy: {held.all.count} requests ({held.all.bytes} bytes) are in flight, the most it "
                "holds at once; retry when one is answered")
    else:
        part = held.part(session)
        who, most = ("this session has", "one session") if session is not None else ("requests of no session have",
                                                                                   "they")
        text = (f"Server busy: {who} {part.count} requests ({part.bytes} bytes) in flight, the most {most} may "
                "hold at once while others are served; retry when one is answered")
    await _json_rpc_error(send, 503, None, SERVER_BUSY, text, [(b"retry-after", b"1")])


async def _refuse(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    await _respond(send, status, b"text/plain; charset=utf-8", text.encode(), extra)


async def _respond(send: Send, status: int, content_type: bytes, body: bytes,
                   extra: list[tuple[bytes, bytes]] | None) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


_TOO_MANY_TEXT = (f"Server busy: {MAX_CONNECTIONS} connections are open, the most it keeps; retry when one "
                  f"closes\n").encode()
_TOO_MANY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: "
             + str(len(_TOO_MANY_TEXT)).encode() + b"\r\nconnection: close\r\nretry-after: 1\r\n\r\n" + _TOO_MANY_TEXT)


def header_deadline_protocol(seconds: float = HEADER_SECONDS, idle: float = KEEP_ALIVE_SECONDS) -> type:
    """uvicorn's HTTP/1.1 protocol, closing a connection that has not sent a whole request's
    headers `seconds` after it opened or after its next request's first byte, or has sent
    nothing `idle` seconds after its last answer. uvicorn itself arms no timer until a first
    answer, and disarms its keep-alive timer at any byte received."""
    import asyncio

    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _waiting: object = None  # the request cycle current when the deadline was armed
        _resting = False  # armed after an answer, no byte of a next request come yet

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.server_state.connections) > MAX_CONNECTIONS:
                transport.write(_TOO_MANY)
                transport.close()
                return
            self._arm(seconds)

        def _arm(self, after: float) -> None:
            self._disarm()
            self._waiting = self.cycle
            self._resting = False
            self._deadline = self.loop.call_later(after, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            # no request came since the deadline was armed, and none is being answered
            idle = self.cycle is self._waiting and (self.cycle is None or self.cycle.response_complete)
            if idle and not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is not self._waiting:  # a whole request's headers came
                self._disarm()
            elif self._resting and self._deadline is not None:  # a next request began: its headers are due
                self._arm(seconds)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm(idle)
                self._resting = True

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderDeadline


def bounded_shutdown_server(config: uvicorn.Config, idle: Callable[[], bool], grace: float = SHUTDOWN_SECONDS,
                            on_stop: Callable[[int], None] | None = None,
                            ending: Callable[[], None] | None = None) -> uvicorn.Server:
    """A uvicorn server that, told to stop (SIGINT, SIGTERM, SIGHUP), tells `on_stop` (which
    sets the stop event of each call in flight, `call_stops.CallStops`: an index ends at its
    next report, answering `interrupted`, and has the guard refuse new requests), lets calls
    in flight finish and answer for up to `grace` seconds, and leaves once `idle()` (no call in
    flight) and the sessions' streams are ended, or at the grace's end. uvicorn waits for calls
    without end, and a call runs in a thread no cancel reaches: a server stopped during an
    index stayed up until it ended. It leaves as a shell reports the signal, with the server's
    words (`leave_server`): a Ctrl-C says so and exits 130 (as the CLI does), SIGHUP says it and
    exits 129, SIGTERM exits 143 without a word. What was stored stays: every write is a
    whole transaction or none. `ending()` is called as the server begins to shut down and once
    it has, before it leaves (the count of warnings held back, `Summarized.flush`).

    sse_starlette, which sends the SDK's answers to POSTs and the sessions' GET streams, ends
    every stream once it sees the server stopping: an answer that came later than its next
    look, half a second at most, went nowhere. It is told to leave them to the server, which
    ends them itself once no call is in flight (`AppStatus.should_exit`, which it polls)."""
    import asyncio
    import contextlib
    import signal

    import uvicorn
    from sse_starlette.sse import AppStatus

    from context_tools.faces.standard_streams import STOPS, leave_after, leave_server

    AppStatus.disable_automatic_graceful_drain()

    async def end_streams_once_idle() -> None:
        while not idle():
            await asyncio.sleep(_IDLE_POLL_SECONDS)
        AppStatus.should_exit = True

    class BoundedShutdown(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # uvicorn's own takes SIGINT and SIGTERM only (SIGHUP ended the server at once, no
            # word, status -1), and at the end raises what it took again, for the handler it
            # replaced: the one this server leaves by, below, whichever it was
            taken = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, *STOPS)}
            try:
                yield
            finally:
                for sig, handler in taken.items():
                    signal.signal(sig, handler)
            if self._captured_signals:
                leave_server(self._captured_signals[0])

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            # uvicorn waits here for every connection to close, a session's stream too
            streams_ended = asyncio.ensure_future(end_streams_once_idle())
            if ending is not None:
                ending()  # before the wait, which the grace's end may cut short by leaving
            try:
                await super().shutdown(sockets)
            finally:
                streams_ended.cancel()
                if ending is not None:
                    ending()

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if not self.should_exit:
                if on_stop is not None:
                    on_stop(sig)
                leave_after(grace, lambda: leave_server(sig))
            super().handle_exit(sig, frame)

    return BoundedShutdown(config)


# How often a stopping server looks whether its last call in flight has ended.
_IDLE_POLL_SECONDS = 0.05
