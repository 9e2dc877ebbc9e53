"""The CLI face: `rennet ...`, built from the registry at start.

Built-in verbs: `rennet commands [--json]`, `rennet call COMMAND_ID 'JSON'`,
`rennet mcp [--http 127.0.0.1:PORT]`. Every runnable CLI-exposed row adds its own
verb path with one option per input field. `--json` prints exactly the result
contract on stdout; logs go to stderr. Exit 0 ok, 1 typed error, 2 usage error, 128 + the
signal's number when a Ctrl-C, SIGTERM or SIGHUP stopped it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence

from msgspec import inspect as mi

from context_tools.faces.errors import OutputFailed
from indexer.contract.errors import RennetError
from indexer.contract.memory_limit import (  # loaded at start: a fault of memory leaves no room to load it
    load_git,
    memory_fault,
    one_malloc_arena,
    too_small,
)

if TYPE_CHECKING:
    import msgspec

    from context_tools.faces.dispatch import Reply
    from context_tools.faces.registry import Command, Registry

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
MAX_INPUT_BYTES = 4 * 1024 * 1024  # JSON input of one command
USAGE_SHOWN = 1000  # characters of a usage error shown: argparse lists an option's choices in it


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit 2, never a traceback."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


# --- building the parser from the registry -------------------------------------------

def _unwrap(t: mi.Type) -> tuple[mi.Type, str]:
    """(inner type info, description) with Metadata and `| None` peeled off."""
    desc = ""
    while True:
        if isinstance(t, mi.Metadata):
            desc = desc or (t.extra_json_schema or {}).get("description", "")
            t = t.type
        elif isinstance(t, mi.UnionType):
            rest = [x for x in t.types if not isinstance(x, mi.NoneType)]
            if len(rest) != 1:
                return t, desc
            t = rest[0]
        else:
            return t, desc


def _json_arg(text: str) -> object:
    from indexer.contract.decode import Undecodable, decode_json

    try:
        return decode_json(text, max_bytes=MAX_INPUT_BYTES)
    except Undecodable as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_field(parser: argparse.ArgumentParser, field: mi.Field, positional: bool, spelled: str | None = None) -> None:
    """One input field as CLI arguments. A positional field is also an option of its name
    (`rennet index REPO` and `rennet index --repo REPO`), so every command names the
    repository, a base or a path the same way; a list takes several values (`--paths a b`)."""
    t, desc = _unwrap(field.type)
    kw: dict[str, Any] = {"help": desc or None}
    dest = field.name
    flag = "--" + dest.replace("_", "-")
    flags = (spelled, flag) if spelled else (flag,)  # the row's spelling first: help shows it
    if isinstance(t, mi.BoolType) and not positional:
        parser.add_argument(*flags, dest=dest, action=argparse.BooleanOptionalAction,
                            default=argparse.SUPPRESS, help=kw["help"])
        return
    size = _size_range(t)
    if size is not None:  # bytes or 64k: parsed here, so a bad one is a usage error like any bad option
        kw.update(type=_size_arg(*size), metavar="BYTES")
        parser.add_argument(flag, dest=dest, default=argparse.SUPPRESS, required=field.required, **kw)
        return
    many = isinstance(t, (mi.ListType, mi.TupleType, mi.VarTupleType, mi.SetType, mi.FrozenSetType))
    if many:
        t, _ = _unwrap(t.item_type) if hasattr(t, "item_type") else (mi.AnyType(), "")
    if isinstance(t, mi.LiteralType):
        kw["choices"] = list(t.values)
        kw["type"] = type(t.values[0])
    elif isinstance(t, mi.IntType):
        kw["type"] = int
    elif isinstance(t, mi.FloatType):
        kw["type"] = float
    elif isinstance(t, mi.StrType):
        kw["type"] = str
    else:
        kw["type"] = _json_arg
        kw["metavar"] = "JSON"
    if positional:
        parser.add_argument(dest, default=argparse.SUPPRESS, nargs="*" if many else "?", **kw)
        several: dict[str, Any] = {"nargs": "+", "action": "extend"} if many else {}
        parser.add_argument(flag, dest=_OPTION + dest, default=argparse.SUPPRESS, **several,
                            **{**kw, "help": f"the same as the positional {dest.upper()}",
                               "metavar": kw.get("metavar", dest.upper())})
    else:
        if many:
            kw["nargs"] = "+"
            kw["action"] = "extend"
        if spelled:
            kw.setdefault("metavar", dest.split("_")[-1].upper())
        parser.add_argument(*flags, dest=dest, default=argparse.SUPPRESS, required=field.required, **kw)


def _size_range(t: mi.Type) -> tuple[int, int] | None:
    """(low, high) of a size field (`indexer.contract.sizes`): an int in range or a string of
    the size pattern; None for any other type."""
    from indexer.contract.sizes import SIZE_PATTERN

    if not isinstance(t, mi.UnionType) or len(t.types) != 2:
        return None
    ints = [x for x in t.types if isinstance(x, mi.IntType)]
    strs = [x for x in t.types if isinstance(x, mi.StrType) and x.pattern == SIZE_PATTERN]
    if not ints or not strs:
        return None
    return ints[0].ge or 0, ints[0].le if ints[0].le is not None else 1 << 62


def _size_arg(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        from indexer.contract.errors import BadInput
        from indexer.contract.sizes import parse_size

        try:
            return parse_size(text, what="", low=low, high=high)  # argparse names the option
        except BadInput as exc:
            raise argparse.ArgumentTypeError(exc.message) from None

    parse.__name__ = "size"
    return parse


_OPTION = "_option_"  # dest prefix of the option spelling of a positional field


def _merge_positionals(ns: dict[str, object], positional: tuple[str, ...], required: tuple[str, ...],
                       verb: str) -> None:
    """Fold `--name VALUE` into the positional NAME it spells; one of them when required."""
    for name in positional:
        option = ns.pop(_OPTION + name, None)
        if option is not None:
            if name in ns and ns[name] not in ([], None):
                raise UsageError(f"rennet {verb}: give {name.upper()} or --{name.replace('_', '-')}, not both")
            ns[name] = option
        elif ns.get(name) == []:
            ns.pop(name)
        if name in required and name not in ns:
            raise UsageError(f"rennet {verb}: the following arguments are required: {name.upper()} "
                             f"(or --{name.replace('_', '-')})")


def _common(parser: argparse.ArgumentParser, json_flag: bool = True) -> None:
    parser.add_argument("--store", metavar="DIR", default=argparse.SUPPRESS,
                        help="store home (default $RENNET_HOME or ~/.rennet); a folder named here is made only by "
                             "a command that writes")
    if json_flag:
        parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                            help="print exactly the result contract as JSON on stdout")


def _verb_words(argv: Sequence[str]) -> list[str]:
    """The leading words of argv that can name a verb path (options and their values skipped)."""
    words, skip = [], False
    for token in argv:
        if skip:
            skip = False
        elif token == "--store":
            skip = True
        elif token.startswith("-"):
            continue
        else:
            words.append(token)
    return words


# Top-level help lists verbs in the order a user meets them, a section each with one sentence.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Index a repository at a rev, then ask its Repo Map for an overview, the ranked map, a file, "
     "a symbol's definitions and references, or what a range introduces.", ("index", "context")),
    ("Review a change: the Delta packet of a range (inventory, hunk ids, fan-in, noise, counterparts) "
     "and the dossier of the issues it references.", ("delta", "dossier")),
    ("Many repositories: read several as one workspace, index many revs in one run, and carry Repo "
     "Maps between machines as bundles.", ("workspace", "batch", "export", "import")),
    ("The store: what it holds and freeing what nothing pins, the revs of a repository it holds, "
     "the receipts of past calls, a snapshot's canonical dump.", ("store", "snapshots", "ledger", "snapshot")),
    ("For programs, agents and shells: the registry, any command JSON in and JSON out, the MCP "
     "server, shell completion.", ("commands", "call", "mcp", "completion")),
)
GROUP_HELP = {
    "context": "Ask a snapshot's Repo Map: overview, map, file, symbol, references, novelty.",
    "workspace": "Several repositories read as one: create, add, remove, sync, list, status.",
    "store": "What the store holds, and freeing what nothing holds.",
    "snapshot": "A snapshot's canonical serialization.",
}
BUILTIN_EXAMPLES = {
    "commands": ("rennet commands", "rennet commands --json"),
    "call": ("rennet call context.overview '{}'", "rennet call context.symbol '{\"name\": \"main\"}'"),
    "mcp": ("rennet mcp", "rennet mcp --http 127.0.0.1:8765"),
    "completion": ("rennet completion bash > ~/.local/share/bash-completion/completions/rennet",
                   "rennet completion fish > ~/.config/fish/completions/rennet.fish"),
}


class HelpFormat(argparse.HelpFormatter):
    """Wraps descriptions as usual; keeps an epilog's lines (examples, the command list) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(("examples:", "commands")):
            return text
        return super()._fill_text(text, width, indent)


