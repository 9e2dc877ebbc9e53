"""The universal ceiling: every agent-exposed command, run against a large fixture, replies within
the ceiling, and a reply over it is spilled whole to a file under the store home."""

from __future__ import annotations

import json
import os
import time

import msgspec
import pytest

from context_tools.faces.dispatch import Executor
from context_tools.faces.registry import registry
from context_tools.faces.spill import (
    DEFAULT_CEILING,
    KEEP_NEWEST,
    MAX_AGE_SECONDS,
    next_cursors,
    spill,
    spill_dir,
    sweep,
)
from tests.test_context_world import Big, World, big, world  # noqa: F401 - fixture


def large_inputs(b: Big) -> dict[str, list[dict]]:
    """Inputs that make each tool answer as much as its caps allow."""
    return {
        "context.overview": [{"repo": b.repo, "rev": b.head},
                             {"repo": b.repo, "rev": b.head, "section": "dependencies", "limit": 200}],
        "context.map": [{"repo": b.repo, "rev": b.head, "budget": 65536}],
        "context.file": [{"repo": b.repo, "rev": b.head, "path": "src/bigpkg/long_module.py"},
                         {"repo": b.repo, "rev": b.head, "path": "src/bigpkg/mod_001.py"}],
        "context.symbol": [{"repo": b.repo, "rev": b.head, "name": "handler_1"}],
        "context.references": [{"repo": b.repo, "rev": b.head, "name": "handle", "text": True}],
        "context.novelty": [{"repo": b.repo, "base": b.base, "head": b.head},
                            {"repo": b.repo, "base": b.head, "head": b.base},  # what the range removes
                            {"repo": b.repo, "base": b.base, "head": b.head, "section": "symbols", "limit": 200}],
        "repo.index": [{"repo": b.repo, "rev": b.head}],
        "repo.snapshots": [{"repo": b.repo}],
        "delta.packet": [{"repo": b.repo, "base": b.base, "head": b.head}],
        "dossier.build": [{"repo": b.repo, "base": b.base, "head": b.head}],
        "workspace.status": [{"name": "ceiling"}],
    }


def ceiling_workspace(b: Big) -> None:
    """The workspace `workspace.status` reads: the big repository as its one member."""
    python = Executor("python", store=b.store)
    python.run("workspace.create", {"name": "ceiling"})  # already there on a second run: a typed error, ignored
    assert python.run("workspace.add", {"name": "ceiling", "repo": b.repo, "rev": b.head}).ok


def test_every_exposed_command_is_measured(big: Big):
    assert {r.id for r in registry().agent_tools()} <= set(large_inputs(big))


@pytest.mark.parametrize("ceiling", [DEFAULT_CEILING, 1024])
def test_every_exposed_command_replies_within_the_ceiling(big: Big, ceiling: int, tmp_path):
    ceiling_workspace(big)
    agent = Executor("mcp", store=big.store, ceiling=ceiling)
    full = Executor("python", store=big.store)  # no ceiling: the complete result to compare with
    spilled = over = paged_on = fitted = 0
    for row in registry().agent_tools():
        for args in large_inputs(big)[row.id]:
            reply = agent.run(row.id, args)
            over += len(msgspec.json.encode(reply.envelope)) > ceiling  # the complete result, spilled or not
            assert reply.ok, reply.envelope
            wire = msgspec.json.encode(reply.wire)
            assert len(wire) <= ceiling, f"{row.id} {args}: {len(wire)} bytes"
            if row.authority == "write":  # a second run answers of itself (timings, reuse): not compared
                spilled += bool(reply.spill_path)
                continue
            complete = full.run(row.id, args).envelope
            if row.id == "context.file" or reply.envelope["page"] != complete["page"]:
                fitted += reply.envelope["page"] != complete["page"]
                complete = shorter_page(full, row.id, args, reply.envelope)
            if reply.spill_path:
                spilled += 1
                assert {"head", "note", "path", "bytes"} <= set(reply.wire) <= {"head", "note", "path", "bytes",
                                                                               "cursors"}
                on_disk = open(reply.spill_path, "rb").read()
                if ceiling == DEFAULT_CEILING:  # room for them at 8 kB: the result's cursors, each where it is
                    expected = next_cursors(on_disk)
                    assert reply.wire.get("cursors", {}) == expected
                    paged_on += bool(expected)
                    for place, cursor in expected.items():
                        holder = complete
                        for key in place.split("."):
                            holder = holder[key]
                        assert holder["cursor"] == cursor
                assert json.loads(on_disk) == complete  # the complete, untruncated result
                assert reply.wire["bytes"] == len(on_disk)
                # the file is the result indented; the head, the start of it as one line
                assert msgspec.json.encode(msgspec.json.decode(on_disk)).decode().startswith(reply.wire["head"])
                assert on_disk == msgspec.json.format(on_disk, indent=1)
                assert os.path.dirname(reply.spill_path) == str(spill_dir(agent.handle.home))
            else:
                assert reply.wire == complete
    # the large fixture must actually exercise the spill path (at 1 kB every context answer spills)
    # and the shortened pages (file lines, reference sites, the map's budget)
    assert spilled == over and spilled >= (9 if ceiling == 1024 else 2)
    if ceiling == DEFAULT_CEILING:  # at 1 kB one item and the freshness alone pass it
        assert fitted >= 6
    if ceiling == DEFAULT_CEILING:  # pages spilled with their cursors, which the envelope names
        assert paged_on >= 2


