"""The JSON Schemas that ship with the package, one file per command and one for the contract.

`result.schema.json` is the result contract every command shares (its `data` any object);
`<command id>.schema.json` is the reply of that command, its `data` the command's declared
output types: exactly the `outputSchema` the MCP face advertises, made by the same code
(`Command.output_schema`). `batch.run.job.schema.json` is one job line of `rennet batch --json`.
They are generated from the msgspec types, not at build time (an offline install may not run a
build step): `python -m context_tools.faces.schemas` writes them, and a test fails when a
committed file differs from what the types give now. A file keeps the keys in the order the
types give them, so the MCP face lists a command's file (`listed_reply`) as the very bytes it
would derive, without importing every output type first.

`mcp.start.json` is what the SDK answers a stdio session's opening (`initialize`, `tools/list`,
`ping`) at each protocol version, on a plain server and a `--worktree` one, made by the SDK itself
(`context_tools.faces.mcp_start_answers.generate`): the stdio face answers from it while the SDK loads.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent
CONTRACT = "result.schema.json"
BATCH_JOB = "batch.run.job.schema.json"


def file_name(command_id: str) -> str:
    return f"{command_id}.schema.json"


def shipped(name: str) -> dict[str, Any]:
    """A shipped schema, read from the installed package."""
    return json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))


def listed_reply(command_id: str) -> dict[str, Any] | None:
    """The output schema of `command_id` as `Command.output_schema` gives it, read from its shipped
    file (less the `$schema` and title the file adds); None when no file ships for it."""
    try:
        schema = shipped(file_name(command_id))
    except FileNotFoundError:
        return None
    schema.pop("$schema", None)
    schema.pop("title", None)
    return schema
