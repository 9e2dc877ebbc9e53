"""Where a tracker token may go: never where the commit under review says, only over https
(or http to loopback), never across a redirect to another origin, and never back out when a
tracker echoes it. Each case runs `rennet dossier` as a separate process against real HTTP
servers on 127.0.0.1."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from delta.dossier.config import ENV_OVERRIDES, READ_ENV
from delta.dossier.transport import TrackerFailure, check_url
from tests.fakes.trackers import FakeJira, Redirector
from tests.fakes.world import files_containing, make_change

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "jira-SECRET-trust-7731"
STOLEN = "AKIA-NOT-FOR-TRACKERS-9911"


@pytest.fixture
def jira():
    server = FakeJira(token=TOKEN).start()
    yield server
    server.stop()


def dossier(tmp_path: Path, *args: str, user_config: str | None = None,
            reads: str | None = "PROJ") -> tuple[subprocess.CompletedProcess, dict]:
    """`rennet dossier` of the change in `tmp_path`; the user's environment lists the Jira
    projects `reads` (comma-separated), whose keys may be read with their token."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    if user_config is not None:
        (home / "config.toml").write_text(user_config)
    env = {k: v for k, v in os.environ.items() if k not in (*ENV_OVERRIDES.values(), *READ_ENV.values())}
    env.update(RENNET_HOME=str(home), PYTHONPATH=str(ROOT), JIRA_TOKEN=TOKEN, AWS_SECRET_ACCESS_KEY=STOLEN)
    if reads is not None:
        env[READ_ENV["jira.projects"]] = reads
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "dossier", "--repo", str(tmp_path / "r"),
                           "--base", "main", "--head", "feature/proj-1", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done, (json.loads(done.stdout) if "--json" in args else {})