def shorter_page(full: Executor, command: str, args: dict, envelope: dict) -> dict:
    """What the face without a ceiling answers for `args` with the `limit` the reply's page
    returned (a page over the ceiling is read again with fewer items), or for the Repo Map the
    `budget` its page was fitted to; a file's outline as the reply kept it (under a ceiling it
    keeps what fits in half of it), which must be the complete outline's first items with the
    cursor to the rest."""
    fitted = {"budget": envelope["data"]["budget"]} if command == "context.map" else {
        "limit": envelope["page"]["returned"]}
    expected = full.run(command, {**args, **fitted}).envelope
    if command == "context.map" and envelope["page"]["cursor"]:
        # the fitted map's cursor is bound to the query as asked: it pages on with the budget asked
        on = full.run(command, {**args, "cursor": envelope["page"]["cursor"]}).envelope
        after = full.run(command, {**args, "cursor": expected["page"]["cursor"], **fitted}).envelope
        assert on["ok"] and on["data"]["files"][0] == after["data"]["files"][0], on
        expected["page"]["cursor"] = envelope["page"]["cursor"]
    if command == "context.file" and "items" in expected["data"]["outline"]:
        outline, kept = expected["data"]["outline"], envelope["data"]["outline"]
        assert 1 <= kept["returned"] <= outline["returned"] and kept["items"] == outline["items"][:kept["returned"]]
        if kept["returned"] < outline["returned"]:
            rest = full.run(command, {**args, "section": "outline", "cursor": kept["cursor"]}).envelope
            assert rest["data"]["items"][0] == outline["items"][kept["returned"]]
        else:
            assert kept == outline
        expected["data"]["outline"] = kept
    return expected


def test_ceiling_is_configurable_by_environment(monkeypatch):
    from context_tools.faces.spill import configured_ceiling

    monkeypatch.setenv("RENNET_CEILING", "20000")
    assert configured_ceiling() == 20000
    assert configured_ceiling(4096) == 4096
    assert configured_ceiling("16k") == 16384  # a size, like every other byte figure we take
    monkeypatch.setenv("RENNET_CEILING", "1M")
    assert configured_ceiling() == 1 << 20
    monkeypatch.delenv("RENNET_CEILING")
    assert configured_ceiling() == DEFAULT_CEILING
    # a ceiling that is none is refused, not replaced by the default behind the caller's back
    from indexer.contract.errors import BadInput

    for bad in ("nonsense", "100", "-5", "8x", "8 k", "2G", "8kB"):
        monkeypatch.setenv("RENNET_CEILING", bad)
        with pytest.raises(BadInput, match=r"\$RENNET_CEILING"):
            configured_ceiling()
    with pytest.raises(BadInput, match="--ceiling"):
        configured_ceiling(100)


