"""Progress notifications of MCP tool calls that index (`_meta.progressToken`), through the
MCP SDK's own client over stdio and HTTP, and `CallProgress`'s rules alone."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Callable

import anyio
import pytest

from context_tools.faces.mcp_progress import MIN_GAP_SECONDS, CallProgress
from tests.mcp_clients import HttpServer, RawStdio, Scratch, client_with, in_session, text_of
from tests.test_context_world import PY, ROOT, cli_env


def _repo(path: Path, files: int) -> Path:
    """Two commits of `files` modules, each file naming the repository's folder: blobs of
    their own, which a store another test indexed into has never parsed."""
    from corpora.gitbuild import RepoBuilder

    tag = f"# {path.parent.name}\n"
    builder = RepoBuilder(path)
    builder.commit({f"pkg/m{i}.py": f"{tag}def f{i}():\n    return {i}\n" for i in range(files)})
    builder.commit({"pkg/m0.py": f"{tag}def f0():\n    return 'changed'\n", "pkg/new.py": f"{tag}X = 1\n"})
    return builder.path


# The servers shared by a test process (tests/conftest.py): `scratch_server` over stdio and
# `raw_stdio` written raw lines, each over a store of its own, and `http_server` over the
# world's, all serving the scratch root, where each test makes its repositories in a folder of
# its own.
@pytest.fixture(scope="module")
def stdio_served(scratch_server: Scratch) -> Scratch:
    return scratch_server


@pytest.fixture(scope="module")
def http_served(scratch_root: Path, http_server: HttpServer) -> Scratch:
    """The shared HTTP server (its root holds the scratch root; its store the world's)."""
    return Scratch(scratch_root, Path(http_server.store),
                   lambda work: anyio.run(in_session, client_with(http_server.url, http_server.token), work))


def _waits(told: list[tuple[float, float | None, str | None]]) -> list[str]:
    """The messages of `told` saying the call waits for another indexer."""
    return [m for _, _, m in told if m and m.startswith("waiting for another index of this store")]


async def _until(condition: Callable[[], object], seconds: float = 60) -> None:
    """Once `condition()` holds; one that never does fails the test after `seconds`."""
    with anyio.fail_after(seconds):
        while not condition():
            await anyio.sleep(0.02)


def _strictly_growing(seen: list[tuple[float, float | None, str | None]]) -> None:
    values = [p for p, _, _ in seen]
    assert values == sorted(set(values)), values  # MCP: progress grows with each notification
    assert all(t is not None and p <= t for p, t, _ in seen), seen


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_index_tells_a_client_that_asked_how_far_it_is(transport, request):
    """A client that passes a progress callback (the SDK sends `_meta.progressToken`) hears the
    blobs parsed of the whole, the assembly, and the end, each later value above the one before,
    the last equal to its total (was: nothing until the answer, which a large repository's
    index brings after many clients' request timeout). A packet that indexes its base and head
    counts on across both runs."""
    served: Scratch = request.getfixturevalue(f"{transport}_served")
    repo = _repo(served.place(f"told-{transport}") / "repo", 40)
    indexed: list[tuple[float, float | None, str | None]] = []
    packet: list[tuple[float, float | None, str | None]] = []

    async def work(client):
        async def heard(into, progress, total, message):
            into.append((progress, total, message))

        first = await client.call_tool("repo_index", {"repo": str(repo), "rev": "HEAD~1"},
                                       progress_callback=lambda *a: heard(indexed, *a))
        delta = await client.call_tool("delta_packet", {"repo": str(repo), "base": "HEAD~1", "head": "HEAD"},
                                       progress_callback=lambda *a: heard(packet, *a))
        again = await client.call_tool("repo_index", {"repo": str(repo), "rev": "HEAD"})
        return first, delta, again

    first, delta, again = served.run(work)
    assert not first.is_error and not delta.is_error and not again.is_error, text_of(first)
    parsed = text_of(first)["data"]["parsed_blobs"]
    assert parsed == 40
    _strictly_growing(indexed)
    assert indexed[-1] == (parsed + 1, parsed + 1, "indexed")
    assert f"parsing: {parsed} of {parsed} blobs" in [m for _, _, m in indexed]
    assert "assembling the snapshot" in [m for _, _, m in indexed]
    # the base is indexed already (nothing to parse), the head parses its two changed blobs
    _strictly_growing(packet)
    assert [m for _, _, m in packet].count("indexed") == 1 and packet[-1][2] == "indexed"
    assert "parsing: 2 of 2 blobs" in [m for _, _, m in packet]


def test_a_call_waiting_for_another_indexer_tells_the_client_it_waits(stdio_served: Scratch):
    """Another indexer holds the store (another call, another process): a `repo_index` and a read
    of a rev not yet indexed wait for it. Was: nothing told while waiting, so a client that resets
    its timeout on progress still gave up on a wait longer than that timeout. Now the client hears
    it waits, at once and again every few seconds, the values growing with the wait and on
    through the index that follows."""
    from tests.held_store import hold_store

    repo = _repo(stdio_served.place("waiting") / "repo", 6)
    store = stdio_served.store
    indexed: list[tuple[float, float | None, str | None]] = []
    read: list[tuple[float, float | None, str | None]] = []

    async def work(client):
        async def heard(into, progress, total, message):
            into.append((progress, total, message))

        release = threading.Event()
        holder = hold_store(store, 120, release)
        try:
            async with anyio.create_task_group() as tasks:
                async def call(name, args, into, out):
                    out.append(await client.call_tool(name, args, progress_callback=lambda *a: heard(into, *a)))

                answers: list = []
                tasks.start_soon(call, "repo_index", {"repo": str(repo), "rev": "HEAD"}, indexed, answers)
                await _until(lambda: _waits(indexed))  # the index waits first; the read then waits for it or the holder
                # a read never indexes: it waits for whoever writes, then answers from what is stored
                tasks.start_soon(call, "context_symbol", {"repo": str(repo), "rev": "HEAD~1", "name": "f1"}, read,
                                 answers)
                # the store held until each was told again that it still waits (a tick later)
                await _until(lambda: len(_waits(indexed)) >= 2 and len(_waits(read)) >= 2)
                release.set()
        finally:
            release.set()
        holder.join()
        return answers

    answers = stdio_served.run(work)
    by_command = {text_of(a)["command"]: text_of(a) for a in answers}
    assert by_command["repo.index"]["ok"], by_command
    assert by_command["context.symbol"]["error"]["code"] == "not_indexed", by_command
    for told in (indexed, read):
        _strictly_growing(told)
        waits = [(p, m) for p, _, m in told if m and m.startswith("waiting for another index of this store")]
        assert waits[0][1] == "waiting for another index of this store to finish (0 s)", told  # at once
        assert len(waits) >= 2, told  # and again while the store is held
    assert indexed[-1][2] == "indexed"


def test_working_tree_calls_wait_for_each_other_and_for_another_indexer_and_say_so(tmp_path,
                                                                                   worktree_server: Scratch):
    """A `--worktree` server indexes the working tree on each call. Was: a call meeting another
    indexer of the store failed at once with `store_locked` (a commit's index waits for it), and
    a call waiting for another call on the same checkout was silent. Now both wait, and a client
    that asked for progress hears that they do."""
    from tests.held_store import hold_store
    from tests.test_worktree import git, make_checkout

    checkout = make_checkout(tmp_path)
    for i in range(3):
        (checkout / "pkg" / f"gen{i}.py").write_text(f"def g{i}():\n    return {i}\n")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-q", "-m", "more")
    (checkout / "pkg" / "gen0.py").write_text("def fresh_helper():\n    return 0\n")
    store = worktree_server.store  # shared: its other checkouts are repositories this one is not
    heard: list[list[tuple[float, float | None, str | None]]] = [[], []]

    async def work(client):
        async def told(into, progress, total, message):
            into.append((progress, total, message))

        release = threading.Event()
        holder = hold_store(store, 120, release)
        answers: list = []
        try:
            async with anyio.create_task_group() as tasks:
                async def call(n):
                    args = {"repo": str(checkout), "name": "fresh_helper"}
                    answers.append(await client.call_tool("context_symbol", args,
                                                          progress_callback=lambda *a: told(heard[n], *a)))

                tasks.start_soon(call, 0)
                await _until(lambda: _waits(heard[0]))
                tasks.start_soon(call, 1)  # waits on the first, which waits on the holder
                await _until(lambda: _waits(heard[1]))  # the store held until each was told it waits
                release.set()
        finally:
            release.set()
        holder.join()
        return answers

    answers = worktree_server.run(work)
    for answer in answers:
        body = text_of(answer)
        assert body["ok"] and body["data"]["definitions"][0]["path"] == "pkg/gen0.py", body
        assert body["freshness"]["status"] == "worktree"
    for told in heard:
        _strictly_growing(told)
        waits = [m for _, _, m in told if m and m.startswith("waiting for another index of this store")]
        assert waits and waits[0].endswith("(0 s)"), told
    # both waited on the holder; whichever takes the store first indexes, the other finds its snapshot
    assert [told[-1][2] for told in heard].count("indexed") >= 1, heard


def test_a_raw_progress_token_comes_back_on_each_notification_and_none_without_it(raw_stdio: RawStdio,
                                                                                  scratch_root: Path):
    """On the wire: `notifications/progress` carries the client's own token, each before the
    answer; a call that sent none gets none."""
    repo = _repo(scratch_root / "raw-token" / "repo", 12)
    init = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            b'"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}')
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "repo_index", "arguments": {"repo": str(repo), "rev": "HEAD~1"},
                       "_meta": {"progressToken": "tok-7"}}}
    bare = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "repo_index", "arguments": {"repo": str(repo), "rev": "HEAD"}}}
    lines = [init, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', json.dumps(call).encode()]
    answers = raw_stdio(lines, {0, 1})  # the bare call is sent once this one is answered
    told = [a for a in answers if a.get("method") == "notifications/progress"]
    assert told and all(a["params"]["progressToken"] == "tok-7" for a in told), answers
    assert answers.index(told[-1]) < next(i for i, a in enumerate(answers) if a.get("id") == 1)
    answers = raw_stdio([json.dumps(bare).encode()], {2})
    # the same server, its first call done: the call that sent no token is told nothing
    assert any(a.get("id") == 2 and "result" in a for a in answers), answers
    assert not any(a.get("method") == "notifications/progress" for a in answers), answers


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_parse_is_told_at_most_every_gap_but_its_end_always():
    clock, sent = _Clock(), []
    progress = CallProgress(lambda *a: sent.append(a), clock)
    with progress.run() as update:
        for done in range(0, 101, 10):
            update("parse", done, 100)
            clock.now += MIN_GAP_SECONDS / 4
        update("assemble", 0, 1)
    values = [v for v, _, _ in sent]
    assert values == sorted(set(values))
    assert values[-3:] == [100, 100.5, 101] and sent[-1] == (101, 101, "indexed")
    assert len([m for _, _, m in sent if m.startswith("parsing")]) < 11  # told less often than updated
    # the start at once, before the tree is planned; then the parse's first step that grows
    # the value (0 of 100 does not), told at once as the first of its stage
    assert sent[:2] == [(0.25, 1, "reading the tree"), (10, 101, "parsing: 10 of 100 blobs")]


def test_a_second_run_counts_on_and_a_failed_run_neither_ends_the_count_nor_says_indexed():
    sent: list[tuple[float, float, str]] = []
    progress = CallProgress(lambda *a: sent.append(a), _Clock())
    with pytest.raises(RuntimeError):
        with progress.run() as update:
            update("parse", 3, 5)
            raise RuntimeError("the index failed")
    assert sent == [(0.25, 1, "reading the tree"), (3, 6, "parsing: 3 of 5 blobs")]
    with progress.run() as update:
        update("assemble", 0, 1)  # nothing to parse
    assert sent[2:] == [(6.25, 7, "reading the tree"), (6.5, 7, "assembling the snapshot"), (7, 7, "indexed")]


def test_a_client_gone_does_not_fail_the_index_nor_is_sent_to_again():
    """A send that fails: the client left, or never read its stream and the send timed out
    (`SEND_SECONDS`). Was: each later notification was tried again, each waiting out its own
    timeout on the index's thread. Now nothing more is sent."""
    tried: list[str] = []

    def gone(*told):
        tried.append(told[2])
        raise TimeoutError("the client reads nothing")

    clock = _Clock()
    with CallProgress(gone, clock).run() as update:
        for done in range(1, 11):
            clock.now += 1
            update("parse", done, 10)
        update("assemble", 0, 1)  # reached: the failed send was dropped
    assert tried == ["reading the tree"]


def test_no_sink_is_set_but_by_a_call_that_asked():
    """The Python face and the CLI never set a sink: `reported` is nothing there."""
    from indexer.api import reported, reporting_to

    with reported() as told:
        assert told is None
    sink = CallProgress(lambda *a: None)
    with reporting_to(sink):
        with reported() as told:
            assert callable(told)
    with reported() as told:
        assert told is None


def test_a_wait_is_told_growing_and_below_the_run_that_follows():
    sent: list[tuple[float, float, str]] = []
    progress = CallProgress(lambda *a: sent.append(a), _Clock())
    for seconds in (0.0, 2.0, 4.0, 3600.0):
        progress.waiting(seconds)
    with progress.run() as update:
        update("assemble", 0, 1)
    values = [v for v, _, _ in sent]
    assert values == sorted(set(values)) and all(v < 0.25 for v in values[:4]), sent
    assert [m for _, _, m in sent[:4]] == [f"waiting for another index of this store to finish ({s} s)"
                                           for s in (0, 2, 4, 3600)]
    assert sent[4:] == [(0.25, 1, "reading the tree"), (0.5, 1, "assembling the snapshot"), (1, 1, "indexed")]


def test_a_progress_token_past_its_bound_is_invalid_params_and_one_at_it_is_echoed(raw_stdio: RawStdio,
                                                                                   scratch_root: Path):
    """The token comes back on each notification of its call: one of megabytes, from a client
    that does not read them, made the server hold a serialized copy per notification (15 calls
    with 3.9 MB tokens, never read, held 460 MB over HTTP where the same bodies held 93 MB). A
    token over `MAX_TOKEN_CHARS` is refused, JSON-RPC -32602, before any work; one at the bound
    is echoed as sent, and the server serves on."""
    from context_tools.faces.mcp_progress import MAX_TOKEN_CHARS

    repo = _repo(scratch_root / "token-bound" / "repo", 3)
    init = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            b'"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}')

    def call(rid: int, token: str) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                           "params": {"name": "repo_index", "arguments": {"repo": str(repo), "rev": "HEAD"},
                                      "_meta": {"progressToken": token}}}).encode()

    at, past = "a" * MAX_TOKEN_CHARS, "b" * (MAX_TOKEN_CHARS + 1)
    lines = [init, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', call(1, past), call(2, at),
             b'{"jsonrpc":"2.0","id":3,"method":"ping"}']
    answers = raw_stdio(lines, {0, 1, 2, 3})
    by_id = {a["id"]: a for a in answers if "id" in a}
    refused = by_id[1]["error"]
    assert refused["code"] == -32602 and f"over the {MAX_TOKEN_CHARS}" in refused["message"], by_id[1]
    assert len(refused["message"]) < 200
    told = [a["params"]["progressToken"] for a in answers if a.get("method") == "notifications/progress"]
    assert told and set(told) == {at}, told  # was: the long one echoed too
    assert not by_id[2]["result"]["isError"] and by_id[3] == {"jsonrpc": "2.0", "id": 3, "result": {}}


