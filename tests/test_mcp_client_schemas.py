"""The tools' schemas as the clients agents run read them, checked offline: what `tools/list`
sends is the registry's `listed_schema` and `output_schema` (tests/test_mcp.py checks that on the
wire). The clients were run against the server by hand (docs/agents.md, "Clients checked"); these
are the rules they apply, each one a client's own:

- The TypeScript SDK's client compiles every `outputSchema` as it lists the tools, and a schema
  it cannot compile breaks the whole list: its 1.x line with Ajv's draft-07 class, its 2.x line
  with Ajv's 2020-12 class (a `$schema` naming another dialect is refused by either).
- Gemini's function declarations take a tool's input schema as an OpenAPI subset: every node
  carries a `type`, an array its `items`, and there is no `$ref`, `$defs`, `oneOf` or `allOf`.
  OpenAI's function calling wants an object at the top, with no `anyOf`, `oneOf`, `allOf`,
  `enum` or `not` there.
- A tool's name matches `^[a-zA-Z0-9_-]{1,64}$`, also as Claude Code writes it for the model
  (`mcp__rennet__<tool>`), and Cursor wants the server's name and the tool's within 60.
"""

from __future__ import annotations

from typing import Any, Iterator

import jsonschema
import pytest

from context_tools.faces.registry import registry, wire_name
from tests.mcp_clients import python_prepared  # noqa: F401 - fixture
from tests.test_registry import AGENT_INVENTORY

NAME = "rennet"  # the server's name in docs/agents.md's setup lines


def _listed() -> Iterator[tuple[str, dict[str, Any]]]:
    table = registry()
    for command in sorted(AGENT_INVENTORY):
        for worktree in (False, True):
            yield f"{wire_name(command)}{' --worktree' if worktree else ''}", table.get(command).listed_schema(worktree)


def _nodes(schema: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema under a property: the property's, each `anyOf` branch, an array's items."""
    yield path, schema
    for i, branch in enumerate(schema.get("anyOf", ())):
        yield from _nodes(branch, f"{path}.anyOf[{i}]")
    if isinstance(schema.get("items"), dict):
        yield from _nodes(schema["items"], f"{path}.items")
    for name, prop in schema.get("properties", {}).items():
        yield from _nodes(prop, f"{path}.{name}")


def _keys(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            if key not in ("properties", "$defs"):  # their keys are names, not keywords
                yield from _keys(item)
            else:
                for sub in item.values():
                    yield from _keys(sub)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def test_every_input_node_carries_a_type_gemini_accepts():
    """Gemini's OpenAPI subset wants a `type` on every node: `section` and `resolution` were a
    bare `enum` (msgspec writes a `Literal` so), and a client that converts the schema had the
    API refuse the whole request ("Invalid value at ...properties[n].value.type")."""
    untyped = []
    for tool, schema in _listed():
        assert schema["type"] == "object", tool
        for name, prop in schema["properties"].items():
            for path, node in _nodes(prop, f"{tool}.{name}"):
                if "anyOf" not in node and "type" not in node:
                    untyped.append(path)
                if node.get("type") == "array":
                    assert isinstance(node.get("items"), dict), path
                if "enum" in node and "type" in node:  # the type said holds every value
                    assert all(jsonschema.Draft202012Validator({"type": node["type"]}).is_valid(v)
                               for v in node["enum"]), path
    assert untyped == []


def test_input_schemas_use_no_keyword_the_function_calling_apis_refuse():
    for tool, schema in _listed():
        assert not {"anyOf", "oneOf", "allOf", "enum", "not"} & set(schema), tool  # OpenAI, at the top
        assert not {"$ref", "$defs", "definitions", "oneOf", "allOf", "$schema"} & set(_keys(schema)), tool
        jsonschema.Draft7Validator.check_schema(schema)
        jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("draft", [jsonschema.Draft7Validator, jsonschema.Draft202012Validator])
def test_output_schemas_compile_in_both_dialects_the_typescript_sdks_use(draft):
    """Ajv compiles `$ref: #/$defs/...` in either class; a `$schema` would pin one dialect and
    the other SDK line would refuse the schema, with it every tool of the server."""
    table = registry()
    for command in sorted(AGENT_INVENTORY):
        schema = table.get(command).output_schema()
        assert "$schema" not in schema and schema["type"] == "object", command
        draft.check_schema(schema)
        refs = {value for key, value in _ref_pairs(schema) if key == "$ref"}
        assert all(ref.startswith("#/$defs/") and ref.split("/", 2)[2] in schema["$defs"] for ref in refs), command
        assert draft(schema).is_valid({"ok": False, "command": command, "error": {"code": "x", "message": "y"}})


def _ref_pairs(value: object) -> Iterator[tuple[str, object]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _ref_pairs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _ref_pairs(item)


def test_tool_names_fit_every_clients_bound():
    for command in AGENT_INVENTORY:
        name = wire_name(command)
        assert len(f"mcp__{NAME}__{name}") <= 64, name  # Claude Code's name for the model, under the API's 64
        assert len(NAME) + len(name) <= 60, name  # Cursor


def _maxima(schema: dict[str, Any]) -> Iterator[int]:
    for branch in schema.get("anyOf", [schema]):
        if isinstance(branch.get("maximum"), int):
            yield branch["maximum"]


def test_each_bound_of_a_listed_input_is_in_its_description(scratch_server):
    """Codex hands a model each MCP tool's input schema less its `minimum`, `maximum`,
    `maxLength`, `pattern` and `default` (codex-cli 0.171.0, docs/agents.md "Clients checked"), so
    a field's upper bound reaches that model only through its description: `workspace_status`'s
    `limit` (500) and `repo_index`'s `workers` (64) did not say theirs, and a call past either is
    `bad_input`. Read from `tools/list` through the SDK's client."""
    async def work(client):
        return (await client.list_tools()).tools

    unsaid = []
    for tool in scratch_server.run(work):
        for name, prop in tool.input_schema["properties"].items():
            text = prop.get("description", "")
            for bound in _maxima(prop):
                spellings = {str(bound), f"{bound:,}"} | ({f"{bound // 1024}k"} if bound % 1024 == 0 else set())
                if not any(s in text for s in spellings):
                    unsaid.append(f"{tool.name}.{name} <= {bound}: {text!r}")
    assert unsaid == []
