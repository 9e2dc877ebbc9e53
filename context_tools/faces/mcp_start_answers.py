"""What the SDK's server answers a stdio session's opening, made by the SDK itself: the content of
`mcp.start.json`, which `mcp_start` answers from while the SDK loads. Run when the shipped files are
written (`python -m context_tools.faces.schemas`) and by the test that holds them current, never
by the server."""

from __future__ import annotations

import json
from typing import Any

from context_tools.faces.mcp_start import reply_line


def sdk_answers(lines: list[bytes], worktree: bool) -> list[bytes]:
    """The lines the SDK's server, built as `rennet mcp` builds it, writes to `lines` (each
    checked and encoded as the stdio transport does), in the order written: one per request."""
    import tempfile

    import anyio
    from mcp.shared.message import SessionMessage

    from context_tools.faces.dispatch import Executor
    from context_tools.faces.mcp import build_server
    from context_tools.faces.mcp_stdio import check_line, wire_line

    written: list[bytes] = []
    with tempfile.TemporaryDirectory() as home:
        server = build_server(Executor("mcp", store=home, worktree=worktree))

        async def run() -> None:
            to_server, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](len(lines))
            write_stream, from_server = anyio.create_memory_object_stream[SessionMessage](len(lines))
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.run, read_stream, write_stream, server.create_initialization_options())
                requests = 0
                for line in lines:
                    message, error = check_line(line)
                    if message is None:
                        raise ValueError(f"not a message the server takes: {error}")
                    requests += "id" in json.loads(line)
                    await to_server.send(SessionMessage(message))
                while len(written) < requests:
                    written.append(wire_line((await from_server.receive()).message))
                await to_server.aclose()

        anyio.run(run)
    return written


def generate() -> dict[str, Any]:
    """The shipped file's content, from what the SDK answers now (`sdk_answers`)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    lists: list[str] = []
    out: dict[str, Any] = {"latest": LATEST_HANDSHAKE_VERSION, "lists": lists}
    for face, worktree in (("plain", False), ("worktree", True)):
        initialize: dict[str, str] = {}
        listed: dict[str, int] = {}
        ping: dict[str, str] = {}
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            opening = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "rennet", "version": "0"}}}
            first, tools, pong = sdk_answers([json.dumps(opening).encode(),
                                              b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                                              b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                                              b'{"jsonrpc":"2.0","id":2,"method":"ping"}'], worktree)
            initialize[version] = _result_of(first, 0)
            ping[version] = _result_of(pong, 2)
            text = _result_of(tools, 1)
            if text not in lists:
                lists.append(text)
            listed[version] = lists.index(text)
        out[face] = {"initialize": initialize, "tools/list": listed, "ping": ping}
    return out


def _result_of(line: bytes, rid: int) -> str:
    """The result's JSON text in a response line to `rid` as `reply_line` writes it."""
    head, tail = reply_line(rid, "").removesuffix(b"}\n"), b"}\n"
    if not (line.startswith(head) and line.endswith(tail)):
        raise ValueError(f"not a response to id {rid} in the form reply_line writes: {line[:80]!r}")
    return line[len(head):-len(tail)].decode()