def _examples(lines: Sequence[str]) -> str | None:
    return "examples:\n" + "\n".join("  " + x for x in lines) if lines else None


class _Version(argparse.Action):
    """`--version`: the package, the extractor version and the store schema (read when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kw: object) -> None:
        super().__init__(option_strings, dest=dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        from importlib.metadata import PackageNotFoundError, version

        from indexer.store.database import SCHEMA_VERSION
        from indexer.store.versions import snapshot_version

        try:
            number = version("rennet-context")
        except PackageNotFoundError:
            number = "(not installed)"
        sys.stdout.write(f"rennet {number} (extractor {snapshot_version()}, store schema "
                         f"{SCHEMA_VERSION.decode()})\n")
        parser.exit(0)


def _overview(table: Registry) -> str:
    """The top-level epilog: every verb, by section in the order of use."""
    verbs: dict[str, list[tuple[str, str]]] = {}
    for row in ordered_verbs(table.cli_verbs()):
        verbs.setdefault(row.cli_path[0], []).append((" ".join(row.cli_path), row.summary))
    builtin = {"commands": "List the command registry.", "call": "Run any registered command: JSON in, JSON out.",
               "mcp": "Serve the agent-exposed commands over MCP (stdio by default).",
               "completion": "Print a shell completion script (bash, zsh or fish)."}
    for name, summary in builtin.items():
        verbs[name] = [(name, summary)]
    placed = {w for _, words in SECTIONS for w in words}
    sections = list(SECTIONS) + [("Other commands.", tuple(sorted(set(verbs) - placed)))]
    out = ["commands, in the order you meet them:"]
    for sentence, words in sections:
        rows = [r for w in words for r in verbs.get(w, ())]
        if not rows:
            continue
        out += ["", sentence]
        width = max(len(v) for v, _ in rows)
        out += [f"  {v:<{width}}  {_short(summary)}" for v, summary in rows]
    out += ["", "`rennet COMMAND --help` shows a command's options and two examples; --json prints the "
            "result contract.", "", "examples:", "  rennet index", "  rennet context overview"]
    return "\n".join(out)


def _short(summary: str, limit: int = 78) -> str:
    return summary if len(summary) <= limit else summary[: summary.rfind(" ", 0, limit)] + " …"


# Within a group, verbs in the order of use too; others after them, by name.
LEAF_ORDER = ("overview", "map", "symbol", "references", "file", "novelty",  # context
              "create", "add", "status", "sync", "list", "remove",  # workspace
              "info", "gc", "dump")  # store, snapshot


def ordered_verbs(rows: Sequence[Command]) -> list[Command]:
    """Registry rows in the order of use (the order of the top-level help)."""
    order = {w: i for i, w in enumerate(w for _, words in SECTIONS for w in words)}
    leaf = {w: i for i, w in enumerate(LEAF_ORDER)}
    return sorted(rows, key=lambda r: (order.get(r.cli_path[0], len(order)),
                                       tuple(leaf.get(w, len(leaf)) for w in r.cli_path[1:]), r.cli_path))


def build_parser(table: Registry, argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of the whole registry. Given argv, only the verb it names gets its options
    built (reading a Struct's fields costs time a fresh process should not spend on every verb),
    and when it names a whole verb path, no other verb gets a parser at all: the verb's own parser
    alone reads the rest of argv, and every parser made costs a fresh process time."""
    words = _verb_words(argv) if argv is not None else None
    root = _Parser(prog="rennet", description="Rennet Context: Repo Map, Delta packets, context tools.",
                   usage="rennet [--version] [--store DIR] COMMAND ...", formatter_class=HelpFormat,
                   epilog=_overview(table))
    root.add_argument("--version", action=_Version)
    _common(root, json_flag=False)
    # the epilog lists the verbs by section in the order of use: no second, alphabetic list above it
    subs = root.add_subparsers(dest="verb", metavar="COMMAND", prog="rennet", parser_class=_Parser, help=argparse.SUPPRESS)

    def builtin(name: str, help_text: str) -> argparse.ArgumentParser:
        return subs.add_parser(name, help=help_text, description=help_text, formatter_class=HelpFormat,
                               epilog=_examples(BUILTIN_EXAMPLES[name]))

    groups: dict[tuple[str, ...], argparse._SubParsersAction[_Parser]] = {(): subs}
    rows = ordered_verbs(table.cli_verbs())
    named = [r for r in rows if words is not None and tuple(words[: len(r.cli_path)]) == r.cli_path]
    if named:
        rows = named
    firsts = [r.cli_path[0] for r in rows]
    if not named:
        firsts += ["commands", "call", "mcp", "completion"]
    for first in dict.fromkeys(firsts):
        if first == "commands":
            p = builtin("commands", "List the command registry.")
            _common(p)
            p.set_defaults(_builtin="commands")
        elif first == "call":
            p = builtin("call", "Run any registered command: JSON in, JSON out.")
            _common(p, json_flag=False)
            p.add_argument("command_id")
            p.add_argument("input", nargs="?", default="{}", help="JSON object (default {})")
            p.set_defaults(_builtin="call")
        elif first == "mcp":
            p = builtin("mcp", "Serve the agent-exposed commands over MCP (stdio by default).")
            _common(p, json_flag=False)
            p.add_argument("--http", metavar="127.0.0.1:PORT", default=None,
                           help="serve streamable HTTP on a loopback address instead of stdio (a token is required; "
                                "port 0 takes a free port, named on stderr at start)")
            p.add_argument("--ceiling", metavar="BYTES", default=None,
                           help="reply ceiling in bytes, k/M/G suffix accepted in powers of 1024 (default 8k, "
                                "$RENNET_CEILING)")
            p.add_argument("--worktree", action="store_true", default=False,
                           help="answer from the checkout's working tree unless a call names a rev, head or "
                                "workspace (its tools then write working-tree snapshots)")
            p.add_argument("--cache-bytes", metavar="BYTES", default=None,
                           help="byte budget of the answer cache, k/M/G suffix accepted in powers of 1024 (default "
                                "512M, $RENNET_CACHE_BYTES)")
            p.add_argument("--readers", metavar="N", type=int, default=None,
                           help="answer read tools in N reader processes, so reads use every core (default: one "
                                "a core with --http, none on stdio; $RENNET_MCP_READERS)")
            p.add_argument("--root", metavar="DIR", action="append", default=None,
                           help="serve only repositories under DIR (repeatable; default: the current folder)")
            p.add_argument("--token-env", metavar="NAME", default=None,
                           help="with --http: read the bearer token from this environment variable "
                                "(default: generate one and print it once to stderr)")
            p.add_argument("--stop-grace", metavar="SECONDS", default=None,
                           help="once told to stop (over HTTP SIGTERM, SIGHUP, a Ctrl-C; on stdio the end of its "
                                "input), how long calls in flight may still take to answer; the server leaves once they "
                                "have, or at its end (default 5)")
            p.add_argument("--busy-after", metavar="SECONDS", default=None,
                           help="how long a call may wait for another indexer of the store (a `rennet index`, a "
                                "batch, another client), from its request, before it answers `busy`; raise it with "
                                "the client's request timeout (default 45; a TypeScript SDK client and Codex give a "
                                "call 60)")
            p.set_defaults(_builtin="mcp")
        elif first == "completion":
            p = builtin("completion", "Print a shell completion script (bash, zsh or fish).")
            p.add_argument("shell", choices=("bash", "zsh", "fish"))
            p.set_defaults(_builtin="completion")
        else:
            for row in (r for r in rows if r.cli_path[0] == first):
                _add_row(row, groups, words)
    return root


