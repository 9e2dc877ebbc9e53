"""The JSON Schema of a reply as a face sends it: the MCP `outputSchema` of every tool.

A reply is one of three objects: the result contract (`ok: true`, with data, freshness
and page), its error form (`ok: false`, with a typed code), or the spill envelope a reply
over the ceiling becomes (`head`, `note`, `path`, `bytes`). Freshness and page are derived
from their msgspec types, so the schema follows the contract as it changes; `data` is the
row's declared output type when it has one, else any object.
"""

from __future__ import annotations

from typing import Any

import msgspec

from indexer.contract.result import Freshness, Page


def _schema_of(types: tuple[Any, ...]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    schemas, components = msgspec.json.schema_components(types, ref_template="#/$defs/{name}")
    return list(schemas), dict(components)


def reply_schema(command_id: str, output: type | None = None) -> dict[str, Any]:
    wanted: tuple[Any, ...] = (Freshness | None, Page | None) + ((output,) if output is not None else ())
    schemas, defs = _schema_of(wanted)
    freshness, page = schemas[0], schemas[1]
    data: dict[str, Any] = schemas[2] if output is not None else {"type": "object"}
    data = {"description": "the command's answer", **data}
    ok = {
        "type": "object",
        "properties": {
            "ok": {"const": True},
            "command": {"const": command_id, "description": "the command id that answered"},
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
            "path": {"type": "string", "description": "file on the server's machine holding the whole result"},
            "bytes": {"type": "integer", "minimum": 0, "description": "size of that file in bytes"},
            "cursors": {"type": "object", "additionalProperties": {"type": "string"},
                        "description": "next-page cursors the result holds, by their place in it"},
        },
        "required": ["head", "note", "path", "bytes"],
    }
    schema: dict[str, Any] = {"type": "object", "anyOf": [ok, error, spill]}
    if defs:
        schema["$defs"] = defs
    return schema
