"""The command registry: one row per command, merged from packs.

Every face (CLI verbs, `rennet call`, the MCP server, `context_tools.call`) is a
projection of this table; nothing is listed per face by hand.

Writing a pack
--------------
A pack is a module named in `context_tools/faces/packs/__init__.py` that exposes either
`ROWS` (an iterable of `Command`) or `register()` returning one. Keep its
top-level imports light (msgspec, this module, `indexer.contract.result`,
`indexer.contract.errors`); import heavy things (pygit2, networkx, tree-sitter, the
store) inside the handler, so `rennet ... --json` starts fast.

    from typing import Annotated
    import msgspec
    from context_tools.faces.registry import Command, CliShape, Exposure
    from indexer.contract.result import Result

    class EchoInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
        text: Annotated[str, msgspec.Meta(description="what to echo")]
        times: int = 1

    class Echo(msgspec.Struct):
        text: str

    def echo(input: EchoInput, ctx) -> Result:          # ctx: context_tools.faces.context.CallContext
        return Result(data=Echo(input.text * input.times))

    ROWS = (
        Command(
            id="demo.echo",                            # <domain>.<verb>, unique across all packs
            summary="Echo a text.",
            input=EchoInput,                           # JSON Schema is derived from it
            handler=echo,
            authority="read",                          # "read" observes, "write" mutates durable state
            exposure=Exposure(cli=True, agent=False),  # CLI verb? MCP tool?
            maturity="stable",                         # "stable" | "experimental" | "planned"
            caps={"items": 50},                        # per-command caps, read by the handler
            cli=CliShape(path=("demo", "echo"), positional=("text",)),  # `rennet demo echo TEXT`
        ),
    )

Handler contract: `handler(input, ctx) -> Result` where `input` is the
decoded Struct and `ctx` a `CallContext` (store opened lazily, surface,
ceiling, caps, cursor helpers). Expected failures raise an
`indexer.contract.errors.RennetError` subclass; every face turns it into
`{"ok": false, "command", "error": {"code", "message"}}`. Input Structs must
set `forbid_unknown_fields=True` (checked at load). A row with
`maturity="planned"` may have `handler=None`: it is listed by
`rennet commands` but runs nowhere.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Mapping

import msgspec

from context_tools.faces.errors import RegistryError, Unavailable, UnknownCommand

if TYPE_CHECKING:
    from context_tools.faces.context import CallContext
    from indexer.contract.result import Result

SURFACES = ("cli", "mcp", "python")
_ID = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-zA-Z0-9_]*$")
# The tool names Claude Desktop, claude.ai, Copilot and Codex accept; a dotted id is refused there.
WIRE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def wire_name(command_id: str) -> str:
    """The one rule from a command id to its MCP tool name: `context.symbol` -> `context_symbol`.
    Ids stay dotted everywhere else (CLI, `rennet call`, the Python face)."""
    return command_id.replace(".", "_")


class Exposure(msgspec.Struct, frozen=True):
    """Decided per row: does the CLI grow a verb for it, is it an MCP tool for agents."""

    cli: bool = True
    agent: bool = False


class CliShape(msgspec.Struct, frozen=True):
    """How the command looks on the command line.

    `path` is the verb path (`("context", "symbol")` -> `rennet context symbol`);
    None derives it from the id (`demo.echo` -> `rennet demo echo`). `positional`
    names input fields taken as positional arguments, in order. `flags` spells a field's option
    otherwise than its name (`("from_file", "--from")`); the name's spelling still works."""

    path: tuple[str, ...] | None = None
    positional: tuple[str, ...] = ()
    flags: tuple[tuple[str, str], ...] = ()