def _add_row(row: Command, groups: dict[tuple[str, ...], argparse._SubParsersAction[_Parser]], words: list[str] | None) -> None:
    path = row.cli_path
    for depth in range(1, len(path)):
        prefix = path[:depth]
        if prefix not in groups:
            text = GROUP_HELP.get(prefix[-1], f"{prefix[-1]} commands")
            group = groups[path[: depth - 1]].add_parser(prefix[-1], help=text, description=text)
            groups[prefix] = group.add_subparsers(dest="verb" + str(depth), metavar="COMMAND",
                                                  parser_class=_Parser)
            group.set_defaults(_group=prefix)
    leaf = groups[path[:-1]].add_parser(
        path[-1], help=row.summary, description=" ".join(x for x in (row.summary, row.description) if x),
        formatter_class=HelpFormat, epilog=_examples(getattr(row, "examples", ())))
    _common(leaf)
    required = tuple(n for n in row.cli.positional if n in row.input.__struct_fields__
                     and n not in _defaults(row.input))
    leaf.set_defaults(_command=row.id, _group=None, _positional=row.cli.positional, _required=required)
    if words is not None and tuple(words[: len(path)]) != path:
        return
    info = mi.type_info(row.input)
    if not isinstance(info, mi.StructType):  # the registry's inputs are Structs
        raise TypeError(f"{row.id}: its input is not a Struct")
    fields = {f.name: f for f in info.fields}
    for name in row.cli.positional:
        _add_field(leaf, fields[name], positional=True)
    spelled = dict(row.cli.flags)
    for name, field in fields.items():
        if name not in row.cli.positional:
            _add_field(leaf, field, positional=False, spelled=spelled.get(name))


