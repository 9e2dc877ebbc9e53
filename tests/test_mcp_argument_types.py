"""Arguments whose JSON type a client lost on the way (`"5"` for 5, 1234567 for "1234567",
`"null"`, an array as its text) are read as the tool's schema declares them where the reading
is exact (context_tools/faces/argument_types.py); anything else is still `bad_input`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_tools.faces.argument_types import as_declared
from context_tools.faces.mcp import tool_list
from context_tools.faces.registry import registry
from tests.mcp_clients import python_prepared, text_of  # noqa: F401 - fixture

# what the server reads a call by: the listed schema, and null for an optional field
SCHEMAS = {tool.name: registry().by_wire_name(tool.name).agent_schema() for tool in tool_list(registry())}


def _repo(path: Path) -> Path:
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(path)
    builder.commit({"pkg/a.py": "".join(f"def f{i}():\n    return {i}\n" for i in range(30)),
                    "pkg/b.py": "from pkg.a import f1\n\nf1()\n"})
    builder.repo.references.create("refs/tags/2024", builder.repo.head.target)
    builder.commit({"pkg/c.py": "C = 1\n"})
    return builder.path


def test_values_of_a_lost_type_answer_as_the_declared_ones_do(scratch_server):
    """Was: each quirky call below was `bad_input` ("Expected `int | null`, got `str`"). Now it
    answers exactly as its well-typed twin."""
    repo = str(_repo(scratch_server.place("lost-types") / "repo"))
    pairs = [
        ("context_file", {"path": "pkg/a.py", "limit": "5"}, {"path": "pkg/a.py", "limit": 5}),
        ("context_file", {"path": "pkg/a.py", "limit": 5.0}, {"path": "pkg/a.py", "limit": 5}),
        ("context_file", {"path": "pkg/a.py", "limit": "null"}, {"path": "pkg/a.py", "limit": None}),
        ("context_symbol", {"name": "f1", "rev": 2024}, {"name": "f1", "rev": "2024"}),
        ("context_map", {"focus": '["pkg/b.py"]', "budget": 1024}, {"focus": ["pkg/b.py"], "budget": "1024"}),
        ("context_references", {"name": "f1", "limit": "1"}, {"name": "f1", "limit": 1}),
    ]
    refused = [
        ("context_file", {"path": "pkg/a.py", "limit": "5.5"}),
        ("context_file", {"path": "pkg/a.py", "limit": " 5"}),
        ("context_file", {"path": "pkg/a.py", "limit": 5.5}),
        ("context_file", {"path": "pkg/a.py", "limit": "0"}),  # read as 0, then held to its minimum
        ("context_map", {"focus": '["pkg/b.py"'}),
        ("context_symbol", {"name": "f1", "rev": True}),
    ]

    async def work(client):
        indexed = []
        for rev in ("HEAD", "2024"):
            indexed.append(await client.call_tool("repo_index", {"repo": repo, "rev": rev}))
        answers = []
        for name, quirky, typed in pairs:
            answers.append((await client.call_tool(name, {"repo": repo, **quirky}),
                            await client.call_tool(name, {"repo": repo, **typed})))
        refusals = [await client.call_tool(name, {"repo": repo, **args}) for name, args in refused]
        return indexed, answers, refusals

    indexed, answers, refusals = scratch_server.run(work)
    assert all(not r.is_error for r in indexed)
    for (name, quirky, _), (got, want) in zip(pairs, answers):
        got_body, want_body = text_of(got), text_of(want)
        assert want_body["ok"], want_body
        for body in (got_body, want_body):
            body.get("freshness", {}).pop("indexed_at", None)
        assert got_body == want_body, (name, quirky)
    for (name, args), reply in zip(refused, refusals):
        body = text_of(reply)
        assert body["error"]["code"] == "bad_input", (name, args, body)


def test_a_hosts_own_sequencing_flag_is_not_read_as_the_tools(scratch_server):
    """Gemini CLI adds `wait_for_previous` to every tool's schema and tells its model to set it on
    a call that depends on the one before; it passes the flag on to the server. Was: each such
    call, a cursor followed among them, was `bad_input` ("Object contains unknown field
    `wait_for_previous`"). Now the flag is dropped and the call answers as without it; any other
    undeclared field, or the flag with a value that is not its boolean, is still refused."""
    repo = str(_repo(scratch_server.place("host-flags") / "repo"))

    async def work(client):
        assert not (await client.call_tool("repo_index", {"repo": repo})).is_error
        first = text_of(await client.call_tool("context_references", {"repo": repo, "name": "f1", "limit": 1,
                                                                        "include_definitions": True}))
        page = {"repo": repo, "name": "f1", "limit": 1, "include_definitions": True,
                "cursor": first["page"]["cursor"]}
        pairs = [(await client.call_tool("context_references", {**page, "wait_for_previous": flag}),
                  await client.call_tool("context_references", page)) for flag in (True, False)]
        pairs.append((await client.call_tool("context_symbol", {"repo": repo, "name": "f1", "wait_for_previous": True}),
                      await client.call_tool("context_symbol", {"repo": repo, "name": "f1"})))
        refused = [await client.call_tool("context_symbol", {"repo": repo, "name": "f1", **extra})
                   for extra in ({"wait_for_previous": "true"}, {"wait_for_others": True})]
        return pairs, refused

    pairs, refused = scratch_server.run(work)
    for got, want in pairs:
        got_body, want_body = text_of(got), text_of(want)
        assert want_body["ok"], want_body
        for body in (got_body, want_body):
            body.get("freshness", {}).pop("indexed_at", None)
        assert got_body == want_body
    assert [text_of(r)["error"]["code"] for r in refused] == ["bad_input", "bad_input"]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)
_QUIRKY = st.one_of(_JSON, st.from_regex(r"-?[0-9]{1,20}", fullmatch=True), st.sampled_from(
    ["null", "true", "false", "[]", '["a", 1]', "{}", " 5", "5e3", "0x10", "[", "007", "+5", "5 ", "\u0665", "TRUE",
     "9" * 5000]), st.sampled_from([2.0 ** 53, -(2.0 ** 53), 2.0 ** 53 - 1]))


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.sampled_from(sorted(SCHEMAS)), st.dictionaries(st.sampled_from(
    ["limit", "rev", "path", "name", "focus", "budget", "cursor", "worktree", "start_line", "other"]), _QUIRKY,
    max_size=5))
def test_a_value_is_read_only_where_the_reading_is_exact(tool, arguments):
    """Any value: kept as it came, or read as a declared type that gives it back exactly."""
    schema = SCHEMAS[tool]
    read = as_declared(schema, arguments)
    assert read.keys() == arguments.keys()
    for name, before in arguments.items():
        after = read[name]
        if after is before or after == before and type(after) is type(before):
            continue
        assert name in schema["properties"], (name, before, after)
        if isinstance(before, str) and after is None:
            assert before == "null"
        elif isinstance(before, str) and isinstance(after, bool):
            assert before == ("true" if after else "false")
        elif isinstance(before, str) and isinstance(after, int):
            assert int(before) == after and re.fullmatch(r"-?[0-9]+", before), before  # ASCII digits alone
        elif isinstance(before, str):
            assert json.loads(before) == after
        elif isinstance(before, float):
            assert before.is_integer() and abs(before) < 2 ** 53 and after == int(before)
        elif isinstance(before, int) and isinstance(after, str):
            assert after == str(before)
        else:
            assert isinstance(before, list) and isinstance(after, list) and len(before) == len(after)


def test_the_schema_a_call_is_read_by_is_its_tools_and_none_for_no_tool():
    """The SDK asks `get_tool_input_schema` for the schema of any name a call gives (the
    2026-07-28 HTTP header check, before the tool is looked up): a schema, or None when there is
    nothing to check by. A `--worktree` server lists `worktree` on its read tools, so a call's
    arguments are read by that schema there, and by the plain one elsewhere."""
    from context_tools.faces.mcp import Tools

    table = registry()
    for worktree in (False, True):
        tools = Tools(table, worktree)
        assert tools.input_schema("no_such_tool") is None
        assert tools.input_schema("no_such_tool") is None  # asked again: still none, not kept
        for row in table.agent_tools():
            assert tools.input_schema(row.wire_name) == row.agent_schema(worktree), row.id
        read = tools.input_schema("context_symbol")
        assert read is not None and ("worktree" in read["properties"]) is worktree


_WORKTREE_SCHEMAS = {row.wire_name: row.agent_schema(True) for row in registry().agent_tools()}


@pytest.mark.parametrize("tool, field, sent, read", [
    ("context_file", "limit", "5", 5),
    ("context_file", "limit", "-5", -5),  # read, then held to the minimum as any integer
    ("context_file", "limit", "9" * 18, 10 ** 18 - 1),
    ("context_file", "limit", "1024", 1024),
    ("context_file", "limit", "007", 7),
    ("context_file", "limit", 5.0, 5),
    ("context_file", "limit", 2.0 ** 53 - 1, 2 ** 53 - 1),
    ("context_file", "limit", "null", None),
    ("context_symbol", "rev", 2024, "2024"),
    ("context_symbol", "worktree", "false", False),
    ("context_map", "focus", '["pkg/b.py"]', ["pkg/b.py"]),
    ("context_map", "focus", ' \n["pkg/b.py"]', ["pkg/b.py"]),  # JSON text may open with blanks
    ("context_map", "focus", [2024, "a"], ["2024", "a"]),  # each item read as the items' type
    ("context_map", "focus", "[2024]", ["2024"]),  # and so in an array sent as its text
    ("delta_packet", "paths", ["a", 7], ["a", "7"]),  # an array or null: the array's items
    ("delta_packet", "paths", "null", None),
    ("context_map", "focus", '["' + "a" * ((1 << 20) - 4) + '"]', ["a" * ((1 << 20) - 4)]),  # 1 MiB of text
])
def test_a_value_of_a_lost_type_is_read_as_the_declared_one(tool, field, sent, read):
    """docs/agents.md, argument types: each reading the document lists."""
    got = as_declared(_WORKTREE_SCHEMAS[tool], {field: sent})[field]
    assert got == read and type(got) is type(read)


@pytest.mark.parametrize("tool, field, sent", [
    ("context_file", "limit", "+5"),  # digits alone: no sign but a minus
    ("context_file", "limit", "5 "),  # no spaces
    ("context_file", "limit", "5\n"),
    ("context_file", "limit", "\u0665"),  # ASCII digits: int() reads any script's
    ("context_file", "limit", "1" * 19),  # 18 digits at most: every one of them is a 64-bit integer
    ("context_file", "limit", "9" * 5000),  # past int()'s digits, which it refuses by raising
    ("context_file", "limit", 2.0 ** 53),  # a float this large may stand for a neighbouring integer
    ("context_file", "limit", True),
    ("context_symbol", "worktree", "TRUE"),
    ("context_symbol", "rev", True),
    ("context_symbol", "rev", "true"),  # a string field takes the text as it is
    ("context_symbol", "rev", "null"),
    ("context_symbol", "rev", "[1]"),
    ("context_map", "focus", '["' + "a" * ((1 << 20) - 3) + '"]'),  # JSON text is decoded to 1 MiB
    ("delta_packet", "paths", None),
])
def test_a_value_without_one_exact_reading_is_left_as_it_came(tool, field, sent):
    """docs/agents.md: anything else is left for the decoder, which refuses it as bad_input."""
    assert as_declared(_WORKTREE_SCHEMAS[tool], {field: sent})[field] is sent


def test_a_schema_that_declares_no_type_reads_nothing():
    """No schema (a name no tool has), no properties, or an array whose items are not declared:
    each value is taken as it came, for the decoder to judge."""
    arguments = {"limit": "5", "focus": [1, "2"]}
    assert as_declared(None, arguments) == arguments
    assert as_declared({"type": "object"}, arguments) == arguments
    untyped = {"properties": {"focus": {"type": "array"}, "limit": {"description": "no type"}}}
    assert as_declared(untyped, arguments) == arguments


def test_an_object_as_its_text_and_an_integer_for_a_number_read_as_json_schema_means():
    """No agent tool declares an object or a number yet; the reading is the schema's all the
    same: an object sent as its JSON text is the object, and an integer is a number (JSON
    Schema), so it is not read as the string a field of either type may also be."""
    schema = {"properties": {"o": {"type": "object"}, "n": {"anyOf": [{"type": "number"}, {"type": "string"}]}}}
    assert as_declared(schema, {"o": '{"a": [1]}', "n": 5}) == {"o": {"a": [1]}, "n": 5}
    assert as_declared(schema, {"o": "[1]"}) == {"o": "[1]"}
