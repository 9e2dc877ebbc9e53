"""One exchange over HTTP with a deadline, a size cap and typed failures; the answer's JSON
is decoded by its reader (`delta.dossier.answers`), into the fields it reads.

Failures come back as `TrackerFailure(code, message)` with a code of `timeout`,
`unauthorized`, `not_found`, `tracker_unavailable`, `malformed_response` or `insecure_url`.

Where a token may travel: only over https, or plain http to a loopback address (tests,
a tracker on this machine); any other URL is refused before a connection is made. A
redirect is followed only to a URL that passes the same rule, and carries the token only when
it stays on the same origin (scheme, host and port). Where a redirect may lead is decided by
the address each connection is made to, not by the URL: a request a redirect chose goes no
nearer (`reach.Reach`: this machine, a private network, the internet) than every connection
before it in the exchange, so a name that resolves to 127.0.0.1 or 10.0.0.1, or resolves
elsewhere when checked and here when connected, cannot carry a remote tracker's request to
this machine or its network. Through a proxy of the environment (`https_proxy`, `no_proxy`, as
urllib reads them) the token travels only inside TLS past the proxy: a URL naming this machine
goes to no proxy, plain http never does, and the proxy's credentials go only to the proxy
(`_Proxies`). Messages are composed here from the status and host only, never
from an exception's text or a response body (either may echo the request URL or headers), and
the caller's secret is scrubbed from them once more before they leave.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from delta.dossier.reach import WHERE, Reach, address_reach, spelled_loopback, spelled_reach
from indexer.contract.memory_limit import start_thread

MAX_RESPONSE_BYTES = 8 * 1024 * 1024
# No exchange waits longer, whatever its caller asks: a timer, a socket and a lookup each
# refuse a wait past what the platform's clocks hold, and a dossier's budget is far below it.
MAX_SECONDS = 3600.0


class TrackerFailure(Exception):
    def __init__(self, code: str, message: str, tracker: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.tracker = tracker  # the tracker it is of, where the one failing knows it better than its caller


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "[redacted]") if secret else text


def host_of(url: str) -> str:
    """The host[:port] of a URL, without user info, path or query."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or "?"
    return f"{host}:{parts.port}" if parts.port else host


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_url(url: str, tracker: str) -> None:
    """Refuse (`insecure_url`) a URL a token must not be sent to: anything but https, or http to
    a loopback address."""
    parts = urllib.parse.urlsplit(url)
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if host and (scheme == "https" or (scheme == "http" and is_loopback(host))):
        return
    shown = f"{scheme}://{host}" if scheme else "a URL without a scheme"
    raise TrackerFailure("insecure_url", f"{tracker}: {shown} refused: a token travels only over https "
                                         f"(plain http only to a loopback address)")


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"https": 443, "http": 80}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default


class _Route:
    """Where one exchange's connections went, and so how near a redirect may still lead it.

    The first request is the user's and may go anywhere. Each connection made directly records
    the reach of the address it was made to; a request a redirect chose may then connect only to
    an address no nearer than the farthest of those, checked on the very address connected to
    (no second lookup to race). Through a proxy the proxy looks the name up and connects, so only
    the URL's spelling can be checked there, and a name counts as the internet."""

    def __init__(self, tracker: str, url: str, secret: str | None) -> None:
        self.tracker = tracker
        self.secret = secret
        self.first: urllib.request.Request | None = None
        self.origin = urllib.parse.urlsplit(url).hostname or ""
        self.reached: Reach | None = None  # the farthest reach connected to so far

    @property
    def farthest(self) -> Reach:
        """How far the exchange has been; before any connection, what the origin's URL spells."""
        if self.reached is not None:
            return self.reached
        spelled = spelled_reach(self.origin)
        return Reach.INTERNET if spelled is None else spelled

    def went(self, reach: Reach) -> None:
        self.reached = reach if self.reached is None else max(self.reached, reach)

    def admits(self, reach: Reach, redirected: bool) -> bool:
        return not redirected or reach >= self.farthest

    def refusal(self, host: str, address: str, reach: Reach) -> TrackerFailure:
        shown = host if host == address else f"{host} ({address})"
        return _fail("insecure_url", f"{self.tracker}: a redirect to {shown} {WHERE[reach]} refused: a tracker "
                                     f"{WHERE[self.farthest]} may not send a request there", self.secret)


