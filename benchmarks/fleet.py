"""The batch on two engines, side by side: the same jobs through the local engine and through
Dask (a LocalCluster of N worker processes on this machine), each from a fresh central store,
in a fresh process, by turns, at two batch sizes of one synthetic corpus in the same run.

    .venv/bin/python -m benchmarks.fleet                       # 50 and 500 commits of a 300-file corpus
    .venv/bin/python -m benchmarks.fleet --sizes 50,200 --files 1000 --repeat 3

Dask pays a fixed cost per run (import, LocalCluster start, workers importing the indexer,
close: "the floor", measured on its own) that a larger batch spreads over more jobs. Prints,
per size, jobs per second of each engine, Dask's overhead (its wall over the local one's, minus
one), the CPU seconds each engine's processes used (what a busy host cannot hide), the floor,
and the host's load before and after; writes benchmarks/results/<date>-<sha>-fleet.md. Not part
of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.run import RESULTS, ROOT, machine
from indexer.fleet.dask_engine import MAX_TASK

OVERHEAD_TARGET = 0.25


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _batch(repo: Path, head: str, engine: list[str], home: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (the CLI and every process it waited for: pool or Dask
    workers) and the count of jobs indexed, of one batch of every commit up to `head`."""
    env = dict(os.environ, RENNET_HOME=str(home), PYTHONPATH=str(ROOT))
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "batch", "--repo", str(repo),
                           "--range", head, "--json", "--quiet", *engine], capture_output=True, env=env, check=True)
    wall = time.perf_counter() - started
    summary = json.loads(done.stdout.decode().splitlines()[-1])
    return wall, _children_cpu() - cpu, summary["data"]["indexed"]


_FLOOR = """
import time
started = time.perf_counter()
import distributed
cluster = distributed.LocalCluster(n_workers={workers}, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None)
client = distributed.Client(cluster)
client.run(lambda: __import__("indexer.api"))
client.close()
cluster.close()
print(time.perf_counter() - started)
"""


def cluster_floor(workers: int) -> tuple[float, float]:
    """Wall and CPU seconds Dask costs before and after any job: importing distributed,
    starting a LocalCluster of `workers` processes that import the indexer, and closing it.
    The engine cannot cost less than this, whatever the jobs."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cpu = _children_cpu()
    done = subprocess.run([sys.executable, "-c", _FLOOR.format(workers=workers)], capture_output=True, env=env,
                          check=True, text=True)
    return float(done.stdout.strip().splitlines()[-1]), _children_cpu() - cpu


_BUNDLES = """
import json, secrets, time
from indexer.api import snapshot
from indexer.fleet.batch import range_jobs
from indexer.fleet.bundle import TRANSPORT_LEVEL, facts_keys, import_signed, make
from indexer.store.database import Store

source = Store.open({source!r}, durable=False)
key = secrets.token_bytes(32)
cpu, wall = time.process_time(), time.perf_counter()
bundles, held = [], frozenset()
for spec in range_jobs({repo!r}, {head!r}):
    snap = snapshot({repo!r}, spec.rev, store=source, index_if_absent=False)
    keys = facts_keys(snap.record)
    bundles.append((b"".join(make(snap, key, held, TRANSPORT_LEVEL, keys)[0]), None, None))
    held = keys
exported_cpu, exported_wall = time.process_time() - cpu, time.perf_counter() - wall
cpu, wall = time.process_time(), time.perf_counter()
central = Store.open({target!r})
for i in range(0, len(bundles), {batch}):
    assert not any(isinstance(r, Exception) for r in import_signed(central, bundles[i:i + {batch}], key))
