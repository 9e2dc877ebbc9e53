"""Fetching against real servers on loopback: a Jira REST server, a Linear GraphQL server and a
fake `gh` on PATH, so the real client code runs. Every failure is a typed fact, retrieval goes
on, and the token never shows up in the store, the logs or any output."""

from __future__ import annotations

import json
import logging
import socket
import sys
import threading
import time

import msgspec
import pytest

from delta.dossier import build_dossier
from delta.dossier.items import RICH_TEXT_CHARS, TRUNCATED
from delta.dossier.persist import read_payload
from delta.dossier.transport import MAX_RESPONSE_BYTES, TrackerFailure, exchange
from indexer.store.database import Store
from tests.fakes.trackers import FakeJira, FakeLinear, Scripted
from tests.fakes.world import files_containing, gh_calls, install_gh, make_change

JIRA_TOKEN = "jira-SECRET-7f3a9c1e5b"
LINEAR_TOKEN = "lin_api_SECRET9d8e7f6a5b"
GH_TOKEN = "ghp_SECRETfaketoken0123456789"

STORY = {
    "title": "Export reports as CSV",
    "state": "In Progress",
    "body": "Users need CSV.\n\nh3. Acceptance Criteria\n* the export button downloads a .csv\n"
            "* columns match the table\n\nh3. Notes\n* not a criterion\n",
    "comments": [("Ann", "first comment, long discussion"), ("Bob", "second comment")],
    "links": ["PROJ-9"],
}


@pytest.fixture
def jira(monkeypatch):
    server = FakeJira(token=JIRA_TOKEN).start()
    monkeypatch.setenv("JIRA_TOKEN", JIRA_TOKEN)
    yield server
    server.stop()


@pytest.fixture
def linear(monkeypatch):
    server = FakeLinear(token=LINEAR_TOKEN, auth_scheme="").start()
    monkeypatch.setenv("LINEAR_API_KEY", LINEAR_TOKEN)
    yield server
    server.stop()


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "home")
    yield s
    s.close()


def config(jira=None, linear=None, jira_extra=None, **extra):
    table = {"timeout_seconds": 2.0, **extra}
    if jira is not None:
        table["jira"] = {"base_url": jira.url, "token_env": "JIRA_TOKEN", "projects": ["PROJ"], **(jira_extra or {})}
    if linear is not None:
        table["linear"] = {"base_url": linear.url + "/graphql", "token_env": "LINEAR_API_KEY", "teams": ["ENG"]}
    return table


def assert_no_secret(secret, dossier, store, caplog, capsys):
    assert secret not in msgspec.json.encode(dossier).decode()
    assert files_containing(store.home, secret) == []
    assert secret not in caplog.text
    out, err = capsys.readouterr()
    assert secret not in out and secret not in err


def facts_by_ref(dossier):
    return {f.ref: f for f in dossier.facts}


# --- Jira ------------------------------------------------------------------------------

def test_jira_200_gives_a_bounded_item_with_criteria_and_persisted_thread(tmp_path, jira, store, caplog, capsys):
    caplog.set_level(logging.DEBUG, logger="rennet.dossier")
    jira.behaviours["PROJ-1"] = STORY
    _, base, head = make_change(tmp_path / "r", ["PROJ-1: export reports"], branch="feature/proj-1-export")
    d = build_dossier(tmp_path / "r", "main", "feature/proj-1-export", store=store, config=config(jira))
    assert d.facts == []
    [item] = d.items
    assert (item.id, item.tracker, item.title, item.state) == ("PROJ-1", "jira", "Export reports as CSV", "In Progress")
    assert [(r.id, r.tracker) for r in d.references] == [("PROJ-1", "jira")]  # a bare key names its tracker
    assert item.url == f"{jira.url}/browse/PROJ-1"
    assert [c.text for c in item.acceptance_criteria] == ["the export button downloads a .csv", "columns match the table"]
    assert [(p.source, p.where) for p in item.provenance] == [("branch", "feature/proj-1-export"), ("commit_subject", head)]
    assert item.fetched_at.endswith("Z") and item.comments == 2 and item.links == ["PROJ-9"]
    # the thread is persisted, never inlined
    assert "long discussion" not in msgspec.json.encode(d).decode()
    payload = read_payload(store.home, item.payload)
    assert [c.body for c in payload.comments] == ["first comment, long discussion", "second comment"]
    assert payload.raw["fields"]["summary"] == "Export reports as CSV"
    # the request carried the token as a Bearer header and asked the v2 issue endpoint
    assert jira.hits[0].authorization == f"Bearer {JIRA_TOKEN}"
    assert jira.hits[0].path.startswith("/rest/api/2/issue/PROJ-1?")
    assert_no_secret(JIRA_TOKEN, d, store, caplog, capsys)


def test_jira_v3_document_format_description_is_flattened(tmp_path, jira, store):
    jira.behaviours["PROJ-1"] = {"title": "ADF", "body": "Acceptance criteria:\n- [ ] one\n- [x] two"}
    make_change(tmp_path / "r", ["PROJ-1 adf"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store,
                      config=config(jira, jira_extra={"api_version": 3}))
    [item] = d.items
    assert jira.hits[0].path.startswith("/rest/api/3/issue/PROJ-1")
    assert "- [ ] one" in item.body
    assert [(c.text, c.done) for c in item.acceptance_criteria] == [("one", False), ("two", True)]


@pytest.mark.parametrize("behaviour, code", [
    ("401", "unauthorized"),
    ("403", "unauthorized"),
    ("404", "not_found"),
    ("410", "not_found"),  # a deleted issue
    ("500", "tracker_unavailable"),
    ("malformed", "malformed_response"),
    ("html", "malformed_response"),
    ("truncated", "tracker_unavailable"),
])
def test_jira_failures_are_typed_facts_and_never_echo_the_token(tmp_path, jira, store, caplog, capsys,
                                                                behaviour, code):
    caplog.set_level(logging.DEBUG, logger="rennet.dossier")
    jira.behaviours["PROJ-1"] = behaviour
    jira.behaviours["PROJ-2"] = {"title": "still fetched"}
    make_change(tmp_path / "r", ["PROJ-1: one", "PROJ-2: two"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira))
    fact = facts_by_ref(d)["PROJ-1"]
    assert (fact.code, fact.tracker) == (code, "jira")
    assert [i.id for i in d.items] == ["PROJ-2"]  # retrieval went on
    assert_no_secret(JIRA_TOKEN, d, store, caplog, capsys)


def test_wrong_token_is_unauthorized_and_not_echoed(tmp_path, jira, store, monkeypatch, caplog, capsys):
    caplog.set_level(logging.DEBUG, logger="rennet.dossier")
    jira.behaviours["PROJ-1"] = STORY
    monkeypatch.setenv("JIRA_TOKEN", "wrong-SECRET-token")  # the server echoes what it got in its 401 body
    make_change(tmp_path / "r", ["PROJ-1: one"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira))
    assert facts_by_ref(d)["PROJ-1"].code == "unauthorized"
    assert_no_secret("wrong-SECRET-token", d, store, caplog, capsys)


def test_token_is_read_at_call_time_and_missing_env_var_is_missing_config(tmp_path, jira, store, monkeypatch):
    jira.behaviours["PROJ-1"] = STORY
    make_change(tmp_path / "r", ["PROJ-1: one"])
    monkeypatch.delenv("JIRA_TOKEN")
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira))
    fact = facts_by_ref(d)["PROJ-1"]
    assert fact.code == "missing_config" and "JIRA_TOKEN" in fact.message
    assert jira.hits == []  # nothing was sent without a token
    monkeypatch.setenv("JIRA_TOKEN", JIRA_TOKEN)
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira), refresh=True)
    assert [i.id for i in d.items] == ["PROJ-1"]


