"""Human views say what the JSON says: the delta summary and its `fan-in ?`, dependencies by
manifest, a dossier's repeated facts on one line, and the line a read that indexes first prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpora.demo import build_demo
from corpora.gitbuild import RepoBuilder
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parent.parent


def rennet(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, home=home, cwd=cwd, timeout=120)


def on_a_terminal(cwd: Path, home: Path, *args: str, code: int = 0) -> str:
    """What `rennet *args` draws on a pseudo-terminal, its standard output (stderr a pipe), the
    terminal's line ends made `\\n` again; the command must end with `code`."""
    import pty

    from tests.cli_runs import cli_env

    primary, secondary = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "context_tools.faces.cli", *args], cwd=cwd, env=cli_env(home),
                         stdout=secondary, stderr=subprocess.PIPE)
    os.close(secondary)
    drawn = bytearray()
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal's other end closed with the command
            break
        if not chunk:
            break
        drawn += chunk
    os.close(primary)
    assert p.wait(timeout=120) == code, p.stderr.read()
    return drawn.decode().replace("\r\n", "\n")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("views")
    build_demo(root / "demo")
    return root / "demo", root / "home"


def test_delta_text_explains_unassessed_fan_in_and_ends_with_a_summary(demo):
    repo, home = demo
    text = rennet(repo, home, "delta", "--base", "v1", "--head", "main")
    data = json.loads(rennet(repo, home, "delta", "--base", "v1", "--head", "main", "--json").stdout)["data"]
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    unknown = [f for f in data["files"] if isinstance(f["fan_in"], dict)]
    assert unknown, "the demo adds a file: the base has no fan-in of it"
    why = unknown[0]["fan_in"]
    assert f"fan-in ? ({len(unknown)} file): not assessed: {why['reason']}" in lines
    statuses = sorted({f["status"] for f in data["files"]})
    summary = next(line for line in lines if line.startswith("summary: "))
    for status in statuses:
        n = sum(1 for f in data["files"] if f["status"] == status)
        assert f"{n} {status}" in summary
    noise = next(line for line in lines if line.startswith("  noise: "))
    for c in data["noise"]:
        assert f"{c['files']} {c['class']}" in noise
    assessed = [f for f in data["files"] if isinstance(f["fan_in"], int)]
    top = max(assessed, key=lambda f: (f["fan_in"], f["path"]))
    assert f"  largest blast radius: {top['path']} (fan-in {top['fan_in']}: files of the base importing it)" in lines
    packet = next(line for line in lines if line.startswith("packet: ")).removeprefix("packet: ")
    assert Path(packet).name == "packet.json" and Path(packet).parent == Path(data["offer"]).parent
    assert json.loads(Path(packet).read_text())["range"] == data["range"]


def test_overview_groups_dependencies_by_manifest_root_first(tmp_path):
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({
        "web/package.json": json.dumps({"name": "web-ui", "version": "1.0.0", "dependencies": {"left-pad": "^1"}}),
        "pyproject.toml": '[project]\nname = "rooted"\nversion = "0.1"\ndependencies = ["requests>=2", "click"]\n',
        "rooted/__init__.py": "x = 1\n",
    })
    p = rennet(tmp_path / "repo", tmp_path / "home", "context", "overview")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("dependencies (")))
    block = lines[at + 1: at + 7]
    assert block[0] == "  pyproject.toml (rooted):"
    assert {block[1].split()[0], block[2].split()[0]} == {"requests", "click"}
    assert block[3] == "  web/package.json (web-ui):" and block[4].split()[0] == "left-pad"


def test_the_overview_escapes_a_rev_that_names_a_reordering_mark(tmp_path):
    """A branch may be named with a bidi mark or a C1 control (git refuses only ASCII ones): the
    overview's first line shows the rev quoted and escaped, as it shows the repository (was: raw)."""
    repo = RepoBuilder(tmp_path / "repo")
    head = repo.commit({"a.py": "x = 1\n"})
    rev = "v\u202e1\u009b2J"
    repo.repo.branches.local.create(rev, repo.repo.get(head))
    p = rennet(tmp_path / "repo", tmp_path / "home", "context", "overview", "--rev", rev)
    assert p.returncode == 0, p.stderr
    first = p.stdout.splitlines()[0]
    assert '@ "v\\u202e1\\x9b2J" (' in first and not set(first) & {"\u202e", "\u009b"}, first