print(json.dumps([exported_wall, exported_cpu, time.perf_counter() - wall, time.process_time() - cpu]))
"""


def bundle_floor(repo: Path, head: str, source: Path, target: Path) -> tuple[float, float, float, float]:
    """Wall and CPU seconds of moving the snapshots of a batch as the Dask engine moves them,
    with no indexing and no Dask: each exported from a store that holds them all as a signed
    bundle that leaves out the facts of the commit before it, then verified and imported into
    an empty central store in transactions of a task's bundles. (export wall, export CPU,
    import wall, import CPU)"""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    script = _BUNDLES.format(source=str(source), repo=str(repo), head=head, target=str(target), batch=MAX_TASK)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, check=True, text=True)
    a, b, c, d = json.loads(done.stdout.strip().splitlines()[-1])
    return a, b, c, d


def _stored(home: Path) -> tuple[int, int]:
    """(bytes the central store's pages use, blob facts it holds)."""
    from indexer.store.database import Store

    with Store.open(home) as store:
        info, stat = store.env.info(), store.env.stat()
        with store.env.begin() as txn:
            facts = txn.stat(store.facts)["entries"]
    return (info["last_pgno"] + 1) * stat["psize"], facts


def _uptime() -> str:
    done = subprocess.run(["uptime"], capture_output=True, text=True)
    return done.stdout.strip() or "uptime unavailable"


def _heads(repo: Path, sizes: list[int]) -> dict[int, str]:
    """The commit whose whole history is `size` commits, for each size (the corpus is linear)."""
    import pygit2

    git = pygit2.Repository(str(repo))
    oldest_first = [str(c.id) for c in git.walk(git.head.target, pygit2.enums.SortMode.TOPOLOGICAL
                                                 | pygit2.enums.SortMode.REVERSE)]
    return {n: oldest_first[n - 1] for n in sizes}


def main(argv: list[str] | None = None) -> int:
    from corpora.synthetic import generate

    ap = argparse.ArgumentParser(prog="benchmarks.fleet")
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--sizes", default="50,500", help="batch sizes in commits, comma-separated")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    sizes = sorted({int(x) for x in args.sizes.split(",")})
    engines = {"local": ["--jobs", str(args.workers)],
               "dask": ["--engine", "dask", "--scheduler", f"local:{args.workers}"]}
    info = machine()
    load_before = _uptime()
    walls: dict[tuple[int, str], list[float]] = {}
    cpus: dict[tuple[int, str], list[float]] = {}
    jobs: dict[int, int] = {}
    stored: dict[int, tuple[int, int]] = {}
    moved: dict[int, list[tuple[float, float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "corpus"
        generate(repo, files=args.files, seed=11, follow_ups=max(sizes) - 1)
        heads = _heads(repo, sizes)
        for size in sizes:
            for k in range(args.repeat):
                for name, flags in engines.items():  # by turns, so a slow spell of the host hits both
                    home = Path(tmp) / f"home-{size}-{name}-{k}"
                    wall, cpu, jobs[size] = _batch(repo, heads[size], flags, home)
                    walls.setdefault((size, name), []).append(wall)
                    cpus.setdefault((size, name), []).append(cpu)
                    if name == "dask":
                        stored[size] = _stored(home)
                        moved.setdefault(size, []).append(bundle_floor(repo, heads[size], home,
                                                                        Path(tmp) / f"moved-{size}-{k}"))
    floors = [cluster_floor(args.workers) for _ in range(max(args.repeat, 3))]
    floor = statistics.median(wall for wall, _ in floors)
    floor_cpu = statistics.median(cpu for _, cpu in floors)
    load_after = _uptime()
    lines = [
        f"# Batch on two engines ({datetime.now(UTC):%Y-%m-%d})", "",
        f"Machine: {info}", "",
        "The host is shared with other sessions (2 cores, up to 8 sessions): wall times move with their",
        f"load. `uptime` before: `{load_before}`; after: `{load_after}`. CPU seconds (every process of the",
        "engine, workers included) move less with the load than wall seconds do.", "",
        f"Every commit of a {args.files}-file synthetic corpus up to the batch size, {args.workers} workers, "
        f"median of {args.repeat} runs each, by turns, each from a fresh central store. Dask's floor (import "
        f"distributed, a LocalCluster of {args.workers} processes importing the indexer, closing it; median of "
        f"{max(args.repeat, 3)}): {floor:.2f} s wall, {floor_cpu:.1f} s CPU.", "",
        "| jobs | local wall s | local jobs/s | dask wall s | dask jobs/s | dask/local wall | overhead "
        "| floor / local wall | local CPU s | dask CPU s | dask - floor, jobs/s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    verdicts = []
    for size in sizes:
        n = jobs[size]
        local, dask = statistics.median(walls[(size, "local")]), statistics.median(walls[(size, "dask")])
        lcpu, dcpu = statistics.median(cpus[(size, "local")]), statistics.median(cpus[(size, "dask")])
        overhead = dask / local - 1
        lines.append(f"| {n} | {local:.2f} | {n / local:.1f} | {dask:.2f} | {n / dask:.1f} | {dask / local:.2f} "
                     f"| {overhead:+.0%} | {floor / local:.0%} | {lcpu:.1f} | {dcpu:.1f} "
                     f"| {n / max(dask - floor, 1e-9):.1f} |")
        verdict = "pass" if overhead <= OVERHEAD_TARGET else "FAIL"
        note = ""
        if floor > OVERHEAD_TARGET * local:
            note = (f"; the floor alone is {floor:.2f} s, over the {OVERHEAD_TARGET * local:.2f} s the target "
                    f"leaves at this size, so no per-job speed reaches it")
        verdicts.append(f"- {n} jobs: overhead {overhead:+.1%}, target at most {OVERHEAD_TARGET:.0%}: "
                        f"{verdict}{note}. Runs: local {[round(w, 2) for w in walls[(size, 'local')]]}, "
                        f"dask {[round(w, 2) for w in walls[(size, 'dask')]]}.")
    largest = sizes[-1]
    n = jobs[largest]
    per_core = {name: n / statistics.median(walls[(largest, name)]) * 3600 / args.workers for name in engines}
    lines += ["", "Dask's floor with the work moved as it moves (no indexing): the cluster's floor above, plus "
              "every snapshot of the batch exported as a signed bundle leaving out the facts of the commit "
              "before it (a worker's part), then verified and imported into an empty central store in "
              f"transactions of {MAX_TASK} (the driver's part), by one process; then what that floor leaves "
              "the 25% target, with the bundle work spread over the workers.", "",
              "| jobs | export CPU s | import wall s | import CPU s | floor CPU s (cluster + bundles) "
              "| floor wall s, bundle CPU over the workers | floor wall / local wall |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for size in sizes:
        n = jobs[size]
        ew, ec, iw, ic = (statistics.median(m[i] for m in moved[size]) for i in range(4))
        local = statistics.median(walls[(size, "local")])
        spread = floor + (ec + ic) / args.workers
        lines.append(f"| {n} | {ec:.2f} | {iw:.2f} | {ic:.2f} | {floor_cpu + ec + ic:.1f} | {spread:.2f} "
                     f"| {spread / local:.0%} |")
    lines += ["", "| jobs | central store in use, MiB | blob facts held |", "|---:|---:|---:|",
              *(f"| {jobs[n]} | {stored[n][0] / 2**20:.1f} | {stored[n][1]} |" for n in sizes)]
    lines += ["", *verdicts, "",
              f"Jobs per hour per core at {n} jobs: local {per_core['local']:,.0f}, dask {per_core['dask']:,.0f} "
              f"(jobs/s x 3600 / {args.workers} workers)."]
    text = "\n".join(lines) + "\n"
    print(text)
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or "unknown"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{datetime.now(UTC):%Y-%m-%d}-{sha}-fleet.md").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