class Command(msgspec.Struct, frozen=True):
    id: str
    summary: str
    input: type[msgspec.Struct]
    # (input, context) -> Result; the input is the row's own `input` Struct, which a Callable
    # type cannot name per row (a handler of FooInput is no handler of every Struct)
    handler: Callable[[Any, CallContext], Result] | None
    authority: Literal["read", "write"] = "read"
    exposure: Exposure = Exposure()
    maturity: Literal["stable", "experimental", "planned"] = "stable"
    surfaces: tuple[str, ...] = SURFACES  # where a backend exists to run it
    caps: Mapping[str, int] = msgspec.field(default_factory=dict)
    cli: CliShape = CliShape()
    render: Callable[[Result], str] | None = None  # human rendering of a Result for the CLI
    description: str = ""  # longer help; the summary is one line
    title: str = ""  # a human title, shown by MCP clients; required for agent-exposed rows
    # The types `Result.data` takes, as types or "module:Name" references (imported only when a schema
    # is derived, so loading the registry stays cheap); one schema serves MCP and the shipped files.
    output: tuple[type | str, ...] = ()
    open_world: bool = False  # reaches beyond the machine (a tracker's API): MCP's openWorldHint
    # removes or overwrites what earlier calls wrote (the user's own on the CLI too), beyond
    # adding to the store: MCP's destructiveHint, which a client may read to ask before a call
    destructive: bool = False
    # Input fields left out of the MCP tool's input schema: the user's own settings an agent may
    # not set, or the terminal's (a progress bar). Sent anyway, the handler decides (refused, or
    # of no effect there); an agent is not shown what it cannot use.
    agent_omits: tuple[str, ...] = ()
    # Two command lines that run on any repository (from its folder), shown at the end of the
    # verb's help and in docs/cli.md; a test runs each against a fixture repository.
    examples: tuple[str, ...] = ()

    @property
    def cli_path(self) -> tuple[str, ...]:
        return self.cli.path if self.cli.path is not None else tuple(self.id.split("."))

    @property
    def wire_name(self) -> str:
        return wire_name(self.id)

    @property
    def runnable(self) -> bool:
        return self.maturity != "planned" and self.handler is not None

    def availability(self, surface: str) -> Unavailable | None:
        """None when the command runs on `surface`, else the typed reason it does not."""
        if not self.runnable:
            return Unavailable(f"{self.id} is planned and not implemented on any surface",
                               reason="not_implemented")
        if surface not in self.surfaces:
            works = tuple(s for s in SURFACES if s in self.surfaces)
            return Unavailable(f"{self.id} is not available on {surface}; it runs on: {', '.join(works)}",
                               reason="surface_not_supported", available_on=works)
        return None

    def input_schema(self, omit: Iterable[str] = ()) -> dict[str, Any]:
        """The JSON Schema of the input, with the top-level object inlined (MCP wants `type: object`),
        less the fields in `omit` (see `agent_schema`).
        Derived on demand (not at load, to keep a CLI start cheap); `rennet commands`, the MCP face
        and the registry tests derive every row's, so a malformed input type cannot go unnoticed."""
        try:
            raw = msgspec.json.schema(self.input)
        except (TypeError, ValueError) as exc:
            raise RegistryError(f"{self.id}: input {self.input.__name__} has no JSON Schema ({exc}); msgspec "
                                "wants Annotated[int, Meta(ge=1)] | None, not Annotated[int | None, Meta(...)]") from None
        defs = dict(raw.get("$defs", {}))
        ref = raw.get("$ref", "")
        top = defs.pop(ref.rsplit("/", 1)[-1]) if ref.startswith("#/$defs/") else raw
        schema = dict(top)
        schema.pop("title", None)
        left = set(omit)
        schema["properties"] = {name: _typed(_hoisted(prop)) for name, prop in schema.get("properties", {}).items()
                                if name not in left}
        if left and "required" in schema:
            schema["required"] = [name for name in schema["required"] if name not in left]
        if defs:
            schema["$defs"] = defs
        from context_tools.faces.wire_schema import as_written

        return as_written(schema)

    def agent_schema(self, worktree: bool = False) -> dict[str, Any]:
        """The input schema an MCP client is shown: less `agent_omits`, and less `worktree` for a
        read tool unless the server was started with `--worktree` (a read there writes nothing,
        and a working-tree answer would index)."""
        omit = set(self.agent_omits)
        if self.authority == "read" and not worktree:
            omit.add("worktree")
        return self.input_schema(omit)

    def listed_schema(self, worktree: bool = False) -> dict[str, Any]:
        """The input schema `tools/list` shows: `agent_schema` with each optional field as its own
        type. Several clients flatten an `anyOf` to a string before their model sees it, so
        `limit` showed as text; null still reads as omitted where a call is checked."""
        schema = self.agent_schema(worktree)
        schema["properties"] = {name: _without_null(prop) for name, prop in schema["properties"].items()}
        if worktree and "worktree" in schema["properties"]:
            _working_tree_default(schema["properties"])
        return schema

    def output_schema(self) -> dict[str, Any]:
        """The JSON Schema of what a face sends back: the result contract, its error form, or
        the spill envelope a reply over the ceiling becomes (see `context_tools.faces.wire_schema`).
        The same schema ships as `context_tools/faces/schemas/<id>.schema.json`."""
        from context_tools.faces.wire_schema import reply_schema

        return reply_schema(self.id, self.output_types())

    def output_types(self) -> tuple[type, ...]:
        """The declared types of `Result.data`, references imported."""
        return tuple(_resolve(ref) for ref in self.output)

    def describe(self) -> dict[str, Any]:
        """The catalog entry `rennet commands --json` prints."""
        return {
            "id": self.id,
            "summary": self.summary,
            "authority": self.authority,
            "exposure": {"cli": self.exposure.cli, "agent": self.exposure.agent},
            "maturity": self.maturity,
            "surfaces": list(self.surfaces),
            "runnable": self.runnable,
            "caps": dict(self.caps),
            "cli": " ".join(("rennet",) + self.cli_path) if self.exposure.cli and self.runnable else None,
            "mcp": self.wire_name if self.exposure.agent else None,
            "unavailable": _reason(self),
            "examples": list(self.examples),
            "input_schema": self.input_schema(),
        }


