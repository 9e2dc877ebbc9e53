"""The CLI face: `rennet ...`, built from the registry at start.

Built-in verbs: `rennet commands [--json]`, `rennet call COMMAND_ID 'JSON'`,
`rennet mcp [--http 127.0.0.1:PORT]`. Every runnable CLI-exposed row adds its own
verb path with one option per input field. `--json` prints exactly the result
contract on stdout; logs go to stderr. Exit 0 ok, 1 typed error, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn, Sequence

from msgspec import inspect as mi

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
MAX_INPUT_BYTES = 4 * 1024 * 1024  # JSON input of one command


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit 2, never a traceback."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


# --- building the parser from the registry -------------------------------------------

def _unwrap(t: Any) -> tuple[Any, str]:
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


def _json_arg(text: str) -> Any:
    from indexer.contract.decode import Undecodable, decode_json

    try:
        return decode_json(text, max_bytes=MAX_INPUT_BYTES)
    except Undecodable as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_field(parser: argparse.ArgumentParser, field: Any, positional: bool) -> None:
    t, desc = _unwrap(field.type)
    kw: dict[str, Any] = {"help": desc or None}
    dest = field.name
    if isinstance(t, mi.BoolType) and not positional:
        parser.add_argument("--" + dest.replace("_", "-"), dest=dest, action=argparse.BooleanOptionalAction,
                            default=argparse.SUPPRESS, help=kw["help"])
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
        if many:
            kw["nargs"] = "+" if field.required else "*"
        elif not field.required:
            kw["nargs"] = "?"
        parser.add_argument(dest, default=argparse.SUPPRESS, **kw)
    else:
        if many:
            kw["action"] = "append"
        parser.add_argument("--" + dest.replace("_", "-"), dest=dest, default=argparse.SUPPRESS,
                            required=field.required, **kw)


def _common(parser: argparse.ArgumentParser, json_flag: bool = True) -> None:
    parser.add_argument("--store", metavar="DIR", default=argparse.SUPPRESS,
                        help="store home (default $RENNET_HOME or ~/.rennet)")
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


def build_parser(table: Any, argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of the whole registry. Given argv, only the verb it names gets its options
    built (reading a Struct's fields costs time a fresh process should not spend on every verb)."""
    words = _verb_words(argv) if argv is not None else None
    root = _Parser(prog="rennet", description="Rennet Context: Repo Map, Delta packets, context tools.")
    _common(root, json_flag=False)
    subs = root.add_subparsers(dest="verb", metavar="COMMAND", parser_class=_Parser)

    p = subs.add_parser("commands", help="list the command registry")
    _common(p)
    p.set_defaults(_builtin="commands")
    p = subs.add_parser("call", help="run any registered command: JSON in, JSON out")
    _common(p, json_flag=False)
    p.add_argument("command_id")
    p.add_argument("input", nargs="?", default="{}", help="JSON object (default {})")
    p.set_defaults(_builtin="call")
    p = subs.add_parser("mcp", help="serve the agent-exposed commands over MCP (stdio by default)")
    _common(p, json_flag=False)
    p.add_argument("--http", metavar="127.0.0.1:PORT", default=None,
                   help="serve streamable HTTP on a loopback address instead of stdio (a token is required)")
    p.add_argument("--ceiling", type=int, default=None, help="reply ceiling in bytes (default 8192)")
    p.add_argument("--worktree", action="store_true", default=False,
                   help="answer from the checkout's working tree unless a call names a rev, head or workspace")
    p.add_argument("--cache-bytes", metavar="BYTES", default=None,
                   help="byte budget of the answer cache, k/M/G suffix accepted (default 512M, $RENNET_CACHE_BYTES)")
    p.add_argument("--root", metavar="DIR", action="append", default=None,
                   help="serve only repositories under DIR (repeatable; default: the current folder)")
    p.add_argument("--token-env", metavar="NAME", default=None,
                   help="with --http: read the bearer token from this environment variable "
                        "(default: generate one and print it once to stderr)")
    p.set_defaults(_builtin="mcp")

    groups: dict[tuple[str, ...], Any] = {(): subs}
    for row in table.cli_verbs():
        path = row.cli_path
        for depth in range(1, len(path)):
            prefix = path[:depth]
            if prefix not in groups:
                group = groups[path[: depth - 1]].add_parser(prefix[-1], help=f"{prefix[-1]} commands")
                groups[prefix] = group.add_subparsers(dest="verb" + str(depth), metavar="COMMAND",
                                                      parser_class=_Parser)
                group.set_defaults(_group=prefix)
        leaf = groups[path[:-1]].add_parser(path[-1], help=row.summary, description=" ".join(x for x in (row.summary, row.description) if x))
        _common(leaf)
        leaf.set_defaults(_command=row.id, _group=None)
        if words is not None and tuple(words[: len(path)]) != path:
            continue
        fields = {f.name: f for f in mi.type_info(row.input).fields}
        for name in row.cli.positional:
            _add_field(leaf, fields[name], positional=True)
        for name, field in fields.items():
            if name not in row.cli.positional:
                _add_field(leaf, field, positional=False)
    return root


