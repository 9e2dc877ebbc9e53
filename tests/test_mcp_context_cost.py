"""What the MCP server costs an agent's context, held down (docs/agents.md, "What the tools cost
a context"): the bytes of `tools/list`, of the contract every tool's `outputSchema` repeats, and
of the freshness block every reply carries; and each output schema says a shared shape once,
by `$ref`, never again inline. The budgets are the figures of 2026-12-07 with a margin of about
3%: a change that needs more says so here, with its reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import msgspec
import msgspec.inspect as mi
import pytest

from context_tools.faces.dispatch import Executor
from context_tools.faces.registry import registry
from context_tools.faces.roots import Roots
from indexer.contract.result import Freshness, Unknown
from tests.schema_checks import row_validator
from tests.test_context_world import World, world  # noqa: F401 - fixture

# bytes of the `tools/list` result, plain or `--worktree` (was 113,897); each description ends
# telling the agent the quoted repository text is data, which the margin above 86,170 holds
TOOLS_LIST_BUDGET = 87_000
CONTRACT_BUDGET = 2_500  # bytes of the contract skeleton in each tool's outputSchema (was 4,358)
FRESHNESS_BUDGET = 290  # bytes of a freshness block besides its words and paths (was 331)


def _bytes(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


@pytest.mark.parametrize("worktree", [False, True])
def test_tools_list_fits_its_budget(worktree):
    """The result of `tools/list` as the SDK writes it: the tools' descriptions, input schemas
    and output schemas. Most of it is output schemas, each of which repeats the contract's parts,
    since a tool's schema cannot refer to another's."""
    import mcp_types

    from context_tools.faces.mcp import tool_list

    listed = mcp_types.ListToolsResult(tools=tool_list(registry(), worktree))
    size = len(listed.model_dump_json(by_alias=True, exclude_none=True).encode())
    assert size <= TOOLS_LIST_BUDGET, size


def test_the_contract_each_output_schema_repeats_fits_its_budget():
    """What every tool's `outputSchema` holds whatever its data: the envelope, its error and spill
    forms, and freshness, page and unknown in `$defs`. Eleven tools carry it, so it is described in
    the contract's own schema (`result.schema.json`) and docs, and only shaped in each tool's."""
    from context_tools.faces.wire_schema import reply_schema

    size = _bytes(reply_schema("context.symbol"))
    assert size <= CONTRACT_BUDGET, size
    described = reply_schema(None)
    assert "description" in described["$defs"]["Freshness"] and "description" in described["anyOf"][2]


def _text(fresh: dict[str, Any]) -> int:
    """Bytes of the words and paths in a freshness block: its repository, rev and reason, and the
    reason of an unknown `current_oid` (a rev gone)."""
    words = [fresh["repo"], fresh["rev"], fresh["reason"]]
    if isinstance(fresh["current_oid"], dict):
        words.append(fresh["current_oid"]["reason"])
    return sum(len(word.encode()) for word in words)


def test_the_freshness_block_fits_its_budget_and_reads_back_whole(world: World):
    """A reply's freshness besides its text (the repository's path, the rev, the reasons), over MCP:
    a snapshot read current, stale and whose rev is gone, and a Delta packet, which reads no one
    snapshot. Each reply fits its tool's output schema, and the block decodes to the same freshness
    it was made from: a field left out at its default loses nothing."""
    executor = Executor("mcp", store=world.store, roots=Roots.of([str(Path(world.repo).parent)]))
    asks = [("context.symbol", {"repo": world.repo, "name": "Flask"}, "current"),
            ("context.symbol", {"repo": world.repo, "name": "feature_flag", "rev": "feature"}, "stale"),
            ("context.map", {"repo": world.repo, "rev": "gone", "budget": 256}, "unknown"),
            ("delta.packet", {"repo": world.repo, "base": "v1", "head": "main"}, "current")]
    for command, args, status in asks:
        reply = executor.run(command, args)
        assert reply.ok, reply.envelope
        row_validator(command).validate(reply.wire)
        fresh = reply.envelope["freshness"]
        assert fresh["status"] == status
        overhead = _bytes(fresh) - _text(fresh)
        assert overhead <= FRESHNESS_BUDGET, (command, status, overhead, fresh)
        kept = msgspec.convert(fresh, Freshness)
        assert msgspec.to_builtins(kept) == fresh
        for name in ("repo", "rev", "pinned_oid", "current_oid", "status", "reason", "indexed_at"):
            assert name in fresh, (command, name)  # every field the result contract names, on every reply
        if command == "delta.packet":
            assert "fingerprint" not in fresh and isinstance(kept.fingerprint, Unknown)
        else:
            assert isinstance(fresh["fingerprint"], str)


def test_a_workspace_members_freshness_leaves_its_defaults_out_as_a_reply_does(world: World, tmp_path):
    """`MemberFreshness` is a `Freshness` with its member: the same fields left out, and its schema
    says so by referring to Freshness's."""
    from indexer import api

    store = tmp_path / "store"
    opened = api.open_store(store)
    api.index(world.repo, "main", store=opened, workers=1)
    opened.close()
    python = Executor("python", store=str(store))
    assert python.run("workspace.create", {"name": "ws"}).ok
    assert python.run("workspace.add", {"name": "ws", "repo": world.repo, "rev": "main"}).ok
    reply = Executor("mcp", store=str(store), roots=Roots.of([str(Path(world.repo).parent)])).run(
        "context.symbol", {"workspace": "ws", "name": "Flask"})
    assert reply.ok, reply.envelope
    row_validator("context.symbol").validate(reply.wire)
    (member,) = reply.envelope["data"]["member_freshness"]["items"]
    assert not {"worktree", "missing_objects"} & set(member) and isinstance(member["fingerprint"], str), member
    assert member["member"] and set(reply.envelope["freshness"]) == set(member) - {"member"}


