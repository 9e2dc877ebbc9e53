"""The CLI face as a user meets it: fresh processes, stdout/stderr, exit codes."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.cli_runs import run_cli
from tests.mcp_clients import python_prepared  # noqa: F401 - the fixture, for the server started here
from tests.test_context_world import PY, ROOT, World, cli_env, world  # noqa: F401 - fixture


def rennet(*args: str, store: str | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    return run_cli(*args, home=store, input=input, timeout=120)


def test_json_prints_exactly_the_result_contract(world: World):
    p = rennet("context", "symbol", "Flask.route", "--repo", world.repo, "--json", "--store", world.store)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)  # stdout is one JSON document and nothing else
    assert set(out) == {"ok", "command", "data", "freshness", "page"}
    assert out["ok"] is True and out["command"] == "context.symbol"
    assert out["data"]["definitions"][0]["qualified"] == "Flask.route"
    assert set(out["freshness"]) >= {"repo", "rev", "pinned_oid", "current_oid", "status", "reason", "indexed_at"}
    assert set(out["page"]) == {"total", "returned", "truncated", "cursor"}


def test_store_option_is_global_and_per_verb(world: World):
    before = rennet("--store", world.store, "context", "symbol", "Flask", "--repo", world.repo, "--json")
    after = rennet("context", "symbol", "Flask", "--repo", world.repo, "--json", "--store", world.store)
    assert before.returncode == after.returncode == 0
    assert json.loads(before.stdout) == json.loads(after.stdout)


def test_human_output_is_readable_and_sanitized(world: World):
    p = rennet("context", "references", "route", "--repo", world.repo, "--store", world.store)
    assert p.returncode == 0, p.stderr
    assert "tools/other.py:2" in p.stdout and "[name_match]" in p.stdout
    assert "[current]" in p.stdout


def test_typed_error_is_one_line_and_exit_1(world: World):
    p = rennet("context", "symbol", "NoSuchName", "--no-fuzzy", "--repo", world.repo, "--json", "--store", world.store)
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out == {"ok": False, "command": "context.symbol",
                   "error": {"code": "not_found", "message": out["error"]["message"]}}
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("rennet: not_found:")
    assert "Traceback" not in p.stderr


def test_a_closed_stdout_drops_the_answer_not_the_command(world: World):
    """Started with its standard output closed (`rennet ... >&-`), a command runs as with it
    sent to the null device (as git does): exit 0, nothing on stderr (was: internal_error and
    a traceback, the answer written to no stream)."""
    import os

    p = subprocess.run([PY, "-m", "context_tools.faces.cli", "context", "symbol", "Flask.route", "--repo", world.repo,
                        "--store", world.store], cwd=ROOT, env=cli_env(None), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=lambda: os.close(1))
    assert p.returncode == 0 and p.stderr == "", p.stderr


@pytest.mark.parametrize("args", [
    ("context", "symbol", "Flask.route"),  # human lines
    ("context", "symbol", "Flask.route", "--json"),
    ("context", "map", "--json"),  # an answer larger than the stream's buffer
    ("context", "symbol", "--help"),  # argparse's text, then its exit
])
def test_an_answer_standard_output_cannot_take_is_output_error(args, world: World):
    """Standard output on a full device: the command's answer cannot be written, which the
    user chose, so it is `output_error` on one line and exit 1 (was: internal_error)."""
    with open("/dev/full", "wb") as full:
        p = subprocess.run([PY, "-m", "context_tools.faces.cli", *args, "--repo", world.repo, "--store", world.store],
                           cwd=ROOT, env=cli_env(None), stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("rennet: output_error: ") and p.stderr.count("\n") == 1, p.stderr
    assert "No space left on device" in p.stderr


def test_an_answer_past_the_output_buffer_on_a_full_device_is_output_error():
    """The registry's catalog is larger than the stream's buffer: its write fails before the last
    flush, and still ends `output_error`, exit 1, not a quiet success."""
    with open("/dev/full", "wb") as full:
        p = subprocess.run([PY, "-m", "context_tools.faces.cli", "commands", "--json"], cwd=ROOT, env=cli_env(None),
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 1 and p.stderr.startswith("rennet: output_error: ") and p.stderr.count("\n") == 1, p.stderr


def test_a_non_blocking_stdout_gets_the_whole_answer(world: World):
    """Standard output a parent left non-blocking (as some runtimes leave their pipes), read
    only after a pause: the pipe fills, a write would block, and the answer still arrives
    whole, as through an ordinary pipe (was: cut at the pipe's capacity, exit 0)."""
    import fcntl
    import os

    from tests.processes import until_it_waits

    args = [PY, "-m", "context_tools.faces.cli", "snapshot", "dump", "--repo", world.repo, "--store", world.store]
    whole = subprocess.run(args, cwd=ROOT, env=cli_env(None), capture_output=True, timeout=120)
    assert whole.returncode == 0 and len(whole.stdout) > 4096, whole.stderr
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)  # filled by a few kB of the answer
    fcntl.fcntl(write, fcntl.F_SETFL, fcntl.fcntl(write, fcntl.F_GETFL) | os.O_NONBLOCK)
    p = subprocess.Popen(args, cwd=ROOT, env=cli_env(None), stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    until_it_waits(p)  # nothing read meanwhile: the writer meets a full pipe, and waits
    got = bytearray()
    with os.fdopen(read, "rb") as answer:
        while chunk := answer.read(65536):
            got += chunk
    assert p.wait(timeout=120) == 0, p.stderr.read()
    assert bytes(got) == whole.stdout


def test_no_store_file_takes_the_place_of_a_closed_standard_stream(tmp_path, world: World):
    """A process started with descriptors 1 and 2 closed: the next file opened would take
    descriptor 1, and the store's lock file did, where a write to standard output at the C level,
    or from a child inheriting it, would land in the store. They are the null device before
    anything is opened: after an index into a new store, descriptors 0 to 2 hold no file of it."""
    import os

    report, store = tmp_path / "fds.json", tmp_path / "store"
    probe = (
        "import atexit, json, os, sys\n"
        "def fds():\n"
        f"    with open({str(report)!r}, 'w') as out:\n"
        "        json.dump({fd: os.readlink(f'/proc/self/fd/{fd}') for fd in (0, 1, 2)}, out)\n"
        "atexit.register(fds)\n"
        f"sys.argv = ['rennet', 'index', '--repo', {world.repo!r}, '--store', {str(store)!r}]\n"
        "from context_tools.faces.cli import run\n"
        "run()\n")

    def closed() -> None:
        os.close(1)
        os.close(2)

    p = subprocess.run([PY, "-c", probe], cwd=ROOT, env=cli_env(None), stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, preexec_fn=closed)
    held = json.loads(report.read_text())
    assert held["1"] == held["2"] == os.devnull, held  # was: 1 the store's lock file
    assert not any(target.startswith(str(store)) for target in held.values()), held
    assert p.returncode == 0
    assert rennet("context", "symbol", "Flask.route", "--repo", world.repo, "--store", str(store)).returncode == 0


@pytest.mark.parametrize(("encoding", "chosen"), [
    ("ascii", {"PYTHONIOENCODING": "ascii"}),
    ("latin-1", {"PYTHONIOENCODING": "latin-1"}),
    # the C locale without UTF-8 mode: Python gives stdout `surrogateescape`, not `strict`
    ("ascii", {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}),
])
def test_names_the_output_encoding_lacks_are_escaped_not_an_internal_error(encoding, chosen, tmp_path):
    """The commit names its files and symbols; the user's locale (or PYTHONIOENCODING) picks
    standard output's encoding. A character it lacks is written as its escape, as on stderr
    (was: `internal_error: UnicodeEncodeError`, exit 1; under `LC_ALL=C` with UTF-8 mode off
    it still was, for every text answer naming such a file); `--json` stays UTF-8."""
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"pkg/modül_→.py": "def größe():\n    return 1\n"})
    env = {**cli_env(str(tmp_path / "store")), **chosen}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([PY, "-m", "context_tools.faces.cli", *args, "--repo", str(builder.path)], cwd=ROOT,
                              env=env, capture_output=True, timeout=120)

    for command in (("context", "map"), ("context", "overview")):
        answer = run(*command)
        assert answer.returncode == 0, answer.stderr
        assert "pkg/modül_→.py".encode(encoding, errors="backslashreplace") in answer.stdout
    if "LC_ALL" in chosen:
        # the locale reads the typed name's UTF-8 bytes as no text: said so, one line
        refused = run("context", "symbol", "größe")
        assert refused.returncode == 1 and refused.stdout == b""
        assert refused.stderr.startswith(b"rennet: bad_input: ") and refused.stderr.count(b"\n") == 1
        return
    shown = run("context", "symbol", "größe")
    assert shown.returncode == 0, shown.stderr
    line = "pkg/modül_→.py:1  function größe".encode(encoding, errors="backslashreplace")
    assert line in shown.stdout.splitlines()
    assert "function größe".encode(encoding, errors="backslashreplace") in run("context", "file", "pkg/modül_→.py").stdout
    as_json = run("context", "symbol", "größe", "--json")
    assert json.loads(as_json.stdout.decode("utf-8"))["data"]["definitions"][0]["path"] == "pkg/modül_→.py"