def _defaults(struct: type[msgspec.Struct]) -> set[str]:
    """Fields of a Struct type that have a default."""
    names = struct.__struct_fields__
    return set(names[len(names) - len(struct.__struct_defaults__):])


# --- running --------------------------------------------------------------------------

_SKIP = {"verb", "_builtin", "_command", "_group", "_positional", "_required", "store", "json"}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    words = _verb_words(argv)
    _CALL_ANSWERED.clear()
    try:
        code = _main_or_interrupt(argv)
    except UsageError as exc:
        from context_tools.faces.sanitize import sanitize_line

        # argparse quotes the arguments as they came: a control or a bidi mark in one is escaped
        usage = sanitize_line(str(exc), USAGE_SHOWN)
        if words[:1] == ["call"]:  # `call` answers in its envelope, a usage error too
            _write_call_envelope(words[1] if len(words) > 1 else "call", "bad_input", usage)
        elif "--json" in argv:  # like every other error: the envelope on stdout, the line on stderr
            _write_error_envelope(argv, "usage_error", usage)
        print(f"{usage} (see --help)", file=sys.stderr)
        code = EXIT_USAGE
    except KeyboardInterrupt as exc:  # a Ctrl-C, or SIGTERM or SIGHUP (`stop_on_signals`)
        from context_tools.faces.standard_streams import interrupted, stopped_by

        code = interrupted(stopped_by(exc))
    except BrokenPipeError:
        code = EXIT_OK
    except OutputFailed as exc:
        print(f"rennet: {exc}", file=sys.stderr)
        code = EXIT_ERROR
    except RennetError as exc:  # typed, raised around a command rather than in it (a setting's value)
        from context_tools.faces.sanitize import sanitize_line

        message = sanitize_line(exc.message)
        if words[:1] == ["call"] and not _CALL_ANSWERED:
            _write_call_envelope(words[1] if len(words) > 1 else "call", exc.code, message)
        elif "--json" in argv and words[:1] != ["call"]:
            _write_error_envelope(argv, exc.code, message)
        print(f"rennet: {exc.code}: {message}", file=sys.stderr)
        code = EXIT_ERROR
    except Exception as exc:  # the last net: one typed line, never a traceback
        try:
            from context_tools.faces.sanitize import sanitize_line
            from indexer.contract.local_paths import folder_gone
        except Exception as failed:  # no room left to load them: the limit's own line, in our words
            if not isinstance(failed, MemoryError) and memory_fault(failed) is None:  # a SystemError of a lost one
                raise
            short = memory_fault(exc)
            print(f"rennet: {short.code}: {short.message}" if short else "rennet: internal_error: MemoryError",
                  file=sys.stderr)
            return _flushed(EXIT_ERROR)
        # taken before any command ran: the store's folder, the MCP roots; or the interpreter's
        # own start, its imports, under a `ulimit -v` too small for them
        gone = folder_gone(exc) or memory_fault(exc)
        kind, message = (gone.code, gone.message) if gone else ("internal_error", f"{type(exc).__name__}: {exc}")
        message = sanitize_line(message)
        print(f"rennet: {kind}: {message}", file=sys.stderr)
        if words[:1] == ["call"] and not _CALL_ANSWERED:
            _write_call_envelope(words[1] if len(words) > 1 else "call", kind, message)
        elif gone and "--json" in argv and words[:1] != ["call"]:
            _write_error_envelope(argv, kind, message)
        code = EXIT_ERROR
    return _flushed(code)


