"""An HTTP proxy written for the tests: a real threaded socket server on 127.0.0.1 that tunnels
CONNECT and forwards plain absolute-URI requests, as a site's proxy would, recording what it saw.

It is the proxy that looks a name up: `names` maps a host to the address the proxy connects to
(the tests' trackers are all on 127.0.0.1 under names of rennet.test), any other host is
connected to as written. Each request's head is kept in `seen` (its line and headers), and every
byte a client sent it, tunnelled ones included, in `heard`: what a proxy could read. With
`stall`, it reads a CONNECT and never answers it.
"""

from __future__ import annotations

import select
import socket
import threading
from dataclasses import dataclass, field

from tests.fakes.loopback import read_head, serve_each


@dataclass
class Seen:
    line: str
    headers: dict[str, str]


@dataclass
class FakeProxy:
    names: dict[str, str] = field(default_factory=dict)
    stall: bool = False
    seen: list[Seen] = field(default_factory=list)
    heard: bytearray = field(default_factory=bytearray)
    listener: socket.socket | None = None
    stopped: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, userinfo: str = "") -> str:
        assert self.listener is not None
        port = self.listener.getsockname()[1]
        return f"http://{userinfo + '@' if userinfo else ''}127.0.0.1:{port}"

    def start(self) -> "FakeProxy":
        self.listener = serve_each(self._serve)
        return self

    def stop(self) -> None:
        self.stopped.set()
        if self.listener is not None:
            self.listener.close()

    def _hear(self, data: bytes) -> None:
        with self._lock:
            self.heard += data

    def _serve(self, client: socket.socket) -> None:
        with client:
            try:
                received = read_head(client, self._hear)
            except OSError:
                return
            if received is None:
                return
            head, _, rest = received.partition(b"\r\n\r\n")
            line, *lines = head.decode("latin-1").split("\r\n")
            headers = dict(h.split(":", 1) for h in lines if ":" in h)
            self.seen.append(Seen(line, {k.strip().lower(): v.strip() for k, v in headers.items()}))
            method, target, _version = (line.split(" ") + ["", "", ""])[:3]
            if method == "CONNECT":
                self._tunnel(client, target)
            else:
                self._forward(client, method, target, headers, rest)

    def _connect(self, hostport: str) -> socket.socket:
        host, _, port = hostport.rpartition(":")
        return socket.create_connection((self.names.get(host, host.strip("[]")), int(port)), timeout=10)

    def _tunnel(self, client: socket.socket, target: str) -> None:
        if self.stall:
            self.stopped.wait(60)
            return
        try:
            upstream = self._connect(target)
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        with upstream:
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self._relay(client, upstream)

    def _forward(self, client: socket.socket, method: str, target: str, headers: dict[str, str],
                 rest: bytes) -> None:
        """A plain request names its absolute URI: sent on to that host as an origin request."""
        scheme, _, after = target.partition("://")
        hostport, slash, path = after.partition("/")
        if scheme != "http" or not hostport:
            client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            return
        try:
            upstream = self._connect(hostport if ":" in hostport.rsplit("]", 1)[-1] else hostport + ":80")
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        lines = [f"{method} {slash}{path} HTTP/1.1"]
        lines += [f"{k}:{v}" for k, v in headers.items() if k.strip().lower() != "proxy-authorization"]
        with upstream:
            upstream.sendall("\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + rest)
            self._relay(client, upstream)

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        """Both ways until either side closes (or the proxy stops)."""
        pair = {client: upstream, upstream: client}
        while not self.stopped.is_set():
            ready, _, _ = select.select(list(pair), [], [], 0.2)
            for sock in ready:
                try:
                    data = sock.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                if sock is client:
                    self._hear(data)
                try:
                    pair[sock].sendall(data)
                except OSError:
                    return