# --- running --------------------------------------------------------------------------

_SKIP = {"verb", "_builtin", "_command", "_group", "store", "json"}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    words = _verb_words(argv)
    _CALL_ANSWERED.clear()
    try:
        code = _main(argv)
    except UsageError as exc:
        print(f"{exc} (see --help)", file=sys.stderr)
        if words[:1] == ["call"]:  # `call` answers in its envelope, a usage error too
            _write_call_envelope(words[1] if len(words) > 1 else "call", "bad_input", str(exc))
        code = EXIT_USAGE
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = EXIT_OK
    except Exception as exc:  # the last net: one typed line, never a traceback
        from context_tools.faces.sanitize import sanitize_line

        message = sanitize_line(f"{type(exc).__name__}: {exc}")
        print(f"rennet: internal_error: {message}", file=sys.stderr)
        if words[:1] == ["call"] and not _CALL_ANSWERED:
            _write_call_envelope(words[1] if len(words) > 1 else "call", "internal_error", message)
        code = EXIT_ERROR
    sys.stdout.flush()
    return code


_CALL_ANSWERED: list[bool] = []  # not empty once this run of `rennet call` has written its envelope


def _write_call_envelope(command_id: str, code: str, message: str) -> None:
    from context_tools.faces.dispatch import encode_wire
    from indexer.contract.result import error_envelope

    sys.stdout.buffer.write(encode_wire(error_envelope(command_id, code, message)) + b"\n")
    _CALL_ANSWERED.append(True)


def run() -> NoReturn:
    """The `rennet` console script."""
    from context_tools.faces.quick_exit import quick_exit

    quick_exit(main())


def _main(argv: list[str]) -> int:
    from context_tools.faces.errors import RegistryError
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
    ns = vars(args)
    store = ns.get("store")
    builtin = ns.get("_builtin")
    if builtin == "commands":
        return _commands(table, bool(ns.get("json")))
    if builtin == "call":
        return _call(ns["command_id"], ns["input"], store)
    if builtin == "mcp":
        from context_tools.faces.mcp import serve

        return serve(store=store, http=ns.get("http"), ceiling=ns.get("ceiling"), roots=ns.get("root") or (),
                     token_env=ns.get("token_env"), cache_bytes=ns.get("cache_bytes"), worktree=ns.get("worktree", False))
    command = ns.get("_command")
    if command is None:
        group = ns.get("_group") or ()
        raise UsageError(f"rennet {' '.join(group)}: a command is required".replace("  ", " "))
    raw = {k: v for k, v in ns.items() if k not in _SKIP and not k.startswith("verb")}
    from context_tools.faces.dispatch import Executor

    reply = Executor("cli", store=store).run(command, raw, extras={"json": bool(ns.get("json"))})
    return _print_reply(reply, table.get(command), bool(ns.get("json")))


def _print_reply(reply: Any, row: Any, as_json: bool) -> int:
    from context_tools.faces.dispatch import encode_wire

    if as_json:
        sys.stdout.buffer.write(encode_wire(reply.wire) + b"\n")
    elif reply.ok:
        from context_tools.faces.render import render_result

        text = row.render(reply.result) if row.render is not None else render_result(reply.result)
        sys.stdout.write(text.rstrip("\n") + "\n")
    if not reply.ok:
        err = reply.envelope["error"]
        print(f"rennet: {err['code']}: {err['message']}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


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
    reply = Executor("cli", store=store).run(command_id, raw)
    sys.stdout.buffer.write(encode_wire(reply.wire) + b"\n")
    _CALL_ANSWERED.append(True)
    if not reply.ok:
        err = reply.envelope["error"]
        print(f"rennet: {err['code']}: {err['message']}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _commands(table: Any, as_json: bool) -> int:
    rows = [row.describe() for row in table.rows]
    if as_json:
        from context_tools.faces.dispatch import encode_wire

        envelope = {"ok": True, "command": "commands", "data": {"commands": rows},
                    "freshness": None, "page": {"total": len(rows), "returned": len(rows),
                                                "truncated": False, "cursor": None}}
        sys.stdout.buffer.write(encode_wire(envelope) + b"\n")
        return EXIT_OK
    width = max((len(r["id"]) for r in rows), default=10)
    for r in rows:
        flags = ",".join(k for k in ("cli", "agent") if r["exposure"][k]) or "-"
        status = r["maturity"] if r["runnable"] else f"{r['maturity']} (not runnable)"
        print(f"{r['id']:<{width}}  {r['authority']:<5}  {flags:<9}  {status:<12}  {r['summary']}")
        if r["unavailable"]:
            print(f"{'':<{width}}  unavailable: {r['unavailable']}")
    return EXIT_OK


if __name__ == "__main__":
    run()
