"""One definition, every face: the same input gives the same result on the CLI verb (`--json`),
`rennet call`, the Python face and the MCP tool."""

from __future__ import annotations

import json
import subprocess

import pytest

import context_tools
from context_tools.faces.registry import registry, wire_name
from tests.mcp_clients import text_of
from tests.test_context_world import PY, ROOT, World, cli_env, world  # noqa: F401 - fixture


def face_inputs(w: World) -> dict[str, dict]:
    return {
        "context.overview": {"repo": w.repo, "rev": "main"},
        "context.map": {"repo": w.repo, "budget": 700, "focus": ["src/webapp/cli.py", "Router"]},
        "context.file": {"repo": w.repo, "path": "src/webapp/app.py", "limit": 5, "start_line": 2},
        "context.symbol": {"repo": w.repo, "name": "route", "limit": 2},
        "context.references": {"repo": w.repo, "name": "route", "text": True, "limit": 2},
        "context.novelty": {"repo": w.repo, "base": "v1", "head": "main", "section": "symbols", "limit": 3},
        "snapshot.dump": {"repo": w.repo, "rev": "v1"},
        "repo.index": {"repo": w.repo, "rev": "main"},
        "delta.build": {"repo": w.repo, "base": "v1", "head": "main"},
        "delta.packet": {"repo": w.repo, "base": "v1", "head": "main"},
        "repo.snapshots": {"repo": w.repo},
        "workspace.list": {},
        "bundle.export": {"repo": w.repo, "rev": "main", "out": f"{w.store}/faces.rnb"},
    }


# Fields that measure the call itself, not its answer: stripped before faces are compared.
VOLATILE = {"repo.index": ("seconds",), "bundle.export": ("digest",)}  # the digest covers created_at
# Rows whose freshness is stamped when the answer was built, not when a snapshot was indexed: a
# packet's (tests/test_delta_packet.py checks the stamp lies within its call)
BUILT_AT = {"delta.build", "delta.packet"}

# Rows whose answers differ between two calls by design, so they are not compared here; each
# is compared across faces or checked in its own tests.
NOT_COMPARED = {
    "ledger.read": "every call appends a receipt, so the next face reads a longer ledger",
    "dossier.build": "fetches trackers and stamps fetched_at/built_at; tests/test_dossier_persist.py",
    "batch.run": "indexes into the store; a second face finds every job skipped_existing",
    "bundle.import": "the first import writes, the next finds the snapshot present",
    "workspace.create": "creates state; a second create is a typed error",
    "workspace.add": "re-pins a member; tests/test_workspace.py",
    "workspace.remove": "removes state; a second remove is not_found",
    "workspace.sync": "re-pins moved members; tests/test_context_workspace.py",
    "workspace.status": "needs a workspace; tests/test_workspace.py",
    "store.info": "counts the ledger's receipts, one more after each call; tests/test_store_gc.py",
    "store.list": "each snapshot's age grows between calls; tests/test_store_gc.py",
    "store.gc": "drops what nothing holds from the shared store; tests/test_store_gc.py",
    "store.unpin": "lets go of a pin, so a second face finds it gone: not_found; tests/test_store_unpin.py",
}


def test_every_runnable_command_is_compared_or_says_why_not(world: World):
    runnable = {r.id for r in registry().rows if r.runnable}
    compared = set(face_inputs(world))
    assert compared & set(NOT_COMPARED) == set()
    assert runnable == compared | set(NOT_COMPARED)


def argv_for(command_id: str, input: dict) -> list[str]:
    """The CLI verb spelling of an input, from the row's CLI shape."""
    row = registry().get(command_id)
    argv = list(row.cli_path)
    argv += [str(input[name]) for name in row.cli.positional if name in input]
    for key, value in input.items():
        if key in row.cli.positional:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + key.replace("_", "-"))
        elif isinstance(value, list):
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, str(value)]
    return argv


def run_cli(store: str, *args: str) -> dict:
    p = subprocess.run([PY, "-m", "context_tools.faces.cli", *args], cwd=ROOT, env=cli_env(store),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def mcp_replies(world: World, stdio_server) -> dict[str, dict]:
    """Each agent tool's answer from the test process's plain server of the world's store
    (tests/conftest.py): the server any other module's tests send their calls to as well."""
    agent = {r.id for r in registry().agent_tools()}

    async def work(client):
        return {name: text_of(await client.call_tool(wire_name(name), args))
                for name, args in face_inputs(world).items() if name in agent}

    return stdio_server(work)


def test_every_agent_tool_has_a_face_input_or_says_why_not(world: World):
    assert {r.id for r in registry().agent_tools()} <= set(face_inputs(world)) | set(NOT_COMPARED)


@pytest.mark.parametrize("command_id", sorted(face_inputs(World("", "", "", "", "", ""))))
def test_faces_give_identical_results(command_id: str, world: World, mcp_replies: dict):
    row = registry().get(command_id)
    input = face_inputs(world)[command_id]
    results: dict[str, dict] = {}
    if "python" in row.surfaces:
        results["python"] = context_tools.Client(store=world.store).envelope(command_id, **input)
    if "cli" in row.surfaces:
        results["call"] = run_cli(world.store, "call", command_id, json.dumps(input))
        if row.exposure.cli:
            results["verb"] = run_cli(world.store, *argv_for(command_id, input), "--json")
    if row.exposure.agent:
        results["mcp"] = mcp_replies[command_id]
    assert len(results) >= 3, f"{command_id} reaches fewer than three faces: {sorted(results)}"
    for envelope in results.values():
        for field in VOLATILE.get(command_id, ()):
            envelope["data"].pop(field, None)
        if command_id in BUILT_AT:
            envelope["freshness"].pop("indexed_at")
    first_face, first = next(iter(results.items()))
    assert first["ok"] is True, first
    for face, envelope in results.items():
        assert envelope == first, f"{command_id}: {face} differs from {first_face}"


def test_module_level_call_returns_the_typed_result(world: World, monkeypatch):
    from context_tools.query.symbols.answers import SymbolAnswer
    from indexer.contract.result import Result

    monkeypatch.setenv("RENNET_HOME", world.store)
    result = context_tools.call("context.symbol", repo=world.repo, name="Flask")
    assert isinstance(result, Result) and isinstance(result.data, SymbolAnswer)
    assert result.data.definitions[0].path == "src/webapp/app.py"
    assert result.freshness.pinned_oid == world.head


def test_a_failure_raises_the_rennet_error_the_package_exports(world: World, tmp_path):
    """The README's promise, caught as a caller writes it: `except context_tools.RennetError`
    (was: the name was not in the package, so the caller had to find indexer.contract.errors)."""
    client = context_tools.Client(store=world.store)
    with pytest.raises(context_tools.RennetError) as caught:
        client.call("context.symbol", repo=str(tmp_path), name="Flask")
    assert caught.value.code == "not_a_repository"
    assert "RennetError" in context_tools.__all__