def test_dossier_collapses_repeated_facts_into_one_line():
    from context_tools.faces.packs.dossier import _facts
    from delta.dossier.items import Fact

    msg = "no Jira or Linear settings claim {}; add [dossier.jira] base_url and token_env to .rennet.toml"
    facts = [Fact("missing_config", "tracker", key, msg.format(key)) for key in ("OPS-1", "OPS-2", "OPS-3")]
    facts.append(Fact("not_found", "github", "#4", "github: #4 does not exist"))
    lines = _facts(facts)
    assert len(lines) == 2
    assert lines[0] == "  not_found [github] #4: github: #4 does not exist"
    assert lines[1] == ("  missing_config x3 [tracker] OPS-1, OPS-2, OPS-3: no Jira or Linear settings claim each; "
                        "add [dossier.jira] base_url and token_env to .rennet.toml")


def test_a_read_that_indexes_first_says_so_on_one_stderr_line(tmp_path):
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"a.py": "def f():\n    return 1\n"})
    first = rennet(tmp_path / "repo", tmp_path / "home", "context", "overview", "--json")
    assert first.returncode == 0, first.stderr
    json.loads(first.stdout)  # stdout stays the answer alone
    assert first.stderr.count("\n") == 1 and first.stderr.startswith("rennet: indexing HEAD of ")
    again = rennet(tmp_path / "repo", tmp_path / "home", "context", "overview", "--json")
    assert again.returncode == 0 and again.stderr == ""


def test_workspace_add_that_indexes_says_so_on_one_stderr_line(tmp_path):
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"a.py": "def f():\n    return 1\n"})
    home = tmp_path / "home"
    assert rennet(tmp_path / "repo", home, "workspace", "create", "team").returncode == 0
    first = rennet(tmp_path / "repo", home, "workspace", "add", "team", ".", "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["data"]["parsed_blobs"] == 1
    assert first.stderr.count("\n") == 1 and first.stderr.startswith("rennet: indexing HEAD of ")
    again = rennet(tmp_path / "repo", home, "workspace", "add", "team", ".", "--json")  # re-pins; indexes nothing
    assert again.returncode == 0 and again.stderr == ""
    repo.commit({"b.py": "def g():\n    return 2\n"})
    moved = rennet(tmp_path / "repo", home, "workspace", "sync", "team", "--json")
    assert moved.returncode == 0 and moved.stderr.startswith("rennet: indexing HEAD of ")


def test_the_plain_rendering_escapes_a_name_in_a_key_or_an_unknowns_reason():
    """What a repository names reaches the generic rendering as a mapping's key (a symbol name
    counted) or inside an unknown's reason (a ref that no longer resolves): neither reaches the
    terminal as a control sequence or a reordering mark."""
    from context_tools.faces.render import render_result
    from indexer.contract.result import Freshness, Result, current_or_gone

    rev = "v\u202e1\x1b]0;owned\x07"
    gone = current_or_gone(None, rev)
    fresh = Freshness(repo="/r\x1b[2J", rev=rev, pinned_oid="a" * 40, current_oid=gone, status="unknown",
                      reason=f"{rev} no longer resolves", indexed_at="2026-01-01T00:00:00Z")
    data = {"uses": {"run\x1b[2J": 3}, "title": "t\x9b31m", "revs": [{"rev": "v1", "current": gone}]}
    text = render_result(Result(data=data, freshness=fresh))
    assert not set(text) & {"\x1b", "\x07", "\x9b", "\u202e"}
    assert '"run\\x1b[2J": 3' in text and "v\\u202e1\\x1b]0;owned\\x07 no longer resolves" in text
    assert text.splitlines()[-1].startswith('[unknown] "/r\\x1b[2J" "v\\u202e1\\x1b]0;owned\\x07" @ aaaaaaaaaaaa')


def test_the_line_a_read_that_indexes_first_prints_on_a_terminal_escapes_the_rev(tmp_path):
    """On a terminal the progress bar comes with a line naming the rev and the repository; a
    branch named with a bidi mark or a C1 control reaches it escaped (was: written raw, where
    the line without a terminal was sanitized)."""
    import pty

    repo = RepoBuilder(tmp_path / "repo")
    head = repo.commit({"a.py": "x = 1\n"})
    rev = "v\u202e1\u009b2J"
    repo.repo.branches.local.create(rev, repo.repo.get(head))
    parent, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RENNET_HOME": str(tmp_path / "home"), "PYTHONIOENCODING": "utf-8"}
    env.pop("RENNET_DEBUG", None)
    with subprocess.Popen([sys.executable, "-m", "context_tools.faces.cli", "context", "overview", "--rev", rev,
                           "--json"], cwd=tmp_path / "repo", env=env, stdout=subprocess.DEVNULL, stderr=child) as p:
        os.close(child)
        seen = b""
        while True:
            try:
                chunk = os.read(parent, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            seen += chunk
        assert p.wait(timeout=120) == 0, seen
    os.close(parent)
    text = seen.decode("utf-8", "replace")
    assert "indexing v\\u202e1\\x9b2J of " in text and not set(text) & {"\u202e", "\u009b"}, text


def test_a_files_lines_reach_the_terminal_with_no_control_or_reordering_character(tmp_path):
    """A file's content is the commit's: an escape sequence (here a clear screen and an OSC 52
    write to the clipboard), a carriage return that draws one statement over another, and the
    bidi marks of a Trojan Source line are escaped on a line marked `!`, its backslashes
    doubled, while a line merely spelling an escape, a tab and a CRLF line show as they are
    (was: every line drawn raw)."""
    text = ('ok = "\\x1b[2J"\n'  # the text of an escape, no control: as it is
            '\tif access != "user\u202e \u2066// admin\u2069 \u2066":\n'
            'print("\x1b[2J\x1b]52;c;cHduZWQ=\x07 \\x1b")\n'
            'x = 1\rfake = "fine"\n'
            'crlf = 1\r\n'
            'c1 = "\u009b31m"\n')
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"evil.py": text})
    # read as bytes: text mode would turn the carriage returns into line breaks
    p = run_cli("context", "file", "evil.py", home=tmp_path / "home", cwd=tmp_path / "repo", text=False,
                timeout=120)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    lines = out.split("\n")
    assert not set(out) & {"\x1b", "\x07", "\u009b", "\u202e", "\u2066", "\u2069"}, out
    assert "\r" not in out
    assert "1| " + 'ok = "\\x1b[2J"' in lines
    assert "2! " + '\tif access != "user\\u202e \\u2066// admin\\u2069 \\u2066":' in lines
    assert "3! " + 'print("\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07 \\\\x1b")' in lines
    assert "4! " + 'x = 1\\rfake = "fine"' in lines
    assert "5| crlf = 1" in lines  # its line end taken off, as git counts lines
    assert "6! " + 'c1 = "\\x9b31m"' in lines


