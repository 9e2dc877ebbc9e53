"""What a hostile MCP client (or an agent a file steered) is told, checked with the real server
and the MCP SDK's own client: every answer that tells the freshness of a commit a checkout has
checked out says `dirty` while its working tree differs, as each answer read from it says, and
every answer validates against its tool's own `outputSchema`."""

from __future__ import annotations

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.faces.dispatch import Executor
from tests.examples import examples
from tests.mcp_clients import Scratch, python_prepared, text_of  # noqa: F401 - fixture
from tests.schema_checks import checked_validator


def _checkout(folder) -> str:
    """A repository with one commit checked out (its index written, as `git clone` leaves it)."""
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(folder / "repo")
    builder.commit({"app.py": "def handler():\n    return 1\n", "lib.py": "def helper():\n    return 2\n"})
    builder.repo.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    return str(builder.path)


def test_every_freshness_of_a_checked_out_commit_says_dirty_while_the_working_tree_differs(scratch_server: Scratch):
    """docs/worktree.md: an answer read from the commit a checkout is on, while its working tree
    differs, is `dirty`, not `current`. `repo_snapshots` listed that rev `current`,
    `workspace_status` the member `current`, and a workspace answer's own freshness `current`
    beside a member's `dirty`: an agent asking whether what it reads is what it edits was told
    yes."""
    repo = _checkout(scratch_server.place("dirty-freshness"))
    user = Executor("python", store=str(scratch_server.store), receipts=False)
    assert user.run("workspace.create", {"name": "dirty-freshness"}).ok
    assert user.run("workspace.add", {"name": "dirty-freshness", "repo": repo, "rev": "HEAD"}).ok

    async def asked(client):
        tools = {t.name: checked_validator(t.output_schema) for t in (await client.list_tools()).tools}
        calls = {"context_symbol": {"repo": repo, "name": "handler"},
                 "repo_snapshots": {"repo": repo},
                 "workspace_status": {"name": "dirty-freshness"},
                 "context_overview": {"workspace": "dirty-freshness"}}
        answers = {}
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            body = text_of(result)
            assert result.is_error is False and result.structured_content == body, body
            tools[name].validate(body)
            answers[name] = body
        return answers

    def statuses(answers: dict) -> dict[str, object]:
        (member,) = answers["workspace_status"]["data"]["members"]
        (rev,) = answers["repo_snapshots"]["data"]["revs"]
        return {"symbol": answers["context_symbol"]["freshness"]["status"], "snapshots": rev["status"],
                "member": member["freshness"], "counted": answers["workspace_status"]["data"]["counts"],
                "workspace": answers["context_overview"]["freshness"]["status"]}

    assert scratch_server.run(lambda c: c.call_tool("repo_index", {"repo": repo})).is_error is False
    clean = {"current": 1, "stale": 0, "unknown": 0, "dirty": 0, "partial": 0}
    assert statuses(scratch_server.run(asked)) == {"symbol": "current", "snapshots": "current", "member": "current",
                                                   "counted": clean, "workspace": "current"}
    with open(f"{repo}/app.py", "a", encoding="utf-8") as edited:
        edited.write("\n\ndef uncommitted():\n    return 3\n")
    answers = scratch_server.run(asked)
    assert statuses(answers) == {"symbol": "dirty", "snapshots": "dirty", "member": "dirty",
                                 "counted": {**clean, "current": 0, "dirty": 1}, "workspace": "dirty"}
    assert "repo: dirty" in answers["context_overview"]["freshness"]["reason"]


@pytest.mark.parametrize("unchecked", ["bare", "no index"])
def test_a_repository_with_no_checkout_to_compare_keeps_its_commits_freshness(scratch_server: Scratch, unchecked):
    """A bare repository, or one whose commits were made without a checkout (no index), has no
    working tree to differ: its rev is `current` wherever it is listed."""
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(scratch_server.place(f"no-checkout-{unchecked.replace(' ', '-')}") / "repo",
                          bare=unchecked == "bare")
    builder.commit({"app.py": "def handler():\n    return 1\n"})
    repo = str(builder.path)

    async def asked(client):
        assert (await client.call_tool("repo_index", {"repo": repo})).is_error is False
        return text_of(await client.call_tool("repo_snapshots", {"repo": repo}))

    assert [r["status"] for r in scratch_server.run(asked)["data"]["revs"]] == ["current"]


