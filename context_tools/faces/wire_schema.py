"""The JSON Schema of a reply as a face sends it: the MCP `outputSchema` of every tool.

A reply is one of three objects: the result contract (`ok: true`, with data, freshness
and page), its error form (`ok: false`, with a typed code), or the spill envelope a reply
over the ceiling becomes (`head`, `note`, `path`, `bytes`). Freshness and page are derived
from their msgspec types, so the schema follows the contract as it changes; `data` is one of
the row's declared output types (any object when it declares none).
"""

from __future__ import annotations

import inspect
from typing import Any, Sequence

import msgspec.inspect as mi
from msgspec import _json_schema

from indexer.contract.result import Freshness, Page


class _Generator(_json_schema._SchemaGenerator):
    """msgspec's generator, plus untagged unions of Structs (`Content | Unknown`): a value the
    index cannot know stands where an object is expected, and each branch's shape tells them
    apart. msgspec refuses such a union, since it could not decode it; replies are only encoded,
    so the schema lists every branch (msgspec's own would keep one of them)."""

    def to_schema(self, t: mi.Type, check_ref: bool = True) -> dict[str, Any]:
        schema: dict[str, Any] = {}
        inner = t
        while isinstance(inner, mi.Metadata):
            schema = mi._merge_json(schema, inner.extra_json_schema)
            inner = inner.type
        if isinstance(inner, mi.UnionType) and sum(_untagged_struct(u) for u in inner.types) >= 2:
            schema["anyOf"] = [self.to_schema(u) for u in inner.types]
            return schema
        return super().to_schema(t, check_ref)


def _untagged_struct(t: mi.Type) -> bool:
    while isinstance(t, mi.Metadata):
        t = t.type
    return isinstance(t, mi.StructType) and t.tag is None and not t.array_like


def _schema_of(types: tuple[object, ...]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`msgspec.json.schema_components` (msgspec 0.22, pinned), without its check that every type
    could be decoded: see `_Generator`."""
    translator = mi._Translator(types)
    infos = tuple(translator.translate(t) for t in translator.types)
    component_types = _json_schema._collect_component_types(infos)
    name_map = _json_schema._build_name_map(component_types)
    gen = _Generator(name_map, None, "#/$defs/{name}")
    schemas = [gen.to_schema(t) for t in infos]
    components = {name_map[cls]: gen.to_schema(t, False) for cls, t in component_types.items()}
    return schemas, components


def reply_schema(command_id: str | None, outputs: Sequence[type] = ()) -> dict[str, Any]:
    """The reply of `command_id` whose data is one of `outputs`; with no id and no outputs, the
    result contract every command shares."""
    schemas, defs = _schema_of((Freshness | None, Page | None, *outputs))
    freshness, page, data_types = schemas[0], schemas[1], schemas[2:]
    data: dict[str, Any]
    if not data_types:
        data = {"type": "object"}
    elif len(data_types) == 1:
        data = dict(data_types[0])
    else:
        data = {"anyOf": data_types}
    data = {"description": "the command's answer", **data}
    command: dict[str, Any] = ({"const": command_id} if command_id is not None else {"type": "string"})
    ok = {
        "type": "object",
        "properties": {
            "ok": {"const": True},
            "command": {**command, "description": "the command id that answered"},
            "data": data,
            "freshness": {"description": "how the pinned snapshot read relates to the repository now "
                                         "(null when no snapshot was read)", **freshness},
            "page": {"description": "the main collection's page: total, returned, truncated, and the cursor "
                                    "to pass back for the next page (null without a collection)", **page},
        },
        "required": ["ok", "command", "data", "freshness", "page"],
    }
    error = {
        "type": "object",
        "properties": {
            "ok": {"const": False},
            "command": {"type": "string"},
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "typed error code (not_found, bad_input, "
                                                              "not_indexed, forbidden, busy, ...): act on it"},
                    "message": {"type": "string", "description": "one line for a human"},
                },
                "required": ["code", "message"],
            },
        },
        "required": ["ok", "command", "error"],
    }
    spill = {
        "type": "object",
        "description": "the reply exceeded the ceiling: the complete result is in the file at `path`",
        "properties": {
            "head": {"type": "string", "description": "the first bytes of the serialized result"},
            "note": {"type": "string"},
            "path": {"description": "file on the server's machine holding the whole result; an unknown (with "
                                    "why) when it could not be written",
                     "anyOf": [{"type": "string"}, {"type": "object", "properties": {
                         "unknown": {"type": "string"}, "reason": {"type": "string"}},
                         "required": ["unknown", "reason"]}]},
            "bytes": {"type": "integer", "minimum": 0, "description": "size of that file in bytes"},
            "cursors": {"type": "object", "additionalProperties": {"type": "string"},
                        "description": "next-page cursors the result holds, by their place in it"},
        },
        "required": ["head", "note", "path", "bytes"],
    }
    schema: dict[str, Any] = {"type": "object", "anyOf": [ok, error, spill]}
    if defs:
        schema["$defs"] = defs
    return as_written(schema)


def as_written(schema: Any) -> Any:
    """`schema` with each description cleaned as `inspect.cleandoc` cleans a docstring. A type's
    docstring is its description, and Python 3.13 strips a docstring's indent as it compiles,
    where 3.11 keeps it: the schemas a client is shown, and those shipped, read the same on both."""
    if isinstance(schema, dict):
        return {key: inspect.cleandoc(value) if key == "description" and isinstance(value, str) else as_written(value)
                for key, value in schema.items()}
    if isinstance(schema, list):
        return [as_written(item) for item in schema]
    return schema
