"""Rennet's MCP server inside the agent hosts people run (not run in CI; needs the hosts installed).

    npm install --prefix /tmp/hosts @anthropic-ai/claude-code @openai/codex @google/gemini-cli
    .venv/bin/python -m benchmarks.hosts --bin /tmp/hosts/node_modules/.bin [--host claude] [--out DIR]

Each host (Claude Code `claude -p`, Codex `codex exec`, Gemini CLI `gemini -p`) runs
non-interactively against `rennet mcp` over stdio, its model replaced by `benchmarks.scripted_model`
on loopback: the one part of the world we fake. The script calls the tools in a fixed order
(`steps`) on a real repository (Flask's two releases, `corpora.registry_corpus`, indexed first);
the same calls are then made with the MCP SDK's own client, and each result the host handed its
model is compared with what the server sent. Per host, OUT/HOST/ holds the tool definitions as the
host sent them, each result as the model saw it, every request the host made of the model, the
host's stdout and stderr, and summary.json; one line a host and one a result not seen whole go to
stderr.

Each host is set up as docs/agents.md says (Codex's `required = true`, the spill folder readable by
Claude Code and Gemini CLI); `--as-it-comes` leaves those settings out. Nothing leaves the
machine: the model is on loopback, the hosts' own traffic off or refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.scripted_model import HOST_READER, Anthropic, Api, Gemini, Responses, ScriptedModel, Seen, Step

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "Look around this repository with the rennet tools."
HOSTS = ("claude", "codex", "gemini")
SERVER = "rennet"
HEAD = 2000  # bytes of a spilled reply's file the script's host reader asks for


def _cursor(text: str) -> str:
    """The page cursor in a result's text, whether the host passed the JSON on as it came or
    quoted it inside its own."""
    found = re.search(r'\\*"cursor\\*"\s*:\s*\\*"([^"\\]+)', text)
    return found.group(1) if found else "no-cursor-seen"


def steps(repo: str, name: str, other_rev: str) -> list[Step]:
    return [
        Step("overview", "context_overview", lambda _: {"repo": repo}),
        Step("symbol", "context_symbol", lambda _: {"repo": repo, "name": name}),
        Step("references", "context_references", lambda _: {"repo": repo, "name": name, "limit": 5}),
        Step("references_page_2", "context_references",
             lambda done: {"repo": repo, "name": name, "limit": 5, "cursor": _cursor(done[-1])}, dependent=True),
        Step("bad_argument", "context_symbol", lambda _: {"repo": repo, "name": name, "limit": "many"}),
        Step("not_found", "context_symbol", lambda _: {"repo": repo, "name": "NoSuchNameAnywhere", "fuzzy": False}),
        # a map past the ceiling comes fitted to it, inline (it was spilled, and read from its file
        # with the host's own reader: a step HOST_READER still runs, when a reply spills)
        Step("map_16k", "context_map", lambda _: {"repo": repo, "budget": "16k"}),
        Step("index", "repo_index", lambda _: {"repo": repo, "rev": other_rev}),
    ]


def server_command(repo: str) -> tuple[str, list[str]]:
    """`rennet mcp` of this checkout, whatever is installed: the path is set in the command, as
    Gemini CLI refuses to pass PYTHONPATH to a server."""
    start = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from context_tools.faces.script import run; run()"
    return sys.executable, ["-c", start, "mcp", "--root", repo]


def server_env(home: str) -> dict[str, str]:
    return {"RENNET_HOME": home}


def _base_env(home: Path) -> dict[str, str]:
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "TERM", "TMPDIR") if k in os.environ}
    return {**keep, "HOME": str(home), "NO_COLOR": "1", "CI": "1"}


@dataclass(frozen=True)
class Setup:
    """Where a host runs: the repository, Rennet's store, the model, a scratch home; and whether
    the host is set up as docs/agents.md says (`documented`: Codex waits for the server, Claude
    Code and Gemini CLI may read the spill folder) or as it comes."""

    bin_dir: Path
    repo: str
    store: str
    model: ScriptedModel
    home: Path
    documented: bool

    @property
    def spill(self) -> str:
        return str(Path(self.store) / "spill")


def claude(s: Setup) -> tuple[list[str], dict]:
    command, args = server_command(s.repo)
    config = s.home / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {SERVER: {"command": command, "args": args,
                                                          "env": server_env(s.store)}}}))
    env = {**_base_env(s.home), "ANTHROPIC_BASE_URL": s.model.url, "ANTHROPIC_API_KEY": "scripted",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
    grant = ["--add-dir", s.spill] if s.documented else []
    return [str(s.bin_dir / "claude"), "-p", PROMPT, "--mcp-config", str(config), "--strict-mcp-config",
            "--allowedTools", f"mcp__{SERVER}", *grant, "--output-format", "json", "--model", "claude-sonnet-4-5"], env


def codex(s: Setup) -> tuple[list[str], dict]:
    command, args = server_command(s.repo)
    codex_home = s.home / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text("\n".join([
        'model = "scripted"',
        'model_provider = "scripted"',
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        "[model_providers.scripted]",
        'name = "scripted"',
        f'base_url = "{s.model.url}/v1"',
        'wire_api = "responses"',
        'env_key = "SCRIPTED_API_KEY"',
        f"[mcp_servers.{SERVER}]",  # as `codex mcp add` writes it, and the lines docs/agents.md adds
        f"command = {json.dumps(command)}",
        f"args = {json.dumps(args)}",
        f"env = {{ {', '.join(f'{k} = {json.dumps(v)}' for k, v in server_env(s.store).items())} }}",
        *(["tool_timeout_sec = 600", "required = true"] if s.documented else []),
        ""]))
    env = {**_base_env(s.home), "CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "scripted"}
    return [str(s.bin_dir / "codex"), "exec", "--skip-git-repo-check", "--json", "-C", s.repo, PROMPT], env


def gemini(s: Setup) -> tuple[list[str], dict]:
    command, args = server_command(s.repo)
    settings = s.home / ".gemini"
    settings.mkdir()
    (settings / "settings.json").write_text(json.dumps({
        "mcpServers": {SERVER: {"command": command, "args": args, "env": server_env(s.store), "trust": True,
                                "timeout": 600000}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False}}))
    env = {**_base_env(s.home), "GEMINI_API_KEY": "scripted", "GOOGLE_GEMINI_BASE_URL": s.model.url,
           "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    grant = ["--include-directories", s.spill] if s.documented else []
    return [str(s.bin_dir / "gemini"), "-p", PROMPT, "--allowed-mcp-server-names", SERVER, *grant,
            "--output-format", "json", "-m", "gemini-2.5-flash"], env


RUNNERS = {"claude": (claude, Anthropic), "codex": (codex, Responses), "gemini": (gemini, Gemini)}


def version(bin_dir: Path, host: str) -> str:
    out = subprocess.run([str(bin_dir / host), "--version"], capture_output=True, text=True, timeout=60)
    return (out.stdout or out.stderr).strip().splitlines()[-1] if (out.stdout or out.stderr) else "?"


def reference(repo: str, store: str, script: list[Step]) -> tuple[list[dict], dict[str, dict]]:
    """The tools as the server lists them and each step's result as it sent it, through the MCP
    SDK's own client."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    command, args = server_command(repo)
    params = StdioServerParameters(command=command, args=args, env={**os.environ, **server_env(store)}, cwd=repo)

    async def work() -> tuple[list[dict], dict[str, dict]]:
        async with Client(params) as client:
            listed = await client.list_tools()
            tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
            done: list[str] = []
            sent: dict[str, dict] = {}
            for step in script:
                if step.tool == HOST_READER:  # what the file holds, its head as a host reads it
                    text = Path(step.arguments(done)["path"]).read_text()[:HEAD]
                    sent[step.label] = {"text": text, "is_error": False, "file": True}
                else:
                    result = await client.call_tool(step.tool, step.arguments(done))
                    text = "".join(getattr(b, "text", "") for b in result.content)
                    sent[step.label] = {"text": text, "is_error": bool(result.is_error)}
                done.append(text)
            return tools, sent
    return anyio.run(work)


