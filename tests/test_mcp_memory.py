"""The HTTP MCP face under a tight `ulimit -v`: a call that needs more memory than the limit
leaves answers `out_of_memory`, typed, and the server serves on, its store intact. Driven
through the real server (its address-space limit set as it starts) and the MCP SDK's own
streamable HTTP client."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import anyio
import pytest

from context_tools.faces.mcp_stdio import MAX_LINE_BYTES
from corpora.gitbuild import RepoBuilder
from indexer.worker_start import PREPARE_ENV
from tests.mcp_clients import client_with
from tests.test_context_world import PY, ROOT, cli_env
from tests.test_interrupt import ended_within

# Room for the server, its store's map (half the limit) and a small repository's calls
LIMIT_MIB = 800
# Room left beside what the server maps, once the small repository is indexed, for each try of
# the large one: first less than its pool's threads take as they start; then room for them (a
# stack the first try's thread left kept for the next) and for about half of the facts a cold
# index of 5,000 files holds even when each chunk is written as it comes, the least the facts
# writer's schedule takes, so that it runs short whatever the machine's load makes of that
ROOMS_MIB = (16, 24)
TOKEN = "t" * 40
SMALL_FILES = {"a.py": "def first():\n    return 1\n"}


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """A one-file repository, alone in a folder of its own."""
    builder = RepoBuilder(tmp_path_factory.mktemp("limited") / "small")
    builder.commit(SMALL_FILES, "one")
    return builder.path


@pytest.fixture(scope="module")
def repos(small: Path) -> tuple[Path, Path]:
    """(the one-file repository, a 5,000-file one), side by side under one root: generated only
    for the test that indexes it (a test process that runs only the others spares it)."""
    from corpora.synthetic import generate

    generate(small.parent / "large.git", files=5000, seed=0)
    return small, small.parent / "large.git"


def _mapped(pid: int) -> int:
    """The address space process `pid` maps now, what its limit counts (the server's own
    reading of itself is `memory_limit.mapped_bytes`)."""
    return int(Path(f"/proc/{pid}/status").read_text().split("VmSize:")[1].split()[0]) << 10


def test_an_http_server_under_a_tight_limit_answers_a_call_too_large_typed_and_serves_on(repos, tmp_path):
    """`rennet mcp --http` under `ulimit -v` 800 MiB: a small repository indexes; the limit is
    then set, as it runs, to what the server maps and each of ROOMS_MIB more, and the index of
    a repository too large for it answers `out_of_memory` naming the limit, short of room for
    its pool's threads, then for its facts; the next calls (a read, an index) are answered; a
    SIGTERM ends the server at once, exit 143, stderr holding only its address line; the store
    opens and holds the small snapshot as it was (was: the read after the failed index
    answered JSON-RPC's bare `Internal server error`, the readers' thread finding no room for
    its stack, its traceback on stderr; and the SIGTERM's grace timer, a thread too, could not
    start: a traceback, and the server never left). The room is set, not left to what 800 MiB
    leaves: whether the index fit there turned on how its facts were batched for the writer,
    so on the machine's load. The crash of a smaller index at this limit, msgspec's encoder, is
    held by tests/test_store_faults.py's encoding tests, where the room is set too."""
    small, large = repos

    async def work(p: subprocess.Popen, url: str) -> tuple[dict, list[tuple[int, dict]], dict, dict]:
        from mcp import Client

        async with Client(client_with(url, TOKEN)) as client:
            async def call(name: str, repo: Path) -> dict:
                return json.loads((await client.call_tool(name, {"repo": str(repo)})).content[0].text)

            first = await call("repo_index", small)
            too_large = []
            for room in ROOMS_MIB:
                limit = ((_mapped(p.pid) >> 20) + room) << 20  # whole MiB, as the message names it
                resource.prlimit(p.pid, resource.RLIMIT_AS, (limit, LIMIT_MIB << 20))
                too_large.append((limit, await call("repo_index", large)))
            return first, too_large, await call("context_overview", small), await call("repo_index", small)

    with _http_server(tmp_path, small.parent, limit=LIMIT_MIB << 20) as (p, url):
        first, too_large, read, again = anyio.run(work, p, url)
        assert first["ok"], first
        for limit, short in too_large:
            assert short["error"]["code"] == "out_of_memory", short
            assert f"(`ulimit -v` is {limit >> 20} MiB)" in short["error"]["message"], short
        assert read["ok"] and read["data"]["identity"]["fingerprint"] == first["data"]["fingerprint"], read
        assert again["ok"] and again["data"]["fingerprint"] == first["data"]["fingerprint"], again
        p.send_signal(signal.SIGTERM)
        _, err = ended_within(p, 30, "the server under the limit did not leave on SIGTERM")
    assert (p.returncode, err) == (143, "")
    done = subprocess.run([PY, "-m", "context_tools.faces.cli", "context", "overview", "--repo", str(small), "--store",
                           str(tmp_path / "home"), "--json"], cwd=ROOT, env=cli_env(None), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["freshness"]["fingerprint"] == first["data"]["fingerprint"]


# Room left beside what the server maps, once the small repository is indexed and read, for the
# index of LARGER_FILES files: its pool's and its facts writer's threads start, and it runs short
# as its facts pile up, well before the whole of it would fit
ROOM_TO_RUN_SHORT_MIB = 80
LARGER_FILES = 6000
# The server's threads' stacks (`ulimit -s`), half the usual 8 MiB: what the next index needs
# anew, a thread's stack and start, is then well above what a server left holding a failed
# index's facts has free (none to a few MiB) and well below what one that gave them back has
STACK_MIB = 4


@pytest.fixture(scope="module")
def larger(small: Path) -> Path:
    """A LARGER_FILES-file repository beside the one-file one, under the same root."""
    from corpora.synthetic import generate

    generate(small.parent / "larger.git", files=LARGER_FILES, seed=0)
    return small.parent / "larger.git"


def test_a_server_whose_index_ran_short_gives_back_what_it_held_and_serves_the_next_index(small, larger, tmp_path):
    """`rennet mcp --http` whose limit is set, once a small repository is indexed and read, to
    what it maps and ROOM_TO_RUN_SHORT_MIB more: the index of a 6,000-file repository runs
    short, `out_of_memory`; then, under the same limit, the index of another repository holding
    the small one's file (its facts stored: no parse, a thread to pack its snapshot) and a read
    of it are answered, and a SIGTERM ends the server, stderr holding only its address (was:
    the failed index's facts stayed held, in cycles with its exception's frames and the
    resolvers' caches, handed to the collector's oldest generation, which an idle server never
    collects: the server went on mapping all of its limit, and the next index was
    `out_of_memory`, `can't start new thread`, or found no room to be read, the session lost;
    given back, it maps some 13 MiB below it)."""
    twin = RepoBuilder(small.parent / "twin")
    twin.commit(SMALL_FILES, "the small repository's one file")

    async def work(p: subprocess.Popen, url: str) -> tuple[int, dict, int, dict, dict]:
        from mcp import Client

        async with Client(client_with(url, TOKEN)) as client:
            async def call(name: str, repo: Path) -> dict:
                with anyio.fail_after(120):
                    return json.loads((await client.call_tool(name, {"repo": str(repo)})).content[0].text)

            assert (await call("repo_index", small))["ok"]
            assert (await call("context_overview", small))["ok"]
            limit = ((_mapped(p.pid) >> 20) + ROOM_TO_RUN_SHORT_MIB) << 20  # whole MiB, as the message names it
            resource.prlimit(p.pid, resource.RLIMIT_AS, (limit, LIMIT_MIB << 20))
            short = await call("repo_index", larger)
            held = _mapped(p.pid)
            return limit, short, held, await call("repo_index", twin.path), await call("context_overview", twin.path)

    with _http_server(tmp_path, small.parent, limit=LIMIT_MIB << 20, stack=STACK_MIB << 20) as (p, url):
        limit, short, held, indexed, read = anyio.run(work, p, url)
        p.send_signal(signal.SIGTERM)
        _, err = ended_within(p, 30, "the server did not leave on SIGTERM")
    assert short["error"]["code"] == "out_of_memory", short
    assert f"(`ulimit -v` is {limit >> 20} MiB)" in short["error"]["message"], short
    free = f"{(limit - held) >> 20} MiB below its limit after the failed index"
    assert indexed["ok"], (free, indexed)
    assert read["ok"] and read["data"]["identity"]["fingerprint"] == indexed["data"]["fingerprint"], (free, read)
    assert (p.returncode, err) == (143, ""), err


def _listening(p: subprocess.Popen, port: int) -> None:
    import socket

    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            assert p.poll() is None and time.monotonic() < deadline, "the server did not listen"
            time.sleep(0.02)


def _limited(limit: int | None, stack: int | None) -> None:
    """This process's address space held to `limit` (`ulimit -v`), and its threads' stacks to
    `stack` (`ulimit -s`: the size of each thread's stack), where given."""
    if limit is not None:
        resource.setrlimit(resource.RLIMIT_AS, (limit,) * 2)
    if stack is not None:
        resource.setrlimit(resource.RLIMIT_STACK, (stack, resource.getrlimit(resource.RLIMIT_STACK)[1]))


@contextmanager
def _http_server(tmp_path: Path, root: Path, *options: str, limit: int | None = None, stack: int | None = None,
                 main: tuple[str, ...] = ()) -> Iterator[tuple[subprocess.Popen, str]]:
    """`rennet mcp --http` on a free loopback port serving `root` from a store under
    `tmp_path`, under `ulimit -v` `limit` (and `ulimit -s` `stack`) from its start when given:
    the process and its URL once it listens. Its whole group is killed on the way out if it is
    still running. `main`: the interpreter's arguments that run the CLI, when not its module's."""
    p = subprocess.Popen([PY, *(main or ("-m", "context_tools.faces.cli")), "mcp", "--http", "127.0.0.1:0",
                          "--token-env", "RENNET_TEST_TOKEN", "--root", str(root), *options], cwd=ROOT,
                         env={**cli_env(str(tmp_path / "home")), "RENNET_TEST_TOKEN": TOKEN, PREPARE_ENV: "python"},
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True,
                         preexec_fn=None if limit is None and stack is None else lambda: _limited(limit, stack))
    try:
        assert p.stderr is not None
        address = p.stderr.readline()
        assert address.startswith("rennet: MCP over streamable HTTP at "), address
        url = address.rsplit(" ", 1)[1].strip()
        _listening(p, int(url.rsplit(":", 1)[1].split("/", 1)[0]))
        yield p, url
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_a_server_with_no_room_left_for_a_thread_answers_typed_and_leaves_on_sigterm(small, tmp_path):
    """`rennet mcp --http` whose address space is all but used (its limit lowered, as it runs,
    to a few MiB above what it maps: no room for another thread's stack, as after an index
    that ran short): each read is answered, or is `out_of_memory`, and a SIGTERM ends it, exit
    143, nothing on stderr but its address (was: the read answered JSON-RPC's bare `Internal
    server error`, the readers' thread failing to start, its traceback on stderr; the
    SIGTERM's grace timer, a thread, failed to start too: a traceback, and the server never
    left)."""
    from mcp import Client


    async def work(p: subprocess.Popen, url: str) -> list[dict]:
        async with Client(client_with(url, TOKEN)) as client:
            first = json.loads((await client.call_tool("repo_index", {"repo": str(small)})).content[0].text)
            mapped = _mapped(p.pid)
            resource.prlimit(p.pid, resource.RLIMIT_AS, (mapped + (4 << 20),) * 2)
            reads = [json.loads((await client.call_tool("context_overview", {"repo": str(small)})).content[0].text)
                     for _ in range(2)]
            return [first, *reads]

    with _http_server(tmp_path, small.parent) as (p, url):
        first, *reads = anyio.run(work, p, url)
        assert first["ok"], first
        for read in reads:
            assert read["ok"] or read["error"]["code"] == "out_of_memory", read
        p.send_signal(signal.SIGTERM)
        _, err = ended_within(p, 30, "the server with no room for a thread did not leave on SIGTERM")
    assert (p.returncode, err) == (143, "")


def test_a_stdio_server_with_no_room_left_for_a_thread_reads_and_answers_on(small, tmp_path):
    """`rennet mcp` over stdio whose limit is lowered, after it has served a call, to a few MiB
    above what it maps: no room for another thread's stack, as while an index in flight holds
    the memory. It reads and answers what comes next: pings, the tools' list, an index whose
    client asked for progress (its progress written while its call holds a thread), a read;
    each answered with its result or, where the index in flight left no room (the list's
    schemas first derived, an answer encoded, the index itself), the typed `out_of_memory`;
    its stderr stays empty, and at end of input it leaves, exit
    0 (was: each line was read in a thread started for it, refused with no room: the server
    ended with one `out_of_memory` line, the client's session lost, though the memory would
    come back; and its answers were written in anyio's worker threads, one started when the
    call held the idle one)."""
    from tests.mcp_clients import INIT, RawStdio

    def line(rid: int, method: str, params: dict | None = None) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params else {})
                           }).encode()

    def call(rid: int, name: str, progress: bool = False) -> bytes:
        return line(rid, "tools/call", {"name": name, "arguments": {"repo": str(small)},
                                        **({"_meta": {"progressToken": rid}} if progress else {})})

    def replies(answers: list[dict]) -> dict[object, dict]:
        return {a["id"]: a for a in answers if "id" in a}

    server = RawStdio(str(tmp_path / "home"), "--root", str(small.parent))
    try:
        first = replies(server([json.dumps(INIT).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                                call(2, "repo_index")], {1, 2}))
        assert not first[2]["result"]["isError"], first[2]
        hard = resource.prlimit(server.proc.pid, resource.RLIMIT_AS)[1]
        resource.prlimit(server.proc.pid, resource.RLIMIT_AS, (_mapped(server.proc.pid) + (4 << 20), hard))
        for batch in range(2):
            ids = range(10 * batch + 10, 10 * batch + 15)
            answers = server([line(ids[0], "ping"), line(ids[1], "tools/list"), call(ids[2], "repo_index", True),
                              line(ids[3], "ping"), call(ids[4], "context_overview")], set(ids))
            got = replies(answers)
            assert set(got) == set(ids), answers  # each request answered, the server reading on
            # Each answer is its result or, where the index in flight left no room for it, the
            # typed out_of_memory: a list's schemas derived beside the index, or any answer encoded.
            assert _result_or_short(got[ids[0]]) in ({}, None) and _result_or_short(got[ids[3]]) in ({}, None), got
            listed = _result_or_short(got[ids[1]], "listing the tools")
            assert listed is None or listed["tools"], got[ids[1]]
            index, overview = (_result_or_short(got[rid]) for rid in (ids[2], ids[4]))
            for result in index, overview:
                body = json.loads(result["content"][0]["text"]) if result is not None else {"ok": False}
                assert body["ok"] or result is None or body["error"]["code"] == "out_of_memory", body
            if index is not None and json.loads(index["content"][0]["text"])["ok"]:  # its progress was written
                assert any(a.get("method") == "notifications/progress" for a in answers), answers
        assert server.err == b"", server.err
        server.close()
    finally:
        server.kill()


