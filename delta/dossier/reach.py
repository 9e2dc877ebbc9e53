"""How near an address is: this machine, a private network, or the internet.

A request a tracker's redirect chose may not go nearer than where the tracker answered from:
a tracker on the internet cannot send a request to a service of this machine or of the site's
network (a local admin port, a cloud's metadata service at 169.254.169.254, an intranet host)
and have its answer read into a dossier that may be published. The user's own configured URL
may be anywhere. See `transport._Route`, which applies this to the address each connection
is actually made to.
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
    NETWORK = 2  # private, shared, unique-local, reserved or documentation ranges: a site's own network
    INTERNET = 3  # a global unicast address


WHERE = {Reach.MACHINE: "on this machine", Reach.NETWORK: "on a private network", Reach.INTERNET: "on the internet"}


def address_reach(text: str) -> Reach:
    """The reach of an address as a socket names it (`127.0.0.1`, `::1`, `fe80::1%eth0`); an
    address that cannot be read is taken as this machine's, the nearest, so it is never let through
    where a nearer one is refused."""
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return Reach.MACHINE
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            address = embedded
    if address.is_loopback or address.is_unspecified or address.is_link_local:
        return Reach.MACHINE
    if address.is_global and not address.is_multicast and not address.is_reserved:
        return Reach.INTERNET
    return Reach.NETWORK


def spelled_reach(host: str) -> Reach | None:
    """The reach a URL's host spells out without a lookup: `localhost` (and names under it) is this
    machine, an address in any spelling the resolver reads (`127.1`, `2130706433`, `0x7f000001`,
    `::ffff:127.0.0.1`) its own reach; None for any other name, known only once looked up."""
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return Reach.MACHINE
    try:
        ipaddress.ip_address(name)
        return address_reach(name)
    except ValueError:
        pass
    try:
        return address_reach(socket.inet_ntoa(socket.inet_aton(name)))
    except (OSError, ValueError):
        return None