def _hoisted(prop: dict[str, Any]) -> dict[str, Any]:
    """A property with its description (and examples) at its own top level: msgspec leaves the
    description of an optional or union field inside the `anyOf` branch that carries it, where
    clients that read `properties.X.description` (every one we know) never look."""
    branches = prop.get("anyOf")
    if not branches or "description" in prop:
        return prop
    out = dict(prop)
    new_branches = []
    for branch in branches:
        branch = dict(branch)
        for key in ("description", "examples"):
            if key in branch:
                out.setdefault(key, branch.pop(key))
        if set(branch) == {"anyOf"}:  # a described union inside an optional: one flat list of branches
            new_branches.extend(branch["anyOf"])
        else:
            new_branches.append(branch)
    out["anyOf"] = new_branches
    return {k: out[k] for k in sorted(out, key=lambda k: k != "description")}  # description first, as elsewhere


def _typed(node: dict[str, Any]) -> dict[str, Any]:
    """`node` with `type: string` beside each `enum` of strings that has none (msgspec writes a
    `Literal` as a bare `enum`). Clients that hand a tool's schema to Gemini as its OpenAPI subset
    want a type on every node, and the API refused the whole request over one without."""
    out = dict(node)
    if "enum" in out and "type" not in out and all(isinstance(value, str) for value in out["enum"]):
        out["type"] = "string"
    if "anyOf" in out:
        out["anyOf"] = [_typed(branch) for branch in out["anyOf"]]
    if isinstance(out.get("items"), dict):
        out["items"] = _typed(out["items"])
    return out


# How a rev's own description names its default, and what a `--worktree` server's says instead
_DEFAULT_HEAD = "(default HEAD)"
_DEFAULT_WORKTREE = "(default: the working tree, as `worktree`)"


def _working_tree_default(props: dict[str, Any]) -> None:
    """A `--worktree` server reads the working tree where a call names no rev, head or workspace
    (`dispatch.worktree_default`): its listed `worktree` defaults to true, and `rev` or `head`
    to the working tree, not HEAD, so the schema an agent reads says what the server does."""
    props["worktree"] = {**props["worktree"], "default": True}
    for name in ("rev", "head"):
        prop = props.get(name)
        if prop is not None and _DEFAULT_HEAD in prop.get("description", ""):
            props[name] = {key: (value.replace(_DEFAULT_HEAD, _DEFAULT_WORKTREE) if key == "description" else value)
                           for key, value in prop.items() if key != "default"}