class _Redirects(urllib.request.HTTPRedirectHandler):
    """urllib's redirects, with the URL rule checked on every hop and the token kept only on
    the origin it was configured for (urllib drops an unredirected header on every hop)."""

    def __init__(self, tracker: str, auth: str | None, route: _Route | None = None) -> None:
        self.tracker = tracker
        self.auth = auth
        self.route = route

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        newurl = urllib.parse.urljoin(req.full_url, newurl)
        check_url(newurl, self.tracker)
        # an address written in the URL is refused here, before any lookup; a name is checked
        # on the address it is connected at (`_Deadline.connect`)
        route = self.route if self.route is not None else _Route(self.tracker, req.full_url, None)
        to = urllib.parse.urlsplit(newurl).hostname or ""
        spelled = spelled_reach(to)
        if spelled is not None and not route.admits(spelled, redirected=True):
            raise route.refusal(to, to, spelled)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            # urllib copies a request's headers onto the redirected one, the proxy's credentials
            # (`ProxyHandler` adds them as a header) among them: sent directly (`no_proxy`), the new
            # request would hand them to its host. `_Proxies` adds them again if it goes through.
            for name in [name for name in new.headers if name.lower() == "proxy-authorization"]:
                del new.headers[name]
            if self.auth and _origin(newurl) == _origin(req.full_url):
                new.add_unredirected_header("Authorization", self.auth)
        # urllib reads a redirect's body whole before following it, however long it runs:
        # closed here, it reads as empty
        fp.close()
        return new


class _Proxies(urllib.request.ProxyHandler):
    """The proxies of the environment (`https_proxy`, `http_proxy`, `no_proxy`, as urllib reads
    them), less what must not go through one, whatever `no_proxy` says. A URL naming this machine
    (`reach.spelled_loopback`) is connected to directly: the proxy's loopback is not this
    machine's, and a plain-http tracker here would have its token sent in clear to the proxy.
    Plain http goes through no proxy at all: `check_url` lets it only to this machine, and any
    other plain-http request reaching here is refused rather than sent in clear. Through the proxy,
    https is tunnelled: the CONNECT carries the host and port and the proxy's own credentials
    (from the proxy URL's user info), never the token, which travels inside TLS."""

    def __init__(self, tracker: str, secret: str | None) -> None:
        super().__init__()
        self.tracker = tracker
        self.secret = secret

    def proxy_open(self, req, proxy, type):
        host = urllib.parse.urlsplit(req.full_url).hostname or ""
        if spelled_loopback(host):
            return None  # the next handler connects directly
        if req.type == "http":
            raise _fail("insecure_url", f"{self.tracker}: http://{host} refused: plain http goes through no "
                                        f"proxy (a token travels in clear only to this machine)", self.secret)
        return super().proxy_open(req, proxy, type)


