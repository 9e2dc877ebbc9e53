"""The registry: one table merged from packs, validated at load, projected onto every face."""

from __future__ import annotations

import sys
import textwrap

import msgspec
import pytest

from context_tools.faces.dispatch import Executor
from context_tools.faces.errors import RegistryError, Unavailable
from context_tools.faces.registry import CliShape, Command, Exposure, Registry, load_packs, registry
from indexer.contract.result import Result

# Mirror of the agent exposure decided per row. Changing a row's exposure means changing this
# inventory too, on purpose: an agent tool is never added or removed as a side effect.
AGENT_INVENTORY = {
    "context.file",
    "context.map",
    "context.novelty",
    "context.overview",
    "context.references",
    "context.symbol",
    "delta.packet",
    "dossier.build",
    "repo.index",
    "repo.snapshots",
    "workspace.status",
}


class NoInput(msgspec.Struct, forbid_unknown_fields=True):
    pass


class EchoInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    text: str
    times: int = 1


class JsonInput(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    json: bool = False


class Echo(msgspec.Struct):
    text: str


def echo(input: EchoInput, ctx) -> Result:
    return Result(Echo(input.text * input.times))


def ping(input: NoInput, ctx) -> Result:
    return Result({"pong": True})


def row(id: str = "demo.echo", **kw) -> Command:
    base = dict(id=id, summary="Echo a text.", input=EchoInput, handler=echo)
    base.update(kw)
    return Command(**base)


def test_agent_exposure_equals_the_inventory():
    exposed = {r.id for r in registry().rows if r.exposure.agent}
    assert exposed == AGENT_INVENTORY
    assert {r.id for r in registry().agent_tools()} == AGENT_INVENTORY
    # `rennet commands` names an MCP tool for exactly these rows; a CLI-only row names none
    assert {r.id for r in registry().rows if r.describe()["mcp"] is not None} == AGENT_INVENTORY


def test_every_row_is_keyed_domain_verb_with_an_object_schema_that_forbids_unknown_fields():
    for r in registry().rows:
        assert r.id.count(".") == 1
        schema = r.input_schema()
        assert schema["type"] == "object" and schema["additionalProperties"] is False, r.id
        assert r.authority in ("read", "write") and r.maturity in ("stable", "experimental", "planned")


def test_every_row_projects_to_one_wire_name_every_mcp_client_accepts():
    import re

    names = [r.wire_name for r in registry().rows]
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in names) and len(set(names)) == len(names)
    assert registry().get("context.symbol").wire_name == "context_symbol"
    for r in registry().agent_tools():
        assert r.title and registry().by_wire_name(r.wire_name) is r
        assert registry().by_wire_name(r.id) is None  # the dotted id is never a tool name


def test_two_ids_with_one_wire_name_are_rejected():
    with pytest.raises(RegistryError, match="MCP name 'demo_x_y' claimed by"):
        Registry([row("demo.x_y"), row("demo_x.y")])


def test_duplicate_ids_are_rejected():
    with pytest.raises(RegistryError, match="duplicate command id 'demo.echo'"):
        Registry([row(), row(summary="Another echo.")])


def test_duplicate_or_prefix_cli_verbs_are_rejected():
    with pytest.raises(RegistryError, match="claimed by"):
        Registry([row("demo.a", cli=CliShape(path=("demo", "x"))), row("demo.b", cli=CliShape(path=("demo", "x")))])
    with pytest.raises(RegistryError, match="prefix"):
        Registry([row("demo.a", cli=CliShape(path=("demo",))), row("demo.b", cli=CliShape(path=("demo", "b")))])