@pytest.mark.parametrize("variable, key", [("JIRA_TOKEN", "PROJ-1"), ("LINEAR_API_KEY", "ENG-1")])
def test_a_token_variable_set_empty_is_missing_config_and_nothing_is_sent(tmp_path, jira, linear, store,
                                                                         monkeypatch, variable, key):
    jira.behaviours["PROJ-1"] = linear.behaviours["ENG-1"] = {"title": "t"}
    monkeypatch.setenv(variable, "")
    make_change(tmp_path / "r", [f"{key}: one"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira, linear))
    fact = facts_by_ref(d)[key]
    assert fact.code == "missing_config" and variable in fact.message
    assert jira.hits == [] and linear.hits == []


def test_a_token_variable_without_a_url_is_missing_config_naming_both(tmp_path, jira, store):
    """The user named where the token is but not where it goes: nothing is asked, and the fact
    says which settings to give (not an `insecure_url` of a blank URL)."""
    jira.behaviours["PROJ-1"] = {"title": "t"}
    make_change(tmp_path / "r", ["PROJ-1 one"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store,
                      config={"jira": {"token_env": "JIRA_TOKEN", "projects": ["PROJ"]}})
    fact = facts_by_ref(d)["PROJ-1"]
    assert fact.code == "missing_config" and "base_url" in fact.message and "token_env" in fact.message
    assert jira.hits == []


def test_slow_server_past_the_timeout_is_a_timeout_fact(tmp_path, jira, store):
    jira.behaviours["PROJ-1"] = "slow"
    jira.behaviours["PROJ-2"] = STORY
    make_change(tmp_path / "r", ["PROJ-1 and PROJ-2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira, timeout_seconds=0.5))
    facts = facts_by_ref(d)
    assert facts["PROJ-1"].code == "timeout"
    # a tracker that timed out is not asked again in the same retrieval
    assert facts["PROJ-2"].code == "timeout" and jira.hits_for("PROJ-2") == 0
    # the dossier was built while the server still held its answer: the client did not wait for it
    assert jira.hits_for("PROJ-1") >= 1 and jira.slow_answered == 0


def trickle(head: bytes, byte: bytes, finished: threading.Event, seconds: float = 30.0):
    """A script sending `head`, then `byte` every 50 ms for `seconds`, then setting `finished`:
    every read gets a byte long before a socket timeout, so only a deadline on the whole
    exchange ends it (a send to a client gone ends the script unfinished)."""
    def script(server, conn, line):
        server.send(conn, head)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            server.send(conn, byte)
            time.sleep(0.05)
        finished.set()
    return script


@pytest.mark.parametrize("head, byte", [
    (b"HTTP/1.1 200 OK\r\nX-Slow: ", b"x"),  # a header line that never ends
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", b" "),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1", b"0"),  # a chunk-size line
], ids=["headers", "body", "chunk_size"])
def test_an_answer_trickled_a_byte_at_a_time_is_a_timeout_at_the_deadline(head, byte):
    finished = threading.Event()
    server = Scripted(trickle(head, byte, finished)).start()
    try:
        with pytest.raises(TrackerFailure) as failure:
            exchange("GET", server.url + "/rest", auth="Bearer t0ken", timeout=0.5, tracker="jira", secret="t0ken")
        assert failure.value.code == "timeout"
        assert not finished.is_set()  # ended by the 0.5 s deadline, not by the trickle's end
    finally:
        server.stop()


def test_a_name_lookup_that_never_answers_is_a_timeout_at_the_deadline(monkeypatch):
    """A resolver that never answers holds the exchange no longer than its deadline: the lookup
    runs in a thread waited on only for the time left (the lookup itself cannot be cut)."""
    release = threading.Event()
    real = socket.getaddrinfo

    def stuck(host, *args, **kwargs):
        if host == "tracker.invalid":
            release.wait(60)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", stuck)
    monkeypatch.delenv("https_proxy", raising=False)
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    began = time.monotonic()
    try:
        with pytest.raises(TrackerFailure) as failure:
            exchange("GET", "https://tracker.invalid/rest", auth="Bearer t0ken", timeout=0.5, tracker="jira",
                     secret="t0ken")
        assert failure.value.code == "timeout" and time.monotonic() - began < 30, time.monotonic() - began
    finally:
        release.set()


class SetupTrickler:
    """A loopback TCP server for the steps before an HTTP request: it reads what the client
    sends first (a TLS ClientHello, a proxy's CONNECT), answers `first` and then one byte every
    50 ms, up to `bytes_at_most`, so each read gets a byte long before a socket timeout and the
    answer never completes. `hung_up` is set when a send fails because the client went away;
    `finished` when every byte was sent without that."""

    def __init__(self, first: bytes, bytes_at_most: int = 400) -> None:
        self.first = first
        self.bytes_at_most = bytes_at_most
        self.hung_up = False
        self.finished = False
        self.done = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.listener.getsockname()[1]}"

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(self.first)
                for _ in range(self.bytes_at_most):
                    time.sleep(0.05)
                    conn.sendall(b"\x00")
                self.finished = True
            except OSError:
                self.hung_up = True
            finally:
                self.done.set()

    def stop(self) -> None:
        self.listener.close()


def assert_cut_at_the_deadline(server: SetupTrickler, url: str) -> None:
    # The deadline leaves a loaded host time to connect (the trickle then runs 20 s): spent
    # before the connection, it would prove nothing of the step the test is about.
    with pytest.raises(TrackerFailure) as failure:
        exchange("GET", url, auth="Bearer t0ken", timeout=1.5, tracker="jira", secret="t0ken")
    assert failure.value.code == "timeout"
    assert not server.finished  # the exchange ended before the server's trickle did
    assert server.done.wait(60) and server.hung_up  # the client shut the connection mid-answer


def test_a_tls_handshake_trickled_a_byte_at_a_time_is_a_timeout_at_the_deadline():
    """The header of a 16 KiB handshake record, then its bytes one at a time: the handshake is
    inside the exchange's deadline."""
    server = SetupTrickler(b"\x16\x03\x03\x40\x00")
    try:
        assert_cut_at_the_deadline(server, f"https://{server.address}/rest")
    finally:
        server.stop()


def test_a_proxy_tunnel_trickled_a_byte_at_a_time_is_a_timeout_at_the_deadline(monkeypatch):
    """A proxy answering CONNECT with a status line that never ends: setting up the tunnel
    comes before the TLS handshake, and is inside the exchange's deadline too."""
    server = SetupTrickler(b"HTTP/1.1 200 ")
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    for name in ("https_proxy", "HTTPS_PROXY"):
        monkeypatch.setenv(name, f"http://{server.address}")
    try:
        assert_cut_at_the_deadline(server, "https://tracker.example.invalid/rest")
    finally:
        server.stop()


def test_the_body_of_a_redirect_is_not_read():
    """A 302 whose body never ends: the client follows the Location without reading it."""
    def script(server, conn, line):
        if line.startswith("GET /moved "):
            server.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
                              b"Connection: close\r\n\r\n{\"ok\":true}")
            return
        server.send(conn, b"HTTP/1.1 302 Found\r\nLocation: /moved\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"100000\r\n" + b"x" * 0x100000 + b"\r\n"
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            server.send(conn, chunk)

    server = Scripted(script).start()
    try:
        status, payload = exchange("GET", server.url + "/start", auth=None, timeout=2.0, tracker="jira", secret=None)
        assert (status, json.loads(payload)) == (200, {"ok": True})
        assert server.sent < 64 << 20  # what the socket buffers took before the client hung up
    finally:
        server.stop()


def test_an_answer_past_the_response_bound_is_malformed_once_the_bound_is_read():
    """A 200 whose body runs on: the exchange stops reading one chunk past `MAX_RESPONSE_BYTES`
    and says so, `malformed_response`, whatever the tracker would still send."""
    from delta.dossier.transport import MAX_RESPONSE_BYTES

    def script(server, conn, line):
        server.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"100000\r\n" + b" " * 0x100000 + b"\r\n"
        for _ in range(64):  # 64 MiB at most, then the end
            server.send(conn, chunk)
        server.send(conn, b"0\r\n\r\n")

    server = Scripted(script).start()
    try:
        with pytest.raises(TrackerFailure) as failure:
            exchange("GET", server.url + "/rest", auth=None, timeout=30.0, tracker="jira", secret=None)
        assert failure.value.code == "malformed_response"
        assert f"more than {MAX_RESPONSE_BYTES} bytes" in failure.value.message  # not read whole, then refused
        assert server.sent < 4 * MAX_RESPONSE_BYTES  # what the socket buffers took before the client hung up
    finally:
        server.stop()


@pytest.mark.parametrize("timeout", [1e300, 1e9])
def test_the_retrieval_budget_bounds_an_exchange_whatever_the_timeout(tmp_path, jira, store, monkeypatch, timeout):
    """The reviewed commit's `.rennet.toml` may set the timeout: however long it says, one
    exchange ends with the retrieval's time budget, and a huge one is no crash."""
    from delta.dossier import build

    monkeypatch.setattr(build, "TOTAL_SECONDS", 0.5)
    jira.behaviours["PROJ-1"] = "slow"
    monkeypatch.setenv("RENNET_JIRA_PROJECTS", "PROJ")
    make_change(tmp_path / "r", ["PROJ-1"], files={
        ".rennet.toml": f"[dossier]\ntimeout_seconds = {timeout!r}\n[dossier.jira]\nprojects = ['PROJ']\n"})
    d = build_dossier(tmp_path / "r", "main", "feature", store=store,
                      flags={"jira.base_url": jira.url, "jira.token_env": "JIRA_TOKEN"})
    assert facts_by_ref(d)["PROJ-1"].code == "timeout"  # without the budget: the answer, a minute later


def test_the_retrieval_budget_bounds_an_exchange_under_the_users_own_timeout(tmp_path, jira, store, monkeypatch):
    """The user's own timeout may be long: one exchange still ends with the retrieval's budget.
    The slow answer comes after 3 s, inside the user's 30 s and past the 0.5 s budget."""
    from delta.dossier import build

    monkeypatch.setattr(build, "TOTAL_SECONDS", 0.5)
    jira.slow_seconds = 3.0
    jira.behaviours["PROJ-1"] = "slow"
    make_change(tmp_path / "r", ["PROJ-1"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira, timeout_seconds=30.0))
    assert facts_by_ref(d)["PROJ-1"].code == "timeout" and d.items == []


def test_unreachable_tracker_is_tracker_unavailable(tmp_path, store, monkeypatch):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    monkeypatch.setenv("JIRA_TOKEN", JIRA_TOKEN)
    make_change(tmp_path / "r", ["PROJ-1: one"])
    cfg = {"jira": {"base_url": f"http://127.0.0.1:{port}", "token_env": "JIRA_TOKEN", "projects": ["PROJ"]}}
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=cfg)
    assert facts_by_ref(d)["PROJ-1"].code == "tracker_unavailable"


