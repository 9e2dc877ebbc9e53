"""Clients of `rennet mcp` for the test modules that meet the MCP server as a process: the MCP
SDK's own client over stdio (one session a server, or one held open across many calls) and over
streamable HTTP on loopback, a raw writer of stdio lines, and the folders of a shared server."""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable, Iterator, TypeVar

import anyio
import pytest

from indexer.worker_start import PREPARE_ENV
from tests.test_context_world import PY, ROOT, cli_env

T = TypeVar("T")


@pytest.fixture(scope="module", autouse=True)
def python_prepared() -> Iterator[None]:
    """The servers these tests start serve small Python repositories, or folders holding none:
    their forkservers prepare Python's queries alone, where a folder holding no repository had
    each compile every language's, a second of CPU a server. A language not prepared is
    compiled by the worker that meets it, to the same answers; tests/test_resident.py covers
    the preload itself. Imported by each module that starts servers so."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PREPARE_ENV, "python")
        yield


async def in_session(params_or_url, work) -> object:
    """`work(client)` in one session of the SDK's client over `params_or_url` (stdio parameters, or a
    streamable HTTP transport)."""
    from mcp import Client

    async with Client(params_or_url) as client:
        return await work(client)


def run_stdio(store: str, work, *extra: str, root: str | None = None):
    """Spawn `rennet mcp` serving `root` (default: the temporary folder every fixture lives in)."""
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=PY, args=["-m", "context_tools.faces.cli", "mcp", "--root", root or tempfile.gettempdir(), *extra],
        env=cli_env(store), cwd=str(ROOT))
    return anyio.run(in_session, params, work)


@contextmanager
def held_stdio(store: str, root: str, env: dict[str, str] | None = None, options: tuple[str, ...] = ()
                ) -> Iterator[Callable[[Callable[[object], Awaitable[T]]], T]]:
    """`run_stdio(store, work, *options, root=root)` for many calls of `work(client)`: each in one
    session of one spawned server (its environment's `env` set over the test's), held open in a
    thread of its own until the block ends."""
    import anyio.from_thread
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=PY, args=["-m", "context_tools.faces.cli", "mcp", "--root", root, *options],
        env={**cli_env(store), **(env or {})}, cwd=str(ROOT))
    with anyio.from_thread.start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(Client(params)) as client:
            yield lambda work: portal.call(work, client)


@dataclass(frozen=True)
class Scratch:
    """A plain server (stdio, or HTTP in tests/test_mcp_progress.py) whose one root is `root`, with
    a store of its own beside it (`store`): each test that uses it builds its repositories in a
    folder of its own under `root` (`place`), a server start spared each test."""
    root: Path
    store: Path
    run: Callable[[Callable[[object], Awaitable[object]]], object]

    def place(self, name: str) -> Path:
        folder = self.root / name
        folder.mkdir()
        return folder


def text_of(result) -> dict:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return json.loads(result.content[0].text)


def run_session(transport: str, store: str, work, *extra: str, root: str | None = None):
    """`work(client)` against `rennet mcp` over `transport`: stdio (spawned as the client's
    child) or streamable HTTP on loopback (spawned, then reached with its token)."""
    if transport == "stdio":
        return run_stdio(store, work, *extra, root=root)
    server = HttpServer("127.0.0.1", 0, store, root or tempfile.gettempdir(), None, *extra)
    try:
        return anyio.run(in_session, client_with(server.url, server.token), work)
    finally:
        server.close()


class RawStdio:
    """One `rennet mcp` written raw lines by the tests of the stdio wire, each test's lines a
    batch: `raw_stdio(lines, answered)` writes them, then a ping of an id no test sends, and
    reads every answer until that ping's and those of the ids `answered` came back. An answer
    the transport gives a line it refuses is written as the line is read, before the ping's;
    a batch's calls may be answered after it, so each test names the ids it sent. After every
    batch the server still runs, and `err` holds what it wrote to stderr meanwhile; at end of
    input it exits 0, nothing answered past a batch. A server start spared each test: the
    SDK's import is most of a server's cost. A batch not answered within `BATCH_SECONDS` (an
    answer dropped, a line that holds the server) fails its test and ends the server, rather
    than waiting for good for ids that will never come."""

    BATCH_SECONDS = 120

    def __init__(self, store: str, *extra: str, env: dict[str, str] | None = None, main: tuple[str, ...] = ()) -> None:
        """`main`: the interpreter's arguments that run the CLI, when not its module's."""
        self.proc = subprocess.Popen([PY, *(main or ("-m", "context_tools.faces.cli")), "mcp", *extra], cwd=ROOT,
                                     env={**cli_env(store), **(env or {})},
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert self.proc.stderr is not None
        os.set_blocking(self.proc.stderr.fileno(), False)
        self.read = b""  # of stdout, past the last whole line taken
        self.batches = 0
        self.err = b""

    def __call__(self, lines: list[bytes], answered: set[object]) -> list[dict]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.batches += 1
        end = f"end of batch {self.batches}"
        self.proc.stdin.write(b"".join(line + b"\n" for line in lines) + json.dumps(
            {"jsonrpc": "2.0", "id": end, "method": "ping"}).encode() + b"\n")
        self.proc.stdin.flush()
        answers: list[dict] = []
        ended = False
        deadline = time.monotonic() + self.BATCH_SECONDS
        while not ended or not answered <= {a.get("id") for a in answers}:
            line = self._line(deadline, answered - {a.get("id") for a in answers})
            assert line, (self.proc.wait(timeout=60), self._err())  # the server left mid-batch
            answer = json.loads(line)
            if answer.get("id") == end:
                assert answer == {"jsonrpc": "2.0", "id": end, "result": {}}, answer
                ended = True
            else:
                answers.append(answer)
        assert self.proc.poll() is None
        self.err = self._err()
        return answers

    def _line(self, deadline: float, awaited: set[object]) -> bytes:
        """The next line the server wrote, read from its pipe itself (a buffered reader's lines
        would be invisible to `select`); b"" at its end."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.read:
            if not select.select([fd], [], [], max(deadline - time.monotonic(), 0))[0]:
                self.proc.kill()
                raise AssertionError(f"no answer within {self.BATCH_SECONDS} s for the ids {awaited} or the "
                                     f"batch's end: the server was killed; stderr: {self._err()!r}")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                line, self.read = self.read, b""
                return line
            self.read += chunk
        line, _, self.read = self.read.partition(b"\n")
        return line + b"\n"

    def _err(self) -> bytes:
        assert self.proc.stderr is not None
        return self.proc.stderr.read() or b""

    def kill(self) -> None:
        """End the server at once where it still runs: a test that failed before `close`."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        rest = self.read + self.proc.stdout.read()
        assert self.proc.wait(timeout=120) == 0, self._err().decode(errors="replace")
        assert rest == b"", rest  # nothing answered past a batch


class HttpServer:
    """`rennet mcp --http BIND:PORT --root ROOT` over `store`, spawned, once it listens: its `url`,
    `port` and the `token` it printed (none when taken from the environment)."""

    def __init__(self, bind: str, port: int, store: str, root: str, env: dict | None = None, *extra: str) -> None:
        args = [PY, "-m", "context_tools.faces.cli", "mcp", "--http", f"{bind}:{port}", "--root", root, *extra]
        # stdin open and never written, as the terminal of a server started by hand
        self.proc = subprocess.Popen(args, cwd=ROOT, env={**cli_env(store), **(env or {})},
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.store = store
        self.token = ""
        self.url = ""
        for raw in self.proc.stderr:  # the address line, then the token line (unless taken from the env)
            line = raw.decode()
            if "MCP over" in line:  # the port it listens on, the one asked for or, for 0, a free one
                self.url = line.split(" at ", 1)[1].strip()
            if "token" in line:
                self.token = line.rsplit(" ", 1)[-1].strip()
            if "token" in line or ("--token-env" in extra and "MCP over" in line):
                break
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])
        assert port in (0, self.port), self.url
        self._wait(bind, self.port)

    def _wait(self, bind: str, port: int) -> None:
        import socket
        import time

        host = bind.strip("[]")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket(family) as s:
                if s.connect_ex((host, port)) == 0:
                    return
            assert self.proc.poll() is None
            time.sleep(0.05)
        raise AssertionError("server did not listen")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a server deaf to SIGTERM fails the test, and is not left behind
            self.proc.kill()
            self.proc.wait(timeout=30)
            raise


def client_with(url: str, token: str):
    """The SDK's streamable HTTP transport to `url`, sending the server's token."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                                                      timeout=60))


# An `initialize` request of the 2025 protocol, as written raw.
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


def roots_session(server: HttpServer, client) -> dict:
    """The headers of a new session opened over `client` (an httpx2 client) by a client that
    declares roots: the server asks for them, on a call's own stream, before the call goes on."""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "Authorization": f"Bearer {server.token}"}
    opening = {**INIT, "params": {**INIT["params"], "capabilities": {"roots": {"listChanged": True}}}}
    opened = client.post(server.url, json=opening, headers=headers)
    session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    client.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
    return session


def checkout(path: Path, files: dict[str, str]) -> Path:
    """A repository at `path` whose one commit holds `files`, checked out (its index written)."""
    import pygit2

    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(path)
    builder.commit(files)
    builder.repo.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    return builder.path


def indexed_calls(scratch_server, repo: Path, calls: list[tuple[str, dict]]) -> list[dict]:
    """`repo` indexed over the scratch server's session, then each (tool, arguments) of `calls`
    on it, their answers' JSON in order."""
    async def work(client):
        indexed = await client.call_tool("repo_index", {"repo": str(repo)})
        assert not indexed.is_error, indexed
        return [text_of(await client.call_tool(name, {"repo": str(repo), **args})) for name, args in calls]

    return scratch_server.run(work)
