"""A tracker reached through a proxy of the environment (`https_proxy`, `http_proxy`, `no_proxy`),
against a real CONNECT-capable proxy on loopback (`tests/fakes/proxy.py`) and real trackers:
the token travels only inside TLS past the proxy, a request to this machine goes to no proxy,
the proxy's credentials go to the proxy alone, and a stalling proxy is bounded like a tracker."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from delta.dossier import build_dossier, transport
from delta.dossier.reach import spelled_loopback
from delta.dossier.transport import TrackerFailure, exchange, is_loopback
from indexer.store.database import Store
from tests.fakes.internet import Internet, fake_internet
from tests.fakes.proxy import FakeProxy
from tests.fakes.trackers import TEST_CA, FakeJira, Redirector, tls_context
from tests.fakes.world import files_containing, make_change

TOKEN = "jira-SECRET-proxy-8314"
AUTH = f"Bearer {TOKEN}"
PROXY_USER = "alice:pr0xy-PASSWORD"
PUBLIC = "93.184.216.34"


@pytest.fixture
def internet(monkeypatch) -> Iterator[Internet]:
    yield fake_internet(monkeypatch)


@pytest.fixture
def proxy() -> Iterator[FakeProxy]:
    server = FakeProxy(names={"tracker.rennet.test": "127.0.0.1", "other.rennet.test": "127.0.0.1"}).start()
    yield server
    server.stop()


def through(monkeypatch, proxy: FakeProxy, userinfo: str = "", no_proxy: str = "") -> None:
    for name in ("https_proxy", "http_proxy"):
        monkeypatch.setenv(name, proxy.url(userinfo))
    if no_proxy:
        monkeypatch.setenv("no_proxy", no_proxy)


def connect_lines(target: str) -> tuple[str, str]:
    """The CONNECT http.client's own tunnel sends: HTTP/1.0 up to Python 3.11, 1.1 from 3.12."""
    return f"CONNECT {target} HTTP/1.0", f"CONNECT {target} HTTP/1.1"


def fetch(url: str, timeout: float = 5.0) -> tuple[int, object]:
    return exchange("GET", url + "/rest/api/2/issue/PROJ-1", auth=AUTH, timeout=timeout, tracker="jira",
                    secret=TOKEN)


def jira(**kwargs) -> FakeJira:
    server = FakeJira(token=TOKEN, **kwargs).start()
    server.behaviours["PROJ-1"] = {"title": "reached"}
    return server


def test_an_https_tracker_through_a_proxy_answers_and_the_proxy_never_sees_the_token(internet, proxy, monkeypatch,
                                                                                    tmp_path):
    """A dossier read through the proxy: the proxy sees one CONNECT naming the tracker, no
    Authorization and no token anywhere in what it carried; its own credentials are in that
    CONNECT and never reach the tracker."""
    through(monkeypatch, proxy, PROXY_USER)
    tracker = jira(tls=tls_context(), name="tracker.rennet.test")
    monkeypatch.setenv("JIRA_TOKEN", TOKEN)
    make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1")
    store = Store.open(tmp_path / "home")
    try:
        dossier = build_dossier(tmp_path / "r", "main", "feature/proj-1", store=store, config={
            "timeout_seconds": 5.0, "jira": {"base_url": tracker.url, "token_env": "JIRA_TOKEN", "projects": ["PROJ"]}})
        assert dossier.facts == [] and [i.title for i in dossier.items] == ["reached"]
        port = tracker.url.rsplit(":", 1)[1]
        [connect] = proxy.seen
        assert connect.line in connect_lines(f"tracker.rennet.test:{port}")
        assert "authorization" not in connect.headers
        assert connect.headers["proxy-authorization"].startswith("Basic ")
        assert TOKEN.encode() not in proxy.heard
        [hit] = tracker.hits
        assert hit.authorization == AUTH and "proxy-authorization" not in hit.headers
        assert files_containing(store.home, TOKEN) == []
    finally:
        store.close()
        tracker.stop()


@pytest.mark.parametrize("scheme, host", [("http", "127.0.0.1"), ("http", "localhost"), ("https", "127.0.0.1"),
                                          ("https", "localhost")])
def test_a_tracker_on_this_machine_is_reached_directly_and_the_proxy_sees_nothing(proxy, monkeypatch, scheme,
                                                                                  host):
    """urllib bypasses a proxy only where `no_proxy` says: a plain-http loopback tracker's token
    would go in clear to the proxy, and the proxy's loopback is not this machine's."""
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    through(monkeypatch, proxy, PROXY_USER)
    if scheme == "https":  # the test certificate names rennet.test, not the loopback address
        def trusting() -> ssl.SSLContext:
            context = ssl.create_default_context(cafile=TEST_CA)
            context.check_hostname = False
            return context

        monkeypatch.setattr(ssl, "_create_default_https_context", trusting)
    tracker = jira(tls=tls_context() if scheme == "https" else None)
    try:
        port = tracker.url.rsplit(":", 1)[1]
        status, _ = fetch(f"{scheme}://{host}:{port}")
        assert status == 200
        [hit] = tracker.hits
        assert hit.authorization == AUTH and "proxy-authorization" not in hit.headers
        assert proxy.seen == [] and proxy.heard == b""
    finally:
        tracker.stop()


@given(st.one_of(st.ip_addresses().map(str), st.ip_addresses(v=6).map(lambda a: f"[{a}]"),
                 st.sampled_from(["localhost", "LOCALHOST", "127.0.0.1", "::1", "[::1]", "::ffff:127.0.0.1"]),
                 st.text(max_size=40)))