def test_an_answer_one_byte_past_the_response_bound_is_malformed_as_that_byte_is_read():
    """Each answer is read to 8 MiB (docs/security.md): a body one byte longer is refused as that
    byte is read, before the tracker ends it (here it never does: the connection closes a byte short
    of the length it stated)."""
    bound = 8 * 1024 * 1024

    def script(server, conn, line):
        server.send(conn, f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {bound + 2}\r\n"
                          f"Connection: close\r\n\r\n".encode())
        server.send(conn, b" " * (bound + 1))

    server = Scripted(script).start()
    try:
        with pytest.raises(TrackerFailure) as failure:
            exchange("GET", server.url + "/rest", auth=None, timeout=30.0, tracker="jira", secret=None)
        assert failure.value.code == "malformed_response", failure.value.message
    finally:
        server.stop()


def test_an_answer_holding_an_integer_too_long_to_read_is_malformed_in_one_line():
    """A tracker's JSON holding an integer of more digits than Python converts, in a field read
    or not (the answer is kept, and read back later): the failure is `malformed_response`, one
    line saying so (was: Python's own text, cut mid-word at 120 characters: "Exceeds the limit
    (4300 digits) for integer string conversion: value has 5000 digits; use
    sys.set_int_max_str_")."""
    from delta.dossier.jira import parse_issue

    body = b'{"id": ' + b"7" * 5000 + b', "fields": {"summary": "s"}}'

    def script(server, conn, line):
        server.send(conn, f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                          f"Connection: close\r\n\r\n".encode() + body)

    server = Scripted(script).start()
    try:
        _, answer = exchange("GET", server.url + "/rest", auth=None, timeout=30.0, tracker="jira", secret=None)
    finally:
        server.stop()
    with pytest.raises(TrackerFailure) as failure:
        parse_issue("PROJ-1", answer, "https://jira.example")
    assert failure.value.code == "malformed_response"
    assert failure.value.message == ("jira sent a body for PROJ-1 that is not usable JSON (an integer of more than "
                                     f"{sys.get_int_max_str_digits()} digits, more than Python reads)"), \
        failure.value.message


