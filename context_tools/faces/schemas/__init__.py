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
(`context_tools.faces.mcp_start.generate`): the stdio face answers from it while the SDK loads.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

FOLDER = Path(__file__).resolve().parent
CONTRACT = "result.schema.json"
BATCH_JOB = "batch.run.job.schema.json"


def file_name(command_id: str) -> str:
    return f"{command_id}.schema.json"


def generate() -> dict[str, dict[str, Any]]:
    """Every shipped schema by file name, derived from the types as they are now."""
    import msgspec

    from context_tools.faces.mcp_start import START_FILE
    from context_tools.faces.mcp_start import generate as start_answers
    from context_tools.faces.packs.fleet import JobData
    from context_tools.faces.registry import registry
    from context_tools.faces.wire_schema import as_written, reply_schema

    out = {CONTRACT: _titled(reply_schema(None), "Rennet result contract")}
    for row in registry().rows:
        if row.runnable:
            out[file_name(row.id)] = _titled(row.output_schema(), f"Reply of {row.id}")
    out[BATCH_JOB] = _titled(as_written(msgspec.json.schema(JobData)), "A job line of rennet batch --json")
    out[START_FILE] = start_answers()
    return out


def _titled(schema: dict[str, Any], title: str) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title, **schema}


def encode(schema: Mapping[str, object]) -> str:
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


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


def stale() -> list[str]:
    """File names whose committed text differs from the generated one, or that are missing or extra."""
    want = {name: encode(schema) for name, schema in generate().items()}
    have = {p.name: p.read_text(encoding="utf-8") for p in [*FOLDER.glob("*.schema.json"), *FOLDER.glob("mcp.*.json")]}
    return sorted(name for name in want.keys() | have.keys() if want.get(name) != have.get(name))


def write() -> list[str]:
    """Write every schema, drop files no command has any more; the names written."""
    want = generate()
    for path in FOLDER.glob("*.schema.json"):
        if path.name not in want:
            path.unlink()
    for name, schema in want.items():
        (FOLDER / name).write_text(encode(schema), encoding="utf-8")
    return sorted(want)
