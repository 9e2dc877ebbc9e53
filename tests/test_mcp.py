"""The MCP face driven by the official SDK's own client: over stdio (`rennet mcp` spawned as a
process) and over streamable HTTP on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import time

import anyio
import pytest

from tests.test_context_world import PY, ROOT, World, cli_env, world  # noqa: F401 - fixture
from tests.test_registry import AGENT_INVENTORY


def tool_calls(w: World) -> dict[str, dict]:
    """One representative input per agent tool."""
    return {
        "context.overview": {"repo": w.repo},
        "context.map": {"repo": w.repo, "budget": 1024},
        "context.file": {"repo": w.repo, "path": "src/webapp/app.py", "limit": 5},
        "context.symbol": {"repo": w.repo, "name": "Flask.route"},
        "context.references": {"repo": w.repo, "name": "route"},
        "context.novelty": {"repo": w.repo, "base": "v1", "head": "main"},
    }


async def _session(params_or_url, work) -> object:
    from mcp import Client

    async with Client(params_or_url) as client:
        return await work(client)


def run_stdio(store: str, work, *extra: str):
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=PY, args=["-m", "context_tools.faces.cli", "mcp", *extra],
                                   env=cli_env(store), cwd=str(ROOT))
    return anyio.run(_session, params, work)


def text_of(result) -> dict:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def stdio_session(world: World):
    """List the tools and call each one (plus the error cases) in one spawned server."""

    async def work(client):
        tools = (await client.list_tools()).tools
        replies = {name: await client.call_tool(name, args) for name, args in tool_calls(world).items()}
        errors = {
            "not_found": await client.call_tool("context.symbol", {"repo": world.repo, "name": "Nope", "fuzzy": False}),
            "bad_input": await client.call_tool("context.symbol", {"repo": world.repo, "name": "X", "bogus": 1}),
            "bad_cursor": await client.call_tool("context.file", {"repo": world.repo, "path": "src/webapp/app.py",
                                                                   "cursor": "eyJvIjoxfQ.deadbeef"}),
            "unknown_command": await client.call_tool("repo.index", {"repo": world.repo}),
        }
        return tools, replies, errors

    return run_stdio(world.store, work)


def test_tools_are_exactly_the_agent_rows_with_their_schemas(stdio_session):
    from context_tools.faces.registry import registry

    tools, _, _ = stdio_session
    assert {t.name for t in tools} == AGENT_INVENTORY
    table = registry()
    for tool in tools:
        assert tool.input_schema == table.get(tool.name).input_schema()
        assert tool.annotations.read_only_hint is True


def test_each_tool_answers_with_the_result_contract(stdio_session, world: World):
    _, replies, _ = stdio_session
    assert set(replies) == AGENT_INVENTORY
    for name, result in replies.items():
        assert result.is_error is False, name
        body = text_of(result)
        assert body["ok"] is True and body["command"] == name
        assert body["freshness"]["pinned_oid"] in (world.head, world.base) and body["freshness"]["status"] == "current"
    symbol = text_of(replies["context.symbol"])
    assert symbol["data"]["definitions"][0]["path"] == "src/webapp/app.py"


def test_typed_errors_are_tool_errors_carrying_the_code(stdio_session):
    _, _, errors = stdio_session
    for code, result in errors.items():
        assert result.is_error is True, code
        body = text_of(result)
        assert body["ok"] is False and body["error"]["code"] == code


def test_ceiling_applies_to_mcp_replies_and_spills(world: World, tmp_path):
    home = str(tmp_path / "home")

    async def work(client):
        return await client.call_tool("context.file", {"repo": world.repo, "path": "src/webapp/app.py"})

    result = run_stdio(home, work, "--ceiling", "600")
    text = result.content[0].text
    assert len(text.encode()) <= 600
    envelope = json.loads(text)
    assert set(envelope) == {"head", "note", "path", "bytes"}
    full = json.loads(open(envelope["path"], "rb").read())
    assert full["ok"] is True and len(full["data"]["content"]["lines"]) == 13
    assert envelope["bytes"] == len(open(envelope["path"], "rb").read())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_loopback(world: World):
    port = _free_port()
    proc = subprocess.Popen([PY, "-m", "context_tools.faces.cli", "mcp", "--http", f"127.0.0.1:{port}"], cwd=ROOT,
                            env=cli_env(world.store), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.1)

        async def work(client):
            tools = (await client.list_tools()).tools
            reply = await client.call_tool("context.symbol", {"repo": world.repo, "name": "Flask"})
            return tools, reply

        tools, reply = anyio.run(_session, f"http://127.0.0.1:{port}/mcp", work)
        assert {t.name for t in tools} == AGENT_INVENTORY
        assert text_of(reply)["data"]["definitions"][0]["qualified"] == "Flask"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.mark.parametrize("bind", ["0.0.0.0:8765", "192.168.1.5:8765", "example.com:80", "127.0.0.1", "[::]:8765"])
def test_non_loopback_binds_are_refused(bind):
    p = subprocess.run([PY, "-m", "context_tools.faces.cli", "mcp", "--http", bind], cwd=ROOT, env=cli_env(),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.startswith("rennet: bad_input:") and "Traceback" not in p.stderr