def test_every_host_plain_http_may_reach_goes_to_no_proxy(host):
    """Each host `check_url` lets plain http reach is one `_Proxies` connects to directly."""
    if is_loopback(host):
        assert spelled_loopback(host)


def test_plain_http_goes_through_no_proxy_even_past_the_url_rule(proxy, monkeypatch):
    """Should the URL rule ever let plain http off this machine by, the proxy rule still refuses
    to send it (and its token) in clear through a proxy."""
    through(monkeypatch, proxy)
    monkeypatch.setattr(transport, "check_url", lambda url, tracker: None)
    with pytest.raises(TrackerFailure) as refused:
        fetch("http://tracker.rennet.test:8080")
    assert refused.value.code == "insecure_url" and "\n" not in refused.value.message
    assert TOKEN not in refused.value.message
    assert proxy.seen == []


def test_a_proxy_stalling_on_connect_is_a_timeout_at_the_deadline(monkeypatch):
    """A proxy that reads CONNECT and never answers: the exchange's deadline ends the wait for
    the tunnel, a `timeout` like any tracker's, and the CONNECT carried no token."""
    stalling = FakeProxy(stall=True).start()
    through(monkeypatch, stalling)
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            fetch("https://tracker.rennet.test:8443", timeout=0.5)
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    try:
        worker.start()
        worker.join(30)  # the test's own bound: far past the exchange's
        assert not worker.is_alive()
        [failure] = outcome
        assert isinstance(failure, TrackerFailure) and failure.code == "timeout"
        [connect] = stalling.seen
        assert connect.line in connect_lines("tracker.rennet.test:8443")
        assert TOKEN.encode() not in stalling.heard
    finally:
        stalling.stop()


@pytest.mark.parametrize("target", ["http://127.0.0.1:{port}", "http://localhost:{port}",
                                    "https://localhost:{port}", "https://127.1:{port}"])
def test_a_redirect_through_the_proxy_to_this_machine_is_refused(internet, proxy, monkeypatch, target):
    """Through a proxy only the URL's spelling can be checked: a tracker reached through it may
    not send a request to an address spelled as this machine, directly or through the proxy."""
    through(monkeypatch, proxy, PROXY_USER)
    local = jira()
    tracker = Redirector(target.format(port=local.url.rsplit(":", 1)[1]), tls=tls_context(),
                         name="tracker.rennet.test").start()
    try:
        with pytest.raises(TrackerFailure) as refused:
            fetch(tracker.url)
        assert refused.value.code == "insecure_url" and "\n" not in refused.value.message
        assert [h.authorization for h in tracker.hits] == [AUTH]
        assert local.hits == [] and len(proxy.seen) == 1  # the first CONNECT, nothing after
        assert TOKEN.encode() not in proxy.heard
    finally:
        tracker.stop()
        local.stop()


def test_the_proxys_credentials_never_follow_a_redirect_past_the_proxy(internet, proxy, monkeypatch):
    """A redirect to a host `no_proxy` names goes there directly: urllib copies a request's
    headers onto the redirected one, and the proxy's Basic credentials would go with them."""
    internet.names["other.rennet.test"] = [PUBLIC]
    internet.forwarded.add(PUBLIC)
    through(monkeypatch, proxy, PROXY_USER, no_proxy="other.rennet.test")
    other = jira(tls=tls_context(), name="other.rennet.test")
    tracker = Redirector(other.url, tls=tls_context(), name="tracker.rennet.test").start()
    try:
        with pytest.raises(TrackerFailure) as moved:
            fetch(tracker.url)
        assert moved.value.code == "unauthorized"  # followed; the token stays with its origin
        [hit] = other.hits
        assert hit.authorization == "" and "proxy-authorization" not in hit.headers
        [connect] = proxy.seen
        assert connect.line.startswith("CONNECT tracker.rennet.test:")
        assert "proxy-authorization" in connect.headers
    finally:
        tracker.stop()
        other.stop()


def test_a_hop_through_the_proxy_counts_as_the_internet_for_the_hops_after_it(internet, proxy, monkeypatch):
    """A tracker on the site's network (reached directly, `no_proxy`) redirecting to a name the
    proxy connects to has sent the exchange to the internet: a redirect from there back into the
    site's network is refused, though the first hop's own reach would admit it."""
    internet.names["tracker.rennet.test"] = ["10.1.1.1"]
    internet.names["wiki.rennet.test"] = ["10.0.0.8"]
    internet.forwarded |= {"10.1.1.1", "10.0.0.8"}
    proxy.names["far.rennet.test"] = "127.0.0.1"
    through(monkeypatch, proxy, no_proxy="tracker.rennet.test,wiki.rennet.test")
    wiki = jira(tls=tls_context(), name="wiki.rennet.test")
    far = Redirector(wiki.url, tls=tls_context(), name="far.rennet.test").start()
    tracker = Redirector(far.url, tls=tls_context(), name="tracker.rennet.test").start()
    try:
        with pytest.raises(TrackerFailure) as refused:
            fetch(tracker.url)
        assert refused.value.code == "insecure_url" and "on a private network" in refused.value.message
        assert len(tracker.hits) == len(far.hits) == 1 and wiki.hits == []  # the site's wiki never asked
    finally:
        tracker.stop()
        far.stop()
        wiki.stop()