@pytest.mark.parametrize("json_out", [False, True])
def test_a_setting_of_no_meaning_is_bad_input_not_an_internal_error(json_out, world: World):
    """A variable the CLI reads before the command runs (the answer cache's budget) holding
    no size: `bad_input`, one line, exit 1, and with --json the error envelope (was:
    internal_error, the typed error caught by the last net). The value is shown sanitized: a token
    pasted into the wrong variable is not echoed."""
    env = {**cli_env(world.store), "RENNET_CACHE_BYTES": "token=abc123456"}
    p = subprocess.run([PY, "-m", "context_tools.faces.cli", "context", "symbol", "Flask.route", "--repo", world.repo,
                        *(["--json"] if json_out else [])], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 1
    assert p.stderr.startswith("rennet: bad_input: $RENNET_CACHE_BYTES 'token=[redacted]'"), p.stderr
    assert p.stderr.count("\n") == 1 and "abc123456" not in p.stderr + p.stdout
    if json_out:
        assert json.loads(p.stdout) == {"ok": False, "command": "context.symbol", "error": {
            "code": "bad_input", "message": p.stderr.strip().removeprefix("rennet: bad_input: ")}}
    else:
        assert p.stdout == ""


def test_a_store_named_with_store_is_never_made_by_a_read(tmp_path, world: World):
    """`--store TYPO` of a read (`store list`, `context map`, `store gc` too) is `not_indexed` on
    one line naming the folder, and nothing is made there (was: an empty store made at the typo,
    listing no snapshots, or one made there and the rev indexed into it). A write (`index`) makes
    the store, in a folder whose parent is there; a parent not there is `bad_input`. Each says
    what to do instead: the stores beside the folder named, the default store, the command that
    makes one (was: "check the path")."""
    from indexer.store.database import Store

    typo = tmp_path / "TYPO"
    Store.open(tmp_path / "stores").close()  # the store the user meant, beside the typo
    for args in (("store", "list"), ("context", "map", "--repo", world.repo), ("store", "gc")):
        p = rennet(*args, "--store", str(typo), store=world.store)
        assert (p.returncode, p.stdout) == (1, ""), (args, p.stdout, p.stderr)
        assert p.stderr == (f"rennet: not_indexed: no store at {typo} (--store): nothing was ever indexed there; "
                            f"beside it, stores holds a store; the default store (without --store) is {world.store}; "
                            "`rennet index` with this --store makes one\n"), args
    assert not typo.exists()
    deep = tmp_path / "no" / "such" / "store"
    p = rennet("index", world.repo, "--quiet", "--store", str(deep), store=str(tmp_path / "none"))
    assert p.returncode == 1 and p.stderr == (
        f"rennet: bad_input: --store {deep}: the folder it is in does not exist; create it (`mkdir -p`) to make the "
        f"store there; the default store (without --store) is {tmp_path / 'none'}, empty\n"), p.stderr
    assert not (tmp_path / "no").exists()
    assert rennet("index", world.repo, "--quiet", "--store", str(typo)).returncode == 0
    assert rennet("store", "list", "--store", str(typo)).stdout.startswith("OID ")


def test_a_read_at_the_default_home_makes_it_on_a_first_run(tmp_path, world: World):
    """`$RENNET_HOME` (or `~/.rennet`) is the home a first run makes: a read there indexes and
    answers, as before."""
    home = tmp_path / "deeper" / "home"
    p = rennet("context", "map", "--repo", world.repo, store=str(home))
    assert p.returncode == 0 and (home / "lmdb" / "data.mdb").is_file(), p.stderr


def test_an_agents_read_of_a_store_named_but_not_there_makes_none(tmp_path, world: World):
    """A read-only agent tool of `rennet mcp --store DIR`, DIR holding no store, says
    `not_indexed`, naming the tool that makes the store, and makes nothing there; its
    `repo_index` makes the store."""
    from tests.mcp_clients import run_stdio, text_of

    typo = tmp_path / "TYPO"
    seen: list[bool] = []

    async def work(client):
        symbol = {"repo": world.repo, "name": "Flask"}
        read = text_of(await client.call_tool("context_symbol", symbol))
        seen.append(typo.exists())
        indexed = text_of(await client.call_tool("repo_index", {"repo": world.repo}))
        return read, indexed, text_of(await client.call_tool("context_symbol", symbol))

    read, indexed, again = run_stdio(str(tmp_path / "default-home"), work, "--store", str(typo),
                                     root=os.path.dirname(world.repo))
    # what the agent can do, with its tools (was: "check the path", a flag of the user's command line)
    assert read["error"] == {"code": "not_indexed", "message": (
        f"no store at {typo} (the server's --store): nothing was ever indexed there; call the `repo_index` tool to "
        "index a repository into it (its first index makes the store)")}, read
    assert seen == [False]
    assert indexed["ok"] and again["ok"] and (typo / "lmdb" / "data.mdb").is_file(), (indexed, again)


def test_bad_repo_is_typed_not_a_traceback(tmp_path, world: World):
    p = rennet("context", "overview", "--repo", str(tmp_path / "nowhere"), "--store", world.store)
    assert p.returncode == 1
    assert p.stderr.startswith("rennet: not_a_repository:") and "Traceback" not in p.stderr
    assert p.stdout == ""


@pytest.mark.parametrize("args", [
    ("context", "symbol"),  # missing positional
    ("context", "symbol", "X", "--bogus"),
    ("context", "file", "a.py", "--limit", "many"),
    ("context", "novelty", "v1", "--section", "nonsense"),
    ("dossier", "--base", "v1"),  # a required option missing (--head)
    ("context",),
    ("nosuchverb",),
])
def test_usage_errors_exit_2_on_one_line(args, world: World):
    p = rennet(*args, "--store", world.store) if len(args) > 1 else rennet(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and p.stderr.strip().count("\n") == 0
    assert p.stdout == ""


def test_a_usage_error_shows_the_arguments_it_quotes_escaped(world: World):
    # argparse quotes the argument as it came: an escape sequence or a bidi mark in it reached
    # the terminal, and a line break made two lines of the one error (now one space)
    p = rennet("store", "list", "x\u202ey\x1b[2Jz\nrennet: ok", "--store", world.store)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines() == ["rennet: unrecognized arguments: x\\u202ey\\x1b[2Jz rennet: ok (see --help)"]


def test_no_arguments_print_the_help_and_exit_2(world: World):
    """`rennet` alone is a usage error (exit 2): the help, which lists every command, on stderr."""
    p = rennet()
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("usage: rennet") and "commands, in the order you meet them:" in p.stderr


def test_the_top_level_help_places_every_verb_in_a_section_of_its_own():
    """Each verb is in one of the sections that say what it is for (was: `snapshots` alone under
    "Other commands.", the catch-all for verbs no section names)."""
    from context_tools.faces.cli import SECTIONS, _overview
    from context_tools.faces.registry import registry

    table = registry()
    placed = {w for _, words in SECTIONS for w in words}
    verbs = {row.cli_path[0] for row in table.cli_verbs()} | {"commands", "call", "mcp", "completion"}
    assert verbs <= placed, sorted(verbs - placed)
    assert "Other commands." not in _overview(table)


def test_a_bad_rennet_limits_is_told_before_any_work(tmp_path, world: World):
    """docs/limits.md: a `$RENNET_LIMITS` that is no setting is `bad_input` naming it, told before
    any work: before the repository a command names is looked for, whichever command it is."""
    env = {**cli_env(str(tmp_path / "home")), "RENNET_LIMITS": "nonsense=1"}
    for args in (("index", str(tmp_path / "nowhere")), ("context", "symbol", "X", "--repo", str(tmp_path / "nowhere"))):
        p = run_cli(*args, "--json", env=env, timeout=120)
        error = json.loads(p.stdout)["error"]
        assert p.returncode == 1 and error["code"] == "bad_input" and "RENNET_LIMITS" in error["message"], (args, error)


def test_out_of_range_value_is_bad_input_exit_1(world: World):
    p = rennet("context", "file", "src/webapp/app.py", "--limit", "0", "--repo", world.repo, "--json",
               "--store", world.store)
    assert p.returncode == 1 and json.loads(p.stdout)["error"]["code"] == "bad_input"


def test_call_runs_any_command_json_in_json_out(world: World):
    p = rennet("call", "context.file", json.dumps({"repo": world.repo, "path": "src/webapp/cli.py"}),
               "--store", world.store)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["data"]["content"]["lines"][0] == "from webapp.app import Flask"


@pytest.mark.parametrize("payload, code", [
    ('{"repo": ".", "path": "x", "extra": 1}', "bad_input"),
    ("not json", "bad_input"),
    ("[1, 2]", "bad_input"),
    ('{"path": 5}', "bad_input"),
])
def test_call_rejects_bad_input_with_a_typed_error(payload, code, world: World):
    p = rennet("call", "context.file", payload, "--store", world.store)
    assert p.returncode == 1
    assert json.loads(p.stdout)["error"]["code"] == code


def test_a_usage_error_of_call_is_its_envelope_with_bad_input_and_exit_2(world: World):
    """`rennet call` answers in its envelope on every path (docs/security.md), a usage error too:
    the input it was given is what is wrong, so its code is `bad_input`; the exit stays 2."""
    for args in (("context.file", "{}", "one too many"), ("--bogus", "context.file", "{}")):
        p = rennet("call", *args, "--store", world.store)
        assert p.returncode == 2 and len(p.stdout.splitlines()) == 1
        envelope = json.loads(p.stdout)  # named by the command id, whatever option comes before it
        assert envelope["command"] == "context.file" and envelope["error"]["code"] == "bad_input", (args, envelope)


def test_call_unknown_command(world: World):
    p = rennet("call", "nope.nothing", "{}", "--store", world.store)
    assert p.returncode == 1 and json.loads(p.stdout)["error"]["code"] == "unknown_command"


def test_commands_lists_the_registry(world: World):
    from context_tools.faces.registry import registry

    p = rennet("commands", "--json")
    assert p.returncode == 0, p.stderr
    listed = json.loads(p.stdout)["data"]["commands"]
    assert [c["id"] for c in listed] == [r.id for r in registry().rows]
    symbol = next(c for c in listed if c["id"] == "context.symbol")
    assert symbol["exposure"] == {"cli": True, "agent": True} and symbol["cli"] == "rennet context symbol"
    assert symbol["input_schema"]["properties"]["name"]["type"] == "string"
    human = rennet("commands")
    assert "context.symbol" in human.stdout and "ledger.read" in human.stdout
    # Rows wider than the table shorten only the summary: ids, verbs and exposures stay whole.
    lines = human.stdout.splitlines()
    for c in listed:
        line = next(x for x in lines if x.startswith(c["id"] + " "))
        exposure = ",".join(k for k in ("cli", "agent") if c["exposure"][k])
        assert f" {c['cli'] or '-'} " in line and f" {exposure} " in line, line


def test_every_cli_verb_has_help(capsys):
    from context_tools.faces.cli import main
    from context_tools.faces.registry import registry

    for r in registry().cli_verbs():
        with pytest.raises(SystemExit) as done:
            main([*r.cli_path, "--help"])
        out = capsys.readouterr().out
        assert done.value.code == 0 and r.summary.split()[0] in out, r.id
        assert "--json" in out and "--store" in out
        if r.id.startswith("context."):  # novelty's --repo did not say it defaults to the current folder
            assert "default: the current folder" in " ".join(out.split()), r.id


def test_ledger_pages_receipts_of_cli_calls(tmp_path, world: World):
    home = str(tmp_path / "home")  # the default home ($RENNET_HOME): a read's first run makes the store
    assert rennet("context", "symbol", "Flask", "--repo", world.repo, store=home).returncode == 0
    assert rennet("context", "symbol", "Nope", "--no-fuzzy", "--repo", world.repo, store=home).returncode == 1
    p = rennet("ledger", "--json", "--store", home)
    receipts = json.loads(p.stdout)["data"]["receipts"]
    assert [(r["command"], r["surface"], r["outcome"]) for r in receipts] == [
        ("context.symbol", "cli", "not_found"), ("context.symbol", "cli", "ok")]
    ok = receipts[1]
    read, page = ok["snapshot"], ok["page"]
    assert read["oid"] == world.head and read["fingerprint"] and page["total"] == 1 and page["truncated"] is False
    assert len(ok["input_digest"]) == 64 and ok["duration_ms"] > 0
    first = json.loads(rennet("ledger", "--json", "--limit", "1", "--store", home).stdout)
    assert first["page"]["total"] == 3 and first["page"]["cursor"]  # the first `ledger` call has its receipt too
    human = rennet("ledger", "--store", home)
    assert "context.symbol" in human.stdout


def test_human_lines_keep_a_path_with_a_line_break_on_its_line(tmp_path, capsys):
    from context_tools.faces.cli import main
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"odd/na\nme.py": 'def strange_name(x="\x1b[2J"):\n    return 1\n\n\nstrange_name()\n',
                    "use.py": "from odd import strange_name\n\nstrange_name()\n"})
    repo, store = str(builder.path), str(tmp_path / "store")
    assert main(["index", repo, "--store", store, "--quiet"]) == 0  # a read never makes the store it is told of
    capsys.readouterr()
    shown = {}
    for verb, args in (("file", ["odd/na\nme.py"]), ("symbol", ["strange_name"]), ("references", ["strange_name"]),
                       ("map", []), ("overview", [])):
        assert main(["context", verb, *args, "--repo", repo, "--store", store]) == 0
        shown[verb] = capsys.readouterr().out.splitlines()
    odd = '"odd/na\\nme.py"'  # quoted as git quotes it
    assert shown["file"][0].startswith(f"{odd}  python  mode 100644")
    assert f"{odd}:1  function strange_name" in shown["symbol"]
    assert any(line.startswith("use.py:3:1  ") for line in shown["references"])
    assert any(line.startswith(f"{odd}:5:1  ") for line in shown["references"])
    # the signature's default escaped (a file's content lines alone are shown as they are)
    assert not any("\x1b" in line for verb, lines in shown.items() if verb != "file" for line in lines)
    assert any(line.startswith(f"{odd}  (python, rank ") for line in shown["map"])
    assert not any(line.startswith("me.py") for lines in shown.values() for line in lines)


