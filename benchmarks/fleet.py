"""The batch on two engines, side by side: the same jobs through the local engine and through
Dask (a LocalCluster of N worker processes on this machine), each from a fresh central store,
in a fresh process, by turns.

    .venv/bin/python -m benchmarks.fleet                  # 60 commits of a 300-file synthetic corpus
    .venv/bin/python -m benchmarks.fleet --commits 100 --files 1000 --repeat 3

Prints jobs per second of each engine, Dask's overhead (its wall over the local one's, minus
one) and the machine line, and writes benchmarks/results/<date>-<sha>-fleet.md. Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.run import RESULTS, ROOT, machine

OVERHEAD_TARGET = 0.25


def _batch(repo: Path, engine: list[str], home: Path) -> tuple[float, int]:
    """Wall seconds of one batch of every commit of `repo` and the count of jobs it indexed."""
    env = dict(os.environ, RENNET_HOME=str(home), PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "batch", "--repo", str(repo),
                           "--range", "HEAD", "--json", "--quiet", *engine], capture_output=True, env=env, check=True)
    wall = time.perf_counter() - started
    summary = json.loads(done.stdout.decode().splitlines()[-1])
    return wall, summary["data"]["indexed"]


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


def cluster_floor(workers: int) -> float:
    """Wall seconds Dask costs before and after any job: importing distributed, starting a
    LocalCluster of `workers` processes that import the indexer, and closing it. The engine
    cannot cost less than this, whatever the jobs."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _FLOOR.format(workers=workers)], capture_output=True, env=env,
                          check=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    from corpora.synthetic import generate

    ap = argparse.ArgumentParser(prog="benchmarks.fleet")
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--commits", type=int, default=60)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    engines = {"local": ["--jobs", str(args.workers)],
               "dask": ["--engine", "dask", "--scheduler", f"local:{args.workers}"]}
    walls: dict[str, list[float]] = {name: [] for name in engines}
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "corpus"
        generate(repo, files=args.files, seed=11, follow_ups=args.commits - 1)
        jobs = 0
        for k in range(args.repeat):
            for name, flags in engines.items():  # by turns, so a slow spell of the host hits both
                wall, jobs = _batch(repo, flags, Path(tmp) / f"home-{name}-{k}")
                walls[name].append(wall)
    floor = statistics.median(cluster_floor(args.workers) for _ in range(args.repeat))
    local, dask = statistics.median(walls["local"]), statistics.median(walls["dask"])
    overhead = dask / local - 1
    info = machine()
    lines = [
        f"# Batch on two engines ({datetime.now(UTC):%Y-%m-%d})", "",
        f"Machine: {info}", "",
        f"{jobs} jobs (every commit of a {args.files}-file synthetic corpus), {args.workers} workers, "
        f"median of {args.repeat} runs each, by turns, each from a fresh central store.", "",
        "| engine | wall s | jobs/s |", "|---|---:|---:|",
        f"| local | {local:.2f} | {jobs / local:.1f} |",
        f"| dask (LocalCluster, {args.workers} processes) | {dask:.2f} | {jobs / dask:.1f} |", "",
        f"Dask overhead on one machine: {overhead:+.1%} (target at most {OVERHEAD_TARGET:.0%}: "
        f"{'pass' if overhead <= OVERHEAD_TARGET else 'FAIL'}). Runs: local {walls['local']}, dask {walls['dask']}.",
        "",
        f"Floor: Dask's own cost around the jobs (import distributed, a LocalCluster of {args.workers} processes "
        f"importing the indexer, closing it) is {floor:.2f} s, {floor / local:.0%} of the local batch's wall; "
        f"the target leaves {OVERHEAD_TARGET * local:.2f} s." + (" The target is below this floor at this size."
                                                               if floor > OVERHEAD_TARGET * local else ""),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or "unknown"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{datetime.now(UTC):%Y-%m-%d}-{sha}-fleet.md").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
