"""The MCP server's rows of the benchmark (not run in CI; tests never time anything).

    .venv/bin/python -m benchmarks.mcp_server start [--repeat 7]
    .venv/bin/python -m benchmarks.mcp_server load [--files 300] [--calls 200]
    .venv/bin/python -m benchmarks.mcp_server reindex REPO STORE REV... [--repeat 3]

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

from benchmarks.measure import children_of, command_line, process_cpu

ROOT = Path(__file__).resolve().parent.parent


def _env(home: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["RENNET_HOME"] = home
    return env


def _children_cpu_used() -> float:
    """CPU seconds of this process's waited-for children so far (user + system)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def sdk_import_floor() -> tuple[float, float]:
    """(wall, CPU) of a fresh interpreter importing the SDK's server module."""
    started, cpu = time.perf_counter(), _children_cpu_used()
    subprocess.run([sys.executable, "-c", "import mcp.server.lowlevel"], check=True)
    return time.perf_counter() - started, _children_cpu_used() - cpu


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
    """Wall medians, and CPU: the floor's process, against the server's whole life (spawn,
    initialize, exit at the end of input), both as waited-for children; on a shared host the
    CPU ratio is the one to read."""
    home = tempfile.mkdtemp(prefix="rennet-mcp-start-")
    initialize_wall(home)  # warm the file cache once for both
    floors, inits, floor_cpu, init_cpu = [], [], [], []
    for _ in range(repeat):
        wall, cpu = sdk_import_floor()
        floors.append(wall)
        floor_cpu.append(cpu)
        before = _children_cpu_used()
        inits.append(initialize_wall(home))
        init_cpu.append(_children_cpu_used() - before)
    floor, init = statistics.median(floors), statistics.median(inits)
    fcpu, icpu = min(floor_cpu), min(init_cpu)
    return {"row": "mcp initialize", "sdk_import_floor_s": round(floor, 3), "initialize_s": round(init, 3),
            "ratio": round(init / floor, 2), "sdk_import_floor_cpu_s": round(fcpu, 3),
            "initialize_cpu_s": round(icpu, 3), "cpu_ratio": round(icpu / fcpu, 2), "target": 1.3,
            "pass": init <= 1.3 * floor, "loadavg": _load_avg()}


# --- load -------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _synthetic(files: int, revisions: int, salt: int = 0) -> tuple[Path, list[str]]:
    """A repository of `files` modules and `revisions` commits; a different `salt` gives blobs no
    other salt gives (a store that indexed one has seen none of another's)."""
    from corpora.gitbuild import RepoBuilder

    root = Path(tempfile.mkdtemp(prefix="rennet-mcp-load-"))
    builder = RepoBuilder(root / "repo")
    tree = {f"pkg/mod_{i:04d}.py": f"from pkg.mod_{max(i - 1, 0):04d} import f{max(i - 1, 0)}\n\n\n"
                                   f"def f{i}(x):\n    return x + {i + salt * 1_000_000}\n\n\nclass C{i}:\n    def m(self):\n"
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


FLOOR_TOOL = "floor_noop"  # not advertised: the server answers `unknown_command` in its event loop, no thread hop


def _load_avg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _children_cpu(pid: int) -> float:
    """CPU seconds of the live children of `pid` (the server's reader processes)."""
    total = 0.0
    for child in children_of(pid):
        try:
            total += process_cpu(child)
        except (OSError, ValueError, IndexError):
            continue
    return total


def _call(c, tool: str, repo: str, files: int, n: int):
    if tool == "floor":
        return c.call_tool(FLOOR_TOOL, {})
    return c.call_tool("context_symbol", {"repo": repo, "name": f"f{n % files}"})


def _driver(url: str, token: str, repo: str, files: int, keys: list[int], per: int, tool: str,
            barrier, stop, out) -> None:
    """One client process: opens its sessions and warms each with one call, waits at the
    barrier (so process start, imports and handshakes stay outside the timed part), then
    either makes `per` calls per session or, with `stop`, calls until `stop` is set. Puts
    (first start, last end, [(start, latency)], CPU seconds of this process while timed)."""
    import contextlib

    import anyio
    import anyio.to_thread
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = []
            for k in keys:
                http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=300)
                c = await stack.enter_async_context(Client(streamable_http_client(url, http_client=http)))
                await _call(c, tool, repo, files, k)
                clients.append(c)
            await anyio.to_thread.run_sync(barrier.wait)
            lat: list[tuple[float, float]] = []

            async def one(c, k: int) -> None:
                i = 0
                while (i < per) if stop is None else not stop.is_set():
                    t = time.monotonic()
                    await _call(c, tool, repo, files, k * 1000 + i)
                    lat.append((t, time.monotonic() - t))
                    i += 1

            cpu, t0 = time.process_time(), time.monotonic()
            async with anyio.create_task_group() as tg:
                for c, k in zip(clients, keys):
                    tg.start_soon(one, c, k)
            out.put((t0, time.monotonic(), lat, time.process_time() - cpu))

    anyio.run(run)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Server:
    """`rennet mcp --http` on loopback, serving `roots`."""

    TOKEN = "benchmark-token-0123456789abcdef"

    def __init__(self, home: str, roots: list[Path]) -> None:
        self.port = _free_port()
        env = {**_env(home), "RENNET_BENCH_TOKEN": self.TOKEN}
        args = [sys.executable, "-m", "context_tools.faces.cli", "mcp", "--http", f"127.0.0.1:{self.port}",
                "--token-env", "RENNET_BENCH_TOKEN"]
        for root in roots:
            args += ["--root", str(root)]
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        while socket.socket().connect_ex(("127.0.0.1", self.port)) != 0:
            time.sleep(0.05)

    def client(self):
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {self.TOKEN}"}
        return Client(streamable_http_client(self.url, http_client=httpx2.AsyncClient(headers=headers, timeout=300)))

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