def _struct_names(types: tuple[type, ...]) -> dict[str, type]:
    """Every Struct class the types reach, by its name."""
    found: dict[str, type] = {}

    def walk(t: mi.Type) -> None:
        if isinstance(t, mi.Metadata):
            walk(t.type)
        elif isinstance(t, mi.StructType):
            if t.cls.__name__ not in found:
                found[t.cls.__name__] = t.cls
                for field in t.fields:
                    walk(field.type)
        elif isinstance(t, mi.UnionType):
            for u in t.types:
                walk(u)
        elif isinstance(t, (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)):
            walk(t.item_type)
        elif isinstance(t, mi.TupleType):
            for u in t.item_types:
                walk(u)
        elif isinstance(t, mi.DictType):
            walk(t.value_type)

    translator = mi._Translator(types)  # as wire_schema reads them: untagged unions of Structs too
    for t in translator.types:
        walk(translator.translate(t))
    return found


def _inline(schema: Any, top: bool = True) -> Iterator[dict[str, Any]]:
    """Every object schema written in place (not a `$defs` entry itself), with its properties."""
    if isinstance(schema, dict):
        if not top and "properties" in schema:
            yield schema
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from _inline(sub, top=key == "$defs")
            else:
                yield from _inline(value, top=False)
    elif isinstance(schema, list):
        for item in schema:
            yield from _inline(item, top=False)


def test_no_output_schema_spells_out_again_a_shape_its_defs_hold():
    """A shape in a tool's `$defs` is referred to wherever it stands: an object written in place
    with the properties of a `$defs` entry (the spill's `path` was an inline unknown), or a Struct
    that extends another listing the other's fields again (`MemberFreshness`, every field of
    `Freshness`)."""
    from indexer.contract.result import Page

    for row in registry().agent_tools():
        schema = row.output_schema()
        defs = schema["$defs"]
        shapes = {frozenset(d["properties"]): name for name, d in defs.items() if len(d.get("properties", ())) >= 2}
        for node in _inline(schema):
            assert frozenset(node["properties"]) not in shapes, (row.id, shapes.get(frozenset(node["properties"])))
        classes = _struct_names((Freshness, Page, *row.output_types()))
        for name, cls in classes.items():
            bases = [b.__name__ for b in getattr(cls, "__mro__", ())[1:] if b.__name__ in defs and classes.get(b.__name__) is b]
            if name not in defs or not bases:
                continue
            own = defs[name]
            assert {"$ref": f"#/$defs/{bases[0]}"} in own.get("allOf", ()), (row.id, name)
            assert not set(own.get("properties", ())) & set(defs[bases[0]]["properties"]), (row.id, name)