def _without_null(prop: dict[str, Any]) -> dict[str, Any]:
    """An optional field (`T | None`, default null) as `T` and no default: leaving it out is
    how a call says null."""
    branches = prop.get("anyOf")
    if not branches or prop.get("default", ...) is not None or {"type": "null"} not in branches:
        return prop
    kept = [branch for branch in branches if branch != {"type": "null"}]
    out = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
    if len(kept) == 1:
        out.update(kept[0])
    else:
        out["anyOf"] = kept
    return out


def _resolve(ref: type | str) -> type:
    if not isinstance(ref, str):
        return ref
    module, _, name = ref.partition(":")
    found = getattr(importlib.import_module(module), name, None)
    if not isinstance(found, type):
        raise RegistryError(f"output {ref!r} names no type")
    return found


def _reason(row: Command) -> str | None:
    """Why a row is not served on a surface it is exposed on, for `rennet commands`."""
    for surface, exposed in (("cli", row.exposure.cli), ("mcp", row.exposure.agent)):
        if exposed:
            unavailable = row.availability(surface)
            if unavailable is not None:
                return unavailable.message
    return None


class Registry:
    """The merged, validated table. Rows are kept sorted by id."""

    def __init__(self, rows: Iterable[Command]) -> None:
        by_id: dict[str, Command] = {}
        by_wire: dict[str, str] = {}
        cli_paths: dict[tuple[str, ...], str] = {}
        for row in rows:
            _validate(row)
            if row.id in by_id:
                raise RegistryError(f"duplicate command id {row.id!r}")
            by_id[row.id] = row
            name = row.wire_name
            if not WIRE_NAME.match(name):
                raise RegistryError(f"{row.id}: MCP name {name!r} does not match {WIRE_NAME.pattern}")
            if name in by_wire:
                raise RegistryError(f"MCP name {name!r} claimed by {by_wire[name]} and {row.id}")
            by_wire[name] = row.id
            if row.exposure.cli and row.runnable:
                path = row.cli_path
                if path in cli_paths:
                    raise RegistryError(f"CLI verb {' '.join(path)!r} claimed by {cli_paths[path]} and {row.id}")
                cli_paths[path] = row.id
        _check_prefix_clashes(cli_paths)
        self._rows = {k: by_id[k] for k in sorted(by_id)}

    @property
    def rows(self) -> tuple[Command, ...]:
        return tuple(self._rows.values())

    def get(self, command_id: str) -> Command:
        row = self._rows.get(command_id)
        if row is None:
            raise UnknownCommand(f"no command {command_id!r} (see `rennet commands`)")
        return row

    def __contains__(self, command_id: str) -> bool:
        return command_id in self._rows

    def by_wire_name(self, name: str) -> Command | None:
        """The agent tool advertised under `name`, or None: only advertised names are callable over MCP."""
        for row in self.agent_tools():
            if row.wire_name == name:
                return row
        return None

    def agent_tools(self) -> tuple[Command, ...]:
        """Exactly what the MCP server lists: agent-exposed rows that run on MCP."""
        return tuple(r for r in self._rows.values()
                     if r.exposure.agent and r.availability("mcp") is None)

    def cli_verbs(self) -> tuple[Command, ...]:
        """Rows that get their own CLI verb: CLI-exposed rows that run on the CLI."""
        return tuple(r for r in self._rows.values()
                     if r.exposure.cli and r.availability("cli") is None)


_RESERVED_VERBS = {"commands", "call", "mcp", "completion"}
_RESERVED_FIELDS = {"json", "store", "help"}


