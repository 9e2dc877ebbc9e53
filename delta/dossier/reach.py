"""How near an address is: this machine, a private network, or the internet.

A request a tracker's redirect chose may not go nearer than where the tracker answered from:
a tracker on the internet cannot send a request to a service of this machine or of the site's
network (a local admin port, a cloud's metadata service at 169.254.169.254, an intranet host)
and have its answer read into a dossier that may be published. The user's own configured URL
may be anywhere. See `transport._Route`, which applies this to the address each connection
is actually made to. Which URLs name this machine itself, and so go to no proxy, is
`spelled_loopback` (`transport._Proxies`).
"""

from __future__ import annotations

import ipaddress
import socket
from enum import IntEnum

# NAT64's well-known prefix: such an address is the IPv4 address in its last 32 bits, reached
# through a translator (DNS64 gives every IPv4-only host one on an IPv6-only network)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class Reach(IntEnum):
    """Ordered from nearest to farthest: a redirect may go no nearer than it came from. (From 1:
    no reach reads as false.)"""

    MACHINE = 1  # loopback, unspecified (0.0.0.0 reaches this machine) or link-local
    NETWORK = 2  # private, shared, unique- or site-local, reserved or documentation ranges: a site's own network
    INTERNET = 3  # a global unicast address


WHERE = {Reach.MACHINE: "on this machine", Reach.NETWORK: "on a private network", Reach.INTERNET: "on the internet"}


def _unwrapped(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address `text` names as a socket names it, an IPv4-mapped, 6to4 or NAT64 address read
    as the IPv4 address it carries; None when it names none."""
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return embedded
    return address


def address_reach(text: str) -> Reach:
    """The reach of an address as a socket names it (`127.0.0.1`, `::1`, `fe80::1%eth0`); an
    address that cannot be read is taken as this machine's, the nearest, so it is never let through
    where a nearer one is refused."""
    address = _unwrapped(text)
    if address is None:
        return Reach.MACHINE
    if address.is_loopback or address.is_unspecified or address.is_link_local:
        return Reach.MACHINE
    # fec0::/10, site-local: deprecated, yet a site's own network where it is still in use
    site_local = isinstance(address, ipaddress.IPv6Address) and address.is_site_local
    if address.is_global and not address.is_multicast and not address.is_reserved and not site_local:
        return Reach.INTERNET
    return Reach.NETWORK


def _spelled(host: str) -> tuple[str, str | None]:
    """A URL's host as the resolver reads it: the name (lower case, without brackets or a final
    dot) and the address it spells in any spelling the resolver reads, or None."""
    name = host.strip("[]").lower().rstrip(".")
    try:
        ipaddress.ip_address(name)
        return name, name
    except ValueError:
        pass
    try:
        return name, socket.inet_ntoa(socket.inet_aton(name))
    except (OSError, ValueError):
        return name, None


def _names_localhost(name: str) -> bool:
    return name == "localhost" or name.endswith(".localhost")


def spelled_reach(host: str) -> Reach | None:
    """The reach a URL's host spells out without a lookup: `localhost` (and names under it) is this
    machine, an address in any spelling the resolver reads (`127.1`, `2130706433`, `0x7f000001`,
    `::ffff:127.0.0.1`) its own reach; None for any other name, known only once looked up."""
    name, address = _spelled(host)
    if _names_localhost(name):
        return Reach.MACHINE
    return None if address is None else address_reach(address)


def spelled_loopback(host: str) -> bool:
    """Whether a URL's host names this machine itself without a lookup: `localhost`, a name under
    it, a loopback or unspecified address in any spelling (`127.1`, `[::1]`, `[::ffff:127.0.0.1]`,
    `0.0.0.0`). Narrower than `spelled_reach`'s MACHINE: a link-local address names a host of a
    link, and through a proxy that is the proxy's link."""
    name, address = _spelled(host)
    if _names_localhost(name):
        return True
    unwrapped = None if address is None else _unwrapped(address)
    return unwrapped is not None and (unwrapped.is_loopback or unwrapped.is_unspecified)
