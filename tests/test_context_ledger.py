"""Receipts: every call on every face appends one to a bounded, append-only ledger in the store."""

from __future__ import annotations

import subprocess

import pytest

from context_tools.faces import ledger
from context_tools.faces.context import StoreHandle
from context_tools.faces.dispatch import Executor
from tests.test_context_world import PY, ROOT, World, cli_env, world  # noqa: F401 - fixture


def receipts(home: str) -> list[ledger.Receipt]:
    return list(ledger.receipts(StoreHandle(home).store))


def test_every_call_leaves_a_receipt_with_its_snapshot_and_outcome(world: World, tmp_path):
    home = str(tmp_path / "home")
    ex = Executor("mcp", store=home, ceiling=700)
    ex.run("context.file", {"repo": world.repo, "path": "src/webapp/app.py"})  # spills
    ex.run("context.symbol", {"repo": world.repo, "name": "Flask", "limit": 1})
    ex.run("context.symbol", {"repo": world.repo, "name": "X", "nope": 1})
    got = receipts(home)
    assert [(r.command, r.surface, r.outcome) for r in got] == [
        ("context.file", "mcp", "ok"), ("context.symbol", "mcp", "ok"), ("context.symbol", "mcp", "bad_input")]
    spilled, symbol, bad = got
    assert spilled.spill and spilled.spill.startswith(home) and spilled.total == 13
    assert (symbol.repo, symbol.oid, symbol.returned, symbol.truncated) == (world.repo, world.head, 1, False)
    assert symbol.fingerprint and len(symbol.input_digest) == 64
    assert "unknown field" in bad.message and bad.oid == ""


def test_a_receipt_keeps_the_sanitized_message_never_a_secret_or_an_escape(tmp_path):
    """The ledger stores what the caller was told: a token a caller sent (here as a field's name)
    is redacted and a control character escaped before the receipt is written (docs/security.md)."""
    home = str(tmp_path / "home")
    token = "ghp_" + "A1b2C3d4" * 4
    reply = Executor("mcp", store=home).run("context.symbol", {"name": "X", token + "\x1b[2J": 1})
    assert reply.envelope["error"]["code"] == "bad_input"
    (bad,) = receipts(home)
    assert bad.outcome == "bad_input" and token not in bad.message and "\x1b" not in bad.message
    assert bad.message == reply.envelope["error"]["message"]


def test_the_ledger_reply_has_typed_unknowns_not_blanks(world: World, tmp_path):
    home = str(tmp_path / "home")
    ex = Executor("cli", store=home)
    ex.run("context.symbol", {"repo": world.repo, "name": "Flask", "limit": 1})
    ex.run("context.symbol", {"repo": world.repo, "name": "X", "nope": 1})
    bad, good = ex.run("ledger.read", {"command": "context.symbol"}).envelope["data"]["receipts"]

    def blanks(value: object) -> list[object]:
        if isinstance(value, dict):
            return [b for v in value.values() for b in blanks(v)]
        return [value] if value in ("", None) else []

    assert blanks(bad) == [] and blanks(good) == [], (bad, good)
    assert bad["snapshot"]["unknown"] == "not_applicable" and bad["page"]["unknown"] == "not_applicable"
    assert "unknown field" in bad["message"] and "spill" not in bad
    assert good["snapshot"]["repo"] == world.repo and good["snapshot"]["oid"] == world.head
    assert good["page"] == {"total": good["page"]["total"], "returned": 1, "truncated": good["page"]["total"] > 1}
    assert "message" not in good


def test_python_face_batches_and_flushes_before_reading(world: World, tmp_path):
    home = str(tmp_path / "home")
    ex = Executor("python", store=home)
    for _ in range(3):
        ex.run("context.symbol", {"repo": world.repo, "name": "Flask"})
    page = ex.run("ledger.read", {"command": "context.symbol"})
    assert page.ok and len(page.result.data.receipts) == 3  # flushed before the read