def _rpc(rid: object, method: str, params: dict | None = None) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params else {})
                       }).encode()


def _result_or_short(answer: dict, doing: str | None = None) -> dict | None:
    """A request's result, or None where it ran short of memory: typed as `_typed_short` says,
    for `doing` or for answering a request (its answer encoded)."""
    if "result" in answer:
        return answer["result"]
    shown = doing is not None and f"is too small for {doing} (" in answer["error"]["message"]
    _typed_short(answer, doing if shown and doing is not None else "answering a request")
    return None


def _typed_short(answer: dict, doing: str) -> None:
    """`answer` is the JSON-RPC error of a request run short of memory: `out_of_memory` naming
    the limit and what did not fit, the code in its data."""
    error = answer["error"]
    assert (error["code"], error["data"]) == (-32603, {"code": "out_of_memory"}), answer
    assert error["message"].startswith("out_of_memory: this process's address-space limit (`ulimit -v` is "), answer
    assert f"is too small for {doing} (" in error["message"], answer


# A message's bytes, and the room left for it: numpy's scan of a message (`mcp_stdio.Shape`) holds
# many times its bytes at once, over twice this room; reading the message, then its id with the
# standard library's parser, takes a few times them, well within it.
_MESSAGE_BYTES = 7 << 19
_ROOM_FOR_IT = 24 << 20


