"""The MCP face: the agent-exposed, runnable rows of the registry as MCP tools.

Built on the official SDK's low-level `Server`, which takes our derived JSON Schemas
verbatim. `rennet mcp` serves stdio; `rennet mcp --http 127.0.0.1:PORT` serves
streamable HTTP at `/mcp`, and refuses any address that is not loopback.

Each tool reply is one text content block holding the result contract (or the spill
envelope over the ceiling); a typed error is a tool error (`isError`) whose text is
the error envelope, so the typed code travels with it.
"""

from __future__ import annotations

import ipaddress
import sys
from typing import Any

from context_tools.faces.dispatch import Executor, encode_wire
from context_tools.faces.registry import Registry, registry
from context_tools.faces.spill import configured_ceiling
from indexer.contract.result import error_envelope

SERVER_NAME = "rennet-context"


def tool_list(table: Registry) -> list[Any]:
    import mcp_types as types

    return [
        types.Tool(
            name=row.id,
            description=row.summary + (f"\n\n{row.description}" if row.description else ""),
            input_schema=row.input_schema(),
            annotations=types.ToolAnnotations(title=row.id, read_only_hint=row.authority == "read",
                                              destructive_hint=False if row.authority == "read" else None),
        )
        for row in table.agent_tools()
    ]


def build_server(executor: Executor, table: Registry | None = None) -> Any:
    import anyio
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server

    table = table or registry()
    tools = tool_list(table)
    names = {t.name for t in tools}
    schemas = {t.name: t.input_schema for t in tools}
    one_at_a_time = anyio.CapacityLimiter(1)  # handlers share one store handle and its caches

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        name = params.name
        if name not in names:
            payload = error_envelope(name, "unknown_command", f"no tool {name!r}; list the tools first")
            return types.CallToolResult(content=[types.TextContent(text=encode_wire(payload).decode())],
                                        is_error=True)
        reply = await anyio.to_thread.run_sync(executor.run, name, params.arguments or {}, limiter=one_at_a_time)
        return types.CallToolResult(content=[types.TextContent(text=encode_wire(reply.wire).decode())],
                                    is_error=not reply.ok)

    return Server(SERVER_NAME, version=_version(), instructions=_INSTRUCTIONS,
                  get_tool_input_schema=schemas.get, on_list_tools=list_tools, on_call_tool=call_tool)


_INSTRUCTIONS = (
    "Rennet Context answers questions about a Git repository at a pinned commit. Every reply carries "
    "freshness (is the pinned snapshot still what the rev points at) and, for collections, a page with "
    "total/returned/truncated and a cursor: pass the cursor back to get the next page. A reply over the "
    "size ceiling is written to a file; the reply then names the file's path. Give `workspace` instead of "
    "`repo`/`rev` to ask across every member of a workspace; each item then names its `member`."
)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("rennet-context")
    except Exception:
        return "0"


def parse_loopback(address: str) -> tuple[str, int]:
    """`127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT`; anything else is refused."""
    from indexer.contract.errors import BadInput

    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not (0 < int(port) < 65536):
        raise BadInput(f"--http wants HOST:PORT on loopback (e.g. 127.0.0.1:8765), got {address!r}")
    host = host.strip("[]")
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise BadInput(f"refusing to bind {host!r}: the MCP HTTP server binds loopback only "
                           "(127.0.0.1, ::1, localhost)")
    return host, int(port)


def serve(store: str | None = None, http: str | None = None, ceiling: int | None = None,
          worktree: bool = False) -> int:
    from indexer.contract.errors import RennetError

    try:
        bind = parse_loopback(http) if http else None
        limit = configured_ceiling(ceiling)
    except RennetError as exc:
        print(f"rennet: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    executor = Executor("mcp", store=store, ceiling=limit, worktree=worktree)
    server = build_server(executor)
    if bind is None:
        return _serve_stdio(server)
    return _serve_http(server, *bind)


def _serve_stdio(server: Any) -> int:
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
    return 0


def _serve_http(server: Any, host: str, port: int) -> int:
    import uvicorn

    app = server.streamable_http_app(host=host if host != "localhost" else "127.0.0.1")
    print(f"rennet: MCP over streamable HTTP at http://{host}:{port}/mcp", file=sys.stderr)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
    return 0