@pytest.mark.parametrize("bad, message", [
    (dict(id="Echo"), "<domain>.<verb>"),
    (dict(summary="two\nlines"), "one non-empty line"),
    (dict(input=msgspec.defstruct("Loose", [("a", int)])), "forbid_unknown_fields"),
    (dict(exposure=Exposure(agent=True), surfaces=("cli", "python")), "mcp surface"),
    (dict(handler=None), "needs a handler"),
    (dict(exposure=Exposure(agent=True)), "needs a title"),
    (dict(id="demo." + "v" * 60), "does not match"),
    (dict(cli=CliShape(positional=("nope",))), "positional 'nope'"),
    (dict(cli=CliShape(path=("call",))), "reserved"),
    (dict(cli=CliShape(flags=(("nope", "--nope2"),))), "not an option field"),
    (dict(cli=CliShape(positional=("text",), flags=(("text", "--words"),))), "not an option field"),
    (dict(cli=CliShape(flags=(("times", "--text"),))), "not a long option of its own"),
    (dict(cli=CliShape(flags=(("times", "-t"),))), "not a long option of its own"),
    (dict(input=JsonInput), "clash with global CLI options"),
    # a field hidden from agents must exist, and be one they can do without
    (dict(exposure=Exposure(agent=True), title="Echo", agent_omits=("nope",)), "agent_omits names 'nope'"),
    (dict(exposure=Exposure(agent=True), title="Echo", agent_omits=("text",)), "agent_omits names 'text'"),
    (dict(agent_omits=("times",)), "agent_omits names 'times'"),
])
def test_malformed_rows_are_refused_at_load(bad, message):
    with pytest.raises(RegistryError, match=message):
        Registry([row(**bad)])


def test_pack_loading_skips_absent_modules_but_never_swallows_errors(tmp_path, monkeypatch):
    pkg = tmp_path / "rennet_test_packs"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text(textwrap.dedent('''
        from tests.test_registry import row
        ROWS = (row("demo.echo"),)
    '''))
    (pkg / "registered.py").write_text(textwrap.dedent('''
        from tests.test_registry import row
        def register():
            return [row("demo.other")]
    '''))
    (pkg / "broken.py").write_text("import no_such_module_anywhere\n")
    (pkg / "dup.py").write_text("from tests.test_registry import row\nROWS = (row('demo.echo'),)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    table = load_packs(["rennet_test_packs.good", "rennet_test_packs.registered", "rennet_test_packs.absent",
                        "no_such_package.commands"])
    assert [r.id for r in table.rows] == ["demo.echo", "demo.other"]
    with pytest.raises(ModuleNotFoundError):
        load_packs(["rennet_test_packs.broken"])
    with pytest.raises(RegistryError, match="duplicate"):
        load_packs(["rennet_test_packs.good", "rennet_test_packs.dup"])
    for name in list(sys.modules):
        if name.startswith("rennet_test_packs"):
            del sys.modules[name]


def test_input_schema_is_derived_from_the_struct():
    schema = row().input_schema()
    assert schema["properties"]["text"] == {"type": "string"}
    assert schema["required"] == ["text"]
    assert schema["properties"]["times"]["default"] == 1


def test_a_command_with_no_arguments_rejects_one(tmp_path):
    table = Registry([Command(id="demo.ping", summary="Ping.", input=NoInput, handler=ping)])
    ex = Executor("python", store=str(tmp_path), table=table)
    assert ex.run("demo.ping", {}).ok
    reply = ex.run("demo.ping", {"anything": 1})
    assert reply.envelope["error"]["code"] == "bad_input"
    assert ex.run("demo.ping", [1]).envelope["error"]["code"] == "bad_input"


def test_input_is_held_to_its_schema_types_without_coercion(tmp_path):
    """The input schema says `times` is an integer: a string of digits, or a boolean, is not one
    (what a client validated against the schema is what runs)."""
    ex = Executor("python", store=str(tmp_path), table=Registry([row()]))
    assert ex.run("demo.echo", {"text": "a", "times": 2}).ok
    for times in ("2", 2.0, True):
        reply = ex.run("demo.echo", {"text": "a", "times": times})
        assert reply.envelope["error"]["code"] == "bad_input", times
        assert "`$.times`" in reply.envelope["error"]["message"]

def test_input_nested_past_the_bound_is_bad_input_whatever_decoded_it(tmp_path):
    """A Python caller's input is decoded by no JSON parser with a depth bound: the executor's own
    bound answers it, before anything recursing over it could run out of stack."""
    from indexer.contract.decode import JSON_MAX_DEPTH

    deep: object = []
    for _ in range(5000):
        deep = [deep]
    ex = Executor("python", store=str(tmp_path), table=Registry([row()]))
    err = ex.run("demo.echo", {"text": "a", "x": deep}).envelope["error"]
    assert err["code"] == "bad_input" and f"nested more than {JSON_MAX_DEPTH} levels" in err["message"]


