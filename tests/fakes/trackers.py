"""Tracker servers written for the tests: a Jira REST server and a Linear GraphQL server,
each a real stdlib HTTP server on 127.0.0.1 with an ephemeral port, in a thread.

Each server holds a table of behaviours per issue key: an issue to serve (200), or
"401", "403", "404", "410", "500", "malformed", "slow", "truncated" (Content-Length promised,
connection closed early), "moved:KEY" (a 301 to the same path for another key). Error bodies echo the Authorization header they received, so
a client that copied a response body into a message would leak the token. Every request
is recorded (path, key, whether it carried the expected credentials).

Given `tls` (an `ssl.SSLContext`, `tls_context()`), a server speaks https, and its `url` names it
by `name` (a host name the test's resolver answers) instead of its address. tls/ holds a test CA
and a certificate for rennet.test and *.rennet.test signed by it, valid from 2000 to 2125
(whatever a machine's clock says).
"""

from __future__ import annotations

import json
import ssl
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fakes.loopback import read_head, serve_each

TLS = Path(__file__).with_name("tls")
TEST_CA = TLS / "ca.pem"


def tls_context() -> ssl.SSLContext:
    """A server context holding the certificate of rennet.test and *.rennet.test."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(TLS / "tracker.pem", TLS / "tracker.key")
    return context


def _url(server: ThreadingHTTPServer, tls: ssl.SSLContext | None, name: str | None) -> str:
    host, port = server.server_address[:2]
    return f"{'https' if tls else 'http'}://{name or host}:{port}"


def _serve(server: ThreadingHTTPServer, tls: ssl.SSLContext | None) -> None:
    if tls is not None:
        # the handshake is made in the thread that handles the connection, not in accept
        server.socket = tls.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    server.daemon_threads = True
    # stop() waits for the loop to see its shutdown: polled often, so a test does not wait on it
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


@dataclass
class Hit:
    method: str
    path: str
    key: str
    authorization: str
    headers: dict[str, str] = field(default_factory=dict)  # every header, names in lower case


@dataclass
class FakeServer:
    token: str
    behaviours: dict[str, Any] = field(default_factory=dict)
    # a slow answer waits this long, or until stop(): a client that honours its timeout has
    # given up long before, which `slow_answered` lets a test check without a clock
    slow_seconds: float = 60.0
    slow_answered: int = 0
    released: threading.Event = field(default_factory=threading.Event)
    hits: list[Hit] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None
    auth_scheme: str = "Bearer"
    tls: ssl.SSLContext | None = None
    name: str | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return _url(self.server, self.tls, self.name)

    def hits_for(self, key: str) -> int:
        return sum(1 for h in self.hits if h.key == key)

    def expected_auth(self) -> str:
        return f"{self.auth_scheme} {self.token}" if self.auth_scheme else self.token

    # -- lifecycle --
    def start(self) -> "FakeServer":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                owner.handle(self, "GET", None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                owner.handle(self, "POST", self.rfile.read(length))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        _serve(self.server, self.tls)
        return self

    def stop(self) -> None:
        self.released.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    # -- protocol-specific parts --
    def key_of(self, method: str, path: str, body: bytes | None) -> str:
        raise NotImplementedError

    def ok_body(self, key: str, issue: dict[str, Any]) -> Any:
        raise NotImplementedError

    def not_found_body(self, key: str) -> tuple[int, Any]:
        return 404, {"errorMessages": [f"Issue {key} does not exist"]}

    def unauthorized_body(self, got: str) -> tuple[int, Any]:
        return 401, {"errorMessages": [f"credentials {got} rejected"]}

    def handle(self, req: BaseHTTPRequestHandler, method: str, body: bytes | None) -> None:
        auth = req.headers.get("Authorization") or ""
        key = self.key_of(method, req.path, body)
        self.hits.append(Hit(method, req.path, key, auth, {k.lower(): v for k, v in req.headers.items()}))
        behaviour = self.behaviours.get(key, "404")
        if isinstance(behaviour, str) and behaviour.startswith("moved:"):  # a redirect on this same origin
            req.send_response(301)
            req.send_header("Location", req.path.replace(key, behaviour.removeprefix("moved:")))
            req.send_header("Content-Length", "0")
            req.end_headers()
            return None
        if auth != self.expected_auth() or behaviour == "401":
            return self.send(req, *self.unauthorized_body(auth))
        if behaviour == "403":
            return self.send(req, 403, {"errorMessages": [f"forbidden for {auth}"]})
        if behaviour == "404":
            return self.send(req, *self.not_found_body(key))
        if behaviour == "410":
            return self.send(req, 410, {"errorMessages": [f"Issue {key} was deleted"]})
        if behaviour == "500":
            return self.send(req, 500, {"error": f"internal error while handling {auth} {req.path}"})
        if behaviour == "malformed":
            return self.send_raw(req, 200, b'{"fields": {"summary": "cut off', "application/json")
        if behaviour == "html":
            return self.send_raw(req, 200, b"<html>login page</html>", "text/html")
        if behaviour == "slow":
            self.released.wait(self.slow_seconds)
            self.slow_answered += 1
            return self.send(req, 200, self.ok_body(key, {"title": "late", "body": ""}))
        if behaviour == "truncated":
            req.send_response(200)
            req.send_header("Content-Type", "application/json")
            req.send_header("Content-Length", "1000")
            req.end_headers()
            req.wfile.write(b'{"partial": ')
            req.wfile.flush()
            req.close_connection = True
            return None
        return self.send(req, 200, self.ok_body(key, behaviour))

    def send(self, req: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
        self.send_raw(req, status, json.dumps(payload).encode(), "application/json")

    def send_raw(self, req: BaseHTTPRequestHandler, status: int, data: bytes, ctype: str) -> None:
        req.send_response(status)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        try:
            req.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


@dataclass
class FakeJira(FakeServer):
    """GET /rest/api/{2,3}/issue/{KEY}: `issue` dicts have title, body, state, comments, links; v3 wraps
    the description in Atlassian Document Format."""

    def key_of(self, method: str, path: str, body: bytes | None) -> str:
        tail = path.split("?", 1)[0]
        return tail.rsplit("/", 1)[-1] if "/rest/api/" in tail and "/issue/" in tail else ""

    def ok_body(self, key: str, issue: dict[str, Any]) -> Any:
        v3 = self.hits and "/rest/api/3/" in self.hits[-1].path
        description: Any = issue.get("body", "")
        if v3:
            description = {"type": "doc", "version": 1, "content": [
                {"type": "paragraph", "content": [{"type": "text", "text": line}]} for line in description.splitlines()]}
        answer = {
            "key": key,
            "fields": {
                "summary": issue.get("title", ""),
                "status": {"name": issue.get("state", "To Do")},
                "description": description,
                "comment": {"comments": [{"author": {"displayName": a}, "created": "2026-01-01T00:00:00.000+0000",
                                          "body": b} for a, b in issue.get("comments", [])]},
                "issuelinks": [{"outwardIssue": {"key": k}} for k in issue.get("links", [])],
            },
        }
        # as Jira answers: only the fields the request names, when it names any
        asked = urllib.parse.parse_qs(urllib.parse.urlsplit(self.hits[-1].path).query).get("fields")
        if asked:
            answer["fields"] = {k: v for k, v in answer["fields"].items() if k in asked[0].split(",")}
        return answer


@dataclass
class FakeLinear(FakeServer):
    """POST /graphql with {"query", "variables": {"id": KEY}}; answers in Linear's shapes:
    `data.issue`, `data.issue = null` with an `errors` entry for an unknown id, a 400 with an
    AUTHENTICATION_ERROR for bad credentials."""

    auth_scheme: str = ""

    def key_of(self, method: str, path: str, body: bytes | None) -> str:
        try:
            return str(json.loads(body or b"{}").get("variables", {}).get("id", ""))
        except (ValueError, AttributeError):
            return ""

    def not_found_body(self, key: str) -> tuple[int, Any]:
        return 200, {"data": {"issue": None}, "errors": [
            {"message": "Entity not found: Issue", "extensions": {"code": "ENTITY_NOT_FOUND", "type": "invalid input"}}]}

    def unauthorized_body(self, got: str) -> tuple[int, Any]:
        return 400, {"errors": [{"message": f"Authentication required, not authenticated ({got})",
                                 "extensions": {"code": "AUTHENTICATION_ERROR", "type": "authentication error"}}]}

    def ok_body(self, key: str, issue: dict[str, Any]) -> Any:
        team = key.split("-")[0].lower()
        return {"data": {"issue": {
            "identifier": key,
            "title": issue.get("title", ""),
            "description": issue.get("body", ""),
            "url": issue.get("url", f"https://linear.app/{team}/issue/{key}/slug"),
            "state": {"name": issue.get("state", "Todo")},
            "comments": {"nodes": [{"body": b, "createdAt": "2026-01-01T00:00:00.000Z", "user": {"name": a}}
                                   for a, b in issue.get("comments", [])]},
            "relations": {"nodes": [{"type": "related", "relatedIssue": {"identifier": k}}
                                    for k in issue.get("links", [])]},
        }}}


@dataclass
class Redirector:
    """A loopback server answering every request with `status` and a Location of `target` + the
    request path, recording the Authorization header each request carried."""

    target: str
    status: int = 302
    hits: list[Hit] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None
    tls: ssl.SSLContext | None = None
    name: str | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return _url(self.server, self.tls, self.name)

    def start(self) -> "Redirector":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                owner.hits.append(Hit("GET", self.path, "", self.headers.get("Authorization") or "",
                                      {k.lower(): v for k, v in self.headers.items()}))
                self.send_response(owner.status)
                self.send_header("Location", owner.target + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        _serve(self.server, self.tls)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


@dataclass
class Scripted:
    """A loopback TCP server that reads each request's head and hands the connection to
    `script(conn, request_line)`, which writes whatever bytes it likes, as slowly as it likes:
    for answers no well-behaved HTTP server gives. `sent` counts the bytes scripts wrote."""

    script: Any
    sent: int = 0
    requests: list[str] = field(default_factory=list)
    listener: Any = None

    @property
    def url(self) -> str:
        host, port = self.listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> "Scripted":
        self.listener = serve_each(self._serve)
        return self

    def _serve(self, conn: Any) -> None:
        with conn:
            try:
                head = read_head(conn)
                if head is None:
                    return
                line = head.split(b"\r\n", 1)[0].decode("latin-1")
                self.requests.append(line)
                self.script(self, conn, line)
            except OSError:
                pass

    def send(self, conn: Any, data: bytes) -> None:
        conn.sendall(data)
        self.sent += len(data)

    def stop(self) -> None:
        self.listener.close()