def test_a_dump_drawn_on_a_terminal_escapes_what_json_leaves_raw_and_a_pipe_gets_the_canonical_bytes(tmp_path):
    """JSON escapes C0 controls but may hold C1 controls (U+009B is CSI), line separators and
    bidi marks raw: `rennet snapshot dump` on a terminal writes them as JSON escapes, the same
    values once parsed; through a pipe its bytes stay the canonical serialization `--out`
    writes (was: raw on the terminal too, its rendering claiming them escaped)."""
    names = ["a\u202eyp.txt", "c1\u009b31m.py", "ls\u2028x.py", "n\u0085l.py", "plain.py"]
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({name: "x = 1\n" for name in names})
    piped = run_cli("snapshot", "dump", home=tmp_path / "home", cwd=tmp_path / "repo", text=False, timeout=120)
    assert piped.returncode == 0, piped.stderr
    written = run_cli("snapshot", "dump", "--out", str(tmp_path / "dump.jsonl"), home=tmp_path / "home",
                      cwd=tmp_path / "repo", timeout=120)
    assert written.returncode == 0 and piped.stdout == (tmp_path / "dump.jsonl").read_bytes()  # the canonical bytes
    shown = on_a_terminal(tmp_path / "repo", tmp_path / "home", "snapshot", "dump")
    assert not set(shown) & {"\u202e", "\u009b", "\u2028", "\u0085"}, shown
    assert [json.loads(line) for line in shown.splitlines()] == [json.loads(line) for line in piped.stdout.splitlines()]
    assert {f["path"] for f in map(json.loads, shown.splitlines()) if f["type"] == "file"} == set(names)