def test_spill_envelope_fits_even_when_escaping_grows_the_head(tmp_path):
    payload = {"ok": True, "data": ["\"quoted\" \\ \u2028 \x01 é" * 50] * 40}
    wire = msgspec.json.encode(payload)
    for ceiling in (512, 1000, 8192):
        reply = spill(wire, command="demo.echo", home=tmp_path, ceiling=ceiling)
        assert len(msgspec.json.encode(reply)) <= ceiling
        assert open(reply["path"], "rb").read() == msgspec.json.format(wire, indent=1)


def test_sweep_removes_old_files_and_keeps_the_newest(tmp_path):
    folder = tmp_path / "spill"
    folder.mkdir()
    now = time.time()
    old = folder / "old.json"
    old.write_text("{}")
    os.utime(old, (now - MAX_AGE_SECONDS - 60, now - MAX_AGE_SECONDS - 60))
    for i in range(KEEP_NEWEST + 5):
        p = folder / f"f{i:04d}.json"
        p.write_text("{}")
        os.utime(p, (now - 1000 + i, now - 1000 + i))
    sweep(folder, now=now)
    left = sorted(p.name for p in folder.iterdir())
    assert "old.json" not in left
    assert len(left) == KEEP_NEWEST
    assert left[0] == "f0005.json"  # the five oldest went


def test_a_spill_file_an_agent_was_handed_outlives_the_count_rule(tmp_path):
    from context_tools.faces.spill import MIN_AGE_SECONDS

    folder = tmp_path / "spill"
    folder.mkdir()
    now = time.time()
    for i in range(KEEP_NEWEST + 5):  # all written within the last minute
        p = folder / f"f{i:04d}.json"
        p.write_text("{}")
        os.utime(p, (now - 60 + i / 100, now - 60 + i / 100))
    sweep(folder, now=now)
    assert len(list(folder.iterdir())) == KEEP_NEWEST + 5  # none is yet 15 minutes old
    sweep(folder, now=now + MIN_AGE_SECONDS)
    assert len(list(folder.iterdir())) == KEEP_NEWEST  # past its minimum age, the count rule applies


def test_the_cursors_of_a_spilled_reply_are_found_wherever_an_object_holds_them():
    """spill.py: `cursors` names each next-page cursor by the dotted place of the object holding
    it (`page`, `data.meta.imports`); a list's items are not searched."""
    wire = json.dumps({"ok": True, "data": {"meta": {"imports": {"cursor": "B"}, "outline": {"cursor": None}},
                                            "items": [{"cursor": "X"}]},
                       "page": {"cursor": "A"}}).encode()
    assert next_cursors(wire) == {"data.meta.imports": "B", "page": "A"}


def test_a_reply_of_exactly_the_ceiling_is_inline_and_one_byte_more_is_spilled(big: Big):
    args = {"repo": big.repo, "rev": big.head}  # the overview: sections, and no page to shorten
    size = len(msgspec.json.encode(Executor("python", store=big.store).run("context.overview", args).envelope))
    assert size > 512
    exact = Executor("mcp", store=big.store, ceiling=size).run("context.overview", args)
    assert exact.wire == exact.envelope and not exact.spill_path
    over = Executor("mcp", store=big.store, ceiling=size - 1).run("context.overview", args)
    assert over.spill_path and len(msgspec.json.encode(over.wire)) <= size - 1


def test_a_page_one_byte_over_the_ceiling_is_read_again_shorter_and_pages_on(big: Big):
    """dispatch.py: a read's page over the ceiling is asked again with a smaller `limit`: the
    reply is inline, its page the one that `limit` gives, and its cursor pages on to the end."""
    args = {"repo": big.repo, "rev": big.head, "name": "handler_1"}
    full = Executor("python", store=big.store)
    whole = full.run("context.symbol", args).envelope
    size = len(msgspec.json.encode(whole))
    assert whole["page"]["returned"] > 2 and size > 512
    agent = Executor("mcp", store=big.store, ceiling=size - 1)
    over = agent.run("context.symbol", args)
    shown = over.envelope["page"]["returned"]
    assert not over.spill_path and over.wire == over.envelope and len(msgspec.json.encode(over.wire)) <= size - 1
    assert shown == whole["page"]["returned"] - 1  # the one item that passed it left for the next page
    assert over.envelope == full.run("context.symbol", {**args, "limit": shown}).envelope
    assert all_definitions(agent, args) == all_definitions(full, args)


