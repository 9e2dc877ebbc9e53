"""A server that holds many agents: concurrent calls, an answer cache bounded in bytes, and
reads that wait for another indexer instead of failing."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

import anyio
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.faces.context import Memo, cache_budget
from indexer.contract.errors import BadInput, Busy
from tests.mcp_clients import HttpServer, client_with, in_session, python_prepared  # noqa: F401 - fixture
from tests.processes import children
from tests.test_context_world import World, world  # noqa: F401 - fixture


def blob(n: int) -> list[bytes]:
    return [bytes([i % 251]) * 1024 for i in range(n)]  # n KiB held in distinct objects


def test_the_answer_cache_never_holds_more_than_its_byte_budget():
    memo = Memo(budget=300 * 1024)
    for key in range(6):
        memo[key] = blob(100)
        memo.settle()
        assert memo.bytes <= memo.budget
    assert len(memo) == 2 and memo.get(5) is not None and memo.get(0) is None  # the least recent went first


def test_a_value_that_grows_after_it_was_cached_is_weighed_again():
    memo = Memo(budget=300 * 1024)
    memo["a"], memo["b"] = blob(50), blob(50)
    memo.settle()
    grown = memo.get("b")
    grown.extend(blob(200))  # as a snapshot fills its own caches while it is read
    memo.settle()
    assert memo.bytes <= memo.budget and memo.get("a") is None and memo.get("b") is grown


def test_a_value_larger_than_the_budget_is_not_kept():
    memo = Memo(budget=64 * 1024)
    memo["huge"] = blob(100)
    memo.settle()
    assert len(memo) == 0 and memo.bytes == 0


def test_a_value_larger_than_the_budget_pushes_out_no_other():
    memo = Memo(budget=64 * 1024)
    memo["a"], memo["b"] = blob(10), blob(10)
    memo.settle()
    memo["huge"] = blob(100)
    memo.settle()
    assert memo.get("huge") is None and memo.get("a") is not None and memo.get("b") is not None


def test_a_raw_column_weighs_its_bytes():
    from context_tools.faces.weigh import RAW_OVERHEAD, approx_bytes

    class Columns(msgspec.Struct):
        paths: msgspec.Raw
        sizes: msgspec.Raw

    packed = msgspec.msgpack.encode({"paths": [f"src/m{i}.py" for i in range(1000)], "sizes": list(range(1000))})
    columns = msgspec.msgpack.decode(packed, type=Columns)
    held = len(columns.paths) + len(columns.sizes)
    assert held <= approx_bytes(columns) <= held + 2 * RAW_OVERHEAD + 1024  # sys.getsizeof gives an address


def test_a_warm_call_reads_the_snapshot_the_cache_kept(world, monkeypatch):
    import context_tools
    from indexer import api

    opened = []
    open_snapshot = api.snapshot
    monkeypatch.setattr(api, "snapshot", lambda *a, **k: opened.append(a) or open_snapshot(*a, **k))
    client = context_tools.Client(store=world.store)
    for _ in range(3):
        client.call("context.symbol", repo=world.repo, rev="main", name="Flask")
        client.call("context.references", repo=world.repo, rev="main", name="Flask")
    assert len(opened) == 1  # a snapshot's lazily decoded head once weighed petabytes and was dropped each call


def test_a_server_replies_before_it_weighs_what_the_call_cached(world, monkeypatch):
    from context_tools.faces import weigh
    from context_tools.faces.dispatch import Executor

    weighing, release = threading.Event(), threading.Event()
    real = weigh.approx_bytes

    def held(value):
        weighing.set()
        release.wait(60)
        return real(value)

    monkeypatch.setattr(weigh, "approx_bytes", held)
    executor = Executor("mcp", store=world.store, settle="later")
    replies = []
    call = threading.Thread(target=lambda: replies.append(
        executor.run("context.symbol", {"repo": world.repo, "rev": "main", "name": "Flask"})))
    call.start()
    call.join(30)
    try:
        assert not call.is_alive() and replies[0].ok  # the reply did not wait on the weighing
        assert weighing.wait(30) and executor.handle.memo.bytes == 0  # which runs after it
    finally:
        release.set()
    for _ in range(3000):
        if executor.handle.memo.bytes:
            break
        time.sleep(0.01)
    assert executor.handle.memo.bytes > 0


@pytest.mark.parametrize("text, value", [("512M", 512 << 20), ("64k", 64 << 10), ("1G", 1 << 30), ("4096", 4096)])
def test_cache_budgets_take_bytes_or_a_suffix(text, value):
    assert cache_budget(text) == value


def test_a_cache_budget_that_is_not_a_size_is_bad_input():
    with pytest.raises(BadInput):
        cache_budget("lots")


def _repo_with_two_revs(tmp_path: Path, mark: str = ""):
    """A repository of two commits; `mark`, written into its first file, makes their ids its own."""
    from corpora.gitbuild import RepoBuilder

    b = RepoBuilder(tmp_path / "repo")
    first = b.commit({"a.py": f"def one():\n    return 1\n{mark}"})
    second = b.commit({"b.py": "def two():\n    return 2\n"})
    return tmp_path / "repo", first, second


def test_a_read_waits_for_another_indexer_then_indexes(tmp_path):
    from indexer import api
    from indexer.store.database import Store, WriteLock

    repo, _, second = _repo_with_two_revs(tmp_path)
    store = Store.open(tmp_path / "home")
    lock = WriteLock(tmp_path / "home").__enter__()
    release = threading.Timer(0.5, lock.__exit__, (None, None, None))
    release.start()  # the other indexer finishes while the read waits
    snap = api.snapshot(str(repo), "main", store=store)
    assert snap.oid == second


def test_a_read_sent_beside_a_waiting_index_call_answers_from_what_it_writes(scratch_server):
    """An agent's `repo_index` and a read of the same rev, sent together, while another process
    holds the store: the index call waits for it, then writes. Was: the read waited for the same
    lock, and when it was free before the index took it (about one time in two) found nothing
    and answered `not_indexed`. Now the server, which counted the index call as it came, has the
    read wait for that call and ask again. Three rounds, each a repository of its own."""
    from tests.held_store import hold_store
    from tests.mcp_clients import text_of

    # commits of their own: a commit the store already holds would be answered without a wait
    beside = scratch_server.place("beside")
    repos = [_repo_with_two_revs(beside / f"r{k}", f"# round {k}\n") for k in range(3)]
    assert len({second for _, _, second in repos}) == 3
    store = scratch_server.store

    async def work(client):
        rounds = []
        for repo, _, _ in repos:
            release = threading.Event()
            holder = hold_store(store, 120, release)
            answers: dict = {}
            told: dict[str, list[str]] = {"repo_index": [], "context_symbol": []}
            try:
                async with anyio.create_task_group() as tasks:
                    async def call(name, args, repo=repo):
                        async def heard(progress, total, message):
                            told[name].append(message or "")

                        answers[name] = await client.call_tool(name, {"repo": str(repo), **args},
                                                               progress_callback=heard)

                    # The read first, then the index call: each waits on the holder, polling its
                    # lock, the read a moment ahead of the index. Let go as the index call is told
                    # it waits, the store is found free by the read's next poll before the index
                    # call's takes it: the read finds nothing stored yet, every round.
                    tasks.start_soon(call, "context_symbol", {"name": "two"})
                    await _told_it_waits(told["context_symbol"])
                    tasks.start_soon(call, "repo_index", {})
                    await _told_it_waits(told["repo_index"])
                    release.set()
            finally:
                release.set()
            holder.join()
            rounds.append(answers)
        return rounds

    for (_, _, second), answers in zip(repos, scratch_server.run(work)):
        index, read = text_of(answers["repo_index"]), text_of(answers["context_symbol"])
        assert index["ok"] and index["data"]["oid"] == second, index
        assert read["ok"] and read["data"]["definitions"][0]["path"] == "b.py", read  # was: not_indexed


async def _told_it_waits(told: list[str]) -> None:
    """Once a call was told it waits for another indexer (one never told fails the test after a
    minute)."""
    with anyio.fail_after(60):
        while not any(m.startswith("waiting for another index of this store") for m in told):
            await anyio.sleep(0.005)


def test_calls_waiting_for_another_indexer_leave_their_slots_to_calls_that_work(scratch_server):
    """docs/agents.md, calls at once: a call waiting for another indexer of the store gives its
    slot back while it waits. Was: eight calls waiting (`CONCURRENT_CALLS`) held every slot, and
    a call refused for its arguments, or a read of a stored rev, waited behind them until the
    other indexer finished, up to two minutes (a hostile client's batch met it beside a
    `rennet index`). The store is held by the test until both are answered."""
    from context_tools.faces.mcp import CONCURRENT_CALLS
    from tests.held_store import hold_store
    from tests.mcp_clients import text_of

    repo, first, second = _repo_with_two_revs(scratch_server.place("aside"), "# aside\n")
    store = scratch_server.store

    async def work(client):
        assert (await client.call_tool("repo_index", {"repo": str(repo), "rev": first})).is_error is False
        release = threading.Event()
        holder = hold_store(store, 120, release)
        told: list[list[str]] = [[] for _ in range(CONCURRENT_CALLS)]
        indexed: list[object] = []
        try:
            async with anyio.create_task_group() as tasks:
                async def index(heard_of: list[str]) -> None:
                    async def heard(progress, total, message):
                        heard_of.append(message or "")

                    indexed.append(await client.call_tool("repo_index", {"repo": str(repo)}, progress_callback=heard))

                for heard_of in told:
                    tasks.start_soon(index, heard_of)
                for heard_of in told:
                    await _told_it_waits(heard_of)
                with anyio.fail_after(60):  # was: answered once the store was let go, after 120 s
                    refused = await client.call_tool("context_symbol", {"repo": str(repo), "name": "one", "nope": 1})
                    read = await client.call_tool("context_symbol", {"repo": str(repo), "rev": first, "name": "one"})
                held = holder.is_alive()
                release.set()
        finally:
            release.set()
            holder.join()
        return refused, read, held, indexed

    refused, read, held, indexed = scratch_server.run(work)
    assert held
    assert text_of(refused)["error"]["code"] == "bad_input", text_of(refused)
    assert text_of(read)["ok"] and text_of(read)["data"]["definitions"][0]["path"] == "a.py", text_of(read)
    assert [text_of(a)["data"]["oid"] for a in indexed] == [second] * CONCURRENT_CALLS


def test_a_read_that_waited_its_bound_is_busy_with_a_retry_hint(tmp_path, monkeypatch):
    from indexer import api
    from indexer.store import writer_wait
    from indexer.store.database import Store, WriteLock

    repo, _, _ = _repo_with_two_revs(tmp_path)
    store = Store.open(tmp_path / "home")
    monkeypatch.setattr(writer_wait, "WAIT_SECONDS", 0.3)
    with WriteLock(tmp_path / "home"):
        with pytest.raises(Busy, match="retry"):
            api.snapshot(str(repo), "main", store=store)
        with pytest.raises(Busy):  # a read that never indexes waits the same way
            api.snapshot(str(repo), "main", store=store, index_if_absent=False)


def test_a_call_meeting_another_indexer_answers_busy_at_the_servers_bound_with_a_true_retry_hint(tmp_path):
    """docs/agents.md, a call that waits for another indexer: `rennet mcp --busy-after 2` (the
    bound lowered from its default, `BUSY_AFTER_SECONDS`, under the minute a TypeScript SDK client
    or Codex gives a call). With the store held by the test, a read of a rev not indexed, an index
    of it, and the two sent together each wait, told so on the progress token they gave (which
    does not extend the bound), then answer `busy` within the bound from their request, saying to
    retry now; retried once the other indexer finished, the index answers. A read that found no
    snapshot beside an index call of this server still on its way (held here on the client's
    roots) waits for it to the same bound, then answers `busy` too. Was: the waits on the store
    lasted up to `WAIT_SECONDS`, 120 s, and the read beside an index call waited for it without
    a bound of its own, so a client's default timeout fired first: the agent saw a timeout, no
    typed answer to act on."""
    from collections import defaultdict

    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from tests.held_store import hold_store
    from tests.mcp_clients import text_of
    from tests.test_context_world import PY, ROOT, cli_env

    repo, first, second = _repo_with_two_revs(tmp_path / "held", "# held\n")
    beside, _, beside_head = _repo_with_two_revs(tmp_path / "beside", "# beside\n")
    home = tmp_path / "home"
    params = StdioServerParameters(command=PY, args=["-m", "context_tools.faces.cli", "mcp", "--root", str(tmp_path),
                                                     "--busy-after", "2"], env=cli_env(str(home)), cwd=str(ROOT))
    hint = "retry now: the retry waits up to 2 s for it to finish"
    roots_asked, held_roots = anyio.Event(), anyio.Event()
    answered_by: list[anyio.Event] = [held_roots]  # the first call's roots held until the test lets them go

    async def roots(context):
        roots_asked.set()
        await answered_by[-1].wait()
        return types.ListRootsResult(roots=[types.Root(uri=tmp_path.as_uri())])

    async def work():
        async with Client(params, list_roots_callback=roots, mode="legacy") as client:
            told: dict[str, list[str]] = defaultdict(list)
            answers: dict[str, object] = {}

            async def call(key: str, name: str, args: dict, where: Path = repo) -> None:
                async def heard(progress, total, message):
                    told[key].append(message or "")

                # the bound's 2 s and a wide margin for a loaded machine; was: 120 s, then `busy`
                with anyio.fail_after(30):
                    answers[key] = await client.call_tool(name, {"repo": str(where), **args}, progress_callback=heard)

            # a read beside an index call of the same repository that has not reached the store
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call, "index beside a read", "repo_index", {}, beside)
                await roots_asked.wait()
                answered_by.append(anyio.Event())
                answered_by[-1].set()  # the read's own roots are answered at once
                await call("read beside a call", "context_symbol", {"name": "two"}, beside)
                held_roots.set()
            assert (await client.call_tool("repo_index", {"repo": str(repo), "rev": first})).is_error is False
            release = threading.Event()
            holder = hold_store(home, 120, release)
            try:
                await call("read", "context_symbol", {"rev": second, "name": "two"})
                await call("index", "repo_index", {"rev": second})
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(call, "index beside", "repo_index", {"rev": second})
                    await _told_it_waits(told["index beside"])
                    tasks.start_soon(call, "read beside", "context_symbol", {"rev": second, "name": "two"})
                held = holder.is_alive()
            finally:
                release.set()
                holder.join()
            answers["retried"] = await client.call_tool("repo_index", {"repo": str(repo), "rev": second})
            return answers, told, held

    answers, told, held = anyio.run(work)
    assert held  # every `busy` came while the store was still held
    for key in ("read", "index", "read beside", "index beside", "read beside a call"):
        error = text_of(answers[key])["error"]
        assert error["code"] == "busy" and error["message"].endswith(hint), (key, error)
        assert any(m.startswith("waiting for another index of this store") for m in told[key]), (key, told[key])
    assert text_of(answers["read beside a call"])["error"]["message"].startswith(
        "not indexed yet, and another call of this server indexing the repository was still at work after ")
    assert text_of(answers["index beside a read"])["data"]["oid"] == beside_head
    assert text_of(answers["retried"])["data"]["oid"] == second


@pytest.mark.parametrize(("text", "expected"), [(None, 45.0), ("0", 0.0), ("2", 2.0), ("0.5", 0.5), ("3600", 3600.0),
                                                ("-1", None), ("3601", None), ("nan", None), ("inf", None),
                                                ("two", None), ("", None), ("\u0664\u0665", None)])
def test_busy_after_is_seconds_from_0_to_an_hour_else_bad_input(text, expected):
    """`rennet mcp --busy-after SECONDS`: a number from 0 to MAX_BUSY_AFTER, none given the
    default; anything else is `bad_input` on one line (Arabic-Indic digits too, which `float()`
    reads)."""
    from context_tools.faces.mcp import busy_after_seconds

    if expected is None:
        with pytest.raises(BadInput, match="^bad_input: --busy-after wants seconds from 0 to 3600, got "):
            busy_after_seconds(text)
    else:
        assert busy_after_seconds(text) == expected


def test_a_call_waits_for_another_indexer_under_a_minute_by_default_as_docs_agents_md_states():
    """The shipped bound of a call's wait, `BUSY_AFTER_SECONDS`, is under the minute a TypeScript
    SDK client or Codex gives a call by default, and is the figure docs/agents.md states."""
    from context_tools.faces.mcp import BUSY_AFTER_SECONDS, MAX_BUSY_AFTER

    assert BUSY_AFTER_SECONDS == 45.0 < 60 and MAX_BUSY_AFTER == 3600.0
    assert "(`--busy-after`, 45 s by default)" in (Path(__file__).parents[1] / "docs" / "agents.md").read_text()


def test_a_busy_after_that_is_no_number_is_refused_before_serving(tmp_path):
    import subprocess

    from tests.test_context_world import PY, ROOT, cli_env

    p = subprocess.run([PY, "-m", "context_tools.faces.cli", "mcp", "--busy-after", "soon"], cwd=ROOT,
                       env=cli_env(str(tmp_path)), capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stderr) == (1, "rennet: bad_input: --busy-after wants seconds from 0 to 3600, got 'soon'\n")


def test_many_sessions_at_once_each_get_their_own_right_answer(world: World, http_server: HttpServer, tmp_path):
    """Sixteen sessions call at once while one indexes a revision the store does not hold."""
    from mcp import Client

    from corpora.gitbuild import RepoBuilder

    fresh = tmp_path / "fresh"
    RepoBuilder(fresh).commit({f"m{i}.py": f"def fn{i}():\n    return {i}\n" for i in range(40)})
    server = http_server  # its root holds both repositories; each session here is one of its own
    names = ["Flask", "Router", "route", "main"]

    async def one(k: int, out: dict) -> None:
        async with Client(client_with(server.url, server.token)) as client:
            if k == 0:
                out["index"] = await client.call_tool("repo_index", {"repo": str(fresh)})
                return
            name = names[k % len(names)]
            out[k] = (name, await client.call_tool("context_symbol", {"repo": world.repo, "name": name}))

    async def work(_client) -> dict:
        out: dict = {}
        async with anyio.create_task_group() as tg:
            for k in range(16):
                tg.start_soon(one, k, out)
        return out

    out = anyio.run(in_session, client_with(server.url, server.token), work)
    assert out["index"].structured_content["data"]["files"] == 40
    for k in range(1, 16):
        name, reply = out[k]
        assert reply.is_error is False
        assert any(d["name"] == name for d in reply.structured_content["data"]["definitions"]), name


# --- reader processes -----------------------------------------------------------------------

def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _maps_store(pid: int, home: str) -> bool:
    try:
        return home in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _stdio_server(store: str, readers: str):
    from mcp.client.stdio import StdioServerParameters

    from tests.test_context_world import PY, ROOT, cli_env

    env = {k: v for k, v in cli_env(store).items() if k != "RENNET_MCP_READERS"}  # the default: no readers
    flag = ["--readers", readers] if readers != "0" else []
    return StdioServerParameters(command=PY, args=["-m", "context_tools.faces.cli", "mcp", "--root", tempfile.gettempdir(),
                                                   *flag], env=env, cwd=str(ROOT))


_READS = [("context_symbol", {"name": "Flask.route"}),
          ("context_map", {"budget": "1k"}),
          ("context_file", {"path": "src/webapp/app.py", "limit": 3}),
          ("context_symbol", {"name": "Nope", "fuzzy": False})]  # a typed error too


async def _with_readers(world: World, readers: str) -> dict:
    """One stdio server of `--readers` `readers`: the answers to the reads before and once a
    reader is up and has answered from the store, the server's pid, the readers it spawned and
    those that mapped the store; with readers, then a `repo_index` (a write tool) sent to it."""
    from mcp import Client

    calls = [(name, {"repo": world.repo, **args}) for name, args in _READS]
    running = set(children(os.getpid()))  # a server shared across the test process's modules among them
    async with Client(_stdio_server(world.store, readers)) as client:
        server = next(p for p in children(os.getpid()) if p not in running and "faces.cli mcp" in _cmdline(p))
        first = [await client.call_tool(name, args) for name, args in calls]
        seen: list[int] = []
        for _ in range(400):  # bounded: until a reader is up and has answered from the store
            spawned = [p for p in children(server) if "spawn_main" in _cmdline(p)]
            seen = [p for p in spawned if _maps_store(p, world.store)]
            if seen or readers == "0":
                break
            async with anyio.create_task_group() as tg:
                for name, args in calls:
                    tg.start_soon(client.call_tool, name, args)
            await anyio.sleep(0.05)
        later = [await client.call_tool(name, args) for name, args in calls]
        written = await client.call_tool("repo_index", {"repo": world.repo}) if readers != "0" else None
    return {"first": first, "later": later, "server": server, "spawned": spawned, "seen": seen, "written": written}


@pytest.fixture(scope="module")
def with_readers(world: World) -> dict:
    """`_with_readers(world, "2")`, its server gone, for the tests of reads in reader processes
    and of a write beside them: one server (and its readers' start) for both."""
    return anyio.run(_with_readers, world, "2")


def test_read_calls_are_answered_by_reader_processes_and_answer_the_same(world: World, with_readers: dict):
    """With `--readers 2` the server's read calls go to reader processes started on the first
    read call, each with the store open on its own; their answers are those a server without
    readers (the default) gives, byte for byte."""
    first, later, spawned, seen = (with_readers[k] for k in ("first", "later", "spawned", "seen"))
    assert len(spawned) == 2 and seen, "no reader process answered from the store"
    for _ in range(600):  # the readers go with the server (bounded wait, not a timing)
        if not any(Path(f"/proc/{p}").exists() and "spawn_main" in _cmdline(p) for p in spawned):
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"reader processes {spawned} outlived the server")
    plain = anyio.run(_with_readers, world, "0")
    assert plain["spawned"] == []
    for a, b, c in zip(later, plain["later"], first):
        assert a.content[0].text == b.content[0].text == c.content[0].text
        assert a.structured_content == b.structured_content and a.is_error == b.is_error
    assert later[-1].is_error is True and later[-1].structured_content["error"]["code"] == "not_found"


