"""A tool call's arguments read as the tool's input schema declares them, where an MCP client
sent a value of another JSON type that reads as exactly one value of a declared type.

Agents' clients carry arguments through a model's text, and several lose JSON types on the way:
an integer arrives as its digits (`"5"`), a digit-only string as a number (the short OID
`1234567`, a tag `2024`), null as `"null"`, an array as its JSON text. Each is read here as the
schema's type when that reading is exact; any other value is left as it came, for the decoder
to refuse as it would. Every bound of the schema still applies to what is read.

A host may also add a flag of its own to every tool's schema and pass it on with the call:
Gemini CLI adds `wait_for_previous` (run this call after the ones before it) and tells its model
to set it on a call that depends on another, such as following a cursor. The flag is the host's,
so a boolean one that the tool does not declare is dropped here; every other field the tool does
not declare is still refused.
"""

from __future__ import annotations

import re
from typing import Any

from indexer.contract.decode import Undecodable, decode_json

# Digits an integer field takes as written: a sign, no spaces, no exponent, no separators
_INTEGER = re.compile(r"-?[0-9]{1,18}")
# A float that is a whole number reads exactly as an integer below this
_EXACT_FLOAT = 2 ** 53
# An array or object sent as its JSON text is decoded no larger than this
_TEXT_MAX_BYTES = 1 << 20
_UNREAD = object()
# Flags hosts add to every tool's input schema for their own scheduling, not the tool's input
HOST_FLAGS = frozenset({"wait_for_previous"})
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
               (dict, "object"), (type(None), "null"))


def as_declared(schema: dict[str, Any] | None, arguments: dict[str, object]) -> dict[str, object]:
    """`arguments`, each value whose JSON type `schema` does not allow read as one it does,
    where that reading is exact, less a host's own flag the schema does not declare."""
    properties = (schema or {}).get("properties")
    if not isinstance(properties, dict):
        return arguments
    out = dict(arguments)
    for name, value in arguments.items():
        spec = properties.get(name)
        if isinstance(spec, dict):
            out[name] = _fit(value, spec)
        elif name in HOST_FLAGS and isinstance(value, bool):
            del out[name]
    return out


def _fit(value: Any, spec: dict[str, Any]) -> object:
    """`value` as `spec` declares it; the schema's own depth bounds the recursion."""
    branches = [b for b in spec.get("anyOf", [spec]) if isinstance(b, dict)]
    allowed: set[object] = set()
    for branch in branches:
        kind = branch.get("type")
        allowed.update(kind if isinstance(kind, list) else [kind])
    kind = _json_type(value)
    if kind in allowed or (kind == "integer" and "number" in allowed):
        if kind == "array":
            items = next((b.get("items") for b in branches if b.get("type") == "array"), None)
            if isinstance(items, dict):
                return [_fit(item, items) for item in value]
        return value
    read = _read(value, allowed)
    return value if read is _UNREAD else _fit(read, spec)


def _read(value: object, allowed: set[object]) -> object:
    if isinstance(value, str):
        if value == "null" and "null" in allowed:
            return None
        if "integer" in allowed and _INTEGER.fullmatch(value):
            return int(value)
        if "boolean" in allowed and value in ("true", "false"):
            return value == "true"
        opener = value.lstrip()[:1]
        if ("array" in allowed and opener == "[") or ("object" in allowed and opener == "{"):
            try:
                decoded = decode_json(value, max_bytes=_TEXT_MAX_BYTES)
            except Undecodable:
                return _UNREAD
            if _json_type(decoded) in allowed:
                return decoded
        return _UNREAD
    if isinstance(value, bool):
        return _UNREAD  # `True` or `"true"` for a string: not one reading
    if isinstance(value, int) and "string" in allowed:
        return str(value)
    if isinstance(value, float) and "integer" in allowed and value.is_integer() and abs(value) < _EXACT_FLOAT:
        return int(value)
    return _UNREAD


def _json_type(value: object) -> str:
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return "unknown"
