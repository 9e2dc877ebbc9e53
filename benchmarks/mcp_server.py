"""The MCP server's rows of the benchmark (not run in CI; tests never time anything).

    .venv/bin/python -m benchmarks.mcp_server start [--repeat 7]
    .venv/bin/python -m benchmarks.mcp_server load [--files 300] [--calls 200]

`start`: the floor is the wall time of `python -c "import mcp.server.lowlevel"` (the SDK's
server module, what any server on the SDK must load); `initialize` is the wall time from
spawning `rennet mcp` to the end of the SDK client's `initialize` handshake over stdio. Both
are medians of `--repeat` fresh processes, interleaved so a busy phase of the host moves
both; the target is initialize <= 1.3 x floor.

`load`: one `rennet mcp --http` server on a synthetic repository; `calls/s` of
`context_symbol` over 1, 4 and 16 concurrent HTTP sessions, each session issuing its share of
`--calls`; then the server's resident memory (VmRSS, VmHWM) after it served 32 revisions of the
repository (each indexed first through `repo_index`).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env(home: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["RENNET_HOME"] = home
    return env


def sdk_import_floor() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.server.lowlevel"], check=True)
    return time.perf_counter() - started


def initialize_wall(home: str) -> float:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "context_tools.faces.cli", "mcp"],
                                   env=_env(home), cwd=str(ROOT))

    async def run() -> float:
        started = time.perf_counter()
        async with Client(params):
            return time.perf_counter() - started

    return anyio.run(run)


def bench_start(repeat: int) -> dict:
    home = tempfile.mkdtemp(prefix="rennet-mcp-start-")
    initialize_wall(home)  # warm the file cache once for both
    floors, inits = [], []
    for _ in range(repeat):
        floors.append(sdk_import_floor())
        inits.append(initialize_wall(home))
    floor, init = statistics.median(floors), statistics.median(inits)
    return {"row": "mcp initialize", "sdk_import_floor_s": round(floor, 3), "initialize_s": round(init, 3),
            "ratio": round(init / floor, 2), "target": 1.3, "pass": init <= 1.3 * floor}


# --- load -------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _synthetic(files: int, revisions: int) -> tuple[Path, list[str]]:
    from corpora.gitbuild import RepoBuilder

    root = Path(tempfile.mkdtemp(prefix="rennet-mcp-load-"))
    builder = RepoBuilder(root / "repo")
    tree = {f"pkg/mod_{i:04d}.py": f"from pkg.mod_{max(i - 1, 0):04d} import f{max(i - 1, 0)}\n\n\n"
                                   f"def f{i}(x):\n    return x + {i}\n\n\nclass C{i}:\n    def m(self):\n"
                                   f"        return f{i}(1)\n" for i in range(files)}
    oids = [builder.commit(tree, message="base")]
    for n in range(1, revisions):
        oids.append(builder.commit({f"pkg/mod_{n % files:04d}.py": f"def f{n % files}(x):\n    return x * {n}\n"},
                                   message=f"rev {n}"))
    return root / "repo", oids


def _rss(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out


def _drive(job: tuple) -> int:
    """One client process: its sessions, each making `per` context_symbol calls; the calls made."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    url, token, repo, files, per, keys = job

    async def one(k: int) -> None:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=300)
        async with Client(streamable_http_client(url, http_client=client)) as c:
            for i in range(per):
                await c.call_tool("context_symbol", {"repo": repo, "name": f"f{(k * per + i) % files}"})

    async def run() -> None:
        async with anyio.create_task_group() as tg:
            for k in keys:
                tg.start_soon(one, k)

    anyio.run(run)
    return per * len(keys)


def bench_load(files: int, calls: int) -> dict:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    repo, oids = _synthetic(files, 32)
    home = tempfile.mkdtemp(prefix="rennet-mcp-load-home-")
    port = _free_port()
    env = {**_env(home), "RENNET_BENCH_TOKEN": "benchmark-token-0123456789abcdef"}
    proc = subprocess.Popen([sys.executable, "-m", "context_tools.faces.cli", "mcp", "--http", f"127.0.0.1:{port}",
                             "--root", str(repo), "--token-env", "RENNET_BENCH_TOKEN"], cwd=ROOT, env=env,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            time.sleep(0.05)

        def client() -> Client:
            headers = {"Authorization": f"Bearer {env['RENNET_BENCH_TOKEN']}"}
            return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=300)))

        async def index_all() -> None:
            async with client() as c:
                for oid in oids:
                    await c.call_tool("repo_index", {"repo": str(repo), "rev": oid})

        def sessions(n: int) -> float:
            """Calls/s over `n` concurrent sessions, driven from up to 4 client processes (one
            client process alone spends more CPU per call than the server does)."""
            from concurrent.futures import ProcessPoolExecutor

            per = max(calls // n, 1)
            procs = min(n, 4)
            groups = [list(range(k, n, procs)) for k in range(procs)]
            started = time.perf_counter()
            with ProcessPoolExecutor(procs) as pool:
                done = sum(pool.map(_drive, [(url, env["RENNET_BENCH_TOKEN"], str(repo), files, per, g) for g in groups]))
            return done / (time.perf_counter() - started)

        anyio.run(index_all)
        rates = {n: round(sessions(n), 1) for n in (1, 4, 16)}

        async def serve_revisions() -> None:
            async with client() as c:
                for oid in oids:
                    await c.call_tool("context_map", {"repo": str(repo), "rev": oid})
                    await c.call_tool("context_symbol", {"repo": str(repo), "rev": oid, "name": "f1"})

        anyio.run(serve_revisions)
        memory = _rss(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return {"row": "mcp load", "files": files, "calls_per_s": rates,
            "ratio_16_to_1": round(rates[16] / rates[1], 2), "target_16_to_1": 1.6,
            "rss_after_32_revisions_bytes": memory.get("VmRSS"), "peak_rss_bytes": memory.get("VmHWM")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.mcp_server")
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("start")
    p.add_argument("--repeat", type=int, default=7)
    p = sub.add_parser("load")
    p.add_argument("--files", type=int, default=300)
    p.add_argument("--calls", type=int, default=320)
    args = parser.parse_args(argv)
    row = bench_start(args.repeat) if args.what == "start" else bench_load(args.files, args.calls)
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