def test_a_write_tool_runs_in_the_server_never_in_a_reader(world: World, with_readers: dict):
    """With readers up and answering reads, `repo_index` (a write tool) is still run by the
    server's own process: its receipt in the ledger carries the server's pid (a receipt's key
    holds the pid of the process that wrote it), a read's carries a reader's."""
    from context_tools.faces.ledger import KV_NAME, _decode
    from indexer.store.database import Store

    server, readers, written = with_readers["server"], with_readers["seen"], with_readers["written"]
    assert readers, "no reader process answered from the store"
    assert written.is_error is False, written.content[0].text
    with Store.open(world.store) as store:
        by = [(int.from_bytes(bytes(k)[8:12], "big"), _decode(v).command) for k, v in store.kv(KV_NAME).items()]
    mine = [(pid, command) for pid, command in by if pid in (server, *readers)]
    assert {pid for pid, command in mine if command == "repo.index"} == {server}
    assert any(pid in readers for pid, command in mine if command == "context.symbol")


def test_a_read_that_must_wait_for_another_indexer_leaves_its_reader_to_reads_that_work(tmp_path):
    """docs/agents.md, calls at once: with `--readers` (the HTTP face's default), a read that
    meets another indexer at work is given back by its reader and waits in the server, its slot
    free meanwhile (`readers._hand_back`), told as it waits. Was: it waited in the reader, told
    nothing (a client's timeout not reset), and every read after it, one refused for its
    arguments too, waited for a reader until the other indexer finished, up to two minutes. The
    store is held by the test until the reads are answered."""
    from mcp import Client

    from tests.held_store import hold_store
    from tests.mcp_clients import text_of

    repo, first, second = _repo_with_two_revs(tmp_path)
    home = tmp_path / "home"
    running = set(children(os.getpid()))

    async def work():
        async with Client(_stdio_server(str(home), "1")) as client:
            server = next(p for p in children(os.getpid()) if p not in running and "faces.cli mcp" in _cmdline(p))
            assert (await client.call_tool("repo_index", {"repo": str(repo), "rev": first})).is_error is False
            stored = {"repo": str(repo), "rev": first, "name": "one"}
            for _ in range(400):  # bounded: until the reader is up and has answered from the store
                await client.call_tool("context_symbol", stored)
                if any(_maps_store(p, str(home)) for p in children(server) if "spawn_main" in _cmdline(p)):
                    break
                await anyio.sleep(0.05)
            else:
                raise AssertionError("no reader answered from the store")
            release = threading.Event()
            holder = hold_store(home, 120, release)
            told: list[str] = []
            try:
                async with anyio.create_task_group() as tasks:
                    async def waiting_read() -> None:
                        async def heard(progress, total, message):
                            told.append(message or "")

                        await client.call_tool("context_symbol", {"repo": str(repo), "name": "two"},
                                               progress_callback=heard)

                    tasks.start_soon(waiting_read)
                    await _told_it_waits(told)  # was: a read waiting in a reader was never told
                    with anyio.fail_after(60):  # was: answered once the store was let go, after 120 s
                        refused = await client.call_tool("context_symbol", {**stored, "nope": 1})
                        read = await client.call_tool("context_symbol", stored)
                    held = holder.is_alive()
                    release.set()
            finally:
                release.set()
                holder.join()
            return refused, read, held

    refused, read, held = anyio.run(work)
    assert held
    assert text_of(refused)["error"]["code"] == "bad_input", text_of(refused)
    assert text_of(read)["ok"] and text_of(read)["data"]["definitions"][0]["path"] == "a.py", text_of(read)


