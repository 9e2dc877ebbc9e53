"""The working-tree snapshot after an edit, beside the tree's cold index (issue 25, item 5).

In one warm process (the Python face, `context_tools.Client`, which keeps the store and the
snapshots open as the MCP server does) on a checkout of the synthetic corpus: the first
`--worktree` answer, then for each of `--repeat` edits (a new function appended to one
Python file) the wall time of the next `context.symbol --worktree` answer that finds it.
Beside it: the cold index of the same tree (`indexer.api.index`, in process, fresh store,
2 workers), the target (an edit's answer within 5% of it), and what the dirty check costs
every answer read from the checked-out commit (`git status` through pygit2). Not in CI.

    python -m benchmarks.worktree --files 10000 [--repeat 5] [--work DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.run import synthetic_corpus

TARGET_SHARE = 0.05


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def measure(files: int, work: Path, repeat: int, seed: int = 0) -> dict:
    import pygit2

    import context_tools
    from indexer import api
    from indexer.git.worktree import count_changed

    bare, meta = synthetic_corpus(work, files, seed)
    checkout = work / f"worktree-{files}"
    if checkout.exists():
        shutil.rmtree(checkout)
    _git(work, "clone", "-q", str(bare), str(checkout))
    py = sorted(p for p in _git(checkout, "ls-files", "*.py").split() if "/" in p)
    target = checkout / py[len(py) // 2]

    cold_home = work / "worktree-cold-home"
    shutil.rmtree(cold_home, ignore_errors=True)
    store = api.open_store(cold_home)
    started = time.perf_counter()
    api.index(str(checkout), "HEAD", store=store, workers=2)
    cold = time.perf_counter() - started
    store.close()

    home = work / "worktree-home"
    shutil.rmtree(home, ignore_errors=True)
    client = context_tools.Client(store=str(home))
    name = meta["query_names"][0]
    started = time.perf_counter()
    client.call("context.symbol", repo=str(checkout), name=name)  # the base commit, indexed cold here
    base_seconds = time.perf_counter() - started
    started = time.perf_counter()
    first = client.call("context.symbol", repo=str(checkout), name=name, worktree=True)
    first_seconds = time.perf_counter() - started

    repo = pygit2.Repository(str(checkout))
    clean_status = _median_of(lambda: count_changed(repo), 7)
    edits = []
    for i in range(repeat):
        fn = f"bench_edit_{i:03d}"
        with open(target, "a") as f:
            f.write(f"\n\ndef {fn}(x):\n    return x + {i}\n")
        started = time.perf_counter()
        found = client.call("context.symbol", repo=str(checkout), name=fn, worktree=True, fuzzy=False)
        edits.append(time.perf_counter() - started)
        assert [d.name for d in found.data.definitions] == [fn], found
        assert found.freshness.status == "worktree" and found.freshness.pinned_oid != first.freshness.pinned_oid
    unchanged = _median_of(lambda: client.call("context.symbol", repo=str(checkout), name=name, worktree=True), 7)
    dirty_status = _median_of(lambda: count_changed(repo), 7)
    dirty_answer = _median_of(lambda: client.call("context.symbol", repo=str(checkout), name=name), 7)
    edit = statistics.median(edits)
    return {
        "files": files, "cold_index_s": round(cold, 3), "base_commit_first_answer_s": round(base_seconds, 3),
        "first_worktree_answer_s": round(first_seconds, 3),
        "edit_answer_s": {"median": round(edit, 3), "runs": [round(x, 3) for x in edits]},
        "edit_over_cold": round(edit / cold, 4), "target": TARGET_SHARE, "pass": edit <= TARGET_SHARE * cold,
        "unchanged_worktree_answer_ms": round(unchanged * 1000, 1),
        "status_ms": {"clean": round(clean_status * 1000, 1), "dirty": round(dirty_status * 1000, 1)},
        "dirty_commit_answer_ms": round(dirty_answer * 1000, 1),
    }


def _median_of(fn, n: int) -> float:
    runs = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def markdown(r: dict) -> str:
    return "\n".join([
        "| files | cold index s | worktree answer after one edit s (median) | edit / cold | target | "
        "first worktree answer s | unchanged worktree answer ms | git status ms (clean / dirty) | "
        "dirty-checked commit answer ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {r['files']} | {r['cold_index_s']} | {r['edit_answer_s']['median']} | {r['edit_over_cold']} | "
        f"{r['target']} {'PASS' if r['pass'] else 'FAIL'} | {r['first_worktree_answer_s']} | "
        f"{r['unchanged_worktree_answer_ms']} | {r['status_ms']['clean']} / {r['status_ms']['dirty']} | "
        f"{r['dirty_commit_answer_ms']} |",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work", type=Path, default=Path("/tmp/rennet-bench"))
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here too")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    result = measure(args.files, args.work, args.repeat)
    print(markdown(result))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