def test_a_key_no_utf_8_encoder_takes_is_bad_input_not_an_internal_error(tmp_path):
    """A lone surrogate escape is valid JSON in a key as in a value; the key is refused as such."""
    ex = Executor("python", store=str(tmp_path), table=Registry([row()]))
    for raw in ({"text": "a", "\ud800": 1}, {"text": "a", "x": {"\udfff": 1}}):
        err = ex.run("demo.echo", raw).envelope["error"]
        assert err["code"] == "bad_input" and "lone surrogate" in err["message"], raw


def test_planned_rows_are_listed_but_run_nowhere(tmp_path):
    planned = Command(id="demo.later", summary="Not built yet.", input=NoInput, handler=None, maturity="planned",
                      exposure=Exposure(cli=True, agent=True), title="Later")
    table = Registry([row(exposure=Exposure(cli=True, agent=True), title="Echo"), planned])
    assert [r.id for r in table.rows] == ["demo.echo", "demo.later"]
    assert [r.id for r in table.agent_tools()] == ["demo.echo"]
    assert [r.id for r in table.cli_verbs()] == ["demo.echo"]
    assert planned.describe()["runnable"] is False and planned.describe()["cli"] is None
    assert "planned and not implemented" in planned.describe()["unavailable"]  # the reason `rennet commands` shows
    assert table.by_wire_name("demo_later") is None and table.by_wire_name("demo_echo").id == "demo.echo"
    for surface in ("cli", "mcp", "python"):
        reply = Executor(surface, store=str(tmp_path), table=table).run("demo.later", {})
        assert reply.envelope["error"]["code"] == "unavailable"
        assert reply.envelope["error"]["reason"] == "not_implemented"


def test_a_surface_without_a_backend_names_the_surface_that_works(tmp_path):
    cli_only = row(surfaces=("cli",), exposure=Exposure(cli=True))
    reply = Executor("python", store=str(tmp_path), table=Registry([cli_only])).run("demo.echo", {"text": "a"})
    err = reply.envelope["error"]
    assert (err["code"], err["reason"], err["available_on"]) == ("unavailable", "surface_not_supported", ["cli"])
    assert "cli" in err["message"]
    assert isinstance(reply.error, Unavailable)


def test_unknown_command_is_typed(tmp_path):
    reply = Executor("python", store=str(tmp_path), table=Registry([row()])).run("demo.nope", {})
    assert reply.envelope["error"]["code"] == "unknown_command"


def test_a_handler_crash_is_one_typed_line(tmp_path):
    def boom(input, ctx):
        raise ZeroDivisionError("division by zero at /secret token=abc123")

    table = Registry([row(handler=boom)])
    reply = Executor("python", store=str(tmp_path), table=table).run("demo.echo", {"text": "x"})
    err = reply.envelope["error"]
    assert err["code"] == "internal_error"
    assert "\n" not in err["message"] and "abc123" not in err["message"]


def test_an_input_type_without_a_schema_is_named():
    from typing import Annotated

    Bad = msgspec.defstruct("Bad", [("n", Annotated[int | None, msgspec.Meta(ge=1)], None)],
                            forbid_unknown_fields=True, kw_only=True)
    with pytest.raises(RegistryError, match="demo.echo: input Bad has no JSON Schema"):
        row(input=Bad).input_schema()


def test_a_worktree_servers_listed_schema_says_it_reads_the_working_tree():
    """On a `--worktree` server a call naming no rev, head or workspace reads the working tree
    (`dispatch.worktree_default`): its listed `worktree` defaults to true, and `rev` or `head`
    names the working tree as its default, with no `HEAD` default left; a plain server's say
    HEAD. What tools/list shows an agent (`Command.listed_schema`)."""
    rows = registry()
    for command, name in (("context.symbol", "rev"), ("context.novelty", "head")):
        plain = rows.get(command).listed_schema(False)["properties"]
        served = rows.get(command).listed_schema(True)["properties"]
        assert "(default HEAD)" in plain[name]["description"] and "worktree" not in plain, command
        assert served["worktree"]["default"] is True, command
        assert "(default: the working tree, as `worktree`)" in served[name]["description"], command
        assert "(default HEAD)" not in served[name]["description"] and "default" not in served[name], command