def test_ledger_read_pages_newest_first(world: World, tmp_path):
    home = str(tmp_path / "home")
    ex = Executor("cli", store=home)
    for name in ("Flask", "Router", "route"):
        ex.run("context.symbol", {"repo": world.repo, "name": name})
    first = ex.run("ledger.read", {"limit": 2, "command": "context.symbol"})
    assert [r.input_digest for r in first.result.data.receipts] == [r.input_digest for r in receipts(home)[:3][::-1][:2]]
    assert first.result.page.truncated and first.result.page.total == 3
    rest = ex.run("ledger.read", {"limit": 2, "command": "context.symbol", "cursor": first.result.page.cursor})
    assert len(rest.result.data.receipts) == 1
    # a cursor from another ledger state is refused rather than silently skipping receipts
    ex.run("context.symbol", {"repo": world.repo, "name": "index"})
    stale = ex.run("ledger.read", {"limit": 2, "command": "context.symbol", "cursor": first.result.page.cursor})
    assert stale.envelope["error"]["code"] == "bad_cursor"


def test_ledger_is_bounded_by_dropping_the_oldest(tmp_path):
    store = StoreHandle(str(tmp_path / "home")).store
    for i in range(12):
        ledger.append(store, ledger.Receipt(at=f"t{i}", command="demo.x", surface="python",
                                            input_digest=str(i), outcome="ok"))
    ledger.trim(store, keep=5)
    kept = [r.input_digest for r in ledger.receipts(store)]
    assert kept == ["7", "8", "9", "10", "11"]


def test_concurrent_processes_never_overwrite_receipts(world: World, tmp_path):
    home = str(tmp_path / "home")
    script = ("from context_tools.faces.dispatch import Executor\n"
              f"ex = Executor('cli', store={home!r})\n"
              f"[ex.run('context.symbol', {{'repo': {world.repo!r}, 'name': 'Flask'}}) for _ in range(15)]\n")
    Executor("cli", store=home).run("context.symbol", {"repo": world.repo, "name": "Flask"})  # index once first
    procs = [subprocess.Popen([PY, "-c", script], cwd=ROOT, env=cli_env()) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert len(receipts(home)) == 1 + 45


@pytest.mark.parametrize("surface", ["cli", "mcp", "python"])
def test_receipt_names_the_surface(surface, world: World, tmp_path):
    home = str(tmp_path / surface)
    ex = Executor(surface, store=home)
    ex.run("context.symbol", {"repo": world.repo, "name": "Flask"})
    ex.ledger.flush()
    assert [r.surface for r in receipts(home)] == [surface]


def test_a_ledger_filter_naming_no_command_is_bad_input_not_no_receipts(world: World, tmp_path):
    """`rennet ledger --command delta` (the verb, not the id `delta.build`) or a typo read as
    `no receipts`, as if the command had never run (was). It is `bad_input` naming the id; an id
    of the registry that has no receipt yet, or one a receipt holds though no row has it (a
    `rennet call` of a command that does not exist), still filters."""
    ex = Executor("cli", store=str(tmp_path / "home"))
    ex.run("context.symbol", {"repo": world.repo, "name": "Flask"})
    ex.run("no.such", {})
    verb = ex.run("ledger.read", {"command": "store list"}).envelope["error"]
    assert verb == {"code": "bad_input",
                    "message": "no command has the id 'store list': the verb `rennet store list` is the command store.list"}
    assert ex.run("ledger.read", {"command": "context.symbl"}).envelope["error"]["code"] == "bad_input"
    assert ex.run("ledger.read", {"command": "delta.build"}).result.page.total == 0
    assert ex.run("ledger.read", {"command": "no.such"}).result.page.total == 1
    assert ex.run("ledger.read", {"command": "context.symbol"}).result.page.total == 1
    from context_tools.faces.packs.ledger import render_ledger

    page = ex.run("ledger.read", {"limit": 1}).result
    assert render_ledger(page).endswith(f"  next: the same command with --cursor {page.page.cursor}")