@pytest.mark.parametrize("timeout", [0.5, 30.0])
def test_a_refused_connection_is_tracker_unavailable_however_little_time_is_left(timeout):
    """A tracker that refuses the connection is unavailable, not a timeout, whatever is left of the
    exchange's time: `timeout` is for a deadline that passed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once closed
    with pytest.raises(TrackerFailure) as failure:
        exchange("GET", f"http://127.0.0.1:{port}/rest", auth=None, timeout=timeout, tracker="jira", secret=None)
    assert failure.value.code == "tracker_unavailable"


def test_large_body_is_bounded_in_the_item_and_whole_in_the_payload(tmp_path, jira, store):
    big = "lorem ipsum " * 100_000  # 1.2 MB
    jira.behaviours["PROJ-1"] = {"title": "big", "body": big}
    make_change(tmp_path / "r", ["PROJ-1: one"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store,
                      config=config(jira, item_body_chars=500))
    [item] = d.items
    assert len(item.body) == 500 and item.body_truncated and item.body_chars == len(big)
    assert len(msgspec.json.encode(d)) < 8000
    assert read_payload(store.home, item.payload).raw["fields"]["description"] == big


def test_missing_tracker_config_is_a_fact_and_github_goes_on(tmp_path, store, monkeypatch):
    log = install_gh(monkeypatch, tmp_path, {"acme/widgets#4": {"title": "gh item"}}, GH_TOKEN)
    # OPS is seen twice, so it is a reference, but no tracker is configured for it
    make_change(tmp_path / "r", ["OPS-1: deploy", "OPS-2: rollback, see #4"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={})
    facts = facts_by_ref(d)
    assert facts["OPS-1"].code == "missing_config" and facts["OPS-2"].code == "missing_config"
    assert "token_env" in facts["OPS-1"].message  # names the settings write that fixes it
    assert [i.id for i in d.items] == ["#4"]
    assert len(gh_calls(log)) == 1


# --- Linear ----------------------------------------------------------------------------

def test_linear_200_item_from_graphql(tmp_path, linear, store, caplog, capsys):
    caplog.set_level(logging.DEBUG, logger="rennet.dossier")
    linear.behaviours["ENG-12"] = {"title": "Rate limit the API", "state": "Todo",
                                   "body": "## Acceptance criteria\n- 429 after 100 requests\n- header shows the limit\n\n## Other\n- no",
                                   "comments": [("Cy", "thread text")], "links": ["ENG-3"]}
    make_change(tmp_path / "r", ["Rate limit (closes https://linear.app/acme/issue/ENG-12/rate-limit)"],
                branch="cy/eng-12-rate-limit")
    d = build_dossier(tmp_path / "r", "main", "cy/eng-12-rate-limit", store=store, config=config(linear=linear))
    [item] = d.items
    assert (item.id, item.tracker, item.title, item.state, item.closing) == (
        "ENG-12", "linear", "Rate limit the API", "Todo", True)
    assert [c.text for c in item.acceptance_criteria] == ["429 after 100 requests", "header shows the limit"]
    assert item.links == ["ENG-3"] and item.comments == 1
    hit = linear.hits[0]
    assert hit.method == "POST" and hit.authorization == LINEAR_TOKEN
    assert_no_secret(LINEAR_TOKEN, d, store, caplog, capsys)


@pytest.mark.parametrize("behaviour, code", [
    ("401", "unauthorized"),
    ("404", "not_found"),
    ("500", "tracker_unavailable"),
    ("malformed", "malformed_response"),
])
def test_linear_failures_are_typed_facts(tmp_path, linear, store, caplog, capsys, behaviour, code):
    caplog.set_level(logging.DEBUG, logger="rennet.dossier")
    linear.behaviours["ENG-1"] = behaviour
    linear.behaviours["ENG-2"] = {"title": "ok"}
    make_change(tmp_path / "r", ["ENG-1 first", "ENG-2 second"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(linear=linear))
    assert facts_by_ref(d)["ENG-1"].code == code
    assert [i.id for i in d.items] == ["ENG-2"]
    assert_no_secret(LINEAR_TOKEN, d, store, caplog, capsys)


def test_linear_slow_is_timeout(tmp_path, linear, store):
    linear.behaviours["ENG-1"] = "slow"
    make_change(tmp_path / "r", ["ENG-1 first"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store,
                      config=config(linear=linear, timeout_seconds=0.5))
    assert facts_by_ref(d)["ENG-1"].code == "timeout"


# --- GitHub through gh -------------------------------------------------------------------

def test_gh_fetches_issues_and_pulls_in_their_own_repository(tmp_path, store, monkeypatch, caplog, capsys):
    caplog.set_level(logging.DEBUG, logger="rennet.dossier")
    log = install_gh(monkeypatch, tmp_path, {
        "acme/widgets#12": {"title": "Login crashes", "body": "- [ ] no crash\n- [x] test added",
                            "comments": [("ann", "same here")]},
        "other.org/lib_x#5": {"title": "Upstream fix", "pull": True, "merged_at": "2026-01-01T00:00:00Z"},
        "other.org/lib_x": "public",
    }, GH_TOKEN)
    make_change(tmp_path / "r", ["Fix login crash\n\nFixes #12, needs other.org/lib_x#5"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert d.target.github_repo == "acme/widgets"
    items = {i.id: i for i in d.items}
    assert set(items) == {"#12", "other.org/lib_x#5"}
    assert items["#12"].closing and not items["other.org/lib_x#5"].closing
    assert [(c.text, c.done, c.source) for c in items["#12"].acceptance_criteria] == [
        ("no crash", False, "checklist"), ("test added", True, "checklist")]
    assert items["other.org/lib_x#5"].state == "merged"
    assert items["other.org/lib_x#5"].url == "https://github.com/other.org/lib_x/pull/5"
    calls = gh_calls(log)
    assert ["api", "-H", "Accept: application/vnd.github+json", "repos/acme/widgets/issues/12"] in calls
    assert any(c[-1].startswith("repos/acme/widgets/issues/12/comments") for c in calls)
    assert ["api", "-H", "Accept: application/vnd.github+json", "repos/other.org/lib_x/issues/5"] in calls
    # another repository is asked whether it is public first; this one never is
    assert ["api", "-H", "Accept: application/vnd.github+json", "repos/other.org/lib_x"] in calls
    assert not any(c[-1] == "repos/acme/widgets" for c in calls)
    payload = read_payload(store.home, items["#12"].payload)
    assert [(c.author, c.body) for c in payload.comments] == [("ann", "same here")] and payload.raw["kind"] == "issue"
    assert_no_secret(GH_TOKEN, d, store, caplog, capsys)


@pytest.mark.parametrize("behaviour, code", [
    ("404", "not_found"),
    ("410", "not_found"),  # a deleted issue
    ("401", "unauthorized"),
    ("unauthenticated", "unauthorized"),
    ("exit4", "unauthorized"),  # gh's exit status for credentials, whatever it prints
    ("500", "tracker_unavailable"),
    ("malformed", "malformed_response"),
])
def test_gh_failures_are_typed_facts_without_gh_stderr(tmp_path, store, monkeypatch, caplog, capsys, behaviour, code):
    caplog.set_level(logging.DEBUG, logger="rennet.dossier")
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": behaviour, "acme/widgets#2": {"title": "two"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1 and #2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert facts_by_ref(d)["#1"].code == code
    assert [i.id for i in d.items] == ["#2"]
    assert_no_secret(GH_TOKEN, d, store, caplog, capsys)


@pytest.mark.parametrize("count", [float("inf"), float("-inf"), float("nan"), "9" * 5000, [], {"a": 1}, 1e300, True])
def test_an_issue_whose_comment_count_is_no_count_is_malformed_and_the_rest_go_on(tmp_path, store, monkeypatch,
                                                                                   count):
    """JSON as Python reads it has Infinity and NaN: a comment count `int` cannot take is a
    `malformed_response` fact for that issue, never a traceback."""
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": {"title": "odd", "fields": {"comments": count}},
                                       "acme/widgets#2": {"title": "fine"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1 and #2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={})
    assert [i.id for i in d.items] == ["#2"] and facts_by_ref(d)["#1"].code == "malformed_response"


@pytest.mark.parametrize("fields", [{"title": 5}, {"title": None}, {"title": ["t"]}, {"title": {"t": 1}}])
def test_an_issue_whose_title_is_no_text_is_malformed_and_the_rest_go_on(tmp_path, store, monkeypatch, fields):
    """A title is text: any other value is a `malformed_response` fact for that issue, never an
    item built on it (bounding one of another type failed outside the reader)."""
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": {"title": "odd", "fields": fields},
                                       "acme/widgets#2": {"title": "fine"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1 and #2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={})
    assert [i.id for i in d.items] == ["#2"] and facts_by_ref(d)["#1"].code == "malformed_response"


def test_an_issue_body_and_comment_past_the_rich_text_bound_are_cut_and_marked(tmp_path, store, monkeypatch):
    long = "b" * (RICH_TEXT_CHARS + 1)
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": {"title": "t", "body": long, "comments": [("ann", long)]}},
               GH_TOKEN)
    make_change(tmp_path / "r", ["#1"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={"timeout_seconds": 20.0})
    [item] = d.items
    marked = "b" * RICH_TEXT_CHARS + TRUNCATED.format(chars=RICH_TEXT_CHARS)
    assert item.body_chars == len(marked)
    assert [c.body for c in read_payload(store.home, item.payload).comments] == [marked]


def test_an_open_pull_request_is_open_and_kept_as_a_pull(tmp_path, store, monkeypatch):
    install_gh(monkeypatch, tmp_path, {"acme/widgets#3": {"title": "WIP", "pull": True, "merged_at": None}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#3"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={})
    [item] = d.items
    assert item.state == "open" and item.url == "https://github.com/acme/widgets/pull/3"
    assert read_payload(store.home, item.payload).raw["kind"] == "pull"


@pytest.mark.parametrize("thread", [{"message": "Not Found"}, "comments", 3])
def test_a_comment_thread_that_is_no_list_is_malformed_and_the_rest_go_on(tmp_path, store, monkeypatch, thread):
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": {"title": "odd", "comments": [("ann", "hi")],
                                                          "comments_answer": thread},
                                       "acme/widgets#2": {"title": "fine"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1 and #2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={})
    assert [i.id for i in d.items] == ["#2"] and facts_by_ref(d)["#1"].code == "malformed_response"


def test_a_comment_of_no_object_shape_is_left_out_and_the_issue_kept(tmp_path, store, monkeypatch):
    thread = [5, "text", None, {"user": {"login": "ann"}, "created_at": "c", "body": "hi"}]
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": {"title": "odd", "comments": [("ann", "hi")],
                                                          "comments_answer": thread}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={})
    [item] = d.items
    assert d.facts == [] and item.comments == 1
    assert [(c.author, c.body) for c in read_payload(store.home, item.payload).comments] == [("ann", "hi")]


def test_gh_error_text_is_drained_and_only_its_start_is_kept():
    """gh writing far more error text than is looked at is read to its end (never blocked on a
    full pipe) and only the first STDERR_BYTES of it kept."""
    from delta.dossier.github import STDERR_BYTES, _run_gh

    script = ("import sys\n"
              "for _ in range(64): sys.stderr.write('e' * 65536)\n"
              "sys.stderr.flush(); print('done')\n")
    code, out, err = _run_gh([sys.executable, "-c", script], 30.0, "a test", None)
    assert (code, out) == (0, b"done\n")
    assert err == "e" * STDERR_BYTES and STDERR_BYTES == 64 * 1024  # docs/security.md's figure


@pytest.mark.parametrize("extra, code", [(0, None), (1, "malformed_response")])
def test_gh_output_of_the_cap_is_read_and_a_byte_more_is_not(tmp_path, store, monkeypatch, extra, code):
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": {"title": "big", "body": "",
                                                          "pad_to": MAX_RESPONSE_BYTES + extra}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={"timeout_seconds": 20.0})
    if code is None:
        assert [i.id for i in d.items] == ["#1"] and d.facts == []
    else:
        assert d.items == [] and facts_by_ref(d)["#1"].code == code


def test_gh_slow_is_timeout(tmp_path, store, monkeypatch):
    log = install_gh(monkeypatch, tmp_path, {"acme/widgets#1": "slow"}, GH_TOKEN)
    answered = tmp_path / "gh-answered"
    monkeypatch.setenv("FAKE_GH_ANSWERED", str(answered))
    make_change(tmp_path / "r", ["#1"])
    # long enough for the fake gh (a Python process) to start and log the call on a busy host;
    # it sleeps a minute before answering
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={"timeout_seconds": 3.0})
    assert facts_by_ref(d)["#1"].code == "timeout"
    # gh was asked and stopped before it could answer
    assert gh_calls(log) and not answered.exists()


def test_gh_output_past_the_cap_is_malformed_at_once(tmp_path, store, monkeypatch):
    """gh floods stdout and stderr, then holds them open: the answer is refused as soon as it
    passes the response cap, not collected whole until the timeout."""
    install_gh(monkeypatch, tmp_path, {"acme/widgets#1": "flood", "acme/widgets#2": {"title": "two"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1 and #2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config={"timeout_seconds": 3.0})
    # collected whole, the answer would have been a timeout: gh holds its output open past it
    assert facts_by_ref(d)["#1"].code == "malformed_response"
    assert [i.id for i in d.items] == ["#2"]


def test_missing_gh_is_a_fact(tmp_path, store, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    make_change(tmp_path / "r", ["fixes #3"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    fact = facts_by_ref(d)["#3"]
    assert fact.code == "tracker_unavailable" and "gh" in fact.message


def test_no_github_remote_is_missing_config_for_local_numbers(tmp_path, store, monkeypatch):
    log = install_gh(monkeypatch, tmp_path, {"acme/widgets#3": {"title": "t"}, "acme/widgets": "public"}, GH_TOKEN)
    make_change(tmp_path / "r", ["fixes #3 (see acme/widgets#3)"], remote=None)
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    assert facts_by_ref(d)["#3"].code == "missing_config"
    assert [i.id for i in d.items] == ["acme/widgets#3"]  # another (public) repository's reference still fetched
    assert [c[-1] for c in gh_calls(log)] == ["repos/acme/widgets", "repos/acme/widgets/issues/3"]


# --- all three at once, and the dossier-wide bound --------------------------------------

def test_three_trackers_in_one_dossier_and_whole_items_dropped_over_the_bound(tmp_path, jira, linear, store,
                                                                              monkeypatch):
    install_gh(monkeypatch, tmp_path, {f"acme/widgets#{n}": {"title": f"gh {n}", "body": "x" * 1500}
                                       for n in range(1, 6)}, GH_TOKEN)
    for n in range(1, 4):
        jira.behaviours[f"PROJ-{n}"] = {"title": f"jira {n}", "body": "y" * 1500}
    linear.behaviours["ENG-1"] = {"title": "linear 1", "body": "z" * 1500}
    make_change(tmp_path / "r", ["#1 #2 #3 #4 PROJ-1 PROJ-2 PROJ-3 ENG-1", "closes #5"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store,
                      config=config(jira, linear, dossier_bytes=9000, item_body_chars=1000))
    kept = [i.id for i in d.items]
    dropped = [o.id for o in d.omissions]
    assert sorted(kept + dropped) == sorted(["#1", "#2", "#3", "#4", "#5", "PROJ-1", "PROJ-2", "PROJ-3", "ENG-1"])
    assert "#5" in kept  # a closing reference is kept first
    assert dropped and all(o.reason == "dossier_bytes" and o.bytes > 0 for o in d.omissions)
    assert sum(len(msgspec.json.encode(i)) for i in d.items) <= 9000
    # dropped items are whole: their payloads are still on disk for depth on demand
    for o in d.omissions:
        assert (store.home / o.payload).is_file()
    assert d.facts == []


def test_item_over_the_per_item_bound_is_dropped_whole(tmp_path, jira, store):
    criteria = "\n".join(f"- [ ] criterion number {n} " + "w" * 200 for n in range(40))
    jira.behaviours["PROJ-1"] = {"title": "many criteria", "body": criteria}
    jira.behaviours["PROJ-2"] = {"title": "small"}
    make_change(tmp_path / "r", ["PROJ-1 PROJ-2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira, item_bytes=3000))
    assert [i.id for i in d.items] == ["PROJ-2"]
    [omission] = d.omissions
    assert (omission.id, omission.reason) == ("PROJ-1", "item_bytes") and omission.bytes > 3000


# --- one hop of links, persisted for depth on demand --------------------------------------

def test_linked_tickets_are_fetched_one_hop_into_the_payload_only(tmp_path, jira, store):
    jira.behaviours["PROJ-1"] = dict(STORY, links=["PROJ-9", "PROJ-2", "PROJ-404"])
    jira.behaviours["PROJ-2"] = {"title": "direct reference"}
    jira.behaviours["PROJ-9"] = {"title": "Linked epic", "body": "LINKED-BODY", "links": ["PROJ-10"]}
    jira.behaviours["PROJ-10"] = {"title": "two hops away"}
    make_change(tmp_path / "r", ["PROJ-1 and PROJ-2"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira))
    item = next(i for i in d.items if i.id == "PROJ-1")
    assert item.links == ["PROJ-9", "PROJ-2", "PROJ-404"]
    linked = read_payload(store.home, item.payload).linked
    assert [(l.id, l.title, l.fact.code if l.fact else None) for l in linked] == [
        ("PROJ-9", "Linked epic", None), ("PROJ-404", "", "not_found")]  # PROJ-2 is an item of its own
    assert linked[0].body == "LINKED-BODY" and "LINKED-BODY" not in msgspec.json.encode(d).decode()
    assert jira.hits_for("PROJ-2") == 1 and jira.hits_for("PROJ-10") == 0  # one hop only
    assert [i.id for i in d.items] == ["PROJ-1", "PROJ-2"] and d.facts == []


def test_a_dossier_fetches_at_most_its_bound_of_linked_tickets(tmp_path, jira, store):
    from delta.dossier.build import MAX_LINKED, MAX_LINKS_PER_ITEM

    items = MAX_LINKED // MAX_LINKS_PER_ITEM + 1
    for n in range(1, items + 1):
        jira.behaviours[f"PROJ-{n}"] = {"title": f"item {n}",
                                        "links": [f"PROJ-{100 * n + k}" for k in range(MAX_LINKS_PER_ITEM + 2)]}
    make_change(tmp_path / "r", [" ".join(f"PROJ-{n}" for n in range(1, items + 1))])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira))
    assert len(d.items) == items
    linked = [read_payload(store.home, i.payload).linked for i in d.items]
    assert [len(one) for one in linked] == [MAX_LINKS_PER_ITEM] * (items - 1) + [MAX_LINKED % MAX_LINKS_PER_ITEM]
    assert len(jira.hits) == items + MAX_LINKED


def test_a_linked_ticket_of_no_key_shape_is_never_asked_for(tmp_path, jira, store):
    """A Jira answer names the tickets an item links to and the key it answers under: neither may
    make a request with the token climb to another endpoint of the API, nor point an item's URL
    elsewhere."""
    jira.behaviours["PROJ-1"] = dict(STORY, links=["../../../../rest/api/2/myself", "PROJ-2?fields=x", "a/b#1",
                                                   "PROJ-9", "PROJ-" + "9" * 19])
    jira.behaviours["PROJ-9"] = {"title": "Linked epic"}
    make_change(tmp_path / "r", ["PROJ-1"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira))
    [item] = d.items
    linked = read_payload(store.home, item.payload).linked
    assert [(l.id, l.title) for l in linked] == [("PROJ-9", "Linked epic")]
    assert [h.key for h in jira.hits] == ["PROJ-1", "PROJ-9"]
    assert not any(".." in h.path or "myself" in h.path for h in jira.hits)


def test_a_key_is_one_path_segment_and_a_stated_key_of_no_key_shape_is_not_believed():
    from delta.dossier.jira import parse_issue

    payload = {"key": "x/../../evil?", "fields": {"summary": "s"}}
    assert parse_issue("PROJ-1", json.dumps(payload).encode(), "https://j.example").url == \
        "https://j.example/browse/PROJ-1"
    payload["key"] = "MOVED-7"
    assert parse_issue("PROJ-1", json.dumps(payload).encode(), "https://j.example").url == \
        "https://j.example/browse/MOVED-7"


def test_jira_asks_for_a_key_as_one_path_segment(jira):
    from delta.dossier.config import JiraConfig
    from delta.dossier.jira import fetch

    with pytest.raises(TrackerFailure):
        fetch("A/../../x?y", JiraConfig(base_url=jira.url, token_env="JIRA_TOKEN"), 5.0)
    assert [h.path.split("?")[0] for h in jira.hits] == ["/rest/api/2/issue/A%2F..%2F..%2Fx%3Fy"]


def test_an_item_and_its_linked_tickets_hold_one_decoded_answer_at_a_time(tmp_path, store, monkeypatch):
    """A tracker answering an item and each of its linked tickets with 50,000 empty objects each:
    decoded, each answer holds tens of times its size, and the payload kept all of them (at 250,000, 1.2 GB
    traced for 8 MB answers; at 50,000, 2.8 times what decoding one answer holds). Kept as its
    JSON once read, the whole build holds about one decoded answer."""
    import tracemalloc
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from indexer.contract.decode import decode_json

    units = 50_000
    links = [f"PROJ-{i}" for i in range(2, 7)]

    def answer(key: str, linked: list[str]) -> bytes:
        head = {"key": key, "fields": {"summary": "s", "issuelinks": [{"outwardIssue": {"key": k}} for k in linked]}}
        return json.dumps(head).encode()[:-2] + b',"junk":[' + b"{}," * units + b"{}]}}"

    answers = {"PROJ-1": answer("PROJ-1", links), **{k: answer(k, []) for k in links}}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            data = answers[self.path.split("?")[0].rsplit("/", 1)[-1]]
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("JIRA_TOKEN", JIRA_TOKEN)
        make_change(tmp_path / "r", ["PROJ-1"])
        cfg = {"jira": {"base_url": f"http://127.0.0.1:{server.server_address[1]}", "token_env": "JIRA_TOKEN",
                        "projects": ["PROJ"]}, "timeout_seconds": 60}
        tracemalloc.start()
        try:
            decode_json(answers["PROJ-2"])
            one = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=cfg)
            whole = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        server.shutdown()
        server.server_close()
    assert [i.id for i in d.items] == ["PROJ-1"] and d.facts == []
    linked = read_payload(store.home, d.items[0].payload).linked
    assert [(l.id, len(l.raw["fields"]["junk"])) for l in linked] == [(k, units + 1) for k in links]
    assert whole < 2 * one, (whole, one)


def test_github_links_come_from_the_issue_body_in_that_issues_repository(tmp_path, store, monkeypatch):
    install_gh(monkeypatch, tmp_path, {
        "up/lib#1": {"title": "upstream", "body": "dup of #2, see acme/widgets#3"},
        "up/lib#2": {"title": "upstream two"},
        "acme/widgets#3": {"title": "ours"},
        "up/lib": "public",
    }, GH_TOKEN)
    make_change(tmp_path / "r", ["port up/lib#1"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    [item] = d.items
    assert item.links == ["up/lib#2", "#3"]
    assert [(l.id, l.title) for l in read_payload(store.home, item.payload).linked] == [
        ("up/lib#2", "upstream two"), ("#3", "ours")]


def test_a_linked_issue_of_eighteen_digits_is_asked_for_and_one_of_nineteen_is_no_link(tmp_path, store, monkeypatch):
    """docs/security.md: a number of more than 18 digits is no reference, one of 18 is; so is a
    link an issue's body gives."""
    n18, n19 = "9" * 18, "8" * 19
    log = install_gh(monkeypatch, tmp_path, {"acme/widgets#1": {"title": "ours", "body": f"see #{n18} and #{n19}"},
                                             f"acme/widgets#{n18}": {"title": "far"}}, GH_TOKEN)
    make_change(tmp_path / "r", ["#1"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store)
    [item] = d.items
    assert item.links == [f"#{n18}"]
    assert [(l.id, l.title) for l in read_payload(store.home, item.payload).linked] == [(f"#{n18}", "far")]
    assert not any(n19 in c[-1] for c in gh_calls(log))


def test_an_issue_bodys_links_are_its_github_references_only():
    """Keys of other trackers in an issue body are no links of a GitHub issue; `#N` is of the
    issue's own repository, named `#N` only when that is this one (in any case)."""
    from delta.dossier.github import body_links

    body = "Blocked by PROJ-1 and PROJ-2, see #3, Other/Lib#4 and https://github.com/acme/widgets/issues/5"
    assert body_links(body, "acme/widgets", "Acme/Widgets") == ["#3", "Other/Lib#4", "#5"]
    assert body_links(body, "up/stream", "acme/widgets") == ["up/stream#3", "Other/Lib#4", "#5"]


@pytest.mark.parametrize("timeout, code", [(1e300, None), (float("inf"), None), (float("nan"), "timeout"),
                                           (-1.0, "timeout")])
def test_an_exchange_takes_any_timeout_a_caller_gives(timeout, code):
    """A timeout past what the platform's clocks hold is held to an hour, not an
    OverflowError from a timer or a socket; one that is no positive number is spent at once."""
    def script(server, conn, line):
        server.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
                          b"Connection: close\r\n\r\n{\"ok\":true}")

    server = Scripted(script).start()
    try:
        if code is None:
            assert exchange("GET", server.url + "/rest", auth=None, timeout=timeout, tracker="jira",
                            secret=None) == (200, b'{"ok":true}')
        else:
            with pytest.raises(TrackerFailure) as failure:
                exchange("GET", server.url + "/rest", auth=None, timeout=timeout, tracker="jira", secret=None)
            assert failure.value.code == code
    finally:
        server.stop()