def facts(reply: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for f in reply["data"]["facts"]:
        out.setdefault(f["code"], []).append(f)
    return out


def test_a_head_only_rennet_toml_cannot_send_any_token_to_its_listener(tmp_path, jira):
    """The reviewed branch names a loopback listener and a variable of the environment; the
    listener receives nothing, the refusal is a typed fact, and the review goes on."""
    jira.behaviours["PROJ-1"] = {"title": "would be fetched"}
    hostile = (f'[dossier.jira]\nbase_url = "{jira.url}"\ntoken_env = "AWS_SECRET_ACCESS_KEY"\n'
               'projects = ["PROJ"]\n')
    builder, _, _ = make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1")
    builder.commit({".rennet.toml": hostile}, "settings", branch="feature/proj-1",
                   parents=[str(builder.repo.branches["feature/proj-1"].target)])
    done, reply = dossier(tmp_path, "--json")
    assert jira.hits == []  # not contacted at all, so no token of any name reached it
    found = facts(reply)
    assert {f["ref"] for f in found["untrusted_config"]} == {"dossier.jira.base_url", "dossier.jira.token_env"}
    assert [f["ref"] for f in found["missing_config"]] == ["PROJ-1"]  # the key was recognized, not fetched
    assert [f["tracker"] for f in found["missing_config"]] == ["jira"]  # the tracker the key is routed to
    assert STOLEN not in done.stdout + done.stderr


def test_the_users_own_config_sends_the_token_and_the_head_cannot_redirect_it(tmp_path, jira):
    jira.behaviours["PROJ-1"] = {"title": "fetched with the user's settings"}
    elsewhere = FakeJira(token=TOKEN).start()
    try:
        hostile = f'[dossier.jira]\nbase_url = "{elsewhere.url}"\nprojects = ["PROJ"]\n'
        make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1", files={".rennet.toml": hostile})
        _, reply = dossier(tmp_path, "--json", user_config=f'[dossier.jira]\nbase_url = "{jira.url}"\n'
                                                          'token_env = "JIRA_TOKEN"\n')
        assert [i["id"] for i in reply["data"]["items"]] == ["PROJ-1"]
        assert jira.hits_for("PROJ-1") == 1 and elsewhere.hits == []
        assert [f["ref"] for f in facts(reply)["untrusted_config"]] == ["dossier.jira.base_url"]
    finally:
        elsewhere.stop()


def test_the_change_under_review_never_chooses_which_projects_the_token_reads(tmp_path, jira):
    """A public change names a confidential ticket (`HR-12`), and its `.rennet.toml` lists the
    HR project: only the projects the user lists are read with their token. The key stays a
    reference, with an `other_project` fact; the tracker is never asked for it, nor for a
    ticket of another project that a ticket read links to."""
    jira.behaviours["PROJ-1"] = {"title": "ours", "links": ["HR-9"]}
    jira.behaviours["HR-12"] = {"title": "CONFIDENTIAL-TITLE", "body": "CONFIDENTIAL-BODY"}
    jira.behaviours["HR-9"] = {"title": "CONFIDENTIAL-LINKED"}
    make_change(tmp_path / "r", ["PROJ-1: change, see HR-12"], branch="feature/proj-1",
                files={".rennet.toml": '[dossier.jira]\nprojects = ["PROJ", "HR"]\n'})
    done, reply = dossier(tmp_path, "--json", "--jira-url", jira.url, "--jira-token-env", "JIRA_TOKEN")
    assert [i["id"] for i in reply["data"]["items"]] == ["PROJ-1"]
    assert "HR-12" in [r["id"] for r in reply["data"]["references"]]
    [fact] = facts(reply)["other_project"]
    assert fact["ref"] == "HR-12" and "RENNET_JIRA_PROJECTS" in fact["message"]
    assert fact["tracker"] == "jira"  # was: "tracker", though the settings route the key to Jira
    assert [h.key for h in jira.hits] == ["PROJ-1"]
    assert "CONFIDENTIAL" not in done.stdout + done.stderr


@pytest.mark.parametrize("reads, read", [(None, []), ("", []), ("OPS,PROJ", ["PROJ-1", "PROJ-2"]),
                                         ("*", ["PROJ-1", "PROJ-2"]), ("proj", ["PROJ-1", "PROJ-2"])])
def test_a_lone_tracker_reads_only_the_projects_the_user_lists(tmp_path, jira, reads, read):
    """With one tracker configured, every key the change names is routed to it; it is read
    only when the user lists its project (any case), or `*`."""
    jira.behaviours["PROJ-1"] = {"title": "one"}
    jira.behaviours["PROJ-2"] = {"title": "two"}
    make_change(tmp_path / "r", ["PROJ-1: change", "PROJ-2: more"], branch="feature/proj-1")
    _, reply = dossier(tmp_path, "--json", "--jira-url", jira.url, "--jira-token-env", "JIRA_TOKEN", reads=reads)
    assert [i["id"] for i in reply["data"]["items"]] == read
    assert sorted(h.key for h in jira.hits) == read
    assert sorted(f["ref"] for f in facts(reply).get("other_project", [])) == sorted({"PROJ-1", "PROJ-2"} - set(read))


def test_a_dossier_read_under_more_projects_is_not_served_under_fewer(tmp_path, jira):
    """A stored dossier holds what the token read: one built while the user read every project
    is built again, not served, once they read fewer."""
    jira.behaviours["PROJ-1"] = {"title": "ours"}
    jira.behaviours["HR-12"] = {"title": "CONFIDENTIAL-TITLE"}
    make_change(tmp_path / "r", ["PROJ-1: change, see HR-12 and HR-13"], branch="feature/proj-1")
    flags = ("--json", "--jira-url", jira.url, "--jira-token-env", "JIRA_TOKEN")
    _, first = dossier(tmp_path, *flags, reads="*")
    assert "HR-12" in [i["id"] for i in first["data"]["items"]]
    done, second = dossier(tmp_path, *flags, reads="PROJ")
    assert second["data"]["reused"] is False and [i["id"] for i in second["data"]["items"]] == ["PROJ-1"]
    assert "CONFIDENTIAL" not in done.stdout


def test_plain_http_to_a_host_off_the_machine_is_refused_before_connecting(tmp_path):
    make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1",
                files={".rennet.toml": '[dossier.jira]\nprojects = ["PROJ"]\n'})
    _, reply = dossier(tmp_path, "--json", "--jira-url", "http://example.invalid", "--jira-token-env", "JIRA_TOKEN")
    # a name that cannot resolve would otherwise be `tracker_unavailable`: this answer comes before any lookup
    [fact] = facts(reply)["insecure_url"]
    assert fact["ref"] == "PROJ-1" and "https" in fact["message"]