async def _warm(server: Server, repo: Path) -> None:
    """Read calls spread over 4 s: the server's reader processes start on the first read call,
    and each fills its own cache; none of that belongs in a timed run."""
    import anyio

    async with server.client() as c:
        for i in range(40):
            await c.call_tool("context_symbol", {"repo": str(repo), "name": f"f{i}"})
            await anyio.sleep(0.1)


def sessions(server: Server, repo: Path, files: int, n: int, calls: int, tool: str, drivers: int) -> dict:
    """Calls/s, latency and CPU per call of `n` concurrent sessions, driven from `drivers`
    client processes started and warmed before the clock starts."""
    import multiprocessing

    mp = multiprocessing.get_context("spawn")
    procs = min(n, drivers)
    groups = [list(range(k, n, procs)) for k in range(procs)]
    per = max(calls // n, 1)
    barrier, out = mp.Barrier(procs + 1), mp.Queue()
    workers = [mp.Process(target=_driver, args=(server.url, server.TOKEN, str(repo), files, g, per, tool,
                                                barrier, None, out)) for g in groups]
    for w in workers:
        w.start()
    load = _load_avg()
    barrier.wait()
    cpu0, kids0 = process_cpu(server.proc.pid), _children_cpu(server.proc.pid)
    got = [out.get(timeout=600) for _ in workers]
    server_cpu = process_cpu(server.proc.pid) - cpu0
    readers_cpu = _children_cpu(server.proc.pid) - kids0
    for w in workers:
        w.join()
    done = sum(len(g[2]) for g in got)
    wall = max(g[1] for g in got) - min(g[0] for g in got)
    lat = [x for g in got for _, x in g[2]]
    return {"tool": tool, "sessions": n, "calls": done, "calls_per_s": round(done / wall, 1),
            "p50_ms": round(1000 * _pct(lat, 0.5), 2), "p99_ms": round(1000 * _pct(lat, 0.99), 2),
            "server_cpu_ms_per_call": round(1000 * server_cpu / done, 3),
            "readers_cpu_ms_per_call": round(1000 * readers_cpu / done, 3),
            "client_cpu_ms_per_call": round(1000 * sum(g[3] for g in got) / done, 3), "loadavg": load}


def handler_cpu(home: str, repo: Path, files: int, calls: int) -> float:
    """CPU ms of one context.symbol call run in process through the MCP face's executor (decode,
    roots, handler, ceiling, receipt): what our side costs without the SDK and the transport."""
    from context_tools.faces.dispatch import Executor
    from context_tools.faces.roots import Roots

    executor = Executor("mcp", store=home, ceiling=8192, roots=Roots.of([str(repo)]))
    for i in range(20):  # warm: the snapshot and its name tables cached, as in a serving process
        executor.run("context.symbol", {"repo": str(repo), "name": f"f{i % files}"})
    best = float("inf")
    for _ in range(3):
        cpu = time.process_time()
        for i in range(calls):
            executor.run("context.symbol", {"repo": str(repo), "name": f"f{i % files}"})
        best = min(best, (time.process_time() - cpu) / calls)
    return round(1000 * best, 3)


def bench_load(files: int, calls: int, repeat: int, drivers: int, tools: tuple[str, ...] = ("floor", "symbol")) -> dict:
    """The rows above, each configuration `repeat` times by turns: the best calls/s (the run the
    shared host disturbed least) and the median CPU per call."""
    import anyio

    repo, oids = _synthetic(files, 32)
    home = tempfile.mkdtemp(prefix="rennet-mcp-load-home-")
    server = Server(home, [repo])
    try:
        async def index_all() -> None:
            async with server.client() as c:
                for oid in oids:
                    await c.call_tool("repo_index", {"repo": str(repo), "rev": oid})

        anyio.run(index_all)
        anyio.run(_warm, server, repo)
        runs: dict[tuple[str, int], list[dict]] = {}
        for _ in range(repeat):
            for tool in tools:
                for n in (1, 4, 16):
                    runs.setdefault((tool, n), []).append(sessions(server, repo, files, n, calls, tool, drivers))
        rows = []
        for got in runs.values():
            best = max(got, key=lambda r: r["calls_per_s"])
            rows.append({**best, "runs_calls_per_s": [r["calls_per_s"] for r in got],
                         "server_cpu_ms_per_call": statistics.median(r["server_cpu_ms_per_call"] for r in got),
                         "client_cpu_ms_per_call": statistics.median(r["client_cpu_ms_per_call"] for r in got),
                         "readers_cpu_ms_per_call": statistics.median(r["readers_cpu_ms_per_call"] for r in got),
                         "loadavg_of_best": best["loadavg"]})

        async def serve_revisions() -> None:
            async with server.client() as c:
                for oid in oids:
                    await c.call_tool("context_map", {"repo": str(repo), "rev": oid})
                    await c.call_tool("context_symbol", {"repo": str(repo), "rev": oid, "name": "f1"})

        anyio.run(serve_revisions)
        memory = _rss(server.proc.pid)
        kids = [_rss(child) for child in children_of(server.proc.pid)]
    finally:
        server.close()
    ours = handler_cpu(home, repo, files, 200)
    rate = {(r["tool"], r["sessions"]): r["calls_per_s"] for r in rows}
    ratios = {f"{tool}_ratio_16_to_1": round(rate[(tool, 16)] / rate[(tool, 1)], 2) for tool in tools}
    return {"row": "mcp load", "files": files, "drivers": drivers, "readers": os.environ.get("RENNET_MCP_READERS", "default"),
            "rows": rows, **ratios, "target_16_to_1": 1.6,
            "handler_cpu_ms_per_call_in_process": ours,
            "rss_after_32_revisions_bytes": memory.get("VmRSS"), "peak_rss_bytes": memory.get("VmHWM"),
            "readers_rss_bytes": sum(k.get("VmRSS", 0) for k in kids)}


def bench_indexing(files: int, fresh_files: int, others: int, drivers: int, repeat: int) -> dict:
    """Other sessions' latency while one session's `repo_index` indexes a repository never
    indexed (`fresh_files` files), against the same sessions in the window just before it."""
    import multiprocessing

    import anyio

    repo, oids = _synthetic(files, 1)
    home = tempfile.mkdtemp(prefix="rennet-mcp-idx-home-")
    fresh = [_synthetic(fresh_files, 1, salt=k + 1)[0] for k in range(repeat)]
    server = Server(home, [repo, *fresh])
    mp = multiprocessing.get_context("spawn")
    results = []
    try:
        async def index(target: Path) -> tuple[float, float]:
            async with server.client() as c:
                t = time.monotonic()
                reply = await c.call_tool("repo_index", {"repo": str(target)})
                assert not reply.is_error, reply
                return t, time.monotonic()

        anyio.run(index, repo)
        anyio.run(_warm, server, repo)
        for target in fresh:
            procs = min(others, drivers)
            groups = [list(range(k, others, procs)) for k in range(procs)]
            barrier, stop, out = mp.Barrier(procs + 1), mp.Event(), mp.Queue()
            workers = [mp.Process(target=_driver, args=(server.url, server.TOKEN, str(repo), files, g, 0, "symbol",
                                                        barrier, stop, out)) for g in groups]
            for w in workers:
                w.start()
            barrier.wait()
            load = _load_avg()
            time.sleep(1.0)  # settle
            base_from = time.monotonic()
            time.sleep(5.0)  # the window without an index
            base_to = time.monotonic()
            t0, t1 = anyio.run(index, target)
            time.sleep(0.5)
            stop.set()
            got = [out.get(timeout=600) for _ in workers]
            for w in workers:
                w.join()
            lat = [(t, x) for g in got for t, x in g[2]]
            before = [x for t, x in lat if base_from <= t < base_to]
            during = [x for t, x in lat if t0 <= t < t1]
            results.append({"index_s": round(t1 - t0, 2), "loadavg": load, "calls_before": len(before),
                            "calls_during": len(during),
                            "p50_before_ms": round(1000 * _pct(before, 0.5), 2),
                            "p99_before_ms": round(1000 * _pct(before, 0.99), 2),
                            "p50_during_ms": round(1000 * _pct(during, 0.5), 2),
                            "p99_during_ms": round(1000 * _pct(during, 0.99), 2),
                            "p99_ratio": round(_pct(during, 0.99) / _pct(before, 0.99), 2)})
    finally:
        server.close()
    return {"row": "mcp index beside reads", "readers": os.environ.get("RENNET_MCP_READERS", "default"), "files": files, "fresh_files": fresh_files, "other_sessions": others,
            "runs": results, "median_p99_ratio": statistics.median(r["p99_ratio"] for r in results),
            "target_p99_ratio": 2.0}


def _tree_cpu(pid: int) -> float:
    """CPU seconds of `pid` and its waited-for children, and of its live children and theirs
    (the forkserver, which reaps the extraction workers it forks)."""
    total = process_cpu(pid, reaped=True)
    for child in children_of(pid):
        try:
            total += process_cpu(child, reaped=True)
        except (OSError, ValueError, IndexError):
            continue
    return total


def _server_pid() -> int:
    """The `rennet mcp` process this one spawned (the SDK's stdio client does not say)."""
    for child in children_of(os.getpid()):
        if b"mcp" in command_line(child).split(b"\0"):
            return child
    raise RuntimeError("no rennet mcp child")


def bench_reindex(repo: str, store: str, revs: list[str], repeat: int) -> dict:
    """Each of `revs` indexed in turn, from a copy of `store` each run: by one `rennet mcp`
    over stdio (`repo_index` calls: the resident host), and by a fresh `rennet index` process
    per rev. Per rev, the median wall and CPU (the server's: its process, forkserver and
    workers) of `repeat` runs."""
    import shutil

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    served: dict[str, list[tuple[float, float]]] = {rev: [] for rev in revs}
    fresh: dict[str, list[tuple[float, float]]] = {rev: [] for rev in revs}
    for _ in range(repeat):
        home = tempfile.mkdtemp(prefix="rennet-mcp-reindex-")
        shutil.rmtree(home)
        shutil.copytree(store, home)
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "context_tools.faces.cli", "mcp", "--root", str(Path(repo).parent)],
                                       env=_env(home), cwd=str(ROOT))

        async def run() -> None:
            async with Client(params) as c:
                pid = _server_pid()
                for rev in revs:
                    t, cpu = time.perf_counter(), _tree_cpu(pid)
                    reply = await c.call_tool("repo_index", {"repo": repo, "rev": rev})
                    assert not reply.is_error, reply
                    served[rev].append((time.perf_counter() - t, _tree_cpu(pid) - cpu))

        anyio.run(run)
        shutil.rmtree(home)
        shutil.copytree(store, home)
        for rev in revs:
            t, cpu = time.perf_counter(), _children_cpu_used()
            subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "index", "--repo", repo, "--rev", rev,
                            "--quiet"], env=_env(home), cwd=str(ROOT), check=True, stdout=subprocess.DEVNULL)
            fresh[rev].append((time.perf_counter() - t, _children_cpu_used() - cpu))
        shutil.rmtree(home)

    def medians(runs: dict[str, list[tuple[float, float]]]) -> list[dict]:
        return [{"rev": rev, "wall_s": round(statistics.median(w for w, _ in xs), 3),
                 "cpu_s": round(statistics.median(c for _, c in xs), 3)} for rev, xs in runs.items()]

    return {"row": "re-index in a resident host", "repeat": repeat, "mcp_server": medians(served),
            "fresh_process": medians(fresh), "loadavg": _load_avg()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.mcp_server")
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("start")
    p.add_argument("--repeat", type=int, default=7)
    p = sub.add_parser("load")
    p.add_argument("--files", type=int, default=300)
    p.add_argument("--calls", type=int, default=480)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--drivers", type=int, default=2)
    p.add_argument("--tools", default="floor,symbol", help="floor, symbol or both")
    p = sub.add_parser("indexing")
    p.add_argument("--files", type=int, default=300)
    p.add_argument("--fresh-files", type=int, default=1500)
    p.add_argument("--others", type=int, default=4)
    p.add_argument("--drivers", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p = sub.add_parser("reindex")
    p.add_argument("repo")
    p.add_argument("store", help="a store to start each run from (copied)")
    p.add_argument("revs", nargs="+")
    p.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.what == "reindex":
        row = bench_reindex(args.repo, args.store, args.revs, args.repeat)
    elif args.what == "start":
        row = bench_start(args.repeat)
    elif args.what == "load":
        row = bench_load(args.files, args.calls, args.repeat, args.drivers, tuple(args.tools.split(",")))
    else:
        row = bench_indexing(args.files, args.fresh_files, args.others, args.drivers, args.repeat)
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