# --- a token a tracker echoes ------------------------------------------------------------

def test_a_token_linear_echoes_is_redacted_as_jiras_is(tmp_path, linear, store):
    linear.behaviours["ENG-1"] = {"title": f"echo {LINEAR_TOKEN}", "body": f"key: {LINEAR_TOKEN}"}
    make_change(tmp_path / "r", ["ENG-1 first"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(linear=linear))
    [item] = d.items
    assert (item.title, item.body) == ("echo [redacted]", "key: [redacted]")
    assert [(f.code, f.ref) for f in d.facts] == [("redacted", "ENG-1")]
    assert files_containing(store.home, LINEAR_TOKEN) == []


class SplitEcho(FakeJira):
    """Answers with a v3 description whose two text nodes each hold half of the token: the
    answer never holds it whole, the flattened body does."""

    def ok_body(self, key, issue):
        half = len(JIRA_TOKEN) // 2
        return {"key": key, "fields": {"summary": "split", "description": {"type": "doc", "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": "seen " + JIRA_TOKEN[:half]},
                                              {"type": "text", "text": JIRA_TOKEN[half:] + " here"}]}]}}}


def test_a_token_put_together_only_in_the_flattened_text_is_redacted(tmp_path, store, monkeypatch):
    server = SplitEcho(token=JIRA_TOKEN).start()
    monkeypatch.setenv("JIRA_TOKEN", JIRA_TOKEN)
    try:
        server.behaviours["PROJ-1"] = {"title": "split"}
        make_change(tmp_path / "r", ["PROJ-1 one"])
        d = build_dossier(tmp_path / "r", "main", "feature", store=store,
                          config=config(server, jira_extra={"api_version": 3}))
    finally:
        server.stop()
    [item] = d.items
    assert item.body == "seen [redacted] here\n"
    assert [f.code for f in d.facts] == ["redacted"]
    assert JIRA_TOKEN not in msgspec.json.encode(d).decode()
    assert files_containing(store.home, JIRA_TOKEN) == []