@pytest.mark.parametrize("url, allowed", [
    ("https://jira.example.org/rest", True), ("http://127.0.0.1:8080", True), ("http://127.9.9.9", True),
    ("http://[::1]:9000/graphql", True), ("http://localhost:1", True), ("http://example.invalid", False),
    ("http://10.0.0.1", False), ("file:///etc/passwd", False), ("ftp://127.0.0.1/x", False),
    ("jira.example.org", False), ("https://", False), ("http://127.0.0.1@example.invalid", False),
    ("http://example.invalid#@127.0.0.1", False), ("http://127.0.0.1.example.invalid", False),
    ("http://notlocalhost:1", False), ("http://a.localhost.example", False),
])
def test_the_url_rule(url, allowed):
    if allowed:
        check_url(url, "jira")
    else:
        with pytest.raises(TrackerFailure) as err:
            check_url(url, "jira")
        assert err.value.code == "insecure_url"


def test_a_redirect_to_another_origin_drops_the_token(tmp_path):
    target = FakeJira(token=TOKEN).start()
    target.behaviours["PROJ-1"] = {"title": "behind a redirect"}
    mover = Redirector(target.url).start()
    try:
        make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1",
                    files={".rennet.toml": '[dossier.jira]\nprojects = ["PROJ"]\n'})
        _, reply = dossier(tmp_path, "--json", "--jira-url", mover.url, "--jira-token-env", "JIRA_TOKEN")
        assert [h.authorization for h in mover.hits] == [f"Bearer {TOKEN}"]  # the configured origin
        assert [h.authorization for h in target.hits] == [""]  # another port is another origin
        assert [f["code"] for f in reply["data"]["facts"]] == ["unauthorized"]
    finally:
        mover.stop()
        target.stop()


def test_a_redirect_to_plain_http_off_the_machine_is_not_followed(tmp_path):
    mover = Redirector("http://example.invalid").start()
    try:
        make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1",
                    files={".rennet.toml": '[dossier.jira]\nprojects = ["PROJ"]\n'})
        _, reply = dossier(tmp_path, "--json", "--jira-url", mover.url, "--jira-token-env", "JIRA_TOKEN")
        assert [f["code"] for f in reply["data"]["facts"]] == ["insecure_url"] and len(mover.hits) == 1
    finally:
        mover.stop()


@pytest.mark.parametrize("to", [
    "http://127.0.0.1:9/x", "https://127.0.0.2/x", "http://localhost:8080/x", "https://admin.localhost/x",
    "http://[::1]:9/x", "https://[::ffff:127.0.0.1]/x", "https://0.0.0.0:8443/x", "https://169.254.169.254/x",
    "http://127.1/x", "https://2130706433/x", "https://0x7f000001/x", "https://LOCALHOST./x",
])
def test_a_tracker_elsewhere_cannot_redirect_to_this_machine(to):
    """A tracker off this machine answering with a redirect to a local address (in any spelling
    the resolver reads) is refused before it is followed; among local origins and to other
    hosts a redirect is followed as before."""
    import urllib.request

    from delta.dossier.transport import _Redirects

    def follow(start: str, to: str) -> urllib.request.Request | None:
        req = urllib.request.Request(start, headers={"Accept": "application/json"})
        return _Redirects("jira", "Bearer t").redirect_request(req, io.BytesIO(), 302, "Found", {}, to)

    with pytest.raises(TrackerFailure) as err:
        follow("https://tracker.example/rest/api/2/issue/PROJ-1", to)
    assert err.value.code == "insecure_url"
    if to.startswith(("http://127.0.0.1", "http://localhost", "http://[::1]")):
        assert follow("http://127.0.0.1:5/rest", to) is not None  # a local tracker moving locally
    moved = follow("https://tracker.example/rest", "https://elsewhere.example/rest")
    assert moved is not None and moved.get_header("Authorization") is None


def test_a_redirect_to_another_scheme_of_the_same_host_and_port_drops_the_token():
    """An origin is its scheme, host and port (a port left out is the scheme's own): https to
    plain http on the same loopback port is another origin, and the token stays behind."""
    import urllib.request

    from delta.dossier.transport import _Redirects

    def follow(start: str, to: str) -> urllib.request.Request:
        req = urllib.request.Request(start)
        moved = _Redirects("jira", "Bearer t").redirect_request(req, io.BytesIO(), 302, "Found", {}, to)
        assert moved is not None
        return moved

    assert follow("https://127.0.0.1:8443/a", "https://127.0.0.1:8443/b").get_header("Authorization") == "Bearer t"
    assert follow("https://127.0.0.1:8443/a", "http://127.0.0.1:8443/b").get_header("Authorization") is None
    # a port left out is the scheme's own: 443 written or not is one origin, another port is not
    assert follow("https://tracker.example/a", "https://tracker.example:443/b").get_header("Authorization") == "Bearer t"
    assert follow("https://tracker.example:443/a", "https://TRACKER.example/b").get_header("Authorization") == "Bearer t"
    assert follow("https://tracker.example/a", "https://tracker.example:8443/b").get_header("Authorization") is None


