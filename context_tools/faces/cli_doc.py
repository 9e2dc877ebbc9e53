"""docs/cli.md, written from the registry: the same rows `rennet commands --json` prints.

    python -m context_tools.faces.cli_doc > docs/cli.md

A test compares the page with `render()`, so the page cannot fall behind the registry.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from context_tools.faces.registry import Command, Registry

_WIDTH = 100  # the built-in verbs' help is wrapped at a fixed width, whatever the terminal


def _branch(prop: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an optional property (`anyOf: [X, null]`), merged with the outer keys."""
    rest = [b for b in prop.get("anyOf", ()) if b.get("type") != "null"]
    if len(rest) > 1:  # a union (a size: integer or string): its branches, without the null
        return {**prop, "anyOf": rest}
    if len(rest) != 1:
        return prop
    merged = {k: v for k, v in prop.items() if k != "anyOf"}
    return {**rest[0], **merged}


def _type_name(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " \\| ".join(f"`{v}`" for v in prop["enum"])
    kind = prop.get("type")
    if kind == "array":
        return f"list of {_type_name(prop.get('items', {}))}"
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind is None and "anyOf" in prop:
        return " or ".join(_type_name(b) + _bounds(b) for b in prop["anyOf"])
    return kind or "JSON"


def _bounds(prop: dict[str, Any]) -> str:
    parts = []
    if "minimum" in prop:
        parts.append(f">= {prop['minimum']}")
    if "maximum" in prop:
        parts.append(f"<= {prop['maximum']}")
    if "pattern" in prop:
        parts.append(f"`{prop['pattern']}`")
    return f" ({', '.join(parts)})" if parts else ""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _leaf(root: argparse.ArgumentParser, path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = root
    for word in path:
        parser = _subparsers(parser)[word]
    return parser


def _fixed_width(parser: argparse.ArgumentParser, prog: str) -> argparse.ArgumentParser:
    from context_tools.faces.cli import HelpFormat

    parser.formatter_class = lambda prog: HelpFormat(prog, width=_WIDTH)
    parser.prog = prog
    return parser


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _command_section(row: Command, root: argparse.ArgumentParser) -> list[str]:
    entry = row.describe()
    schema = entry["input_schema"]
    lines = [f"### `{entry['id']}`", "", _cell(entry["summary"])]
    if row.description:
        lines += ["", row.description]
    exposure = [k for k in ("cli", "agent") if entry["exposure"][k]]
    facts = [f"authority `{entry['authority']}`", f"exposure {', '.join(exposure) or 'none'}",
             f"maturity `{entry['maturity']}`", f"surfaces {', '.join(entry['surfaces'])}"]
    if entry["caps"]:
        facts.append("caps " + ", ".join(f"{k} {v}" for k, v in entry["caps"].items()))
    lines += ["", "; ".join(facts) + "."]
    if row.output:
        names = ", ".join(f"`{ref.rsplit(':', 1)[-1] if isinstance(ref, str) else ref.__name__}`" for ref in row.output)
        lines += ["", f"`data`: {names}; schema `context_tools/faces/schemas/{row.id}.schema.json`."]
    if entry["cli"]:
        leaf = _fixed_width(_leaf(root, row.cli_path), " ".join(("rennet",) + row.cli_path))
        lines += ["", "```", leaf.format_usage().rstrip(), "```"]
    if row.examples:
        lines += ["", "Examples:", "", "```sh", *row.examples, "```"]
    props = schema.get("properties", {})
    if props:
        required = set(schema.get("required", ()))
        lines += ["", "| input | type | default | description |", "| --- | --- | --- | --- |"]
        for name, raw in props.items():
            prop = _branch(raw)
            default = "required" if name in required else (
                f"`{json.dumps(raw['default'])}`" if raw.get("default") is not None else "none")
            lines.append(f"| `{name}` | {_type_name(prop)}{_bounds(prop)} | {default} | "
                         f"{_cell(prop.get('description', ''))} |")
    return lines


def _schemas_section() -> list[str]:
    return [
        "## JSON Schemas", "",
        "The package ships a JSON Schema (draft 2020-12) of every reply, generated from the result types:",
        "`context_tools/faces/schemas/result.schema.json` is the result contract every command shares,",
        "described field by field, `<command id>.schema.json` the reply of one command with its `data` (the",
        "same schema as the command's MCP `outputSchema`, which gives the contract's parts their shapes",
        "and leaves their descriptions to the contract's), and `batch.run.job.schema.json` one job line of",
        "`rennet batch --json`. A type that extends another (`MemberFreshness`, a `Freshness` with its",
        "`member`) is `allOf` the other's `$ref` and its own fields. A freshness field past `indexed_at`",
        "(`fingerprint`, `worktree`, `missing_objects`) is left out where it holds the default the schema",
        "gives. A value the index cannot know is the object `{\"unknown\": KIND, \"reason\": ...}` (KIND one",
        "of `not_recorded`, `not_applicable`, `not_assessed`, `redacted`) wherever the value would be, never",
        "`\"\"` or a bare `null`; `null` is kept for what the schema marks optional (no page, no cursor,",
        "no error). After a change to a result type, `python -m context_tools.faces.schemas`",
        "writes them again (a test fails while they are stale). Read one from Python with",
        "`context_tools.faces.schemas.shipped(\"context.symbol.schema.json\")`.", "",
    ]


def _builtin_sections() -> list[str]:
    from context_tools.faces.cli import build_parser

    lines: list[str] = []
    for name, parser in _subparsers(build_parser(Registry(()))).items():
        help_text = _fixed_width(parser, f"rennet {name}").format_help().rstrip()
        lines += [f"### `rennet {name}`", "", "```", help_text, "```", ""]
    return lines


def render(table: Registry) -> str:
    rows = list(table.rows)
    lines = [
        "# The CLI",
        "",
        "<!-- generated by `python -m context_tools.faces.cli_doc > docs/cli.md`; do not edit by hand -->",
        "",
        "Every command is one row of the registry; its CLI verb, `rennet call ID 'JSON'`, the Python",
        "face (`context_tools.call(ID, **input)`) and, for agent-exposed rows, its MCP tool are projections",
        "of that row. This page is written from the same rows `rennet commands --json` prints.",
        "Inputs are the same on every face: a CLI option `--start-line` is the field `start_line`;",
        "a value out of bounds is `bad_input`, its message naming the field `$.start_line`, and the",
        "CLI's line on stderr the option too (`$.start_line` (--start-line)).",
        "`--json` prints the result contract on stdout, a usage error's too (code `usage_error`); exit 0 ok,",
        "1 typed error, 2 usage error, 130 interrupted (a Ctrl-C: `rennet: interrupted` on stderr), 143",
        "or 129 stopped by SIGTERM or SIGHUP (`rennet: interrupted: stopped by SIGTERM`); what was stored is",
        "kept in each: an index stopped so keeps the facts of the blobs it parsed until a few seconds",
        "before, which the next index reuses (docs/store.md, What is crash-safe). A positional",
        "argument is also an option of its name (`rennet index --repo R` is `rennet index R`), and a",
        "list option takes several values (`--paths a b`).",
        "Every command's help ends with two examples that run in any repository (a test runs them).",
        "`rennet --version` names the package, extractor version and store schema;",
        "`rennet completion bash|zsh|fish` prints a completion script made from the same parser.",
        "",
        "| command | CLI | authority | agent | summary |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        entry = row.describe()
        verb = f"`{entry['cli']}`" if entry["cli"] else "-"
        lines.append(f"| [`{entry['id']}`](#{entry['id'].replace('.', '')}) | {verb} | {entry['authority']} | "
                     f"{'yes' if entry['exposure']['agent'] else 'no'} | {_cell(entry['summary'])} |")
    lines += ["", "## Built-in verbs", ""]
    lines += _builtin_sections()
    lines += _schemas_section()
    lines += ["## Commands of the registry", ""]
    from context_tools.faces.cli import build_parser

    root = build_parser(table)
    for row in rows:
        lines += _command_section(row, root)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def main() -> int:
    from context_tools.faces.registry import registry

    sys.stdout.write(render(registry()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
