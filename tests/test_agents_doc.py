"""docs/agents.md works when pasted: the server starts with exactly the snippet's command and
args, lists its tools and answers a call, through the SDK's own client."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import anyio

from context_tools.faces.registry import registry
from tests.test_context_world import ROOT, cli_env

DOC = ROOT / "docs" / "agents.md"


def snippet() -> dict:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    servers = [json.loads(b)["mcpServers"] for b in blocks if "mcpServers" in b]
    assert len(servers) == 1
    return servers[0]["rennet"]


def resolve(command: str) -> list[str]:
    """`rennet` as this virtualenv installs it, else the module it runs."""
    script = Path(sys.executable).parent / command
    return [str(script)] if script.exists() else [sys.executable, "-m", "context_tools.faces.cli"]


def test_the_claude_line_and_the_json_snippet_run_the_same_command():
    line = next(x for x in DOC.read_text().splitlines() if x.startswith("claude mcp add rennet"))
    words = shlex.split(line)
    entry = snippet()
    # Claude Code starts its server in the project; VS Code and Cursor fill in the folder they have open
    assert words[words.index("--") + 1:] == [entry["command"], *(
        "." if arg == "${workspaceFolder}" else arg for arg in entry["args"])]
    assert "${workspaceFolder}" in entry["args"]


def test_the_pasted_snippet_starts_a_server_that_lists_and_answers(tmp_path):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from corpora.gitbuild import RepoBuilder

    repo = tmp_path / "project"
    RepoBuilder(repo).commit({"app.py": "def pasted():\n    return 1\n"})
    entry = snippet()
    # the client fills in the folder it has open, and may start the server anywhere (in /, even)
    argv = resolve(entry["command"]) + [str(repo) if a == "${workspaceFolder}" else a for a in entry["args"]]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=cli_env(str(tmp_path / "home")), cwd="/")

    async def work():
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            await client.call_tool("repo_index", {"repo": str(repo)})
            return tools, await client.call_tool("context_symbol", {"repo": str(repo), "name": "pasted"})

    tools, reply = anyio.run(work)
    assert {t.name for t in tools} == {r.wire_name for r in registry().agent_tools()}
    assert reply.is_error is False
    assert reply.structured_content["data"]["definitions"][0]["path"] == "app.py"


def test_the_tool_table_lists_every_agent_tool_and_the_ceiling():
    text = DOC.read_text()
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))
    assert listed == {r.wire_name for r in registry().agent_tools()}
    for row in registry().agent_tools():
        assert f"| `{row.wire_name}` | {row.title} |" in text
    assert "8 kB" in text and "--ceiling" in text
