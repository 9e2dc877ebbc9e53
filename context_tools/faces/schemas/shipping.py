"""Writing the shipped files from the types (`python -m context_tools.faces.schemas`) and telling
which are stale: apart from the package's readers, as making `mcp.start.json` runs the MCP
server, which reads the shipped files."""

from __future__ import annotations

import json
from typing import Any, Mapping

from context_tools.faces.schemas import BATCH_JOB, CONTRACT, FOLDER, file_name


def generate() -> dict[str, dict[str, Any]]:
    """Every shipped schema by file name, derived from the types as they are now."""
    import msgspec

    from context_tools.faces.mcp_start import START_FILE
    from context_tools.faces.mcp_start_answers import generate as start_answers
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