def _validate(row: Command) -> None:
    if not _ID.match(row.id):
        raise RegistryError(f"command id {row.id!r} is not of the form <domain>.<verb>")
    if not row.summary or "\n" in row.summary:
        raise RegistryError(f"{row.id}: summary must be one non-empty line")
    if not (isinstance(row.input, type) and issubclass(row.input, msgspec.Struct)):
        raise RegistryError(f"{row.id}: input must be a msgspec Struct type")
    if not row.input.__struct_config__.forbid_unknown_fields:
        raise RegistryError(f"{row.id}: input Struct must set forbid_unknown_fields=True")
    if row.authority not in ("read", "write"):
        raise RegistryError(f"{row.id}: authority must be read or write")
    if row.maturity not in ("stable", "experimental", "planned"):
        raise RegistryError(f"{row.id}: maturity must be stable, experimental or planned")
    if row.maturity != "planned" and row.handler is None:
        raise RegistryError(f"{row.id}: a {row.maturity} row needs a handler")
    unknown_surfaces = set(row.surfaces) - set(SURFACES)
    if unknown_surfaces:
        raise RegistryError(f"{row.id}: unknown surfaces {sorted(unknown_surfaces)}")
    if row.exposure.agent and "mcp" not in row.surfaces:
        raise RegistryError(f"{row.id}: agent-exposed but the mcp surface is not supported")
    if row.exposure.agent and not row.title:
        raise RegistryError(f"{row.id}: an agent-exposed row needs a title")
    if row.exposure.cli and "cli" not in row.surfaces:
        raise RegistryError(f"{row.id}: cli-exposed but the cli surface is not supported")
    fields = set(row.input.__struct_fields__)
    optional = {f.name for f in msgspec.structs.fields(row.input) if not f.required}
    for name in row.agent_omits:
        if name not in optional or not row.exposure.agent:
            raise RegistryError(f"{row.id}: agent_omits names {name!r}, which is no optional input field of an "
                                "agent tool (a client shown no such field could not give a required one)")
    for name in row.cli.positional:
        if name not in fields:
            raise RegistryError(f"{row.id}: positional {name!r} is not an input field")
    spellings = {"--" + f.replace("_", "-") for f in fields}
    for name, flag in row.cli.flags:
        if name not in fields or name in row.cli.positional:
            raise RegistryError(f"{row.id}: flag {flag!r} spells {name!r}, which is not an option field")
        if not flag.startswith("--") or flag in spellings:
            raise RegistryError(f"{row.id}: flag {flag!r} is not a long option of its own")
    clash = fields & _RESERVED_FIELDS
    if row.exposure.cli and clash:
        raise RegistryError(f"{row.id}: input fields {sorted(clash)} clash with global CLI options")
    path = row.cli_path
    if not path or path[0] in _RESERVED_VERBS:
        raise RegistryError(f"{row.id}: CLI path {path!r} is empty or reserved")
    msgspec.structs.force_setattr(row, "caps", MappingProxyType(dict(row.caps)))


def _check_prefix_clashes(cli_paths: dict[tuple[str, ...], str]) -> None:
    """`rennet delta` and `rennet delta x` cannot both be verbs: argparse cannot tell them apart."""
    for path, owner in cli_paths.items():
        for other, other_owner in cli_paths.items():
            if other != path and other[: len(path)] == path:
                raise RegistryError(f"CLI verb {' '.join(path)!r} ({owner}) is a prefix of "
                                    f"{' '.join(other)!r} ({other_owner})")


def rows_of(module: ModuleType) -> tuple[Command, ...]:
    if hasattr(module, "register"):
        rows = module.register()
    elif hasattr(module, "ROWS"):
        rows = module.ROWS
    else:
        raise RegistryError(f"pack {module.__name__} exposes neither ROWS nor register()")
    rows = tuple(rows)
    for row in rows:
        if not isinstance(row, Command):
            raise RegistryError(f"pack {module.__name__} yielded {type(row).__name__}, not a Command")
    return rows


def load_packs(names: Iterable[str]) -> Registry:
    """Import each pack and merge its rows. A pack module that does not exist on disk yet is
    skipped; an error raised inside an existing pack propagates."""
    rows: list[Command] = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:  # the parent package itself is absent
            spec = None
        if spec is None:
            continue
        rows.extend(rows_of(importlib.import_module(name)))
    return Registry(rows)


_REGISTRY: Registry | None = None


def registry() -> Registry:
    """The process-wide registry, loaded once from `context_tools.faces.packs.PACKS`."""
    global _REGISTRY
    if _REGISTRY is None:
        from context_tools.faces.packs import PACKS

        _REGISTRY = load_packs(PACKS)
    return _REGISTRY