def all_definitions(executor: Executor, args: dict) -> list:
    """Every definition the pages of `args` hold, followed from the first page to the last, none spilled."""
    found, cursor = [], None
    while True:
        reply = executor.run("context.symbol", {**args, "cursor": cursor} if cursor else args)
        assert reply.ok and not reply.spill_path
        found += reply.envelope["data"]["definitions"]
        cursor = reply.envelope["page"]["cursor"]
        if not cursor:
            return found


def test_a_page_of_exactly_the_ceiling_is_kept_and_a_shorter_one_of_exactly_it_is_taken(big: Big):
    """dispatch.py: only a page that passes the ceiling is read again, and the first shorter
    page within it (one of exactly the ceiling too) is the reply."""
    args = {"repo": big.repo, "rev": big.head, "name": "handler_1"}
    full = Executor("python", store=big.store)
    whole = full.run("context.symbol", args).envelope
    count = whole["page"]["returned"]
    assert count > 2
    exact = Executor("mcp", store=big.store, ceiling=len(msgspec.json.encode(whole))).run("context.symbol", args)
    assert exact.envelope == whole and exact.wire == whole and not exact.spill_path
    one_less = full.run("context.symbol", {**args, "limit": count - 1}).envelope
    shorter = Executor("mcp", store=big.store, ceiling=len(msgspec.json.encode(one_less))).run("context.symbol", args)
    assert shorter.wire == one_less and not shorter.spill_path


@pytest.mark.parametrize("seen, ceiling, expected", [
    ([(10, 2000)], 1000, 5),  # in proportion
    ([(2, 5000)], 1000, 1),  # never none
    ([(10, 2000), (6, 1400)], 1000, 3),  # along the line: 150 bytes an item, 400 over
    ([(10, 2000), (5, 2000)], 1000, 2),  # a line that does not fall: in proportion again
])
def test_fewer_asks_in_proportion_then_along_the_line_of_the_last_two(seen, ceiling, expected):
    from context_tools.faces.dispatch import _fewer

    assert _fewer(seen, ceiling) == expected


@pytest.mark.parametrize("room, expected", [(0, 1), (6, 1), (7, 1), (14, 1), (15, 2), (19, 2), (20, 3)])
def test_the_outline_keeps_the_items_that_fit_in_its_room_and_at_least_one(room, expected):
    """sections.py `fitting`: each item counts its JSON and a comma (7, 8 and 5 bytes here)."""
    from context_tools.query.sections import fitting

    assert fitting(["abcd", "abcde", "ab"], room) == expected


def test_under_a_large_ceiling_the_outline_keeps_its_cap(big: Big):
    """The outline is fitted to half the ceiling, but never past its cap of 200."""
    args = {"repo": big.repo, "rev": big.head, "path": "src/bigpkg/long_module.py", "content": False}
    wide = Executor("mcp", store=big.store, ceiling=64 * 1024 * 1024).run("context.file", args).envelope["data"]
    assert (wide["outline"]["total"], wide["outline"]["returned"]) == (1500, 200)


def test_under_a_small_ceiling_the_outline_keeps_one_item_and_the_importers_all(world: World):
    """At a ceiling of 100 bytes the outline's room (50) holds less than its first item: it
    keeps that one; the importers (about 90 bytes) are capped, never fitted."""
    args = {"repo": world.repo, "path": "src/webapp/app.py", "content": False}
    whole = Executor("python", store=world.store).run("context.file", args).envelope["data"]
    small = Executor("mcp", store=world.store, ceiling=100).run("context.file", args).envelope["data"]
    assert whole["outline"]["returned"] > 1 and small["outline"]["returned"] == 1
    assert small["outline"]["items"] == whole["outline"]["items"][:1] and small["outline"]["cursor"]
    assert whole["meta"]["importers"]["returned"] == 4 and small["meta"]["importers"] == whole["meta"]["importers"]
