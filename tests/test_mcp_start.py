"""The stdio face answers a session's opening before the SDK is loaded (`context_tools.faces.mcp_start`):
each answer so given is, byte for byte, the one the SDK's server gives the same lines, at every
protocol version, on a plain server and a `--worktree` one; any other line ends the early answers
and is the transport's, as ever; and the SDK, handed the opening afterwards, serves the session on
without answering it twice."""

from __future__ import annotations

import io
import json

import pytest

from context_tools.faces.mcp_start import Start
from context_tools.faces.mcp_start_answers import sdk_answers
from tests.mcp_clients import INIT, RawStdio, python_prepared  # noqa: F401 - fixture

INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
# what clients open with: the SDK's own client, Codex (rmcp), Claude Code, Gemini CLI, bare
CLIENTS = {
    "sdk": {"capabilities": {"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}},
            "clientInfo": {"name": "mcp", "version": "0.1.0"}},
    "codex": {"capabilities": {"experimental": {"codex/auth-change": {}}, "elicitation": {}},
              "clientInfo": {"name": "codex-mcp-client", "title": "Codex", "version": "0.171.0"}},
    "claude": {"capabilities": {"roots": {}, "elicitation": {}},
               "clientInfo": {"name": "claude-code", "version": "2.1.337"}},
    "gemini": {"capabilities": {"roots": {"listChanged": True}, "experimental": {"x": {"on": True, "n": 1.5}}},
               "clientInfo": {"name": "gemini-cli-mcp-client", "version": "0.0.1", "description": "é"}},
    "bare": {"capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
# every version the SDK agrees to, one it does not know, and the one past the handshake's era
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01", "2026-07-28"]


def _line(doc: object) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode()


def _opening(version: str, client: str, rid: object) -> list[bytes]:
    ask = {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": {"protocolVersion": version, **CLIENTS[client]}}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    if client == "codex":  # as Codex lists them
        listing["params"] = {"_meta": {"progressToken": 0}}
    return [_line(ask), INITIALIZED, _line(listing),
            _line({"jsonrpc": "2.0", "id": "p-3", "method": "ping", "params": {}})]


def _early(lines: list[bytes], worktree: bool) -> tuple[bytes, bytes | None, list[bytes]]:
    """What `Start` writes to `lines`, the line it left to the transport (b"" having read them all),
    and the lines it hands the SDK."""
    out = io.BytesIO()
    start = Start(io.BufferedReader(io.BytesIO(b"".join(line + b"\n" for line in lines))),  # type: ignore[arg-type]
                  out, worktree)  # type: ignore[arg-type]
    start.begin()
    left = start.last()
    replays, _ = start.finish()
    return out.getvalue(), left, replays


@pytest.mark.parametrize("worktree", [False, True])
@pytest.mark.parametrize("version", VERSIONS)
def test_each_early_answer_is_the_sdks_own(version, worktree):
    """A file stale by one byte, an answer made otherwise than the SDK makes it (another version
    agreed, the instructions of the other face, an id written otherwise), fails here."""
    for client, rid in (("sdk", 1), ("codex", 0), ("claude", "init-1"), ("gemini", 7), ("bare", -4)):
        lines = _opening(version, client, rid)
        written, left, replays = _early(lines, worktree)
        assert left == b"", (client, left)  # each was answered early
        assert replays == lines[:2]
        assert written == b"".join(sdk_answers(lines, worktree)), (client, version, worktree)


@pytest.mark.parametrize("unusual", [
    b"[" + _line(INIT) + b"]",  # a batch
    b'{"jsonrpc":"2.0","id":1,"method":"initialize"',  # not JSON
    _line({**INIT, "id": 1.0}),  # an id the SDK may write otherwise
    _line({**INIT, "id": "a b"}),
    _line({**INIT, "params": {**INIT["params"], "_meta": {"progressToken": 1}}}),
    _line({**INIT, "params": {**INIT["params"], "capabilities": {"roots": {"listChanged": "yes"}}}}),
    _line({**INIT, "params": {**INIT["params"], "capabilities": {"tasks": {}}}}),
    _line({**INIT, "params": {**INIT["params"], "clientInfo": {"name": "t"}}}),
    _line({**INIT, "params": {**INIT["params"], "protocolVersion": 20250618}}),
    _line({**INIT, "extra": 1}),
    _line({**INIT, "jsonrpc": "1.0"}),
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',  # before initialize
    b'{"jsonrpc":"2.0","id":2,"method":"ping"}',
])
def test_an_opening_of_another_form_is_left_whole_to_the_transport(unusual):
    """A check that let any of these through (each one the SDK refuses, answers otherwise, or
    answers only once its session is open) fails here."""
    written, left, replays = _early([unusual, INITIALIZED], worktree=False)
    assert (written, left, replays) == (b"", unusual + b"\n", [])


@pytest.mark.parametrize("after", [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',  # the initialize's id again
    b'{"jsonrpc":"2.0","id":"1","method":"ping"}',  # the same id, as the SDK correlates ids
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":0.5}}}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":0,"x":1}}}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context_overview","arguments":{}}}',
    b'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list"' + b" " * (1 << 16) + b"}",  # longer than an opening
])
def test_the_first_line_of_another_kind_ends_the_early_answers(after):
    """What comes after it is read by the transport, in order: a start that answered on (a
    second list, or anything past the first unusual line) fails here."""
    written, left, replays = _early([_line(INIT), INITIALIZED, after, b'{"jsonrpc":"2.0","id":9,"method":"ping"}'],
                                    worktree=False)
    assert left == after + b"\n"
    assert replays == [_line(INIT), INITIALIZED]
    assert [json.loads(line)["id"] for line in written.splitlines()] == [1]


def test_a_client_that_pings_on_meets_the_transport_after_a_few():
    """A start that answered (and kept the id of) every ping before the SDK loaded fails here."""
    from context_tools.faces.mcp_start import EARLY_REQUESTS

    pings = [_line({"jsonrpc": "2.0", "id": n, "method": "ping"}) for n in range(2, 2 * EARLY_REQUESTS)]
    written, left, _ = _early([_line(INIT), INITIALIZED, *pings], worktree=False)
    assert len(written.splitlines()) == EARLY_REQUESTS
    assert left == pings[EARLY_REQUESTS - 1] + b"\n"


def test_the_sdk_handed_the_opening_serves_on_and_answers_it_once(tmp_path):
    """The server answers a session opened before its SDK loaded as one opened after: a transport
    that did not hand the SDK the opening (its calls refused as before initialize) or wrote the
    SDK's second answer to it fails here."""
    server = RawStdio(str(tmp_path / "home"), "--root", str(tmp_path))
    try:
        call = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}}
        answers = server([_line(INIT), INITIALIZED, b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
                          b'{"jsonrpc":"2.0","id":3,"method":"ping"}', _line(call)], {1, 2, 3, 4})
        assert sorted(a["id"] for a in answers) == [1, 2, 3, 4], [a.get("id") for a in answers]
        assert answers[0]["result"]["serverInfo"]["name"] == "rennet-context"
        called = next(a for a in answers if a["id"] == 4)  # the tool's typed error, not a session refused
        assert called["result"]["structuredContent"]["error"]["code"] == "unknown_command", called
        # the SDK, asked again, gives the very list answered early
        again = server([b'{"jsonrpc":"2.0","id":5,"method":"tools/list"}'], {5})
        assert again[0]["result"] == next(a for a in answers if a["id"] == 2)["result"]
        server.close()
    finally:
        server.kill()