@pytest.mark.parametrize("value", ["17", "-1", "two"])
def test_a_reader_count_out_of_range_is_refused_before_serving(value, tmp_path):
    import subprocess

    from tests.test_context_world import PY, ROOT, cli_env

    p = subprocess.run([PY, "-m", "context_tools.faces.cli", "mcp", f"--readers={value}"], cwd=ROOT,
                       env=cli_env(str(tmp_path)), capture_output=True, text=True, timeout=60)
    assert p.returncode in (1, 2) and "--readers" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_readers_default_to_one_a_core_for_many_sessions_and_none_for_stdio(monkeypatch):
    import os

    from context_tools.faces.readers import MAX_READERS, reader_count

    monkeypatch.delenv("RENNET_MCP_READERS", raising=False)
    assert reader_count(None, many_sessions=False) == 0
    assert reader_count(None, many_sessions=True) == min(os.cpu_count() or 1, MAX_READERS) >= 1
    assert reader_count(0, many_sessions=True) == 0 and reader_count(3) == 3
    monkeypatch.setenv("RENNET_MCP_READERS", "1")
    assert reader_count(None, many_sessions=True) == 1


def test_a_wait_for_index_calls_ends_with_them_or_at_its_bound_and_is_told():
    from context_tools.faces.index_calls import IndexCalls, wait_for

    calls = IndexCalls()
    first, second, elsewhere = calls.begin("/r"), calls.begin("/r"), calls.begin("/other")
    told: list[float] = []
    threading.Timer(0.3, calls.end, (first,)).start()
    assert not wait_for(calls.in_flight("/r"), told.append, seconds=0.6)  # the second never ends
    assert told[0] == 0.0 and calls.in_flight("/r") == [second] and calls.ended == 1
    threading.Timer(0.2, calls.end, (second,)).start()
    assert wait_for(calls.in_flight("/r"), None, seconds=5)
    assert calls.in_flight("/r") == [] and calls.in_flight("/other") == [elsewhere] and calls.ended == 2
    assert wait_for([], told.append) and len(told) == 1  # nothing to wait for: nothing told