def test_index_and_dump_summaries_keep_an_odd_repository_path_on_its_line(tmp_path, capsys):
    from context_tools.faces.cli import main
    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(tmp_path / "re\npo\x1b[2J")
    builder.commit({"a.py": "def f():\n    return 1\n"})
    store = str(tmp_path / "store")
    assert main(["index", str(builder.path), "--store", store, "--quiet"]) == 0
    index_lines = capsys.readouterr().out.splitlines()
    out_file = tmp_path / "out\n.jsonl"
    assert main(["snapshot", "dump", str(builder.path), "--out", str(out_file), "--store", store]) == 0
    dump_lines = capsys.readouterr().out.splitlines()
    assert main(["context", "overview", "--repo", str(builder.path), "--store", store]) == 0
    overview_lines = capsys.readouterr().out.splitlines()
    shown = "re\\npo\\x1b[2J"  # escaped as git quotes it
    assert overview_lines[0].startswith(f'"{tmp_path}/{shown}" @ HEAD')  # quoted: one line, and no other folder's
    assert len(index_lines) == 4 and index_lines[0].startswith("indexed ") and shown in index_lines[0]
    assert dump_lines == [f"wrote {len(out_file.read_bytes().splitlines())} records to "
                          f'"{str(out_file).replace(chr(10), chr(92) + "n")}" (fingerprint '
                          f"{index_lines[3].split()[-1]})"]
    assert "\x1b" not in "".join(index_lines + dump_lines + overview_lines)