def test_a_refused_line_naming_the_id_of_a_request_in_flight_frees_no_place_of_it(tmp_path):
    """docs/security.md, requests in flight: on stdio at most `in_flight.MAX_REQUESTS` requests
    are held unanswered and `ROOM_REQUESTS` more wait; past them the reader reads no more. The
    reader's own answer to a line it refuses (here `{"id": N}`, no JSON-RPC message) carries the
    line's id when readable, and it released the place of the request in flight under that id:
    a client sending each request with such a line behind it had every request read and held
    (was: 400 calls of 100 kB read at once, the server's memory growing with them, where 80 are
    read). The calls here wait for the store's write lock, held by the test: none is answered
    until it lets go, so the count read does not depend on time."""
    import json
    import queue
    import subprocess
    import threading
    import time

    from context_tools.faces.in_flight import MAX_REQUESTS, ROOM_REQUESTS
    from corpora.gitbuild import RepoBuilder
    from indexer.store.database import WriteLock
    from tests.mcp_clients import INIT
    from tests.test_context_world import PY, ROOT, cli_env

    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"a.py": "def a():\n    return 1\n"})
    home = tmp_path / "home"
    p = subprocess.Popen([PY, "-m", "context_tools.faces.cli", "mcp", "--root", str(tmp_path)], cwd=ROOT,
                         env=cli_env(str(home)), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    said: queue.Queue[dict | None] = queue.Queue()

    def read() -> None:
        for line in p.stdout:
            said.put(json.loads(line))
        said.put(None)

    total = MAX_REQUESTS + ROOM_REQUESTS + 60
    calls = [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "repo_index", "arguments": {"repo": str(repo.path)}}} for i in range(1, total + 1)]

    def write() -> None:
        try:
            for call in calls:  # blocks once the server reads no more
                p.stdin.write(json.dumps(call).encode() + b"\n" + json.dumps({"id": call["id"]}).encode() + b"\n")
                p.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    threading.Thread(target=read, daemon=True).start()
    home.mkdir()
    refused: list[dict] = []
    answers: dict[int, dict] = {}
    try:
        with WriteLock(home):  # every repo_index waits for it (up to two minutes), none answered
            p.stdin.write(json.dumps(INIT).encode() + b'\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            p.stdin.flush()
            assert said.get(timeout=60)["id"] == 1
            threading.Thread(target=write, daemon=True).start()
            # the refusals the reader answers as it reads, until none came for 3 s: it reads no more
            while True:
                try:
                    message = said.get(timeout=3)
                except queue.Empty:
                    break
                assert message is not None, p.stderr.read().decode()
                if "error" in message:
                    refused.append(message)
            read_while_held = len(refused)
        deadline = time.monotonic() + 240  # the lock let go: every call is answered, every refusal read
        while len(answers) < total or len(refused) < total:
            message = said.get(timeout=max(deadline - time.monotonic(), 0.1))
            assert message is not None, p.stderr.read().decode()
            if "error" in message:
                refused.append(message)
            elif "result" in message:
                answers[message["id"]] = message
    finally:
        p.kill()
        p.wait()
    assert read_while_held <= MAX_REQUESTS + ROOM_REQUESTS + 1, read_while_held
    assert sorted(answers) == list(range(1, total + 1))
    assert sorted(r["id"] for r in refused) == list(range(1, total + 1))
    assert all(r["error"]["code"] == -32600 for r in refused)


def test_a_typed_error_naming_what_the_client_sent_fits_the_least_ceiling(tmp_path):
    """docs/tools.md, the ceiling: every agent reply is at most the ceiling, an error too. A
    message names what the client sent (a name, rev or path the schema admits up to 1,024 or
    4,096 characters), cut to 400 characters, but a character may take four bytes (an emoji) or
    six (a control, escaped twice): at `--ceiling 512` such errors were 580 to 1,730 bytes, and a
    tool name no tool has 1,305. Now the message (then the unknown name) is cut, with `…`, and
    the code is kept."""
    from corpora.gitbuild import RepoBuilder
    from tests.mcp_clients import run_stdio

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "def a():\n    return 1\n"})
    repo = str(builder.path)
    calls = [("context_symbol", {"repo": repo, "name": "\U0001f600" * 1024}, "not_found"),
             ("repo_index", {"repo": repo, "rev": "\x01" * 4096}, "unknown_rev"),
             ("repo_index", {"repo": repo, "rev": '"\\' * 2048}, "unknown_rev"),
             ("context_file", {"repo": repo + "/" + "\U0001f600" * 4000, "path": "a.py"}, "not_a_repository"),
             ("workspace_status", {"name": "\x1b" * 1024}, "bad_input"),
             ("\U0010ffff" * 100, {}, "unknown_command")]

    async def work(client):
        schemas = {t.name: checked_validator(t.output_schema) for t in (await client.list_tools()).tools}
        assert (await client.call_tool("repo_index", {"repo": repo})).is_error is False
        answers = []
        for name, args, code in calls:
            result = await client.call_tool(name, args)
            body = text_of(result)
            assert result.is_error is True and body["error"]["code"] == code, body
            assert len(result.content[0].text.encode()) <= 512, (code, len(result.content[0].text.encode()))
            if name in schemas:
                schemas[name].validate(body)
            answers.append(body)
        return answers

    answers = run_stdio(str(tmp_path / "store"), work, "--ceiling", "512", root=str(tmp_path))
    assert [a["error"]["message"].endswith("…") for a in answers] == [True] * len(calls), answers


