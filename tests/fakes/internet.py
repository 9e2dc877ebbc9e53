"""The world a test cannot reach, faked: the resolver (names under rennet.test answer what a test
says) and the routing of a few addresses off this machine (a connection to one of
`Internet.forwarded` lands on the loopback server of the same port, as if that host served it).
No connection leaves this machine: one to any other address off it is refused. The client
trusts the test CA, and no proxy of the environment is used unless a test sets one."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable
from typing import Any

from delta.dossier.reach import Reach, address_reach
from tests.fakes.trackers import TEST_CA

PROXY_VARIABLES = ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY",
                   "no_proxy", "NO_PROXY")


class Internet:
    """The resolver and routes of the test's world: `names` maps a host name to its addresses
    (or to a function giving them at each lookup); a connection to an address in `forwarded`
    reaches 127.0.0.1 at the same port; `connected` lists every address connected to."""

    def __init__(self) -> None:
        self.names: dict[str, list[str] | Callable[[], list[str]]] = {}
        self.forwarded: set[str] = set()
        self.connected: list[str] = []


def fake_internet(monkeypatch: Any) -> Internet:
    world = Internet()
    real_lookup = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name in world.names:
            given = world.names[name]
            addresses = given() if callable(given) else given
            return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "",
                     (a, int(port), 0, 0) if ":" in a else (a, int(port))) for a in addresses]
        if name.endswith("rennet.test"):
            raise socket.gaierror(socket.EAI_NONAME, "unknown name")
        return real_lookup(host, port, *args, **kwargs)

    class Routed(socket.socket):
        def connect(self, address):  # type: ignore[override]
            world.connected.append(address[0])
            if address[0] in world.forwarded:
                return super().connect(("127.0.0.1", address[1]))
            if address_reach(address[0]) != Reach.MACHINE:
                raise ConnectionRefusedError("no route off this machine in the tests")
            return super().connect(address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "socket", Routed)
    # the client trusts the test CA: the trust store is the edge too
    monkeypatch.setattr(ssl, "_create_default_https_context", lambda: ssl.create_default_context(cafile=TEST_CA))
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return world