def test_map_lines_show_members_under_their_class(tmp_path, capsys, monkeypatch):
    from context_tools.faces.cli import main
    from corpora.gitbuild import RepoBuilder

    monkeypatch.setenv("RENNET_HOME", str(tmp_path / "store"))  # the default home: the read makes it

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"shapes.py": "class Shape:\n    class Corner:\n        def at(self):\n            return 0\n\n"
                                 "    def area(self):\n        return 0\n\n\ndef   make():\n    return Shape()\n"})
    assert main(["context", "map", "--repo", str(builder.path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("shapes.py  (python, rank 1.0000)")
    assert lines[at + 1:at + 6] == ["  class Shape:", "    class Corner:", "      def at(self):",
                                    "    def area(self):", "  def make():"]


def test_version_names_the_package_extractor_and_schema():
    from indexer.store.database import SCHEMA_VERSION
    from indexer.store.versions import snapshot_version

    p = rennet("--version")
    assert p.returncode == 0 and p.stdout.startswith("rennet ")
    assert f"extractor {snapshot_version()}" in p.stdout and f"schema {SCHEMA_VERSION.decode()}" in p.stdout


@pytest.mark.parametrize("args, command", [
    (("context", "symbol", "--json"), "context.symbol"),
    (("context", "file", "a.py", "--limit", "many", "--json"), "context.file"),
    (("context", "novelty", "--section", "nonsense", "--json"), "context.novelty"),
    (("nosuchverb", "--json"), "rennet"),
    (("context", "symbol", "X", "--name", "Y", "--json"), "context.symbol"),
])
def test_usage_errors_with_json_print_the_error_envelope(args, command, world: World):
    p = rennet(*args, "--store", world.store)
    assert p.returncode == 2, (p.stdout, p.stderr)
    out = json.loads(p.stdout)
    assert out == {"ok": False, "command": command,
                   "error": {"code": "usage_error", "message": out["error"]["message"]}}
    assert p.stderr.strip().count("\n") == 0 and out["error"]["message"] in p.stderr


def test_a_positional_is_also_its_option(world: World):
    """`--repo` names the repository on every command; a positional REPO (or NAME, BASE) still works."""
    by_word = rennet("index", world.repo, "--rev", "main", "--json", "--store", world.store)
    by_flag = rennet("index", "--repo", world.repo, "--rev", "main", "--json", "--store", world.store)
    assert by_word.returncode == by_flag.returncode == 0, by_flag.stderr
    assert json.loads(by_word.stdout)["data"]["fingerprint"] == json.loads(by_flag.stdout)["data"]["fingerprint"]
    one = rennet("context", "novelty", "v1", "--repo", world.repo, "--json", "--store", world.store)
    two = rennet("context", "novelty", "--base", "v1", "--head", "HEAD", "--repo", world.repo, "--json",
                 "--store", world.store)
    assert one.returncode == two.returncode == 0, two.stderr
    assert json.loads(one.stdout)["data"] == json.loads(two.stdout)["data"]
    name = rennet("context", "symbol", "--name", "Flask", "--repo", world.repo, "--json", "--store", world.store)
    assert json.loads(name.stdout)["data"]["definitions"][0]["qualified"] == "Flask"


def test_list_options_take_several_values(world: World):
    spaced = rennet("context", "map", "--focus", "src/webapp/cli.py", "Router", "--budget", "700", "--repo", world.repo,
                    "--json", "--store", world.store)
    repeated = rennet("context", "map", "--focus", "src/webapp/cli.py", "--focus", "Router", "--budget", "700",
                      "--repo", world.repo, "--json", "--store", world.store)
    assert spaced.returncode == repeated.returncode == 0, spaced.stderr
    assert json.loads(spaced.stdout)["data"] == json.loads(repeated.stdout)["data"]


def test_top_level_help_lists_verbs_in_the_order_of_use():
    p = rennet("--help")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    verbs = [line.split()[0] for line in lines if line.startswith("  ") and not line.startswith("  -")
             and not line.startswith("  rennet")]
    assert verbs.index("index") < verbs.index("context") < verbs.index("delta") < verbs.index("workspace") \
        < verbs.index("store") < verbs.index("commands")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_verb_and_option(shell):
    import shutil

    p = rennet("completion", shell)
    assert p.returncode == 0, p.stderr
    for word in ("index", "overview", "novelty", "--budget", "gc"):
        assert word in p.stdout, (shell, word)
    checker = shutil.which(shell)
    if checker:  # the shell reads it without a syntax error
        assert subprocess.run([checker, "-n"], input=p.stdout, text=True, capture_output=True).returncode == 0


def test_tables_have_a_header_row(tmp_path, world: World):
    home = str(tmp_path / "home")
    table = rennet("commands").stdout.splitlines()
    assert table[0].split()[:3] == ["command", "verb", "authority"]
    assert rennet("context", "symbol", "Flask", "--repo", world.repo, store=home).returncode == 0
    ledger = rennet("ledger", "--store", home).stdout.splitlines()
    assert ledger[0].split()[:4] == ["at", "surface", "command", "outcome"]
    assert any("context.symbol" in line and "ok" in line.split() for line in ledger[2:])


# What a fresh `rennet context symbol` must not import: the extraction (tree-sitter and its
# language bindings, indexer.extract: the tags query, the plain tokenizer), the grammars and
# the declared-bases reader, which only indexing runs.
EXTRACTION = ("tree_sitter", "indexer.extract", "indexer.lang.grammars", "indexer.lang.declared_bases")


@pytest.mark.parametrize("args", [
    ["symbol", "Flask"], ["symbol", "Flask.route"], ["symbol", "Flsk"],  # a class, a method, near names
    ["references", "Flask"], ["file", "src/webapp/app.py"], ["map"],  # the reads sharing its start
])
def test_a_fresh_symbol_lookup_imports_no_extraction(tmp_path, args, world: World):
    modules = tmp_path / "modules.json"
    script = ("import json, sys\nfrom context_tools.faces.cli import main\n"
              f"code = main(['context', *{args!r}, '--repo', {world.repo!r}, '--json'])\n"
              f"open({str(modules)!r}, 'w').write(json.dumps(sorted(sys.modules)))\nsys.exit(code)\n")
    p = subprocess.run([PY, "-c", script], cwd=ROOT, env=cli_env(world.store), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["ok"] is True
    loaded = json.loads(modules.read_text())
    assert "indexer.store.snapshot" in loaded  # it did read the snapshot
    assert [m for m in loaded if m.startswith(EXTRACTION)] == []


@pytest.mark.parametrize("json_out", [False, True])
def test_a_reader_that_stops_after_the_first_line_ends_the_cli_quietly(json_out):
    """`rennet context map | head -1`: the reader closes the pipe after a line; the CLI's
    next write meets a closed pipe, and it ends at once, exit 0, nothing on stderr (neither
    output_error nor Python's note about a flush at exit). The pipe is made as small as the
    OS allows, and the answer (the command catalog) is larger than it and its first line."""
    import fcntl

    args = [PY, "-m", "context_tools.faces.cli", "commands", *(["--json"] if json_out else [])]
    whole = subprocess.run(args, cwd=ROOT, env=cli_env(None), capture_output=True, timeout=120)
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ
    p = subprocess.Popen(args, cwd=ROOT, env=cli_env(None), stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        first = reader.read(1) if json_out else reader.readline()  # the JSON answer is one line
    assert whole.returncode == 0 and len(whole.stdout) > 4096 + len(first)  # a write is still to come
    assert p.wait(timeout=120) == 0
    assert p.stderr.read() == b""
    p.stderr.close()


def test_a_command_waiting_for_another_indexer_says_so_once(tmp_path):
    """Was: a person saw `indexing ... first` and then nothing while another indexer held the
    store (up to two minutes), then the same line again. Now one line says it waits, and the
    first is said once."""
    from corpora.gitbuild import RepoBuilder
    from indexer.store.writer_wait import TICK_SECONDS
    from tests.held_store import hold_store

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "def f():\n    return 1\n"})
    store = tmp_path / "store"
    holder = hold_store(store, 2 * TICK_SECONDS)
    # a read that indexes first waits for the holder, then indexes; an index after it waits for none
    for args, waits in ((("context", "symbol", "f", "--repo", str(builder.path)), 1),
                        (("index", "--repo", str(builder.path), "--rev", "HEAD"), 0)):
        done = rennet(*args, store=str(store))
        assert done.returncode == 0, done.stderr
        assert done.stderr.count("rennet: waiting for another indexer of the store to finish") == waits, done.stderr
        assert done.stderr.count("rennet: indexing ") == waits, done.stderr  # was: twice, again after the wait
    holder.join()


def test_an_out_of_range_option_is_named_as_the_command_line_spells_it(tmp_path, capsys):
    """The message every face shares says where as a JSON path (`$.start_line`); the CLI's line
    adds the option the user typed (was: `$.start_line` alone, a name the command line has not)."""
    from context_tools.faces.cli import main

    code = main(["context", "file", "a.py", "--start-line", "0", "--repo", str(tmp_path), "--store",
                 str(tmp_path / "home")])
    assert code == 1
    assert capsys.readouterr().err == ("rennet: bad_input: context.file: Expected `int` >= 1 - at `$.start_line` "
                                       "(--start-line)\n")