def test_a_redirect_within_the_same_origin_keeps_the_token(tmp_path, jira):
    jira.behaviours["PROJ-1"] = "moved:PROJ-2"
    jira.behaviours["PROJ-2"] = {"title": "moved here"}
    make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1",
                files={".rennet.toml": '[dossier.jira]\nprojects = ["PROJ"]\n'})
    _, reply = dossier(tmp_path, "--json", "--jira-url", jira.url, "--jira-token-env", "JIRA_TOKEN")
    assert [h.authorization for h in jira.hits] == [f"Bearer {TOKEN}"] * 2
    assert [i["title"] for i in reply["data"]["items"]] == ["moved here"]


def test_a_token_echoed_by_the_tracker_is_redacted_where_stored_and_printed(tmp_path, jira):
    jira.behaviours["PROJ-1"] = {"title": f"token {TOKEN} in the title",
                                 "body": f"Acceptance criteria:\n- never print {TOKEN}\n",
                                 "comments": [("bot", f"echo: Bearer {TOKEN}")]}
    make_change(tmp_path / "r", ["PROJ-1: change"], branch="feature/proj-1",
                files={".rennet.toml": '[dossier.jira]\nprojects = ["PROJ"]\n'})
    config = f'[dossier.jira]\nbase_url = "{jira.url}"\ntoken_env = "JIRA_TOKEN"\n'
    done, reply = dossier(tmp_path, "--json", user_config=config)
    [item] = reply["data"]["items"]
    assert item["title"] == "token [redacted] in the title"
    assert item["acceptance_criteria"][0]["text"] == "never print [redacted]"
    assert [f["code"] for f in reply["data"]["facts"]] == ["redacted"]
    payload = (tmp_path / "home" / item["payload"]).read_text()
    assert "echo: Bearer [redacted]" in payload
    human, _ = dossier(tmp_path, "--refresh", user_config=config)
    assert "[redacted]" in human.stdout
    assert TOKEN not in done.stdout + done.stderr + human.stdout + human.stderr
    assert files_containing(tmp_path / "home", TOKEN) == []  # LMDB record and payload files alike


def test_a_failure_message_is_scrubbed_of_the_secret_again_wherever_it_came_from():
    """Failure messages are composed from status and host only, and scrubbed again: a secret the
    host happens to spell (here the loopback address itself) is `[redacted]` in the message."""
    import socket

    from delta.dossier.transport import exchange

    with socket.socket() as sock:  # a port nothing listens on: the connection is refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TrackerFailure) as err:
        exchange("GET", f"http://127.0.0.1:{port}/rest", auth="Bearer 127.0.0.1", timeout=5.0, tracker="jira",
                 secret="127.0.0.1")
    assert err.value.code == "tracker_unavailable"
    assert "127.0.0.1" not in err.value.message and "[redacted]" in err.value.message


def test_a_token_kept_over_a_redirect_within_its_origin_is_dropped_at_the_next_to_another():
    """A redirect within the configured origin keeps the token for that request alone: a later
    redirect to another origin carries none of it (the token is no header urllib copies onto the
    next request)."""
    from delta.dossier.transport import exchange
    from tests.fakes.trackers import Scripted

    target = FakeJira(token=TOKEN).start()

    def script(server, conn, line):
        where = "/next" if line.startswith("GET /start ") else target.url + "/rest/api/2/issue/PROJ-1"
        server.send(conn, f"HTTP/1.1 302 Found\r\nLocation: {where}\r\nContent-Length: 0\r\n"
                          f"Connection: close\r\n\r\n".encode())

    mover = Scripted(script).start()
    try:
        with pytest.raises(TrackerFailure) as err:
            exchange("GET", mover.url + "/start", auth=f"Bearer {TOKEN}", timeout=10.0, tracker="jira", secret=TOKEN)
        assert err.value.code == "unauthorized"
        assert [line.split()[1] for line in mover.requests] == ["/start", "/next"]
        assert [h.authorization for h in target.hits] == [""]
    finally:
        mover.stop()
        target.stop()
