"""The shipped JSON Schemas: made from the types by the same code as the MCP output schema,
committed up to date, and every command's `--json` reply validates against its own."""

from __future__ import annotations

import json
import shlex
from typing import Annotated

import jsonschema
import msgspec
import pytest

from context_tools.faces import schemas
from context_tools.faces.cli import ordered_verbs
from context_tools.faces.registry import registry
from context_tools.faces.schemas import shipping
from tests.test_cli_examples import in_example_repository


def test_shipped_schemas_are_current():
    assert shipping.stale() == [], "run: python -m context_tools.faces.schemas"


def test_every_runnable_command_declares_its_data_and_ships_the_mcp_schema():
    for row in registry().rows:
        if not row.runnable:
            continue
        assert row.output, f"{row.id} declares no output type"
        shipped = schemas.shipped(schemas.file_name(row.id))
        assert {k: v for k, v in shipped.items() if k not in ("$schema", "title")} == row.output_schema(), row.id
        jsonschema.Draft202012Validator.check_schema(shipped)


def test_a_wrong_reply_is_refused():
    schema = schemas.shipped(schemas.file_name("context.symbol"))
    good = {"ok": True, "command": "context.symbol", "freshness": None, "page": None,
            "data": {"query": "x", "fuzzy": False, "note": "", "definitions": []}}
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(good)
    bad_rank = json.loads(json.dumps(good))
    bad_rank["data"]["definitions"] = "none"  # one type per field: a list, never a string
    assert not validator.is_valid(bad_rank)
    bad_unknown = {**good, "freshness": {"repo": ".", "rev": "HEAD", "pinned_oid": "a", "current_oid": None,
                                         "status": "current", "reason": "", "indexed_at": {"unknown": "lost"}}}
    assert not validator.is_valid(bad_unknown)


def _as_json(example: str) -> list[str]:
    argv = shlex.split(example)[1:]
    return argv if "--json" in argv else [*argv, "--json"]


def test_every_json_reply_validates_against_its_shipped_schema(tmp_path, monkeypatch, capsys):
    """Each verb's examples, run with --json on a fixture repository of two commits; `batch --json`
    is JSON Lines: its job lines against the job schema, its last line against the command's.
    They run through the CLI's `main` in this process, as tests/test_cli_examples.py runs each
    example as it is written."""
    with in_example_repository(tmp_path, monkeypatch):
        _check_every_reply(capsys)


def _check_every_reply(capsys: pytest.CaptureFixture[str]) -> None:
    from context_tools.faces.cli import main

    job = jsonschema.Draft202012Validator(schemas.shipped(schemas.BATCH_JOB))
    checked = set()
    for row in ordered_verbs(registry().cli_verbs()):
        validator = jsonschema.Draft202012Validator(schemas.shipped(schemas.file_name(row.id)))
        for example in row.examples:
            code = main(_as_json(example))
            out, err = capsys.readouterr()
            assert code == 0, (example, out[-2000:], err[-2000:])
            lines = out.splitlines()
            if row.id == "batch.run":
                *jobs, last = lines
                assert jobs, example
                for line in jobs:
                    job.validate(json.loads(line))
                reply = json.loads(last)
                assert "jobs" not in reply["data"], "the summary line holds the totals, not the jobs again"
                assert reply["data"]["total"] == len(jobs)
            else:
                reply = json.loads(out)
            assert reply["ok"] is True and reply["command"] == row.id, example
            validator.validate(reply)
            checked.add(row.id)
    # rows with no CLI verb (agent tools) run through `rennet call`
    calls = {"delta.packet": {"base": "HEAD~1", "head": "HEAD"}}
    for command_id, args in calls.items():
        code = main(["call", command_id, json.dumps(args)])
        out, err = capsys.readouterr()
        reply = json.loads(out)
        assert code == 0 and reply["ok"] is True, (command_id, out[-2000:], err[-2000:])
        jsonschema.validate(reply, schemas.shipped(schemas.file_name(command_id)),
                            cls=jsonschema.Draft202012Validator)
        checked.add(command_id)
    assert checked == {row.id for row in registry().rows if row.runnable}


class _TaggedA(msgspec.Struct, tag=True):
    a: int


class _TaggedB(msgspec.Struct, tag=True):
    b: int


class _PlainA(msgspec.Struct):
    a: int


class _PlainB(msgspec.Struct):
    b: str


class _Holder(msgspec.Struct):
    either: Annotated[_PlainA | _PlainB, msgspec.Meta(description="one or the other")]
    tagged: _TaggedA | _TaggedB
    maybe: _PlainA | None


def test_an_untagged_union_of_structs_lists_each_branch_and_any_other_is_msgspecs():
    """wire_schema's generator is msgspec's plus untagged unions of Structs (`Content |
    Unknown`), which msgspec refuses: those list every branch, keeping what annotates the union;
    a tagged union keeps msgspec's schema, its discriminator included, and so does a union of
    one Struct and null."""
    from context_tools.faces.wire_schema import reply_schema

    holder = reply_schema("x", (_Holder,))["$defs"]["_Holder"]["properties"]
    assert holder["either"] == {"description": "one or the other",
                                "anyOf": [{"$ref": "#/$defs/_PlainA"}, {"$ref": "#/$defs/_PlainB"}]}
    (tagged, maybe), _ = msgspec.json.schema_components((_TaggedA | _TaggedB, _PlainA | None))
    assert holder["tagged"] == tagged and "discriminator" in tagged
    assert holder["maybe"] == maybe