# characters JSON spells in more bytes than one: a quote, a backslash, a control, beyond ASCII
_COSTLY = st.sampled_from(["a", '"', "\\", "\x01", "\u202e", "é", "\U0001f600"])


def _costly(most: int) -> st.SearchStrategy[str]:
    """Up to `most` characters, a few of `_COSTLY` repeated: long texts drawn as often as short."""
    return st.tuples(st.text(_COSTLY, min_size=1, max_size=4), st.integers(0, most)).map(lambda t: (t[0] * t[1])[:t[1]])


@settings(max_examples=examples(60), deadline=None)
@given(message=st.one_of(st.text(max_size=600), _costly(600)), command=st.one_of(st.text(max_size=200), _costly(200)),
       ceiling=st.integers(512, 4096), extra=st.booleans())
def test_an_error_envelope_is_cut_to_its_ceiling_keeping_its_code(message, command, ceiling, extra):
    """`dispatch.error_within`: whatever the message and the command name hold, the envelope
    encodes within the ceiling; what was cut ends in `…` and is a beginning of what it was, and
    an envelope that fit is left whole."""
    from context_tools.faces.dispatch import error_within
    from indexer.contract.encode import encode_json
    from indexer.contract.result import error_envelope

    more = {"reason": "surface_not_supported", "available_on": ["cli", "python"]} if extra else {}
    envelope = error_envelope(command, "not_found", message, **more)
    fits = len(encode_json(envelope)) <= ceiling
    cut = error_within(error_envelope(command, "not_found", message, **more), ceiling)
    assert len(encode_json(cut)) <= ceiling
    assert cut["error"]["code"] == "not_found" and {k: v for k, v in cut["error"].items() if k != "message"} == \
        {"code": "not_found", **more}
    if fits:
        assert cut == envelope
    for was, now in ((message, cut["error"]["message"]), (command, cut["command"])):
        assert now == was or (now.endswith("…") and was.startswith(now[:-1]))


def test_a_call_too_long_to_frame_is_answered_its_error_not_left_waiting(scratch_server: Scratch):
    """docs/security.md, stdio framing: `context_map`'s schema admits 1,024 focus names of 1,024
    characters, which JSON spells in up to six bytes each, past the 4 MiB a message may hold. The
    server answered such a line -32600 with no id, so the SDK's client waited for its call's
    answer for good; it now reads the id the line opens with, and the call raises the error."""
    import anyio
    from mcp.shared.exceptions import MCPError

    async def work(client):
        with anyio.fail_after(120):  # far past a refusal's time: the old server never answered
            try:
                await client.call_tool("context_map", {"repo": str(scratch_server.root), "focus": ["\x01" * 1024] * 1024})
            except MCPError as exc:
                return exc.error
        raise AssertionError("a call of over 4 MiB was answered as a call")

    error = scratch_server.run(work)
    assert error.code == -32600 and "message over 4194304 bytes" in error.message, error