def test_a_token_holding_characters_json_escapes_is_redacted(tmp_path, store, monkeypatch):
    """A token is looked for as JSON spells it: a quote or backslash in it is escaped there."""
    token = 'jira-SECRET\\back"quote\u00e9'
    server = FakeJira(token=token).start()
    monkeypatch.setenv("JIRA_TOKEN", token)
    try:
        server.behaviours["PROJ-1"] = {"title": f"echo {token}", "comments": [("bot", token)]}
        make_change(tmp_path / "r", ["PROJ-1 one"])
        d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(server))
    finally:
        server.stop()
    [item] = d.items
    assert item.title == "echo [redacted]" and [f.code for f in d.facts] == ["redacted"]
    assert token not in msgspec.json.encode(d).decode()
    assert files_containing(store.home, msgspec.json.encode(token).decode()[1:-1]) == []


def test_a_token_the_tracker_spells_in_escapes_is_redacted_in_the_raw_answer_kept_as_sent(tmp_path, store, monkeypatch):
    """The raw answer is kept as the tracker sent it: a token it echoes with each character
    spelled as a `\\u` escape (and `/` as `\\/`) is found there too, and the payload file holds
    it in no spelling."""
    token = "jira-SECRET/7f3a9c"
    escaped = "".join("\\/" if c == "/" else f"\\u{ord(c):04X}" for c in token)

    class Escaping(FakeJira):
        def send(self, req, status, payload):
            data = json.dumps(payload).encode().replace(token.replace("/", "\\/").encode(), escaped.encode())
            self.send_raw(req, status, data.replace(token.encode(), escaped.encode()), "application/json")

    server = Escaping(token=token).start()
    monkeypatch.setenv("JIRA_TOKEN", token)
    try:
        server.behaviours["PROJ-1"] = {"title": "echo", "comments": [("bot", f"seen {token}")]}
        make_change(tmp_path / "r", ["PROJ-1 one"])
        d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(server))
    finally:
        server.stop()
    [item] = d.items
    assert [f.code for f in d.facts] == ["redacted"]
    payload = read_payload(store.home, item.payload)
    assert [c.body for c in payload.comments] == ["seen [redacted]"]
    assert payload.raw["fields"]["comment"]["comments"][0]["body"] == "seen [redacted]"
    assert files_containing(store.home, escaped) == [] and files_containing(store.home, token) == []


