"""A call whose client hung up over HTTP, the MCP SDK's own server running it on: the guard
holds the call's place among the session's requests in flight and its id until it ends.

Was: both were let go when the connection closed, so a client that sent calls and hung up
had as many running as it liked, and one that sent the same id again was refused nothing and
could be sent the old call's answer in place of its own (the SDK routes answers by id).
Each call here is held in flight, deterministically, by the server's `roots/list` request,
sent on the call's own stream, which the client answers only once it has checked the guard.

A session holding its share may still send what frees places: its answers to the server's
requests and its notifications (a cancel). Was: 503, like a request, so the calls waited out
the roots' deadline, and a client could not cancel one.
"""

from __future__ import annotations

import json
import time

from context_tools.faces.in_flight import SESSION_REQUESTS
from tests.mcp_clients import HttpServer, python_prepared, roots_session  # noqa: F401 - fixture


def _left_call(server: HttpServer, session: dict, rid: int, repo: str) -> dict:
    """Send a call of id `rid` on its own connection, read it until the server asks for the
    client's roots, then hang up: the `roots/list` request asked."""
    import httpx2

    call = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": "repo_snapshots", "arguments": {"repo": repo}}}
    with httpx2.Client(timeout=60) as caller, caller.stream("POST", server.url, json=call, headers=session) as stream:
        for line in stream.iter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if message.get("method") == "roots/list":
                return message
    raise AssertionError(f"call {rid} ended before its roots were asked")


def test_a_call_whose_client_hung_up_keeps_its_place_and_its_id_until_it_ends(tmp_path):
    import httpx2

    server = HttpServer("127.0.0.1", 0, str(tmp_path / "home"), str(tmp_path))
    try:
        with httpx2.Client(timeout=60) as client:
            session = roots_session(server, client)

            def ping(rid: object) -> httpx2.Response:
                return client.post(server.url, json={"jsonrpc": "2.0", "id": rid, "method": "ping"}, headers=session)

            asked = [_left_call(server, session, 5, str(tmp_path))]
            same_id = ping(5)  # was: 200, and a call sent so could be answered with the first one's answer
            asked += [_left_call(server, session, 100 + n, str(tmp_path)) for n in range(SESSION_REQUESTS - 1)]
            past_share = ping(6)  # was: 200, the session's calls let go as their clients hung up
            # the session's share held, it may still answer the server: the calls go on, and end
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
            answered = [client.post(server.url, json=cancel, headers=session).status_code]
            answered += [client.post(server.url, json={"jsonrpc": "2.0", "id": request["id"], "result": {"roots": []}},
                                     headers=session).status_code for request in asked[1:]]
            deadline = time.monotonic() + 60
            freed = ping(5)
            while freed.status_code != 200 and time.monotonic() < deadline:
                time.sleep(0.05)
                freed = ping(5)
    finally:
        server.close()
    assert same_id.status_code == 409 and same_id.json()["error"]["code"] == -32600, same_id.text
    assert past_share.status_code == 503 and "this session has" in past_share.text, past_share.text
    assert answered == [202] * SESSION_REQUESTS  # was: 503, and each call waited out its roots' deadline
    assert freed.status_code == 200 and '"id":5,"result":{}' in freed.text, freed.text