_IDS = st.one_of(st.integers(-2**63, 2**63), st.text(max_size=40))
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=60))


@settings(max_examples=examples(100), deadline=None)
@given(rid=_IDS, before=st.dictionaries(st.sampled_from(["jsonrpc", "method", "x", "\u00e9"]), _SCALARS, max_size=3),
       params_first=st.booleans(), blanks=st.sampled_from(["", " ", "\n\t ", "\r\n"]), cut=st.integers(0, 40))
def test_the_id_of_a_message_too_long_to_parse_is_read_from_its_head(rid, before, params_first, blanks, cut):
    """`mcp_stdio.head_id`: the id among the members before the params (whatever scalars they
    hold, whatever blanks JSON allows between tokens), however far past them the line was cut;
    an id only after the params is not guessed (None), nor one the cut reached."""
    import json

    from context_tools.faces.mcp_stdio import head_id

    members = {k: v for k, v in before.items() if k != "id"}
    params = {"params": {"focus": ["\x01" * 50] * 50}}
    doc = {**params, **members, "id": rid} if params_first else {**members, "id": rid, **params}
    text = json.dumps(doc, separators=("," + blanks, ":" + blanks))
    whole = (blanks + text).encode()
    head = whole[: len(whole) - 100 - cut]  # cut inside the params' list, as a line read to the bound is
    assert head_id(head) == (None if params_first else rid)
    assert head_id(whole[: whole.index(b'"id"')]) is None  # cut before the id: none read


def test_a_tool_that_removes_what_earlier_calls_wrote_says_it_is_destructive(scratch_server: Scratch):
    """docs/security.md, writes: MCP's destructiveHint false promises only additive updates, and a
    client may run such a tool without asking. `delta_packet` writes its range's packet.json over
    and removes all but the newest 64 range folders under the store home, `rennet delta`'s too;
    `dossier_build` removes the dossiers of a change's older patchsets. Both said false. The
    sweep is seen here removing a folder the user's own `rennet delta` could have written."""
    import os
    import shutil

    from corpora.gitbuild import RepoBuilder
    from delta.folders import KEEP

    builder = RepoBuilder(scratch_server.place("destructive") / "repo")
    base = builder.commit({"a.py": "def a():\n    return 1\n"})
    builder.commit({"a.py": "def a():\n    return 2\n"})
    packets = scratch_server.store / "delta"
    packets.mkdir(exist_ok=True)
    mine = [packets / f"{i:012x}..{'f' * 12}" for i in range(KEEP)]  # older than any packet of this run
    for folder in mine:
        folder.mkdir()
        (folder / "packet.json").write_text("{}")
        os.utime(folder / "packet.json", (1_000_000_000, 1_000_000_000))

    async def work(client):
        tools = {t.name: t.annotations for t in (await client.list_tools()).tools}
        built = await client.call_tool("delta_packet", {"repo": str(builder.path), "base": base, "head": "main"})
        return tools, built

    try:
        tools, built = scratch_server.run(work)
        assert built.is_error is False, text_of(built)
        assert not mine[0].exists()  # the oldest went: the call removed what it did not write
    finally:
        for folder in mine:
            shutil.rmtree(folder, ignore_errors=True)
    assert {name for name, hints in tools.items() if hints.destructive_hint} == {"delta_packet", "dossier_build"}
    for name, hints in tools.items():
        if hints.read_only_hint:  # a reader changes nothing: never destructive, and idempotent
            assert hints.destructive_hint is False and hints.idempotent_hint is True, name
        else:  # a writer claims no idempotence: dossier_build asks trackers whose answers change
            assert hints.idempotent_hint is not True, name
