"""Where a tracker's redirect may lead, decided on the address each connection is made to.

Every server here is real (https, on 127.0.0.1); what the tests fake is the world we cannot
reach (`tests/fakes/internet.py`): the resolver and the routing of a few addresses off this
machine."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from delta.dossier import build_dossier
from delta.dossier.reach import Reach, address_reach, spelled_loopback, spelled_reach
from delta.dossier.transport import TrackerFailure, exchange
from indexer.store.database import Store
from tests.examples import examples
from tests.fakes.internet import Internet, fake_internet
from tests.fakes.trackers import FakeJira, Redirector, tls_context
from tests.fakes.world import make_change

TOKEN = "jira-SECRET-reach-5521"
AUTH = f"Bearer {TOKEN}"
PUBLIC = "93.184.216.34"  # a global address: the tracker "on the internet"
OTHER_PUBLIC = "93.184.216.35"
PRIVATE = "10.1.1.1"  # a self-hosted tracker on the site's network
PRIVATE_OTHER = "10.0.0.8"


@pytest.fixture
def internet(monkeypatch) -> Iterator[Internet]:
    yield fake_internet(monkeypatch)


@pytest.fixture
def local() -> Iterator[FakeJira]:
    """A service of this machine (https, certificate of *.rennet.test) that no remote tracker may reach."""
    server = FakeJira(token=TOKEN, tls=tls_context(), name="internal.rennet.test").start()
    server.behaviours["PROJ-1"] = {"title": "LOCAL-SECRET"}
    yield server
    server.stop()


def tracker_at(internet: Internet, address: str, target: str) -> Redirector:
    """A tracker named tracker.rennet.test at `address` answering every request with a redirect to `target`."""
    internet.names["tracker.rennet.test"] = [address]
    internet.forwarded.add(address)
    return Redirector(target, tls=tls_context(), name="tracker.rennet.test").start()


def fetch(url: str) -> tuple[int, object]:
    status, body = exchange("GET", url + "/rest/api/2/issue/PROJ-1", auth=AUTH, timeout=10, tracker="jira",
                            secret=TOKEN)
    return status, json.loads(body)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


@pytest.mark.parametrize("address", ["127.0.0.1", "127.3.4.5", "::ffff:127.0.0.1", "169.254.169.254", "0.0.0.0",
                                     "10.0.0.7", "192.168.1.20", "172.16.9.9", "100.64.1.1"])
def test_a_tracker_on_the_internet_cannot_redirect_to_a_name_of_this_machine_or_its_network(internet, local,
                                                                                            address):
    """The redirect names a host, not an address: it is refused on the address the name resolves
    to, before anything is sent there."""
    internet.names["internal.rennet.test"] = [address]
    if not address.startswith(("127.", "::ffff:127.", "0.")):
        internet.forwarded.add(address)  # a host of the network: the local server stands in for it
    tracker = tracker_at(internet, PUBLIC, local.url)
    try:
        with pytest.raises(TrackerFailure) as refused:
            fetch(tracker.url)
        assert refused.value.code == "insecure_url"
        assert "internal.rennet.test" in refused.value.message and TOKEN not in refused.value.message
        assert "\n" not in refused.value.message
        assert [h.authorization for h in tracker.hits] == [AUTH]  # the configured tracker had the token
        assert local.hits == [] and internet.connected == [PUBLIC]  # nothing was sent there
    finally:
        tracker.stop()


def test_a_name_answering_remote_then_local_is_refused_when_it_answers_local(internet, local):
    """DNS rebinding: the same name resolves to a host on the internet for one request and to this
    machine for the next. Each connection is checked on the address it is made to."""
    answers = iter([[OTHER_PUBLIC], ["127.0.0.1"], ["127.0.0.1"]])
    internet.names["flip.rennet.test"] = lambda: next(answers)
    internet.forwarded.add(OTHER_PUBLIC)
    second = Redirector(f"https://flip.rennet.test:{port_of(local.url)}", tls=tls_context(),
                        name="flip.rennet.test").start()
    tracker = tracker_at(internet, PUBLIC, second.url)
    try:
        with pytest.raises(TrackerFailure) as refused:
            fetch(tracker.url)
        assert refused.value.code == "insecure_url" and "127.0.0.1" in refused.value.message
        assert len(second.hits) == 1 and local.hits == []
        assert internet.connected == [PUBLIC, OTHER_PUBLIC]
    finally:
        second.stop()
        tracker.stop()


def test_every_address_of_a_name_is_checked_not_only_the_first(internet, local):
    """A name with a remote address that refuses connections, then a local one: the local one is
    refused too, not connected to once the first fails."""
    internet.names["internal.rennet.test"] = [OTHER_PUBLIC, "127.0.0.1"]
    tracker = tracker_at(internet, PUBLIC, local.url)
    try:
        with pytest.raises(TrackerFailure) as refused:
            fetch(tracker.url)
        assert refused.value.code == "insecure_url"
        assert local.hits == [] and internet.connected == [PUBLIC, OTHER_PUBLIC]
    finally:
        tracker.stop()


def test_a_tracker_on_a_private_network_may_redirect_within_it_but_not_to_this_machine(internet, local):
    """A self-hosted tracker (10.x) is the user's choice: its redirects may go to its network
    or the internet, never nearer, to this machine."""
    elsewhere = FakeJira(token=TOKEN, tls=tls_context(), name="wiki.rennet.test").start()
    elsewhere.behaviours["PROJ-1"] = {"title": "on the site's network"}
    internet.names["wiki.rennet.test"] = [PRIVATE_OTHER]
    internet.forwarded.add(PRIVATE_OTHER)
    internet.names["internal.rennet.test"] = ["127.0.0.1"]
    within = tracker_at(internet, PRIVATE, elsewhere.url)
    try:
        with pytest.raises(TrackerFailure) as moved:
            fetch(within.url)
        assert moved.value.code == "unauthorized"  # followed; the token stays with its origin
        assert [h.authorization for h in elsewhere.hits] == [""]
    finally:
        within.stop()
        elsewhere.stop()
    inward = tracker_at(internet, PRIVATE, local.url)
    try:
        with pytest.raises(TrackerFailure) as refused:
            fetch(inward.url)
        assert refused.value.code == "insecure_url" and "on this machine" in refused.value.message
        assert local.hits == []
    finally:
        inward.stop()


@pytest.mark.parametrize("address", ["127.0.0.1", PRIVATE, PUBLIC])
def test_the_users_own_tracker_may_be_anywhere_and_move_within_its_origin(internet, address):
    """The configured URL is the user's: a name resolving to this machine, the site's network or
    the internet is asked, and a redirect within the same origin keeps the token."""
    internet.names["tracker.rennet.test"] = [address]
    internet.forwarded.add(address)
    server = FakeJira(token=TOKEN, tls=tls_context(), name="tracker.rennet.test").start()
    server.behaviours["PROJ-1"] = "moved:PROJ-2"
    server.behaviours["PROJ-2"] = {"title": "moved here"}
    try:
        status, payload = fetch(server.url)
        assert status == 200 and payload["fields"]["summary"] == "moved here"  # type: ignore[index]
        assert [h.authorization for h in server.hits] == [AUTH, AUTH]
    finally:
        server.stop()


def test_a_refused_redirect_is_an_insecure_url_fact_and_the_dossier_goes_on(internet, local, tmp_path, monkeypatch):
    internet.names["internal.rennet.test"] = ["127.0.0.1"]
    tracker = tracker_at(internet, PUBLIC, local.url)
    monkeypatch.setenv("JIRA_TOKEN", TOKEN)
    make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1")
    store = Store.open(tmp_path / "home")
    try:
        dossier = build_dossier(tmp_path / "r", "main", "feature/proj-1", store=store, config={
            "timeout_seconds": 10.0, "jira": {"base_url": tracker.url, "token_env": "JIRA_TOKEN", "projects": ["PROJ"]}})
        [fact] = dossier.facts
        assert (fact.code, fact.ref) == ("insecure_url", "PROJ-1") and dossier.items == []
        assert local.hits == []
    finally:
        store.close()
        tracker.stop()


@pytest.mark.parametrize("address, reach", [
    ("127.0.0.1", Reach.MACHINE), ("::1", Reach.MACHINE), ("0.0.0.0", Reach.MACHINE), ("::", Reach.MACHINE),
    ("169.254.169.254", Reach.MACHINE), ("fe80::1", Reach.MACHINE), ("fe80::1%1", Reach.MACHINE),
    ("::ffff:127.0.0.1", Reach.MACHINE), ("::ffff:10.0.0.1", Reach.NETWORK), ("2002:7f00:1::1", Reach.MACHINE),
    ("64:ff9b::a00:1", Reach.NETWORK), ("64:ff9b::5db8:d822", Reach.INTERNET),
    ("10.0.0.1", Reach.NETWORK), ("172.16.0.1", Reach.NETWORK), ("192.168.0.1", Reach.NETWORK),
    ("100.64.0.1", Reach.NETWORK), ("fd00::2", Reach.NETWORK), ("192.0.2.2", Reach.NETWORK),
    ("224.0.0.1", Reach.NETWORK), ("255.255.255.255", Reach.NETWORK), ("4000::1", Reach.NETWORK),
    ("fec0::1", Reach.NETWORK),
    ("93.184.216.34", Reach.INTERNET), ("2606:4700::1", Reach.INTERNET), ("not an address", Reach.MACHINE),
])
def test_the_reach_of_an_address(address, reach):
    assert address_reach(address) == reach


@pytest.mark.parametrize("host, reach", [
    ("localhost", Reach.MACHINE), ("Admin.LOCALHOST.", Reach.MACHINE), ("127.1", Reach.MACHINE),
    ("2130706433", Reach.MACHINE), ("0x7f000001", Reach.MACHINE), ("[::1]", Reach.MACHINE),
    ("10.1", Reach.NETWORK), ("012.0.0.1", Reach.NETWORK), ("8.8.8.8", Reach.INTERNET),
    ("tracker.example", None), ("127.0.0.1.example", None), ("", None), ("a.localhost.example", None),
    ("notlocalhost", None),
])
def test_the_reach_a_host_spells(host, reach):
    assert spelled_reach(host) == reach


@pytest.mark.parametrize("host, loopback", [
    ("localhost", True), ("Admin.LOCALHOST.", True), ("127.0.0.1", True), ("127.1", True), ("2130706433", True),
    ("[::1]", True), ("[::ffff:127.0.0.1]", True), ("0.0.0.0", True), ("[::]", True),
    ("169.254.169.254", False), ("[fe80::1]", False), ("10.0.0.1", False), ("8.8.8.8", False),
    ("tracker.example", False), ("localhost.example", False), ("", False), ("a.localhost.example", False),
    ("notlocalhost", False),
])
def test_a_host_spelled_as_this_machine_goes_to_no_proxy(host, loopback):
    """What `transport._Proxies` connects to directly, never through a proxy: a link-local
    address is a host of a link (the proxy's, through it), not this machine."""
    assert spelled_loopback(host) is loopback


@settings(max_examples=examples(200), deadline=None)
@given(st.ip_addresses(v=4))
@example(ipaddress.IPv4Address("0.0.0.1")).via("the last bit of a NAT64 address read")
@example(ipaddress.IPv4Address("127.0.0.1")).via("this machine")
@example(ipaddress.IPv4Address("169.254.169.254")).via("a cloud's metadata service")
def test_an_ipv6_address_carrying_an_ipv4_one_has_its_reach(v4):
    """An IPv4-mapped, 6to4 or NAT64 address reaches the IPv4 address it carries (docs/security.md),
    read from all of its 32 bits."""
    carriers = [ipaddress.IPv6Address(f"::ffff:{v4}"), ipaddress.IPv6Address((0x2002 << 112) | (int(v4) << 80)),
                ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) | int(v4))]
    for carrier in carriers:
        assert address_reach(str(carrier)) == address_reach(str(v4)), carrier