def test_a_links_target_shows_as_a_name_and_reaches_the_terminal_escaped(tmp_path):
    """A symbolic link's target is any bytes the commit chose: `rennet context file` shows it as
    a name on the file's line, quoted and escaped as git quotes a path, and the content's reason
    no longer spells it (was: drawn raw inside the reason, an OSC 52 write to the clipboard, a
    line break starting a line of the commit's own, a bidi mark)."""
    from corpora.gitbuild import Link

    target = "x\x1b]52;c;cHduZWQ=\x07\x1b[2J\nrennet: fake line\u202e"
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"a.py": "x = 1\n", "l": Link(target)})
    p = run_cli("context", "file", "l", home=tmp_path / "home", cwd=tmp_path / "repo", text=False, timeout=120)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert not set(out) & {"\x1b", "\x07", "\u202e", "\r"}, out
    assert not any(line.startswith("rennet: fake") for line in out.splitlines())
    first = out.splitlines()[0]
    assert '  target "x\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\nrennet: fake line\\u202e"  ' in first, first
    assert out.splitlines()[1] == "content: <not_applicable: a symlink entry has no text lines (its target is the file's `target`)>"


# What JSON leaves raw in a string and a terminal acts on: C1 controls (U+009B is CSI, U+0085 a
# line break), the line and paragraph separators, and the marks that reorder a line as it is drawn
JSON_RAW = ["\u007f", "\u009b", "\u0085", "\u2028", "\u2029", "\u202a", "\u202e", "\u2066", "\u2069", "\u200e", "\u200f",
            "\u061c"]


def _timeless(value: object) -> object:
    """`value` without the seconds a run took, and the moment a packet was built (its freshness's
    `indexed_at`), which no two runs share."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in ("seconds", "elapsed_seconds", "indexed_at")}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def test_every_json_output_on_a_terminal_escapes_what_json_leaves_raw_and_a_pipe_gets_the_wire_bytes(tmp_path):
    """A commit names its files and branches as it likes: `--json` of a verb, `rennet call`'s
    envelope, `batch --json`'s job lines and the envelope of a usage error, written to a terminal, hold none of the characters
    above raw but their JSON escapes, the same values once parsed; through a pipe each line stays
    the encoder's own bytes, the characters raw (was: raw on the terminal too, where a title
    could move the cursor or reorder what the reader sees)."""
    import msgspec

    names = [f"f{n}{ch}x.py" for n, ch in enumerate(JSON_RAW)]
    b = RepoBuilder(tmp_path / "repo")
    base = b.commit({"keep.py": "x = 1\n"})
    head = b.commit({name: "x = 1\n" for name in names})
    rev = "v\u202e1\u009b2J"
    b.repo.branches.local.create(rev, b.repo.get(head))
    repo, out = tmp_path / "repo", str(tmp_path / "out")
    runs = {
        "verb": ("delta", "--base", base, "--head", rev, "--no-index", "--out", out, "--json"),
        "call": ("call", "delta.build", json.dumps({"base": base, "head": rev, "index": False, "out": out})),
        "batch": ("batch", f"{repo}@{rev}", "--quiet", "--json"),
        "usage_error": ("context", "overview", "--json", "".join(JSON_RAW)),  # the envelope names the argument
    }
    for what, args in runs.items():
        code = 2 if what == "usage_error" else 0
        # each its own store: batch indexes, and the second run of one store would skip its job
        piped = run_cli(*args, home=tmp_path / f"{what}-pipe", cwd=repo, text=False, timeout=120)
        assert piped.returncode == code, piped.stderr
        shown = on_a_terminal(repo, tmp_path / f"{what}-tty", *args, code=code)
        assert not set(shown) & set(JSON_RAW), (what, shown)
        seen, sent = shown.splitlines(), piped.stdout.split(b"\n")
        assert sent[-1] == b"" and len(seen) == len(sent) - 1 >= 1, what  # one result a line, and nothing else
        assert [_timeless(json.loads(line)) for line in seen] == [_timeless(json.loads(line)) for line in sent[:-1]]
        for line in sent[:-1]:  # the encoder's bytes, nothing escaped past what JSON escapes
            assert line == msgspec.json.encode(json.loads(line)), (what, line)
        assert "\\u202e" in shown, what
        if what == "usage_error":  # a message, sanitized wherever it goes: the argument escaped as text
            assert not set(piped.stdout.decode()) & set(JSON_RAW) and b"\\\\u202e" in piped.stdout
            continue
        assert rev.encode() in piped.stdout, what
        if what != "batch":  # a job names its rev; the packet every file
            assert all(name.encode() in piped.stdout for name in names), what