def _schema_changes(ours: object, theirs: object, path: str = "$") -> list[str]:
    """Where the schema a host sent its model differs from the server's."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = [f"{path}.{k}: dropped" for k in ours if k not in theirs]
        out += [f"{path}.{k}: added {json.dumps(theirs[k])[:80]}" for k in theirs if k not in ours]
        for k in ours:
            if k in theirs:
                out += _schema_changes(ours[k], theirs[k], f"{path}.{k}")
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [c for i, (a, b) in enumerate(zip(ours, theirs)) for c in _schema_changes(a, b, f"{path}[{i}]")]
    return [] if ours == theirs else [f"{path}: {json.dumps(ours)[:60]} -> {json.dumps(theirs)[:60]}"]


def _texts(got: str) -> list[str]:
    """The text a host handed the model, and each string inside it where the host wrapped the
    reply in JSON of its own (Gemini CLI's `{"output": ...}`, an error quoting the response)."""
    out, todo = [], [got]
    while todo and len(out) < 64:
        text = todo.pop()
        out.append(text)
        start = text.find("{")
        while start != -1 and len(out) + len(todo) < 64:
            try:
                value, end = json.JSONDecoder().raw_decode(text, start)
            except ValueError:
                start = text.find("{", start + 1)
                continue
            todo.extend(_strings(value))
            start = text.find("{", end)
    return out


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _steady(text: str) -> str:
    """A reply less what differs between two indexes of the same tree (when each was made)."""
    text = re.sub(r'(\\*"indexed_at\\*"\s*:\s*)\\*"[^"\\]*\\*"', r"\1-", text)
    text = re.sub(r'(\\*"seconds\\*"\s*:\s*)[0-9.]+', r"\1-", text)
    return re.sub(r"[0-9]{8}T[0-9]{6}Z-([a-z._]+)-[0-9a-f]{16}\.json", r"\1.json", text)


def compare(seen: Seen, tools: list[dict], sent: dict[str, dict]) -> dict:
    by_name = {t["name"]: t for t in tools}
    defs = {}
    for t in seen.tools:
        wire = next((n for n in by_name if t.name.endswith(n)), None)
        if wire is None:
            continue
        defs[t.name] = {"wire_name": wire, "description_bytes": len(t.description.encode()),
                        "schema_bytes": len(json.dumps(t.schema).encode()),
                        "schema_changes": _schema_changes(by_name[wire]["inputSchema"], t.schema),
                        "description_same": t.description == by_name[wire].get("description", "")}
    calls = {}
    for label, server in sent.items():
        got = seen.results.get(label)
        ours = json.loads(server["text"]) if server["text"].startswith("{") and not server.get("file") else None
        # of a file, its first lines (hosts number a file's lines as they show them)
        wanted = ([line.strip() for line in server["text"].splitlines()[:4]] if server.get("file")
                  else [_steady(server["text"])])
        calls[label] = {
            "arguments": seen.calls.get(label, {}).get("arguments"),
            "server_bytes": len(server["text"].encode()), "server_error": server["is_error"],
            "server_code": (ours or {}).get("error", {}).get("code") if isinstance(ours, dict) else None,
            "model_bytes": None if got is None else len(got.encode()),
            "model_has_reply_whole": got is not None and all(any(w in _steady(t) for t in _texts(got))
                                                             for w in wanted),
            "model_text_head": None if got is None else got[:300]}
    return {"tools_listed": len(tools), "tools_seen": len(defs), "tool_defs": defs,
            "tool_def_bytes": len(json.dumps([t.__dict__ for t in seen.tools if t.name in defs]).encode()),
            "calls": calls,
            "requests": seen.requests}


def run_host(host: str, bin_dir: Path, repo: str, store: str, script: list[Step], out: Path,
             tools: list[dict], sent: dict[str, dict], timeout: float, documented: bool) -> dict:
    runner, api_type = RUNNERS[host]
    api: Api = api_type()
    work = out / host
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix=f"host-{host}-") as tmp, ScriptedModel(api, script) as model:
        Path(store, "spill").mkdir(parents=True, exist_ok=True)
        argv, env = runner(Setup(bin_dir, repo, store, model, Path(tmp), documented))
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, env=env, cwd=repo, capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
            code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            code, stdout, stderr = None, str(exc.stdout or ""), str(exc.stderr or "")
        wall = time.monotonic() - started
    (work / "stdout.txt").write_text(stdout)
    (work / "stderr.txt").write_text(stderr)
    (work / "tools.json").write_text(json.dumps([t.__dict__ for t in model.seen.tools], indent=1))
    (work / "requests.json").write_text(json.dumps(model.seen.bodies, indent=1))
    (work / "results.json").write_text(json.dumps({"calls": model.seen.calls, "results": model.seen.results},
                                                  indent=1))
    summary = {"host": host, "version": version(bin_dir, host), "setup": "documented" if documented else "as it comes",
               "exit": code, "seconds": round(wall, 1),
               **compare(model.seen, tools, sent)}
    (work / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.hosts", description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", type=Path, default=Path("/tmp/hosts/node_modules/.bin"), help="folder of the hosts' commands")
    p.add_argument("--host", action="append", choices=HOSTS, help="host to run (default: every one)")
    p.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "rennet-hosts")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds a host may run")
    p.add_argument("--as-it-comes", action="store_true",
                   help="leave out the host settings docs/agents.md gives (Codex's `required`, the spill folder's access)")
    a = p.parse_args(argv)
    from corpora.registry_corpus import main as corpus
    from indexer import api

    a.out.mkdir(parents=True, exist_ok=True)
    bare, repo, store = a.out / "flask.git", a.out / "flask", a.out / "store"
    if not bare.exists():
        with contextlib.redirect_stdout(sys.stderr):
            corpus(["flask", "--out", str(bare)])
    if not repo.exists():
        subprocess.run(["git", "clone", "-q", str(bare), str(repo)], check=True)
    shutil.rmtree(store, ignore_errors=True)
    api.index(str(repo), rev="HEAD", store=str(store))
    script = steps(str(repo), "Flask", "v3.0.2")
    tools, sent = reference(str(repo), str(store), script)
    summaries = []
    for host in a.host or HOSTS:
        shutil.rmtree(store, ignore_errors=True)  # each host's repo_index indexes v3.0.2 afresh
        api.index(str(repo), rev="HEAD", store=str(store))
        summaries.append(run_host(host, a.bin, str(repo), str(store), script, a.out, tools, sent, a.timeout,
                                  not a.as_it_comes))
        s = summaries[-1]
        print(f"{host} {s['version']}: exit {s['exit']}, {s['tools_seen']}/{s['tools_listed']} tools "
              f"({s['tool_def_bytes']} bytes of their definitions), "
              f"{sum(c['model_bytes'] is not None for c in s['calls'].values())}/{len(script)} results "
              f"-> {a.out / host}", file=sys.stderr)
        for label, c in s["calls"].items():
            if c["model_bytes"] is not None and not c["model_has_reply_whole"]:
                print(f"  {label}: not whole: {c['model_text_head'][:160]!r}", file=sys.stderr)
    (a.out / "summary.json").write_text(json.dumps(summaries, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