def test_the_repository_a_call_names_is_its_path_resolved_or_its_workspace(tmp_path, monkeypatch):
    """`repository_named` reads a call's arguments before they are decoded: the path a `repo`
    names resolved (the server's folder when none is named), a workspace by its name. Anything a
    client may send is a key, never an exception; a path past PATH_CHARS is not resolved
    (docs/security.md: resolving costs time quadratic in its parts, on the event loop)."""
    from context_tools.faces.argument_bounds import PATH_CHARS
    from context_tools.faces.index_calls import repository_named

    (tmp_path / "b").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "b")
    here = os.path.realpath(".")
    assert repository_named({"repo": f"{tmp_path}/a/../link"}) == str(tmp_path / "b")
    assert repository_named({"repo": str(tmp_path / "b"), "workspace": "w"}) == str(tmp_path / "b")
    assert repository_named({"workspace": "w"}) == "workspace:w"
    for named_none in ({}, {"repo": ""}, {"repo": None}, {"repo": 5}, {"workspace": 5}, None, ["repo"]):
        assert repository_named(named_none) == here, named_none
    for unnamable in ("a\x00b", "a\ud800"):
        assert repository_named({"repo": unnamable}) == unnamable
    at = f"{tmp_path}/link/" + "c" * (PATH_CHARS - len(f"{tmp_path}/link/"))
    assert len(at) == PATH_CHARS and repository_named({"repo": at}) == f"{tmp_path}/b/" + at.rsplit("/", 1)[1]
    resolved: list[str] = []
    real = os.path.realpath
    monkeypatch.setattr(os.path, "realpath", lambda path: resolved.append(path) or real(path))
    longer = at + "/d"
    assert repository_named({"repo": longer}) == longer[:PATH_CHARS] and resolved == []


_ANY_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                         lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                         max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(st.one_of(_ANY_JSON, st.dictionaries(st.sampled_from(["repo", "workspace", "name"]), _ANY_JSON, max_size=3)))
def test_any_arguments_name_a_repository_key_and_raise_nothing(arguments):
    """A call's arguments as the client sent them, whatever JSON they hold, read before any check."""
    from context_tools.faces.index_calls import repository_named

    assert isinstance(repository_named(arguments), str)