def test_a_token_cut_by_the_rich_text_bound_leaves_none_of_it(tmp_path, jira, store):
    """A tracker echoing the token where a body is cut: the part of it before the cut is
    redacted too (was: kept in the linked ticket's payload, the token less its last characters)."""
    jira.behaviours["PROJ-1"] = {"title": "ours", "links": ["PROJ-2"]}
    jira.behaviours["PROJ-2"] = {"title": "linked", "body": "x" * (RICH_TEXT_CHARS - 12) + JIRA_TOKEN + " tail"}
    make_change(tmp_path / "r", ["PROJ-1 one"])
    d = build_dossier(tmp_path / "r", "main", "feature", store=store, config=config(jira, timeout_seconds=20.0))
    [item] = d.items
    [linked] = read_payload(store.home, item.payload).linked
    assert linked.body == "x" * (RICH_TEXT_CHARS - 12) + "[redacted]" + TRUNCATED.format(chars=RICH_TEXT_CHARS)
    assert [(f.code, f.ref) for f in d.facts] == [("redacted", "PROJ-2")]
    assert files_containing(store.home, JIRA_TOKEN[:12]) == []


def test_a_token_cut_anywhere_by_the_rich_text_bound_leaves_none_of_its_start():
    """Whatever the cut leaves of an echoed token, from all of it but its last character down to
    CUT_PREFIX_CHARS, that start is redacted; a shorter one tells nothing and is left."""
    from delta.dossier.build import CUT_PREFIX_CHARS, redact_fetched
    from delta.dossier.items import Fetched, bounded_text

    mark = TRUNCATED.format(chars=RICH_TEXT_CHARS)
    for kept in range(1, len(JIRA_TOKEN)):
        pad = "x" * (RICH_TEXT_CHARS - kept)
        body = bounded_text(pad + JIRA_TOKEN + " tail")
        got, found = redact_fetched(Fetched("PROJ-1", "jira", "t", "s", body, ""), [JIRA_TOKEN])
        if kept >= CUT_PREFIX_CHARS:
            assert found and got.body == pad + "[redacted]" + mark, kept
        else:
            assert not found and got.body == pad + JIRA_TOKEN[:kept] + mark, kept