def _main_or_interrupt(argv: list[str]) -> int:
    """`_main`, where a failure raised while unwinding from a Ctrl-C (or SIGTERM, SIGHUP) is
    that Ctrl-C again (`interrupt_behind`)."""
    try:
        return _main(argv)
    except Exception as exc:
        from context_tools.faces.standard_streams import interrupt_behind

        stop = interrupt_behind(exc)
        if stop is None:
            raise
        raise stop from None


def _flushed(code: int) -> int:
    """`code` once standard output is flushed, or EXIT_ERROR when it could not be written."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except OutputFailed as exc:
        print(f"rennet: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return code


def _write_json(wire: bytes) -> None:
    """One JSON result on standard output, on a line of its own (escaped for a terminal: `json_for_stdout`)."""
    from context_tools.faces.sanitize import json_for_stdout

    sys.stdout.buffer.write(json_for_stdout(wire) + b"\n")


_CALL_ANSWERED: list[bool] = []  # not empty once this run of `rennet call` has written its envelope


def _write_call_envelope(command_id: str, code: str, message: str) -> None:
    from context_tools.faces.dispatch import encode_wire
    from indexer.contract.result import error_envelope

    _write_json(encode_wire(error_envelope(command_id, code, message)))
    _CALL_ANSWERED.append(True)


def _write_error_envelope(argv: Sequence[str], code: str, message: str) -> None:
    from context_tools.faces.dispatch import encode_wire
    from indexer.contract.result import error_envelope

    _write_json(encode_wire(error_envelope(_command_named(argv), code, message)))


def _command_named(argv: Sequence[str]) -> str:
    """The command id argv names (for an error envelope), or "rennet" when it names none."""
    from context_tools.faces.errors import RegistryError
    from context_tools.faces.registry import registry

    words = tuple(_verb_words(argv))
    try:
        rows = registry().cli_verbs()
    except RegistryError:
        rows = ()
    for row in rows:
        if words[: len(row.cli_path)] == row.cli_path:
            return row.id
    return words[0] if words and words[0] in BUILTIN_EXAMPLES else "rennet"


def run() -> NoReturn:
    """The `rennet` command, as the console script runs it once its entry (`script.py`) has imported this."""
    from context_tools.faces.quick_exit import quick_exit
    from context_tools.faces.standard_streams import reopen_closed, stop_on_signals, typed_output
    from indexer.rank import hold_blas_pool

    one_malloc_arena()  # before any thread, under a `ulimit -v`
    stop_on_signals()  # SIGTERM and SIGHUP end a command as a Ctrl-C does
    reopen_closed()  # before any file is opened, so none takes a standard descriptor's place
    typed_output()
    hold_blas_pool()
    load_git()  # under a `ulimit -v`, while the command has taken none of the room
    short = _short_line()
    ran_short = False
    try:
        code = main()
    except SystemExit as exc:  # argparse's after --help or --version: its text flushed here too
        code = _flushed(exc.code if isinstance(exc.code, int) else EXIT_OK if exc.code is None else EXIT_ERROR)
    except MemoryError:  # typing a lack of memory ran short too: the line made at the start
        if not short:
            raise
        ran_short = True
    if ran_short:  # out of the handler, so that what the command held is let go first
        os.write(2, short)
        code = EXIT_ERROR
    quick_exit(code)


def _short_line() -> bytes:
    """The `out_of_memory` line of this process's address-space limit, encoded now, while there
    is room: a command can run so short of memory that typing its failure does too. Empty
    without a limit."""
    short = too_small()
    return b"" if short is None else f"rennet: {short.code}: {short.message}\n".encode()


def _main(argv: list[str]) -> int:
    from context_tools.faces.errors import RegistryError
    from indexer.pipeline.collector import collector_paused

    # The start makes many objects that live as long as the process (the packs' modules, the
    # registry's rows) and next to no garbage: the cyclic collector's young passes over them
    # would only cost time (indexer/pipeline/collector.py).
    with collector_paused():
        from context_tools.faces.registry import registry

        try:
            table = registry()
        except RegistryError as exc:
            print(f"rennet: {exc.code}: {exc.message}", file=sys.stderr)
            words = _verb_words(argv)
            if words[:1] == ["call"]:
                _write_call_envelope(words[1] if len(words) > 1 else "call", exc.code, exc.message)
            return EXIT_ERROR
        parser = build_parser(table, argv)
        if not argv:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        args = parser.parse_args(argv)
    from indexer.contract.limits import limits

    limits()  # a bad `$RENNET_LIMITS` is told before any work, whichever command reads trees
    ns = vars(args)
    store = ns.get("store")
    builtin = ns.get("_builtin")
    if builtin == "commands":
        return _commands(table, bool(ns.get("json")))
    if builtin == "call":
        return _call(ns["command_id"], ns["input"], store)
    if builtin == "completion":
        return _completion(build_parser(table), ns["shell"])
    if builtin == "mcp":
        from context_tools.faces.mcp import serve

        return serve(store=store, http=ns.get("http"), ceiling=ns.get("ceiling"), roots=ns.get("root") or (),
                     token_env=ns.get("token_env"), cache_bytes=ns.get("cache_bytes"),
                     worktree=ns.get("worktree", False), readers=ns.get("readers"),
                     stop_grace=ns.get("stop_grace"), busy_after=ns.get("busy_after"))
    command = ns.get("_command")
    if command is None:
        group = ns.get("_group") or ()
        raise UsageError(f"rennet {' '.join(group)}: a command is required".replace("  ", " "))
    _merge_positionals(ns, ns.get("_positional", ()), ns.get("_required", ()),
                       " ".join(table.get(command).cli_path))
    raw = {k: v for k, v in ns.items() if k not in _SKIP and not k.startswith("verb")}
    with collector_paused():  # modules imported for good, as above
        from context_tools.faces.dispatch import Executor
        from context_tools.faces.progress import on_the_way, waiting_once
        from indexer.api import show_indexing

    # a read that indexes first says so (a bar on a terminal, else one line), and so does a wait
    show_indexing(on_the_way, waiting_once())

    reply = Executor("cli", store=store, settle="never", named=True).run(command, raw,
                                                                        extras={"json": bool(ns.get("json"))})
    return _print_reply(reply, table.get(command), bool(ns.get("json")))


def _print_reply(reply: Reply, row: Command, as_json: bool) -> int:
    from context_tools.faces.dispatch import encode_wire

    if as_json:
        _write_json(encode_wire(reply.wire))
    elif reply.result is not None:  # the reply is `ok`: a failed one holds no result
        from context_tools.faces.render import render_result

        text = row.render(reply.result) if row.render is not None else render_result(reply.result)
        sys.stdout.write(text.rstrip("\n") + "\n")
    if not reply.ok:
        err = reply.envelope["error"]
        print(f"rennet: {err['code']}: {_option_named(err['message'], row)}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


_FIELD_AT = re.compile(r"- at `\$\.([a-z_]+)`")


def _option_named(message: str, row: Command) -> str:
    """An input's JSON path (`$.jobs`, as every face's message says it) with the option the
    command line spells it as, so a user of the CLI reads the flag they typed."""
    def named(match: re.Match[str]) -> str:
        field = match.group(1)
        if field not in row.input.__struct_fields__:
            return match.group(0)
        flag = dict(row.cli.flags).get(field, "--" + field.replace("_", "-"))
        return f"{match.group(0)} ({flag})"

    return _FIELD_AT.sub(named, message)


def _call(command_id: str, text: str, store: str | None) -> int:
    from context_tools.faces.dispatch import Executor, encode_wire
    from indexer.contract.decode import Undecodable, decode_json

    try:
        raw = decode_json(text, max_bytes=MAX_INPUT_BYTES)
    except Undecodable as exc:
        message = f"input is {exc}" if str(exc).startswith("not ") else f"input is not usable JSON: {exc}"
        _write_call_envelope(command_id, "bad_input", message)
        print(f"rennet: bad_input: {message}", file=sys.stderr)
        return EXIT_ERROR
    reply = Executor("cli", store=store, settle="never", named=True).run(command_id, raw)
    _write_json(encode_wire(reply.wire))
    _CALL_ANSWERED.append(True)
    if not reply.ok:
        err = reply.envelope["error"]
        print(f"rennet: {err['code']}: {err['message']}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _commands(table: Registry, as_json: bool) -> int:
    rows = [row.describe() for row in table.rows]
    if as_json:
        from context_tools.faces.dispatch import encode_wire

        envelope = {"ok": True, "command": "commands", "data": {"commands": rows},
                    "freshness": None, "page": {"total": len(rows), "returned": len(rows),
                                                "truncated": False, "cursor": None}}
        _write_json(encode_wire(envelope))
        return EXIT_OK
    from context_tools.faces.tables import table as draw

    cells = [[r["id"], r["cli"] or "-", r["authority"],
              ",".join(k for k in ("cli", "agent") if r["exposure"][k]) or "-",
              r["maturity"] if r["runnable"] else f"{r['maturity']} (not runnable)",
              r["summary"] + (f" (unavailable: {r['unavailable']})" if r["unavailable"] else "")] for r in rows]
    print(draw(["command", "verb", "authority", "exposure", "maturity", "summary"], cells))
    return EXIT_OK


def _completion(parser: argparse.ArgumentParser, shell: str) -> int:
    """A completion script of every verb and option, written by shtab from the parser itself."""
    import shtab

    for action in parser._actions:  # the root hides its verb list from --help (its epilog lists them), not from shtab
        if isinstance(action, argparse._SubParsersAction):
            action.help = None
    sys.stdout.write(shtab.complete(parser, shell=shell).rstrip("\n") + "\n")
    return EXIT_OK


if __name__ == "__main__":
    run()
