"""The JSON Schema of a reply as a face sends it: the MCP `outputSchema` of every tool.

A reply is one of three objects: the result contract (`ok: true`, with data, freshness
and page), its error form (`ok: false`, with a typed code), or the spill envelope a reply
over the ceiling becomes (`head`, `note`, `path`, `bytes`). Freshness and page are derived
from their msgspec types, so the schema follows the contract as it changes; `data` is one of
the row's declared output types (any object when it declares none).

MCP lists every tool's schema whole, and one cannot refer to another's, so each repeats the
contract's parts: a command's schema gives their shapes, the contract's own (`reply_schema(None)`)
their descriptions too, and each shape stands once in `$defs`, referred to wherever it recurs.
"""

from __future__ import annotations

import inspect
from typing import Any, Sequence

import msgspec.inspect as mi
from msgspec import _json_schema

from indexer.contract.result import Freshness, Page, Unknown


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
    could be decoded (see `_Generator`), and with each Struct that extends another one listed as
    that one and its own fields (see `_extending`)."""
    translator = mi._Translator(types)
    infos = tuple(translator.translate(t) for t in translator.types)
    component_types = _json_schema._collect_component_types(infos)
    name_map = _json_schema._build_name_map(component_types)
    gen = _Generator(name_map, None, _REF)
    schemas = [gen.to_schema(t) for t in infos]
    components = {name_map[cls]: gen.to_schema(t, False) for cls, t in component_types.items()}
    for cls in component_types:
        # a generic Struct's parameterization (`Section[OutlineItem]`) has no bases of its own
        base = next((b for b in getattr(cls, "__mro__", ())[1:] if b in component_types), None)
        if base is not None:
            components[name_map[cls]] = _extending(components[name_map[cls]], components[name_map[base]],
                                                   name_map[base])
    return schemas, {name: _untitled(schema) for name, schema in components.items()}


_REF = "#/$defs/{name}"


def _extending(sub: dict[str, Any], base: dict[str, Any], base_name: str) -> dict[str, Any]:
    """A subclass's schema as `allOf` its base's and the fields it adds (`MemberFreshness` is a
    `Freshness` and its `member`), where that says the same as listing every field again: each
    field of the base is the subclass's too, alike, and neither closes its properties."""
    props, base_props = sub.get("properties", {}), base.get("properties", {})
    alike = all(props.get(name) == prop for name, prop in base_props.items())
    required = set(base.get("required", ())) <= set(sub.get("required", ()))
    closed = "additionalProperties" in sub or "additionalProperties" in base
    if not alike or not required or closed:
        return sub
    own = {key: value for key, value in sub.items() if key not in ("properties", "required")}
    own["allOf"] = [{"$ref": _REF.format(name=base_name)}]
    own["properties"] = {name: prop for name, prop in props.items() if name not in base_props}
    added = [name for name in sub.get("required", ()) if name not in base.get("required", ())]
    if added:
        own["required"] = added
    return own


def _untitled(schema: Any) -> Any:
    """`schema` less msgspec's `title` keywords: a component's title is its name in `$defs`, and an
    enum's its class name, which tell a client or a model nothing the keys do not."""
    if isinstance(schema, dict):
        return {key: ({name: _untitled(sub) for name, sub in value.items()} if key in ("properties", "$defs")
                      else _untitled(value))
                for key, value in schema.items() if key != "title"}
    if isinstance(schema, list):
        return [_untitled(item) for item in schema]
    return schema


# The parts of the contract every reply shares. The contract's own schema (`result.schema.json`)
# describes them; a command's schema, which MCP lists once for each tool, gives their shapes only,
# and docs/tools.md and the server's instructions say what they mean.
CONTRACT_PARTS = ("Freshness", "Page", "Unknown", "WorktreeState")


def reply_schema(command_id: str | None, outputs: Sequence[type] = ()) -> dict[str, Any]:
    """The reply of `command_id` whose data is one of `outputs`; with no id and no outputs, the
    result contract every command shares, described."""
    described = command_id is None

    def said(text: str) -> dict[str, str]:
        return {"description": text} if described else {}

    schemas, defs = _schema_of((Freshness | None, Page | None, Unknown, *outputs))
    freshness, page, data_types = schemas[0], schemas[1], schemas[3:]
    if not described:
        for name in CONTRACT_PARTS:
            if name in defs:
                defs[name] = {key: value for key, value in defs[name].items() if key != "description"}
    data: dict[str, Any]
    if not data_types:
        data = {"type": "object"}
    elif len(data_types) == 1:
        data = dict(data_types[0])
    else:
        data = {"anyOf": data_types}
    data = {**said("the command's answer"), **data}
    command: dict[str, Any] = ({"const": command_id} if command_id is not None else {"type": "string"})
    ok = {
        "type": "object",
        "properties": {
            "ok": {"const": True},
            "command": {**command, **said("the command id that answered")},
            "data": data,
            "freshness": {**said("how the pinned snapshot read relates to the repository now "
                                 "(null when no snapshot was read)"), **freshness},
            "page": {**said("the main collection's page: total, returned, truncated, and the cursor "
                            "to pass back for the next page (null without a collection)"), **page},
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
                    "code": {"type": "string", **said("typed error code (not_found, bad_input, not_indexed, "
                                                      "forbidden, busy, ...): act on it")},
                    "message": {"type": "string", **said("one line for a human")},
                },
                "required": ["code", "message"],
            },
        },
        "required": ["ok", "command", "error"],
    }
    spill = {
        "type": "object",
        **said("the reply exceeded the ceiling: the complete result is in the file at `path`"),
        "properties": {
            "head": {"type": "string", **said("the first bytes of the serialized result")},
            "note": {"type": "string"},
            "path": {**said("file on the server's machine holding the whole result; an unknown (with why) "
                            "when it could not be written"),
                     "anyOf": [{"type": "string"}, {"$ref": _REF.format(name="Unknown")}]},
            "bytes": {"type": "integer", "minimum": 0, **said("size of that file in bytes")},
            "cursors": {"type": "object", "additionalProperties": {"type": "string"},
                        **said("next-page cursors the result holds, by their place in it")},
        },
        "required": ["head", "note", "path", "bytes"],
    }
    schema: dict[str, Any] = {"type": "object", "anyOf": [ok, error, spill], "$defs": defs}
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