CANCELLED_FILES = 1500


@pytest.fixture(scope="module")
def cancelled_repo(scratch_root: Path, tmp_path_factory) -> tuple[Path, str]:
    """A repository large enough that its index is still parsing when a cancel reaches it, and
    the fingerprint a fresh store's index of it gives; each transport's test only reads it."""
    repo = _repo(scratch_root / "cancelled" / "repo", CANCELLED_FILES)
    fresh = subprocess.run([PY, "-m", "context_tools.faces.cli", "index", str(repo), "--json"], cwd=ROOT,
                           env=cli_env(str(tmp_path_factory.mktemp("cancelled") / "fresh")), capture_output=True,
                           text=True, timeout=300)
    return repo, json.loads(fresh.stdout)["data"]["fingerprint"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_cancelled_index_stops_where_it_is_and_the_next_one_takes_up_from_there(transport, cancelled_repo,
                                                                                  request):
    """A client cancels a call (Esc in an agent, its request timeout: the SDKs send
    `notifications/cancelled`) while it indexes: the index ends at its next report of progress,
    before it writes the snapshot, and the call's slot and the store's lock are let go (was: it
    ran on to its end, every core busy for an answer nobody would read). The next `repo_index`
    finds no snapshot, parses what the cancelled one had not stored, and gives the fingerprint
    of an index never cancelled."""
    repo, fingerprint = cancelled_repo
    served: Scratch = request.getfixturevalue(f"{transport}_served")

    async def work(client):
        parsing = anyio.Event()

        async def heard(progress, total, message):
            if message and message.startswith("parsing:"):
                parsing.set()

        async def index():
            await client.call_tool("repo_index", {"repo": str(repo)}, progress_callback=heard)

        async with anyio.create_task_group() as group:
            group.start_soon(index)
            with anyio.fail_after(120):
                await parsing.wait()
            group.cancel_scope.cancel()  # the SDK sends notifications/cancelled for the call
        return await client.call_tool("repo_index", {"repo": str(repo)})

    again = served.run(work)
    assert not again.is_error, text_of(again)
    data = text_of(again)["data"]
    # the cancelled call wrote no snapshot (run to its end, it had: this call, waiting for it,
    # then parsed nothing), and this one's is a fresh store's
    assert 0 < data["parsed_blobs"] <= CANCELLED_FILES + 1, data
    assert data["fingerprint"] == fingerprint


def test_a_cancelled_call_holds_its_slot_until_its_thread_ends_and_is_told_to_stop():
    """Cancelling a call sets its stop at once, yet its slot is let go only when its thread
    ends: a client cancelling every call it sends starts no more threads than the slots allow."""
    import threading

    from context_tools.faces.mcp import _to_its_end

    stop, release = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def run() -> str:
        release.wait(30)
        return "ran"

    async def main() -> None:
        slots = anyio.CapacityLimiter(1)
        scope = anyio.CancelScope()

        async def call() -> None:
            with scope:
                seen["reply"] = await _to_its_end(run, slots, stop)

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            while slots.borrowed_tokens == 0:
                await anyio.sleep(0.01)
            scope.cancel()  # as the SDK does on notifications/cancelled
            with anyio.fail_after(10):
                while not stop.is_set():
                    await anyio.sleep(0.01)
            await anyio.sleep(0.1)
            seen["held"] = slots.borrowed_tokens
            release.set()
        seen["after"] = slots.borrowed_tokens

    anyio.run(main)
    assert seen == {"held": 1, "after": 0}, seen  # and no reply: the call was cancelled
    stop.clear()
    assert anyio.run(_to_its_end, lambda: "ran", anyio.CapacityLimiter(1), stop) == "ran" and not stop.is_set()