class _Deadline:
    """Ends an exchange's connections when its time is spent. A socket timeout bounds each
    read (or one TLS handshake), not their sum: a server sending a byte at a time would
    otherwise hold the exchange for as long as it likes, in a proxy's answer to CONNECT, its
    headers, a chunk's size line or the body, and each step of setting up a connection would
    get the whole timeout afresh. So every connection is made here (`connect`), its name looked
    up and its connect given only the time left, and watched from the moment its socket exists:
    at the deadline a timer shuts it down, whichever step holds it."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._end = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        start_thread(self._timer)  # under a `ulimit -v`, refused rather than a start waited on for good

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def watch(self, sock: socket.socket) -> None:
        # A duplicate of the socket, not the object: TLS takes the object's descriptor over
        # (detaching the object) while it shakes hands, and a shutdown through the duplicate
        # still ends the one connection both name.
        twin = sock.dup()
        with self._lock:
            self._sockets.append(twin)
            if self.expired:
                self._shut(twin)

    def connect(self, address: tuple[str, int], timeout: object = None,
                source_address: tuple[str, int] | None = None, *, route: _Route | None = None,
                redirected: bool = False, **_: object) -> socket.socket:
        """`socket.create_connection` within the deadline: http.client's hook for making a
        connection, before any TLS handshake or proxy tunnel is set up on it. With a `route`, an
        address it does not admit is skipped before anything is sent to it, and when it admits
        none of the name's addresses the connection is refused (`insecure_url`)."""
        host, port = address
        error: OSError | None = None
        refused: tuple[str, Reach] | None = None
        for family, kind, proto, _name, addr in self._resolve(host, port):
            reach = address_reach(str(addr[0]))
            if route is not None and not route.admits(reach, redirected):
                refused = refused or (str(addr[0]), reach)
                continue
            left = self.remaining()
            if left <= 0 or self.expired:
                break
            sock = socket.socket(family, kind, proto)
            try:
                self.watch(sock)
                sock.settimeout(left)  # the connect, and each later read, within what is left
                if source_address:
                    sock.bind(source_address)
                sock.connect(addr)
            except OSError as exc:
                error = exc
                sock.close()
                continue
            if route is not None:
                route.went(reach)
            return sock
        if route is not None and refused is not None and not self.expired:
            raise route.refusal(host, *refused)
        if error is None or self.remaining() <= 0 or self.expired:
            raise TimeoutError("the deadline passed while connecting")
        raise error

    def _resolve(self, host: str, port: int) -> list[tuple]:
        """The addresses of `host`, looked up in a thread so a slow resolver costs no more than
        the time left (the lookup itself cannot be interrupted; its thread ends on its own)."""
        found: list[list[tuple]] = []
        failed: list[OSError] = []

        def look() -> None:
            try:
                found.append(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
            except OSError as exc:
                failed.append(exc)

        lookup = threading.Thread(target=look, daemon=True)
        start_thread(lookup)
        lookup.join(max(0.0, self.remaining()))
        if failed:
            raise failed[0]
        if not found:
            raise TimeoutError("the deadline passed while looking up the name")
        if not found[0]:
            raise OSError(f"no address for {host}")
        return found[0]

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        # below TLS: a blocked read (of the handshake too) returns at once, whoever holds it
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # not connected yet, or closed already

    def cancel(self) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


class _Watched:
    """A handler whose connections `_Deadline` makes and watches from the moment they exist, each
    admitted by the exchange's `_Route`."""

    deadline: _Deadline
    route: _Route

    def do_open(self, http_class, req, **kwargs):
        deadline, route = self.deadline, self.route
        redirected = req is not route.first
        if req.has_proxy() or getattr(req, "_tunnel_host", None):
            # the proxy is the user's and connects for us: only the URL's spelling can be checked
            # (`_Redirects`), and a name counts as the internet for the hops after it (a URL naming
            # this machine never gets here: `_Proxies`)
            spelled = spelled_reach(urllib.parse.urlsplit(req.full_url).hostname or "")
            route.went(Reach.INTERNET if spelled is None else spelled)
            checked = None
        else:
            checked = route

        def connection(host, **args):
            conn = http_class(host, **args)

            def connect(address, timeout=None, source_address=None, **more):
                return deadline.connect(address, timeout, source_address, route=checked, redirected=redirected)

            conn._create_connection = connect  # TCP connect; TLS and tunnels come after
            return conn

        return super().do_open(connection, req, **kwargs)  # type: ignore[misc]


class _HTTP(_Watched, urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline, route: _Route) -> None:
        super().__init__()
        self.deadline = deadline
        self.route = route


class _HTTPS(_Watched, urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline, route: _Route) -> None:
        super().__init__()
        self.deadline = deadline
        self.route = route


def _fail(code: str, message: str, secret: str | None) -> TrackerFailure:
    return TrackerFailure(code, redact(message, secret))


def _status_failure(status: int, who: str, secret: str | None) -> TrackerFailure:
    if status in (401, 403):
        return _fail("unauthorized", f"{who} refused the credentials (HTTP {status})", secret)
    if status in (404, 410):
        return _fail("not_found", f"{who} has no such issue (HTTP {status})", secret)
    return _fail("tracker_unavailable", f"{who} answered HTTP {status}", secret)


def exchange(method: str, url: str, *, auth: str | None, body: object = None, timeout: float,
             tracker: str, secret: str | None, accept: tuple[int, ...] = ()) -> tuple[int, bytes]:
    """Send `body` as JSON (if given), return (status, body) of a 2xx answer, or of an answer
    whose status is in `accept` (GraphQL servers explain errors in a 400 body), the body at most
    MAX_RESPONSE_BYTES.

    `auth` is the Authorization header value, sent only where `check_url` allows and never
    across a redirect to another origin. The whole exchange, from the first name lookup,
    connect and TLS handshake to the last byte, must finish within `timeout` seconds.
    """
    who = f"{tracker} at {host_of(url)}"
    check_url(url, tracker)
    timeout = min(timeout, MAX_SECONDS) if timeout > 0 else 0.0  # NaN, zero or less: spent at once
    deadline = time.monotonic() + timeout
    data = json.dumps(body).encode() if body is not None else None
    try:
        req = urllib.request.Request(url, data=data, method=method)
    except ValueError:
        raise _fail("missing_config", f"{tracker}: base_url is not a usable URL", secret) from None
    req.add_header("Accept", "application/json")
    req.add_header("User-Agent", "rennet-context-dossier")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if auth:
        req.add_unredirected_header("Authorization", auth)
    route = _Route(tracker, url, secret)
    route.first = req
    chunks: list[bytes] = []

    def read_all(resp: http.client.HTTPResponse | urllib.error.HTTPError) -> None:
        size = 0
        while True:
            if time.monotonic() > deadline:
                raise timed_out()
            chunk = resp.read(65536)
            if not chunk:
                # read(n) reports a connection closed before Content-Length as a plain end
                if getattr(getattr(resp, "fp", resp), "length", None) or getattr(resp, "length", None):
                    raise _fail("tracker_unavailable", f"{who} closed the connection mid-answer", secret)
                return
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise _fail("malformed_response", f"{who} sent more than {MAX_RESPONSE_BYTES} bytes", secret)
            chunks.append(chunk)

    def send() -> int:
        try:
            opener = urllib.request.build_opener(_Proxies(tracker, secret), _Redirects(tracker, auth, route),
                                                 _HTTP(watch, route), _HTTPS(watch, route))
            with opener.open(req, timeout=timeout) as resp:
                read_all(resp)
                return resp.status
        except urllib.error.HTTPError as exc:
            try:
                if exc.code not in accept:
                    raise _status_failure(exc.code, who, secret) from None
                read_all(exc)
                return exc.code
            finally:
                exc.close()

    def timed_out() -> TrackerFailure:
        return _fail("timeout", f"{who} did not answer within {timeout:g}s", secret)

    watch = _Deadline(timeout)
    try:
        status = send()
    except TrackerFailure as failure:
        if watch.expired and failure.code == "tracker_unavailable":  # the deadline cut it short
            raise timed_out() from None
        raise
    except urllib.error.URLError as exc:
        if watch.expired or isinstance(exc.reason, (TimeoutError, socket.timeout)):
            raise timed_out() from None
        raise _fail("tracker_unavailable", f"{who} is unreachable", secret) from None
    except TimeoutError:
        raise timed_out() from None
    except (http.client.HTTPException, ConnectionError, OSError):
        if watch.expired:
            raise timed_out() from None
        raise _fail("tracker_unavailable", f"{who} dropped the connection", secret) from None
    finally:
        watch.cancel()
    if watch.expired or time.monotonic() > deadline:
        raise timed_out()
    if not 200 <= status < 300 and status not in accept:
        raise _status_failure(status, who, secret)
    return status, b"".join(chunks)
