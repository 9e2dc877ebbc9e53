"""JSON Schema validators whose schema is checked against its metaschema once: the check of the
schema, which `jsonschema.validate` repeats on every call, costs many times an instance's own."""

from __future__ import annotations

import functools
from typing import Any, Literal

import jsonschema

from context_tools.faces.registry import registry


def checked_validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """The validator of `schema`, the schema checked first (a bad one raises SchemaError)."""
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@functools.cache
def row_validator(command: str, which: Literal["input", "output"] = "output") -> jsonschema.protocols.Validator:
    """The checked validator of `command`'s input or reply schema, made once a test process."""
    row = registry().get(command)
    return checked_validator(row.input_schema() if which == "input" else row.output_schema())