def test_a_stdio_server_short_of_memory_for_a_message_answers_it_typed_and_reads_on(small, tmp_path):
    """`rennet mcp` over stdio whose limit is lowered, as it serves, to 24 MiB above what it
    maps: a call of 3.5 MiB (its arguments one long string) is read, but its scan finds no
    room: that call is answered a JSON-RPC error typed `out_of_memory` naming the limit and
    what did not fit, under its own id; the ping behind it is answered; given room again, the
    same call is answered; nothing on stderr, exit 0 at end of input (was: the numpy's
    MemoryError ended the server, its one `out_of_memory` line on stderr, its client's session
    lost for one message)."""
    from tests.mcp_clients import INIT, RawStdio

    large = _rpc(7, "tools/call", {"name": "context_map", "arguments": {
        "repo": str(small), "path": "x" * (_MESSAGE_BYTES - 200)}})
    assert _MESSAGE_BYTES - 100 < len(large) < MAX_LINE_BYTES
    server = RawStdio(str(tmp_path / "home"), "--root", str(small.parent))
    try:
        server([json.dumps(INIT).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}'], {1})
        hard = resource.prlimit(server.proc.pid, resource.RLIMIT_AS)[1]
        resource.prlimit(server.proc.pid, resource.RLIMIT_AS, (_mapped(server.proc.pid) + _ROOM_FOR_IT, hard))
        short = {a["id"]: a for a in server([large, _rpc(8, "ping")], {7, 8})}
        resource.prlimit(server.proc.pid, resource.RLIMIT_AS, (hard, hard))
        again = {a["id"]: a for a in server([large], {7})}
        assert server.err == b"", server.err
        server.close()
    finally:
        server.kill()
    _typed_short(short[7], "reading a message")
    assert short[8]["result"] == {}, short
    assert "result" in again[7], again  # the call read and answered: its path is the tool's to judge


# The CLI, with the encodings of three answers made to run short of memory as pydantic's do when
# an allocation fails: the SDK's shaping of the first `tools/list` result, and the lines of the
# answers to the requests of ids "short" (a MemoryError) and "panic" (pyo3's panic at an object
# not made, a BaseException), each once. Under a limit (1 GiB above what it maps), as only a lack
# of memory under one is typed so.
_ANSWERS_SHORT = """
import resource
from context_tools.faces import cli, mcp_stdio
from indexer.contract.memory_limit import mapped_bytes
from mcp.server.runner import ServerRunner

resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (1 << 30), resource.getrlimit(resource.RLIMIT_AS)[1]))
shaped, lined = ServerRunner._serialize, mcp_stdio.wire_line
met = set()

def shaping(self, method, version, result):
    if method == "tools/list" and "list" not in met:
        met.add("list")
        raise MemoryError
    return shaped(self, method, version, result)

panic = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})  # as pyo3 makes it

def line(message):
    rid = getattr(message, "id", None)
    if rid in ("short", "panic") and rid not in met:
        met.add(rid)
        raise MemoryError if rid == "short" else panic("PyObject pointer is null")
    return lined(message)

ServerRunner._serialize, mcp_stdio.wire_line = shaping, line
cli.run()
"""


def test_answers_whose_encoding_runs_short_of_memory_are_typed_and_the_server_serves_on(tmp_path):
    """`rennet mcp` over stdio whose answers run short of memory as they are made: the SDK's
    shaping of a `tools/list` result, then the lines of two pings' answers, one a MemoryError,
    one pyo3's panic at an object the interpreter did not make. Each request is answered a
    JSON-RPC error typed `out_of_memory`, under its own id, and the next are answered: a ping,
    the tools' list; nothing on stderr, exit 0 at end of input (was: the list answered
    `Internal server error`, the SDK's traceback on stderr; the ping's MemoryError ended the
    server, its one `out_of_memory` line on stderr; the panic, pydantic-core's in a sweep under
    `ulimit -v`, ended it with the task group's traceback)."""
    from tests.mcp_clients import INIT, RawStdio

    server = RawStdio(str(tmp_path / "home"), "--root", str(tmp_path), main=("-c", _ANSWERS_SHORT))
    try:
        server([json.dumps(INIT).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}'], {1})
        got = {a["id"]: a for a in server([_rpc(2, "tools/list"), _rpc("short", "ping"), _rpc("panic", "ping"),
                                           _rpc(3, "ping"), _rpc(4, "tools/list")], {2, "short", "panic", 3, 4})}
        assert server.err == b"", server.err
        server.close()
    finally:
        server.kill()
    _typed_short(got[2], "listing the tools")
    _typed_short(got["short"], "answering a request")
    _typed_short(got["panic"], "answering a request")
    assert got[3]["result"] == {} and got[4]["result"]["tools"], got


def test_a_server_whose_limit_leaves_no_room_for_the_stores_map_answers_out_of_memory(small, tmp_path):
    """`rennet mcp --http` started under `ulimit -v` 400 MiB, then its limit lowered to twice
    what it maps once serving: it starts and lists its tools, but the store's map (half the
    limit) does not fit beside what the server maps. Each call answers `out_of_memory` naming
    the limit and the map, saying nothing is wrong with the store (was: `store_error`, as
    though the store were at fault); SIGTERM ends it, 143, stderr holding nothing but its
    address (no `receipt not recorded` line for the same fault). The limit is set from what the
    server maps, not fixed: with one malloc arena the server maps less, and at 400 MiB the map
    fit.

    First, its limit lowered as it runs to leave room for a thread's stack and a little more,
    stepped up past what a new thread takes as it starts: its first call, which needs a thread
    to run in, is `out_of_memory` at each step; and the SIGTERM comes with room for a stack and
    24 KiB (was: where the stack fit but not the start, the thread died as it began and
    `Thread.start`, anyio's for the call's thread on the event loop, waited for it for good: the
    call never answered and the server, deaf to SIGTERM, never left; so did the SIGTERM's grace
    timer)."""
    limit = 400 << 20
    stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
    tight = 0  # twice what the server maps: its map, half the limit, leaves no room for the rest

    def room(p: subprocess.Popen, nbytes: int | None) -> None:
        mapped = _mapped(p.pid)
        resource.prlimit(p.pid, resource.RLIMIT_AS, (limit if nbytes is None else mapped + nbytes, limit))

    def no_room_for_the_map(p: subprocess.Popen) -> None:
        nonlocal tight
        tight = (_mapped(p.pid) >> 20) * 2 << 20  # whole MiB, as the message names it
        resource.prlimit(p.pid, resource.RLIMIT_AS, (tight, limit))

    async def work(p: subprocess.Popen, url: str) -> tuple[list[dict], list[dict]]:
        from mcp import Client

        async with Client(client_with(url, TOKEN)) as client:
            edge = []
            for spare in range(8 << 10, 72 << 10, 8 << 10):
                room(p, stack + spare)
                with anyio.fail_after(30):
                    called = await client.call_tool("context_overview", {"repo": str(small)})
                edge.append(json.loads(called.content[0].text))
            no_room_for_the_map(p)
            replies = [json.loads((await client.call_tool(name, args)).content[0].text) for name, args in
                       [("repo_index", {"repo": str(small)}), ("context_overview", {"repo": str(small)})]]
            room(p, stack + (24 << 10))
            return edge, replies

    with _http_server(tmp_path, small.parent, "--readers", "0", limit=limit) as (p, url):
        edge, replies = anyio.run(work, p, url)
        p.send_signal(signal.SIGTERM)
        _, err = ended_within(p, 30, "the server did not leave on SIGTERM")
    for called in edge:
        assert called["error"]["code"] == "out_of_memory", called
        assert "is too small for this call (RuntimeError: can't start new thread)" in called["error"]["message"]
    for reply in replies:
        assert reply["error"]["code"] == "out_of_memory", reply
        message = reply["error"]["message"]
        assert message.startswith(f"this process's address-space limit (`ulimit -v` is {tight >> 20} MiB) leaves no "
                                  f"room for the map of the store at {tmp_path / 'home'} ({tight >> 21} MiB, half the "
                                  "limit)"), message
        assert "nothing is wrong with the store" in message
    assert (p.returncode, err) == (143, "")


def test_a_server_short_of_memory_between_requests_answers_typed_or_says_one_line(tmp_path):
    """`rennet mcp --http` whose limit is lowered, as it runs, to what it maps: with no room, a
    request's read fails and its connection closes, `rennet: out_of_memory: ...` one line on
    stderr (was: asyncio's `Fatal read error on socket transport` and its traceback); with 1
    MiB of room, the first `tools/list` (whose schemas load libraries) answers a JSON-RPC
    error typed `out_of_memory`, naming the limit and what did not fit (was: `Internal server
    error`, the SDK's traceback on stderr). Given room again, the server serves on."""
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    def room(p: subprocess.Popen, nbytes: int | None) -> None:
        mapped = _mapped(p.pid)
        soft = resource.RLIM_INFINITY if nbytes is None else mapped + nbytes
        resource.prlimit(p.pid, resource.RLIMIT_AS, (soft, resource.RLIM_INFINITY))

    async def work(p: subprocess.Popen, url: str) -> tuple[str, int]:
        with anyio.move_on_after(10):
            try:
                async with Client(client_with(url, TOKEN)) as client:
                    room(p, 0)
                    await client.list_tools()
            except Exception:
                pass  # the connection its read failed on is closed
        room(p, None)
        async with Client(client_with(url, TOKEN)) as client:
            room(p, 1 << 20)
            try:
                await client.list_tools()
                short = ""
            except MCPError as exc:
                short = exc.message
            room(p, None)
            return short, len((await client.list_tools()).tools)

    with _http_server(tmp_path, tmp_path, "--readers", "0") as (p, url):
        short, listed = anyio.run(work, p, url)
        p.send_signal(signal.SIGTERM)
        _, err = ended_within(p, 30, "the server did not leave on SIGTERM")
    assert short.startswith("out_of_memory: this process's address-space limit (`ulimit -v` is "), short
    assert "is too small for listing the tools (" in short and short.endswith("raise the limit and retry"), short
    assert listed > 0
    assert p.returncode == 143 and err and "Traceback" not in err, err
    for line in err.splitlines():
        assert line.startswith("rennet: out_of_memory: this process's address-space limit (`ulimit -v` is "), err


_READERS_SHORT = """
import resource, threading
import multiprocessing.context as context
from context_tools.faces.readers import ReaderPool, Settings
from indexer.contract.memory_limit import mapped_bytes

mapped = mapped_bytes()
resource.setrlimit(resource.RLIMIT_AS, (mapped + (1 << 30), resource.getrlimit(resource.RLIMIT_AS)[1]))
tries = []

def short(process):
    tries.append(process.name)
    raise MemoryError  # where it was met: loading the spawn's code, with no room left

context.SpawnProcess._Popen = staticmethod(short)
pool = ReaderPool(2, Settings(None, None, None, 0))
for _ in range(2):
    pool.start()
    for thread in threading.enumerate():
        if thread.name == "rennet-readers":
            thread.join()
print(len(tries), pool.alive)
"""


def test_readers_whose_start_runs_short_of_memory_leave_reads_to_threads_and_say_nothing():
    """The readers' start, its thread already running, meets a MemoryError bringing up its first
    reader (under a `ulimit -v`, an index beside it having taken the room): nothing on stderr,
    no reader up, and the next read's start tries again (was: the thread's traceback on the
    server's stderr, and no reader tried for as long as the server ran)."""
    done = subprocess.run([PY, "-c", _READERS_SHORT], cwd=ROOT, env=cli_env(None), capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stderr, done.stdout.strip()) == (0, "", "2 0"), done.stderr


_STARTS_AT_THE_EDGE = """
import resource, threading
from context_tools.faces.context import Memo
from context_tools.faces.readers import ReaderPool, Settings
from indexer import worker_start
import indexer.extract.child_process, multiprocessing.forkserver  # loaded: the edge meets the start alone

from contextlib import contextmanager
import anyio
from context_tools.faces.mcp_stdio import _Lane
from indexer.contract.memory_limit import mapped_bytes

soft, hard = resource.getrlimit(resource.RLIMIT_AS)

@contextmanager
def edge():
    mapped = mapped_bytes()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + (8 << 20) + (8 << 10), hard))  # a stack, and 8 KiB
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

pool = ReaderPool(2, Settings(None, None, None, 0))
with edge():
    pool.start()
memo = Memo()
with edge():
    memo.settle_soon()
worker_start.from_forkserver()
with edge():
    worker_start.start_soon()

async def start_the_reader():
    try:
        with edge():
            _Lane("rennet-mcp-stdin").start()
    except RuntimeError as exc:
        return str(exc)
    return "started"

print(pool._started, memo._settler, worker_start._starting, anyio.run(start_the_reader), threading.active_count())
"""


def test_threads_the_server_starts_with_room_for_a_stack_but_not_a_start_are_put_off_not_waited_for():
    """Under a `ulimit -v` leaving room for a thread's stack and 8 KiB, the threads the MCP
    server starts are not started: the readers' start and the forkserver's (on the event loop),
    the cache's settler (in a call's thread) are put off to a later call; the stdio server's
    reader thread, started once as it starts serving (on the event loop), is refused, as with
    no room for its stack (was: the new
    thread died as it began, before it said so, and `Thread.start` waited for it for good:
    the whole server frozen, deaf to SIGTERM, or the call never answered; the readers' start
    met after an index ran short at 3,500 files under 800 MiB, the settler's when a server's
    limit was lowered as it ran)."""
    done = subprocess.run([PY, "-c", _STARTS_AT_THE_EDGE], cwd=ROOT, env=cli_env(None), capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr, done.stdout.strip()) == (0, "", "False None False can't start new thread 1"), done.stderr


# The CLI (its arguments after the edges') with the first N calls of each named part of an index
# made at the edge (`part=N`): room for a thread's stack and 8 KiB (16 KiB at the second call,
# and so on), set as the part is entered and again as its caller's next thread starts, whatever
# came between; room given back after (1 GiB more), under a limit still, as the part's error is
# typed under it.
_INDEX_AT_THE_EDGE = """
import resource, sys, threading
from context_tools.faces import cli
from indexer.contract.memory_limit import mapped_bytes
from indexer.pipeline import extract
from indexer.store import facts_writer

stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
hard = resource.getrlimit(resource.RLIMIT_AS)[1]
start = threading.Thread.start

def edge(spare):
    resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + stack + spare, hard))

def at_the_edge(owner, name, calls):
    made = getattr(owner, name)
    met = [0]

    def edged(*args, **kwargs):
        met[0] += 1
        if met[0] == calls:
            setattr(owner, name, made)
        spare = met[0] * (8 << 10)
        caller = threading.current_thread()

        def starting(thread):
            if threading.current_thread() is caller:
                threading.Thread.start = start
                edge(spare)
            start(thread)

        threading.Thread.start = starting
        edge(spare)
        try:
            return made(*args, **kwargs)
        finally:
            threading.Thread.start = start
            resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (1 << 30), hard))

    setattr(owner, name, edged)

parts = {"pool": (extract, "fork_pool"), "writer": (facts_writer.FactsWriter, "flush")}
for part in sys.argv.pop(1).split(","):
    name, calls = part.split("=")
    at_the_edge(*parts[name], int(calls))
facts_writer.FactsWriter.IN_PASSING = 4  # a small index's facts go to the writer process, as a large one's
cli.run()
"""


@pytest.fixture(scope="module")
def twenty(tmp_path_factory) -> Path:
    """A repository of 20 files: an index parses them in a pool (more than IN_PROCESS_MAX)."""
    builder = RepoBuilder(tmp_path_factory.mktemp("twenty") / "twenty")
    builder.commit({f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20)}, "twenty")
    return builder.path


_NO_THREAD = "is too small for this command (RuntimeError: can't start new thread); nothing stored was lost"


def test_an_index_whose_threads_meet_room_for_a_stack_but_not_a_start_is_out_of_memory(twenty, tmp_path):
    """`rennet index` whose facts writer's thread (after its pool, running) would start with
    room for a stack and 8 KiB: the one `out_of_memory` line, exit 1, and nothing of the index
    left running, its pool's workers nor a writer process (was: the new thread died as it
    began and `Thread.start` waited for it for good: the command never ended, deaf to SIGTERM)."""
    p = subprocess.Popen([PY, "-c", _INDEX_AT_THE_EDGE, "writer=1", "index", str(twenty)], cwd=ROOT,
                         env={**cli_env(str(tmp_path / "home")), PREPARE_ENV: "python"}, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    out, err = ended_within(p, 30, "the index whose writer's thread met the edge never ended")
    assert (p.returncode, out, len(err.splitlines())) == (1, "", 1), err
    assert err.startswith("rennet: out_of_memory: this process's address-space limit (`ulimit -v` is "), err
    assert _NO_THREAD in err, err
    with pytest.raises(ProcessLookupError):  # no process is left in its group
        os.killpg(p.pid, 0)


def test_a_servers_index_whose_threads_meet_room_for_a_stack_but_not_a_start_answers_out_of_memory(twenty, tmp_path):
    """`rennet mcp --http` whose `repo_index` meets the edge (room for a thread's stack and 8
    KiB, then 16, up to 56) as the index starts its pool, then, in the calls after, as it starts
    its facts writer's thread: each call answers `out_of_memory`, typed, and the next index,
    with room again, succeeds; nothing on stderr but the server's address (was: at one step or
    another, the new thread died as it began, `Thread.start` waited for it for good and the
    call never answered; at others `internal_error: RuntimeError: can't start new thread`, the
    refusal looked at again once the pool's threads had given their room back)."""
    steps = 7

    async def work(url: str) -> list[dict]:
        from mcp import Client

        async with Client(client_with(url, TOKEN)) as client:
            replies = []
            for _ in range(2 * steps + 1):
                with anyio.fail_after(30):
                    called = await client.call_tool("repo_index", {"repo": str(twenty)})
                replies.append(json.loads(called.content[0].text))
            return replies

    edges = f"pool={steps},writer={steps}"
    with _http_server(tmp_path, twenty.parent, "--readers", "0", main=("-c", _INDEX_AT_THE_EDGE, edges)) as (p, url):
        *short, after = anyio.run(work, url)
        p.send_signal(signal.SIGTERM)
        _, err = ended_within(p, 30, "the server did not leave on SIGTERM")
    for reply in short:
        assert reply["error"]["code"] == "out_of_memory", reply
        assert _NO_THREAD in reply["error"]["message"], reply
    assert after["ok"], after
    assert (p.returncode, err) == (143, "")


_CALL_STARTS_AT_THE_EDGE = """
import resource, sys, threading
from pathlib import Path
from contextlib import contextmanager
from delta.dossier import github, transport
from indexer.contract.memory_limit import mapped_bytes
from indexer.store.database import pack
from indexer.store.records import PriorRecord

stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
soft, hard = resource.getrlimit(resource.RLIMIT_AS)

start = threading.Thread.start

def at_the_edge():
    resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + stack + (8 << 10), hard))  # a stack, and 8 KiB

def starting(thread):  # the first thread started at the edge meets it too, whatever came between
    threading.Thread.start = start
    at_the_edge()
    start(thread)

@contextmanager
def edge():
    threading.Thread.start = starting
    at_the_edge()
    try:
        yield
    finally:
        threading.Thread.start = start
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

def children():
    count = 0
    for task in Path("/proc/self/task").glob("*"):
        try:
            count += len((task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):  # a thread that ended as it was listed
            pass
    return count

deadline = transport._Deadline(60)
said = []
for part in (lambda: PriorRecord("", "", [], pack(b"")),
             lambda: transport._Deadline(60),
             lambda: deadline._resolve("localhost", 80),
             lambda: github._run_gh([sys.executable, "-c", "import time; time.sleep(60)"], 60, "an issue", None)):
    try:
        with edge():
            part()
        said.append("started")
    except RuntimeError as exc:
        said.append(str(exc) == "can't start new thread")
deadline.cancel()
print(*said, children())
"""


def test_threads_a_call_starts_with_room_for_a_stack_but_not_a_start_are_refused_not_waited_for():
    """Under a `ulimit -v` leaving room for a thread's stack and 8 KiB, the threads a call
    starts as it goes are refused as one with no room for its stack is, which the call answers
    `out_of_memory`: a re-index's unpacker of its prior record's tail, a dossier's deadline timer
    and name lookup, and the timer and error reader of a `gh` run, which leaves no gh running
    (was: the new thread died as it began and `Thread.start` waited for it for good: the call
    never answered)."""
    done = subprocess.run([PY, "-c", _CALL_STARTS_AT_THE_EDGE], cwd=ROOT, env=cli_env(None), capture_output=True,
                          text=True, timeout=30)
    assert (done.returncode, done.stderr, done.stdout.strip()) == (0, "", "True True True True 0"), done.stderr


# The CLI with anyio's worker threads never told to stop as its event loop ends (as, short of
# memory, the loop's callback that tells them may not run), and the check of a line holding "end"
# finding numpy not loadable at all, which ends the server with its line.
_ENDS_WITH_A_WORKER_LEFT = """
from anyio._backends._asyncio import WorkerThread
from context_tools.faces import cli, mcp_stdio
from indexer.contract.errors import OutOfMemory

checked = mcp_stdio.check_line

def check(line):
    if b'"end"' in line:
        raise OutOfMemory("numpy's import, to read the client's messages, does not fit")
    return checked(line)

WorkerThread.stop = lambda self, task=None: None
mcp_stdio.check_line = check
cli.run()
"""


def test_a_stdio_server_that_ends_leaves_whatever_its_calls_threads_do(tmp_path):
    """`rennet mcp` over stdio that ends with its one `out_of_memory` line after a call, the
    call's worker thread of anyio's never told to stop: the process leaves at once, exit 1,
    that line alone on stderr, its client seeing the end of its output (was: the interpreter's
    exit waited for the idle worker in `threading._shutdown` for good, the client seeing no end:
    twice in a sweep under `ulimit -v`, at 428 and 504 MiB)."""
    from tests.mcp_clients import INIT
    from tests.test_interrupt import ended_within

    p = subprocess.Popen([PY, "-c", _ENDS_WITH_A_WORKER_LEFT, "mcp", "--root", str(tmp_path)], cwd=ROOT,
                         env={**cli_env(str(tmp_path / "home")), PREPARE_ENV: "python"}, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(b"\n".join([json.dumps(INIT).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                              _rpc(2, "tools/call", {"name": "context_overview", "arguments": {"repo": str(tmp_path)}})])
                  + b"\n")
    p.stdin.flush()
    answered = {json.loads(p.stdout.readline())["id"] for _ in range(2)}
    assert answered == {1, 2}, answered
    p.stdin.write(_rpc("end", "ping") + b"\n")
    p.stdin.flush()
    out, err = ended_within(p, 60, "the server that ended never left: its exit waited for a call's thread")
    assert (p.returncode, out, err.decode()) == (1, b"", "rennet: out_of_memory: numpy's import, to read the client's "
                                                         "messages, does not fit\n")


# The CLI with a stdio server's end met with no room at all, as under a `ulimit -v` that an index
# filled: once it has served, its forkserver up, the limit is lowered to what it maps and the room
# under it is taken. RENNET_TEST_LEFT set: a file of another's is put in multiprocessing's
# temporary folder first, so that it cannot be removed by the names multiprocessing put there.
_ENDS_WITH_NO_ROOM = """
import os, resource
from multiprocessing import forkserver, util
from context_tools.faces import cli, mcp
from indexer.contract.memory_limit import mapped_bytes

served = mcp._serve_stdio
held = []

def ends_with_no_room(*args):
    code = served(*args)
    forkserver.ensure_running()
    if os.environ.get("RENNET_TEST_LEFT"):
        with open(os.path.join(util.get_temp_dir(), "another's"), "w"):
            pass
    resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes(), resource.getrlimit(resource.RLIMIT_AS)[1]))
    for size in (1 << 20, 1 << 16, 1 << 12, 1 << 8, 1 << 5):
        try:
            while True:
                held.append(bytearray(size))
        except MemoryError:
            pass
    return code

mcp._serve_stdio = ends_with_no_room
cli.run()
"""


@pytest.mark.parametrize("left", [False, True])
def test_a_stdio_server_ending_with_no_room_removes_its_temporary_folder_or_says_so_in_one_line(left, small,
                                                                                              tmp_path, server_temp):
    """`rennet mcp` over stdio whose end (its client closed its input, after an index) meets no
    room at all: multiprocessing's temporary folder (the forkserver's socket) is removed all the
    same, exit 0 and nothing on stderr; where something else lies in it, the folder stays and
    stderr holds one `out_of_memory` line naming it (was: multiprocessing's exit handler listed
    the folder, `OSError: [Errno 12] Cannot allocate memory`, its traceback on stderr and the
    folder left, met in sweeps of the server under `ulimit -v`)."""
    from tests.mcp_clients import INIT

    p = subprocess.Popen([PY, "-c", _ENDS_WITH_NO_ROOM, "mcp", "--root", str(small.parent)], cwd=ROOT,
                         env={**cli_env(str(tmp_path / "home")), PREPARE_ENV: "python", "TMPDIR": str(server_temp),
                              **({"RENNET_TEST_LEFT": "1"} if left else {})},
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(b"\n".join([json.dumps(INIT).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                              _rpc(2, "tools/call", {"name": "repo_index", "arguments": {"repo": str(small)}})]) + b"\n")
    p.stdin.flush()
    answers = {answer["id"]: answer for answer in (json.loads(p.stdout.readline()) for _ in range(2))}
    assert not answers[2]["result"]["isError"], answers
    out, err = ended_within(p, 60, "the server with no room at its end never left")  # its input closed first
    assert out == b"", out
    folders = [folder.name for folder in server_temp.iterdir()]
    if not left:
        assert (p.returncode, err.decode(), folders) == (0, "", [])
        return
    assert p.returncode == 0 and len(folders) == 1 and folders[0].startswith("pymp-"), (p.returncode, folders)
    line = f"is too small for removing its temporary folder {server_temp / folders[0]} as it leaves (OSError: "
    assert err.decode().startswith("rennet: out_of_memory: this process's address-space limit (`ulimit -v` is "), err
    assert line in err.decode() and len(err.splitlines()) == 1, err
