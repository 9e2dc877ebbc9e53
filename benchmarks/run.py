"""The side-by-side benchmark: Rennet's indexer and context tools against Universal Ctags.

    .venv/bin/python -m benchmarks.run                      # synthetic 1,000 and 10,000 files
    .venv/bin/python -m benchmarks.run --sizes 1000 --with-100k
    .venv/bin/python -m benchmarks.run --sizes "" --corpus DIR   # a registry corpus (corpora.registry_corpus)

For each synthetic size (generated once by `corpora.synthetic`, cached under --work) it
measures, each in a fresh process with a fresh store: Universal Ctags (`ctags -R`) on the
checked-out tree; the cold index (`indexer.api.index`, 2 workers); the re-index of the
follow-up commit that changes 1% of the files, against the same store; warm in-process
`context.symbol` / `context.references` latency through `context_tools.call`; a fresh-process
`rennet context symbol NAME --json`, of a defined name and of a miss answered by near names;
peak RSS; store bytes after the first snapshot and what the second adds; on a registry corpus,
the references' precision (against Jedi on a PyPI one, the TypeScript language service on an
npm one: `--precision`, each half where its analyzer is at hand offline). It prints a
markdown table plus the targets as pass/fail and writes `benchmarks/results/latest.json` and the
run's page `benchmarks/results/<date>-<commit>.md` (the one to commit).
Not part of the test suite.
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

import lmdb

from benchmarks import measure
from benchmarks.host import checkout, machine

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
MIB = 1024 * 1024
GIB = 1024 * MIB
FRESH_RUNS = 7
CTAGS_RUNS = 3
QUERY_ITERATIONS = 300

TARGETS = {  # name -> (limit, unit, how it is read)
    "cold_vs_ctags": (2.0, "x", "cold index wall / ctags -R wall"),
    "reindex_vs_cold": (0.10, "x", "1%-change re-index wall / cold wall"),
    "symbol_p50_ms": (1.0, "ms", "warm context.symbol p50"),
    "references_p50_ms": (5.0, "ms", "warm context.references p50"),
    "fresh_symbol_ms": (300.0, "ms", "rennet context symbol --json, fresh process, median"),
    "fresh_miss_ms": (300.0, "ms", "the same of a name answered by near names (a miss)"),
    "peak_mib_10k": (1024.0, "MiB", "peak PSS of the indexer's process tree at 10,000 files"),
    "added_vs_first": (0.10, "x", "store bytes added by the 1%-change snapshot / first snapshot"),
}


# --- machine and tools ------------------------------------------------------------------------

# A fixed pure-Python loop, timed in a fresh process at the start and the end of a run: the
# cores are shared, and the same code runs up to a quarter slower in a slow phase of the host;
# comparing two runs' figures means comparing their loops too.
_CALIBRATION = ("import time\ndef loop():\n    x = 0\n    for i in range(10_000_000):\n        x += i\n"
                "t = time.perf_counter(); loop(); print(time.perf_counter() - t)")


def calibration_loop() -> float:
    """Best of three runs of the calibration loop, in seconds."""
    runs = [subprocess.run([sys.executable, "-c", _CALIBRATION], capture_output=True, text=True) for _ in range(3)]
    return min(float(r.stdout) for r in runs if r.returncode == 0 and r.stdout.strip())


def ensure_ctags() -> str:
    found = shutil.which("ctags")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):  # the setup: Debian's package
        subprocess.run(["apt-get", "install", "-y", "universal-ctags"], check=False, capture_output=True)
        found = shutil.which("ctags")
    if not found:
        raise SystemExit("tool_missing: Universal Ctags not found; install it with `apt-get install -y universal-ctags`")
    return found


def native_floor_ready(info: dict) -> bool:
    """Build the native floor's library ahead of the runs (benchmarks/native_floor.py); where it
    cannot be built the report says why and goes on without that floor."""
    from benchmarks.native_floor import NativeUnavailable, build, runtime_version

    try:
        info["native_floor"] = f"tree-sitter {runtime_version()} runtime, {build().name}"
        return True
    except NativeUnavailable as exc:
        info["native_floor"] = f"not measured: {exc}"
        print(f"native floor not measured: {exc}", file=sys.stderr)
        return False


def python() -> str:
    return sys.executable


def child_env(store: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # Measure processes as an installed tool runs: with its bytecode cached, not compiled each time.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if store is not None:
        env["RENNET_HOME"] = str(store)
    return env


# --- corpora ------------------------------------------------------------------------------------

def synthetic_corpus(work: Path, files: int, seed: int) -> tuple[Path, dict]:
    """Generate (once) and return (bare repo, its synthetic.json)."""
    repo = work / "corpora" / f"synthetic-{files}-s{seed}.git"
    meta = repo / "synthetic.json"
    if not meta.exists():
        if repo.exists():
            shutil.rmtree(repo)
        repo.parent.mkdir(parents=True, exist_ok=True)
        from corpora.synthetic import generate

        t = time.perf_counter()
        generate(repo, files=files, seed=seed, change_share=0.01)
        print(f"  generated {files} files in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    return repo, json.loads(meta.read_text())


# --- measurements -------------------------------------------------------------------------------

def leftover_stores(stores: Path) -> None:
    """Remove the scratch stores a failed earlier run left behind: those whose run (the process
    id their name ends with) is gone; another benchmark running beside this one keeps its own."""
    for folder in stores.glob("*") if stores.is_dir() else ():
        pid = folder.name.removesuffix("-again").rsplit("-", 1)[-1]
        if pid.isdigit() and _alive(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def store_bytes(home: Path) -> dict:
    """Pages in use across every database of the store, and the file's size on disk."""
    path = home / "lmdb"
    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=64, subdir=True)
    try:
        psize = env.stat()["psize"]
        pages = 0
        main = env.stat()
        pages += main["branch_pages"] + main["leaf_pages"] + main["overflow_pages"]
        with env.begin() as txn:
            names = [bytes(k) for k, _ in txn.cursor()]
        for name in names:
            try:
                db = env.open_db(name, create=False)
            except lmdb.Error:
                continue
            with env.begin() as txn:
                st = txn.stat(db)
            pages += st["branch_pages"] + st["leaf_pages"] + st["overflow_pages"]
        used = pages * psize
    finally:
        env.close()
    data = path / "data.mdb"
    st = data.stat()
    return {"used": used, "file": st.st_size, "allocated": st.st_blocks * 512}


def settled_copy(store: Path, dest: Path) -> None:
    """A copy of a store written through to disk before anything is timed on it: a fresh copy's
    pages are still dirty in the page cache, and the first commit's sync of the copy would
    write all of them out (seconds at 100,000 files), which no re-index of a store in use pays."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(store, dest)
    os.sync()


def median_run(runs: list[measure.Measured]) -> measure.Measured:
    """The run of median wall time (the machine is shared: one run can be unlucky)."""
    return sorted(runs, key=lambda m: m.wall)[len(runs) // 2]


def run_ctags(exe: str, tree: Path, out: Path, repeat: int = CTAGS_RUNS) -> measure.Measured:
    runs = []
    for _ in range(repeat):
        out.unlink(missing_ok=True)
        m = measure.run([exe, "-R", "-f", str(out), "."], cwd=str(tree))
        if m.returncode != 0:
            raise SystemExit(f"ctags failed: {m.stderr.strip()[:300]}")
        runs.append(m)
    return median_run(runs)


def run_agreement(exe: str, tree: Path, repo: Path, rev: str, store: Path, out: Path) -> dict | None:
    """The snapshot's definitions side by side with ctags' (benchmarks.agreement), untimed:
    ctags runs again for its JSON form, with line numbers."""
    out.unlink(missing_ok=True)
    m = measure.run([exe, "-R", "--output-format=json", "--fields=+n", "-f", str(out), "."], cwd=str(tree),
                    sample=False)
    if m.returncode != 0:
        return None  # a ctags built without JSON output: the comparison is left out, not guessed
    m = measure.run([python(), "-m", "benchmarks.probe", "agreement", str(repo), rev, str(store), str(out)],
                    env=child_env(store), cwd=str(ROOT), sample=False)
    out.unlink(missing_ok=True)
    if m.returncode != 0:
        raise SystemExit(f"agreement probe failed: {m.stderr.strip()[-600:]}")
    return json.loads(m.stdout.strip().splitlines()[-1])


def same_tree_commit(repo: Path, rev: str, parent: str) -> str:
    """A commit of `rev`'s tree whose parent is `parent` (revs: OIDs or names), under a ref of its own (made once:
    fixed author, time and message give the same OID every time). Indexed after `rev`, every
    blob's facts are stored already, so its index is a re-index with nothing to parse: the
    process, the plan, the stored facts loaded and the whole snapshot assembled again."""
    import pygit2

    git = pygit2.Repository(str(repo))
    commit = git.revparse_single(rev).peel(pygit2.Commit)
    who = pygit2.Signature("rennet bench", "bench@rennet.invalid", 1_700_000_000, 0)
    oid = git.create_commit(None, who, who, f"the tree of {commit.id}\n", commit.tree_id,
                            [git.revparse_single(parent).peel(pygit2.Commit).id])
    git.references.create(f"refs/rennet-bench/same-tree-{commit.id}", oid, force=True)
    return str(oid)


def run_index(repo: Path, rev: str, store: Path, workers: int,
              phases: Path | None = None, prepared: bool = False) -> tuple[measure.Measured, dict]:
    """An index in a fresh process; with `phases`, its CPU seconds per phase measured too
    (benchmarks/phases.py, the probe's "phases"), which costs it a little time; with
    `prepared`, the changed languages' extraction set up before it (the probe's "prepared")."""
    cmd = [python(), "-m", "benchmarks.probe", "index", str(repo), rev, str(store), str(workers),
           *(["--prepared"] if prepared else [])]
    env = child_env(store)
    if phases is not None:
        env["RENNET_PHASES"] = str(phases)
    m = measure.run(cmd, env=env, cwd=str(ROOT))
    if m.returncode != 0:
        raise SystemExit(f"index failed ({rev}): {m.stderr.strip()[-600:]}")
    return m, json.loads(m.stdout.strip().splitlines()[-1])


def median_cpu(runs: list[measure.Measured]) -> float:
    """The median CPU seconds of the runs (user + system, the workers included)."""
    return statistics.median(m.cpu for m in runs)


def run_parse_only(repo: Path, rev: str, workers: int, repeat: int, native: bool = False,
                   python_query: str = "", compiled: bool = False) -> tuple[measure.Measured, dict, float]:
    """tree-sitter's parse of every blob the index parses, alone, on the same workers (median
    of `repeat` runs): the floor of any tree-sitter indexer's cold time on this machine. With
    `native`, the parse and the shipped tags query in C (benchmarks/native_floor.py): the floor
    of any indexer reading those tags. With `python_query` "shipped", the same query run from
    Python (tree-sitter's binding), every match and capture iterated: the floor of a pure-Python
    extraction of those tags; "all", the indexer's whole query so (identifier leaves too); "own",
    the indexer's query without its identifier leaves. With `compiled`, the parse and the
    indexer's whole query in C, every match and capture visited there: the floor of an
    extraction compiled to C. Returns the run, what the probe counted and the runs' median CPU seconds."""
    verb = ("tags" if native else "compiled" if compiled else
            {"shipped": "query", "all": "query-all", "own": "query-own"}.get(python_query, "parse"))
    cmd = [python(), "-m", "benchmarks.probe", verb, str(repo), rev, str(workers)]
    runs = []
    for _ in range(repeat):
        m = measure.run(cmd, env=child_env(), cwd=str(ROOT), sample=False)
        if m.returncode != 0:
            raise SystemExit(f"{verb} floor run failed: {m.stderr.strip()[-600:]}")
        runs.append(m)
    return median_run(runs), json.loads(runs[-1].stdout.strip().splitlines()[-1]), median_cpu(runs)


def run_queries(repo: Path, rev: str, store: Path, names: list[str], refs: list[str]) -> dict:
    cmd = [python(), "-m", "benchmarks.probe", "queries", str(repo), rev, str(store), str(QUERY_ITERATIONS), *names]
    if refs:
        cmd += ["--refs", *refs]
    m = measure.run(cmd, env=child_env(store), cwd=str(ROOT), sample=False)
    if m.returncode != 0:
        raise SystemExit(f"queries failed: {m.stderr.strip()[-600:]}")
    return json.loads(m.stdout.strip().splitlines()[-1])


def rennet_cli() -> list[str]:
    exe = Path(sys.executable).parent / "rennet"
    return [str(exe)] if exe.exists() else [python(), "-m", "context_tools.faces.cli"]


def run_fresh(repo: Path, rev: str, store: Path, name: str) -> dict:
    walls = []
    for run in range(FRESH_RUNS + 1):  # the first run warms the bytecode and page caches, uncounted
        m, _ = _fresh_symbol(repo, rev, store, name)
        if run:
            walls.append(m.wall)
    return {"median_ms": statistics.median(walls) * 1e3, "min_ms": min(walls) * 1e3, "runs": FRESH_RUNS}


def _fresh_symbol(repo: Path, rev: str, store: Path, name: str) -> tuple[measure.Measured, dict]:
    m = measure.run([*rennet_cli(), "context", "symbol", name, "--repo", str(repo), "--rev", rev, "--json"],
                    env=child_env(store), cwd=str(ROOT), sample=False)
    if m.returncode != 0:
        raise SystemExit(f"rennet context symbol failed: {(m.stdout + m.stderr).strip()[-400:]}")
    return m, json.loads(m.stdout)  # it printed exactly the result contract


def run_fresh_miss(repo: Path, rev: str, store: Path, name: str) -> dict | None:
    """`run_fresh` of a name nothing defines, answered by near names: the first of `name` in
    lower case, in upper case, without its middle character, that is one (None if none is)."""
    middle = len(name) // 2
    for miss in dict.fromkeys([name.lower(), name.upper(), name[:middle] + name[middle + 1:]]):
        if miss and miss != name and _fresh_symbol(repo, rev, store, miss)[1]["data"]["fuzzy"]:
            return {"name": miss, **run_fresh(repo, rev, store, miss)}
    return None


def bench_repo(label: str, repo: Path, base: str, follow: list[str], work: Path, workers: int, ctags: str,
               names: list[str], refs: list[str], expect: Path | None, repeat: int = 1, native: bool = False) -> dict:
    print(f"[{label}] checkout + ctags", file=sys.stderr)
    tree = checkout(repo, base, work / "checkouts" / repo.name) / "tree"
    files = sum(len(f) for _, _, f in os.walk(tree))
    ct = run_ctags(ctags, tree, work / "checkouts" / f"{repo.name}.tags")
    print(f"[{label}] tree-sitter parse only", file=sys.stderr)
    parse_floor, parsed, parse_cpu = run_parse_only(repo, base, workers, max(repeat, CTAGS_RUNS))
    floors = {"parse_only_wall": parse_floor.wall, "parse_only_cpu": parse_cpu}
    if native:
        print(f"[{label}] parse and shipped tags query in C", file=sys.stderr)
        tags_floor, matched, tags_cpu = run_parse_only(repo, base, workers, max(repeat, CTAGS_RUNS), native=True)
        # the same blobs parsed into the same trees, or the floor measures something else
        floors.update(native_tags_wall=tags_floor.wall, native_tags_cpu=tags_cpu, tags_matches=matched["tags_matches"],
                      native_trees_agree=(matched["parsed"], matched["nodes"]) == (parsed["parsed"], parsed["nodes"]))
        print(f"[{label}] parse and the indexer's whole tags query in C (a compiled extraction's floor)", file=sys.stderr)
        comp_floor, comp_matched, comp_cpu = run_parse_only(repo, base, workers, max(repeat, CTAGS_RUNS), compiled=True)
        floors.update(compiled_wall=comp_floor.wall, compiled_cpu=comp_cpu, compiled_matches=comp_matched["tags_matches"],
                      compiled_captures=comp_matched["tags_captures"],
                      compiled_trees_agree=(comp_matched["parsed"], comp_matched["nodes"]) == (parsed["parsed"],
                                                                                             parsed["nodes"]))
    print(f"[{label}] parse and the same query from Python", file=sys.stderr)
    py_floor, py_matched, py_cpu = run_parse_only(repo, base, workers, max(repeat, CTAGS_RUNS), python_query="shipped")
    floors.update(python_tags_wall=py_floor.wall, python_tags_cpu=py_cpu, python_tags_matches=py_matched["tags_matches"],
                  python_trees_agree=(py_matched["parsed"], py_matched["nodes"]) == (parsed["parsed"], parsed["nodes"]))
    print(f"[{label}] parse and the indexer's whole tags query from Python", file=sys.stderr)
    all_floor, all_matched, all_cpu = run_parse_only(repo, base, workers, max(repeat, CTAGS_RUNS), python_query="all")
    floors.update(python_all_wall=all_floor.wall, python_all_cpu=all_cpu, python_all_matches=all_matched["tags_matches"],
                  python_all_captures=all_matched["tags_captures"])
    print(f"[{label}] parse and the indexer's tags query without its identifier leaves, from Python", file=sys.stderr)
    own_floor, own_matched, own_cpu = run_parse_only(repo, base, workers, max(repeat, CTAGS_RUNS), python_query="own")
    floors.update(python_own_wall=own_floor.wall, python_own_cpu=own_cpu, python_own_matches=own_matched["tags_matches"])
    store = work / "stores" / f"{repo.name}-{os.getpid()}"
    if store.exists():
        shutil.rmtree(store)
    print(f"[{label}] cold index", file=sys.stderr)
    colds = []
    for _k in range(repeat):  # each repeat is cold: a fresh store in a fresh process
        if store.exists():
            shutil.rmtree(store)
        colds.append(run_index(repo, base, store, workers))
    cold = median_run([m for m, _ in colds])
    cold_rep = colds[-1][1]
    print(f"[{label}] cold index, CPU time by phase", file=sys.stderr)
    shutil.rmtree(store, ignore_errors=True)
    phases_dir = work / "phases" / f"{repo.name}-{os.getpid()}"
    shutil.rmtree(phases_dir, ignore_errors=True)
    phased_run, phased = run_index(repo, base, store, workers, phases=phases_dir)
    shutil.rmtree(phases_dir, ignore_errors=True)
    fan = None
    if expect:
        m = measure.run([python(), "-m", "benchmarks.probe", "fanin", str(repo), base, str(store), str(expect)],
                        env=child_env(store), cwd=str(ROOT), sample=False)
        fan = json.loads(m.stdout.strip().splitlines()[-1]) if m.returncode == 0 else {"error": m.stderr[-300:]}
    agree = run_agreement(ctags, tree, repo, base, store, work / "checkouts" / f"{repo.name}.tags.json")
    first = store_bytes(store)
    reindex = []
    sizes = [first]
    for i, rev in enumerate(follow):
        print(f"[{label}] re-index {rev}", file=sys.stderr)
        again = []
        scratch = store.with_name(store.name + "-again")
        for _ in range(repeat - 1 if i == 0 else 0):  # the first re-index again, from a copy of the store
            settled_copy(store, scratch)
            again.append(run_index(repo, rev, scratch, workers)[0])
            shutil.rmtree(scratch, ignore_errors=True)
        phased_re = None
        ahead: list[tuple[measure.Measured, dict]] = []
        if i == 0:  # and once more with its CPU time by phase
            print(f"[{label}] re-index {rev}, CPU time by phase", file=sys.stderr)
            settled_copy(store, scratch)
            shutil.rmtree(phases_dir, ignore_errors=True)
            phased_re = run_index(repo, rev, scratch, workers, phases=phases_dir)
            shutil.rmtree(phases_dir, ignore_errors=True)
            shutil.rmtree(scratch, ignore_errors=True)
            # and with its languages' queries compiled before the clock: what compiling them
            # anywhere else (ahead, beside the start) could take off this re-index at the most
            print(f"[{label}] re-index {rev} with its languages' queries compiled before", file=sys.stderr)
            for _ in range(max(repeat, CTAGS_RUNS)):
                settled_copy(store, scratch)
                ahead.append(run_index(repo, rev, scratch, workers, prepared=True))
                shutil.rmtree(scratch, ignore_errors=True)
        m, rep = run_index(repo, rev, store, workers)
        sizes.append(store_bytes(store))
        twin = None
        if i == 0:  # the floor of this re-index: the same tree under another commit, nothing to parse
            print(f"[{label}] re-index of {rev}'s tree under another commit (nothing to parse)", file=sys.stderr)
            twin_rev = same_tree_commit(repo, rev, base)
            twins = []
            for _ in range(max(repeat, CTAGS_RUNS)):
                settled_copy(store, scratch)
                twins.append(run_index(repo, twin_rev, scratch, workers))
                shutil.rmtree(scratch, ignore_errors=True)
            twin = {"wall": statistics.median(t.wall for t, _ in twins), "cpu": statistics.median(t.cpu for t, _ in twins),
                    "parsed_blobs": max(r["parsed_blobs"] for _, r in twins),
                    "same_fingerprint": all(r["fingerprint"] == rep["fingerprint"] for _, r in twins)}
            twin["compiled_before"] = {
                "wall": statistics.median(t.wall - r["prepared"]["wall"] for t, r in ahead),
                "cpu": statistics.median(t.cpu - r["prepared"]["cpu"] for t, r in ahead),
                "languages": ahead[0][1]["prepared"]["languages"],
                "same_fingerprint": all(r["fingerprint"] == rep["fingerprint"] for _, r in ahead)}
        walls = [m.wall, *(a.wall for a in again)]
        cpus = [m.cpu, *(a.cpu for a in again)]
        reindex.append({"rev": rev, "wall": statistics.median(walls), "walls": walls, "seconds": rep["seconds"],
                        "cpu": statistics.median(cpus), "cpus": cpus,
                        "parsed_blobs": rep["parsed_blobs"], "reused_blobs": rep["reused_blobs"],
                        "max_rss": m.max_rss, "peak_pss": m.peak_pss, "peak_anon": m.peak_anon})
        if twin is not None:
            reindex[-1]["nothing_parsed"] = twin
        if phased_re is not None:
            reindex[-1]["phases"] = {**phased_re[1]["phases"], "wall": phased_re[0].wall, "cpu": phased_re[0].cpu}
    head = follow[-1] if follow else base
    print(f"[{label}] no-op index of {head}", file=sys.stderr)
    noop = median_run([run_index(repo, head, store, workers)[0] for _ in range(max(repeat, CTAGS_RUNS))])
    print(f"[{label}] queries", file=sys.stderr)
    q = run_queries(repo, base, store, names, refs)
    fresh = run_fresh(repo, base, store, q["names"][0])
    fresh_miss = run_fresh_miss(repo, base, store, q["names"][0])
    added = [sizes[i + 1]["used"] - sizes[i]["used"] for i in range(len(sizes) - 1)]
    result = {
        "label": label, "repo": str(repo), "base": base, "follow_ups": follow, "head": head,
        "tree_files": files, "indexed_files": cold_rep["files"], "symbols": cold_rep["symbols"],
        "edges": cold_rep["edges"], "workers": workers,
        "ctags": {"wall": ct.wall, "max_rss": ct.max_rss},
        "cold": {"wall": cold.wall, "walls": [m.wall for m, _ in colds], "seconds": cold_rep["seconds"], "import_seconds": cold_rep["import_seconds"],
                 "max_rss": cold.max_rss, "peak_pss": cold.peak_pss, "peak_anon": cold.peak_anon, "parsed_blobs": cold_rep["parsed_blobs"],
                 "cpu": median_cpu([m for m, _ in colds]), "cpus": [m.cpu for m, _ in colds]},
        "phases": {**phased["phases"], "wall": phased_run.wall, "cpu": phased_run.cpu},
        "reindex": reindex,
        "floors": {**floors, "noop_index_wall": noop.wall},
        "queries": q, "fresh_symbol": fresh, "fresh_miss": fresh_miss,
        "store": {"first": first, "after": sizes[1:], "added": added},
    }
    if fan is not None:
        result["fan_in"] = fan
    if agree is not None:
        result["agreement"] = agree
    shutil.rmtree(store, ignore_errors=True)
    return result


# --- report -------------------------------------------------------------------------------------

def ratios(r: dict) -> dict:
    cold = r["cold"]["wall"]
    re_wall = r["reindex"][0]["wall"] if r["reindex"] else None
    added = r["store"]["added"][0] if r["store"]["added"] else None
    return {
        "cold_vs_ctags": cold / r["ctags"]["wall"] if r["ctags"]["wall"] else None,
        "reindex_vs_cold": re_wall / cold if re_wall is not None else None,
        "symbol_p50_ms": r["queries"]["symbol"]["p50_ms"],
        "references_p50_ms": r["queries"]["references"]["p50_ms"],
        "fresh_symbol_ms": r["fresh_symbol"]["median_ms"],
        "fresh_miss_ms": r["fresh_miss"]["median_ms"] if r.get("fresh_miss") else None,
        "peak_mib": max(r["cold"]["peak_pss"], r["cold"]["max_rss"]) / MIB,
        "added_vs_first": added / r["store"]["first"]["used"] if added is not None else None,
        **({"parse_only_vs_ctags": floors["parse_only_wall"] / r["ctags"]["wall"] if r["ctags"]["wall"] else None,
            "noop_vs_cold": floors["noop_index_wall"] / cold} if (floors := r.get("floors")) else {}),
        **({"native_tags_vs_ctags": floors["native_tags_wall"] / r["ctags"]["wall"]}
           if floors and "native_tags_wall" in floors and r["ctags"]["wall"] else {}),
        **({"python_vs_native_cpu": floors["python_tags_cpu"] / floors["native_tags_cpu"],
            "cold_vs_native_cpu": r["cold"]["cpu"] / floors["native_tags_cpu"],
            "cold_vs_python_cpu": r["cold"]["cpu"] / floors["python_tags_cpu"],
            "python_vs_native_wall": floors["python_tags_wall"] / floors["native_tags_wall"],
            "cold_vs_native_wall": cold / floors["native_tags_wall"]}
           if floors and floors.get("native_tags_cpu") and floors.get("python_tags_cpu") and "cpu" in r["cold"] else {}),
    }


def verdicts(results: list[dict]) -> list[dict]:
    rows = []
    for r in results:
        x = r["ratios"]
        for key in ("cold_vs_ctags", "reindex_vs_cold", "symbol_p50_ms", "references_p50_ms",
                    "fresh_symbol_ms", "fresh_miss_ms", "added_vs_first"):
            if x.get(key) is None:
                continue
            if key in ("reindex_vs_cold", "added_vs_first") and "size" not in r:
                continue  # a release-to-release change is not the 1% change these targets are about
            limit, unit, what = TARGETS[key]
            rows.append({"target": key, "what": what, "corpus": r["label"], "value": x[key], "limit": limit,
                         "unit": unit, "pass": x[key] <= limit})
        if r.get("size") == 10_000:
            limit, unit, what = TARGETS["peak_mib_10k"]
            rows.append({"target": "peak_mib_10k", "what": what, "corpus": r["label"], "value": x["peak_mib"],
                         "limit": limit, "unit": unit, "pass": x["peak_mib"] < limit})
    return rows


def fmt_s(v: float) -> str:
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


def markdown(results: list[dict], rows: list[dict], info: dict, command: str) -> str:
    lines = [
        f"Machine: {info['nproc']} cores, {info['cpu']}, {info['memory_gib']} GiB; Python {info['python']}; "
        f"{info['ctags']}; rennet {info['rennet_commit']}; load average at start "
        f"{info.get('loadavg_at_start', '?')}"
        + (f", at end {info['loadavg_at_end']}" if info.get("loadavg_at_end") else "")
        + " (the cores are shared: figures move with it)"
        + (f"; calibration loop {info['calibration_start_s']:.2f} s at start, {info['calibration_end_s']:.2f} s at end"
           if "calibration_end_s" in info else ""),
        f"Command: `{command}`", "",
        "| corpus | files | ctags s | cold s (in-process) | cold/ctags | 1% re-index s (in-process, parsed) | re-index/cold | symbol p50/p99 ms "
        "| refs p50/p99 ms (first call p50) | fresh `rennet context symbol` ms (miss) | peak MiB (tree PSS, of it anonymous / max RSS) | store MiB first "
        "| added KiB (x first) | ms per file |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        x = r["ratios"]
        re_ = r["reindex"][0] if r["reindex"] else None
        q = r["queries"]
        added = r["store"]["added"][0] if r["store"]["added"] else None
        lines.append(
            f"| {r['label']} | {r['indexed_files']} | {fmt_s(r['ctags']['wall'])} "
            f"| {fmt_s(r['cold']['wall'])} ({fmt_s(r['cold']['seconds'])}) "
            f"| {x['cold_vs_ctags']:.2f} "
            f"| {fmt_s(re_['wall']) + ' (' + fmt_s(re_['seconds']) + ', ' + str(re_['parsed_blobs']) + ')' if re_ else '-'} "
            f"| {x['reindex_vs_cold']:.3f} | {q['symbol']['p50_ms']:.2f} / {q['symbol']['p99_ms']:.2f} "
            f"| {q['references']['p50_ms']:.2f} / {q['references']['p99_ms']:.2f} "
            f"({q['references'].get('first_p50_ms', float('nan')):.1f}) "
            f"| {r['fresh_symbol']['median_ms']:.0f}"
            f"{' (' + format(r['fresh_miss']['median_ms'], '.0f') + ')' if r.get('fresh_miss') else ''} "
            f"| {r['cold']['peak_pss'] / MIB:.0f}, {r['cold'].get('peak_anon', 0) / MIB:.0f} / {r['cold']['max_rss'] / MIB:.0f} "
            f"| {r['store']['first']['used'] / MIB:.1f} "
            f"| {(added / 1024) if added is not None else 0:.0f} ({x['added_vs_first'] or 0:.3f}) "
            f"| {r['cold']['wall'] * 1e3 / max(1, r['indexed_files']):.2f} |")
    lines += ["", "| target | corpus | measured | limit | result |", "|---|---|---:|---:|---|"]
    for v in rows:
        lines.append(f"| {v['what']} | {v['corpus']} | {v['value']:.3f} {v['unit']} | {v['limit']:g} {v['unit']} "
                     f"| {'PASS' if v['pass'] else 'FAIL'} |")
    floored = [r for r in results if r["ratios"].get("parse_only_vs_ctags") is not None]
    if floored:
        lines += ["", "Floors: what this machine cannot go under whatever the indexer does. tree-sitter's parse of "
                  "every blob the index parses, alone (no query, no facts, no store), on the same workers; the "
                  "same parse with the grammar's shipped tags query run over each tree, both in C "
                  "(benchmarks/native_floor.py: no Python object per node or match, no predicate evaluated), so "
                  "the least any indexer reading those tags must do; and a no-op `index` of a commit already "
                  "indexed (process start, imports, store, rev, exit). `left` is what the cold target leaves "
                  "for everything else once the native floor is paid: 2 x ctags minus it. A target below its "
                  "floor cannot be met here. " + info.get("native_floor", ""), "",
                  "| corpus | parse only s | parse only / ctags | parse + tags query in C s (/ ctags) | left s "
                  "| cold/ctags target reachable | no-op index s | no-op / cold | re-index/cold target reachable |",
                  "|---|---:|---:|---:|---:|---|---:|---:|---|"]
        limit = TARGETS["cold_vs_ctags"][0]
        for r in floored:
            x, f = r["ratios"], r["floors"]
            native_x = x.get("native_tags_vs_ctags")
            floor_x = max(x["parse_only_vs_ctags"], native_x or 0)
            reindex_reachable = (("no" if x["noop_vs_cold"] > TARGETS["reindex_vs_cold"][0] else "not excluded")
                                 if "size" in r else "- (release steps)")
            native_cell = (f"{fmt_s(f['native_tags_wall'])} ({native_x:.2f})"
                           + ("" if f.get("native_trees_agree") else " trees differ!") if native_x else "-")
            left = f"{limit * r['ctags']['wall'] - f['native_tags_wall']:.2f}" if native_x else "-"
            lines.append(
                f"| {r['label']} | {fmt_s(f['parse_only_wall'])} | {x['parse_only_vs_ctags']:.2f} | {native_cell} "
                f"| {left} | {'no' if floor_x > limit else 'not excluded'} "
                f"| {fmt_s(f['noop_index_wall'])} | {x['noop_vs_cold']:.3f} "
                f"| {reindex_reachable} |")
    lines += reindex_cpu(results)
    lines += three_floors(results)
    lines += compiled_best_case(results)
    lines += phase_table(results)
    releases = [r for r in results if "size" not in r and r["reindex"]]
    if releases:
        lines += ["", "Registry corpora re-index the next release, not a 1% change (so the 1% targets are not applied): "
                  + "; ".join(f"{r['label']}: first step parsed {r['reindex'][0]['parsed_blobs']} blobs "
                              f"({r['reindex'][0]['parsed_blobs'] / max(1, r['indexed_files']):.1%} of files), "
                              f"mean re-index {statistics.mean(x['wall'] for x in r['reindex']):.2f} s over "
                              f"{len(r['reindex'])} releases" for r in releases)]
    lines += agreement_table(results)
    lines += precision_table(results)
    fan = [r for r in results if "agree" in r.get("fan_in", {})]
    if fan:
        lines += ["", "Fan-in agreement with the generator's known graph: " + ", ".join(
            f"{r['label']} {r['fan_in']['agree']}/{r['fan_in']['checked']}" for r in fan)]
    return "\n".join(lines)


def three_floors(results: list[dict]) -> list[str]:
    """The native floor, the Python floor and the cold index side by side, in CPU seconds."""
    rows = [r for r in results if "cold_vs_native_cpu" in r["ratios"]]
    if not rows:
        return []
    lines = ["", "Three floors, in CPU seconds (user + system of the process and the workers it reaped, "
             "median of the runs; wall in brackets). The native floor: parse + the shipped tags query in C; "
             "the Python floor: the same parse and the same query from tree-sitter's Python binding, every "
             "match and capture handed to Python and nothing done with them (`probe query`); the cold index "
             "as in the first table. Python / native is the share of the cold time no pure-Python extraction "
             "of those tags can avoid on this machine. A compiled extraction's floor: the same parse and the "
             "indexer's own whole tags query (`probe query-all`'s, identifier leaves included) run in C, every "
             "match and capture visited there, its text predicates evaluated as the binding evaluates them, "
             "no Python object made (`probe compiled`): the least an extraction compiled to C would do; its "
             "matches and captures must be Python's for the same query (the column before it), or it says "
             "`differ!`:", "",
             "| corpus | native floor CPU s (wall) | Python floor CPU s (wall) | cold index CPU s (wall) "
             "| Python / native | cold / native | cold / Python | matches C / Python "
             "| the indexer's whole query from Python: CPU s (wall), matches / captures "
             "| a compiled extraction's floor, that query in C: CPU s (wall), / native, matches / captures "
             "| the same without its identifier leaves: CPU s (wall), matches |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        f, x = r["floors"], r["ratios"]
        agree = "" if f.get("python_trees_agree") else " trees differ!"
        whole = (f"{f['python_all_cpu']:.2f} ({fmt_s(f['python_all_wall'])}), {f['python_all_matches']}"
                 + (f" / {f['python_all_captures']}" if "python_all_captures" in f else "")
                 if "python_all_cpu" in f else "-")
        own = (f"{f['python_own_cpu']:.2f} ({fmt_s(f['python_own_wall'])}), {f['python_own_matches']}"
               if "python_own_cpu" in f else "-")
        lines.append(f"| {r['label']} | {f['native_tags_cpu']:.2f} ({fmt_s(f['native_tags_wall'])}) "
                     f"| {f['python_tags_cpu']:.2f} ({fmt_s(f['python_tags_wall'])}) "
                     f"| {r['cold']['cpu']:.2f} ({fmt_s(r['cold']['wall'])}) "
                     f"| {x['python_vs_native_cpu']:.2f} | {x['cold_vs_native_cpu']:.2f} | {x['cold_vs_python_cpu']:.2f} "
                     f"| {f['tags_matches']} / {f['python_tags_matches']}{agree} | {whole} | {_compiled_cell(f)} "
                     f"| {own} |")
    return lines


def _compiled_cell(f: dict) -> str:
    """A compiled extraction's floor, held against the same query's counts from Python."""
    if "compiled_cpu" not in f:
        return "-"
    cell = (f"{f['compiled_cpu']:.2f} ({fmt_s(f['compiled_wall'])}), {f['compiled_cpu'] / f['native_tags_cpu']:.2f}x, "
            f"{f['compiled_matches']} / {f['compiled_captures']}")
    python = (f.get("python_all_matches"), f.get("python_all_captures"))
    if python != (f["compiled_matches"], f["compiled_captures"]):
        cell += f" differ! (Python: {python[0] if python[0] is not None else '-'} / "
        cell += f"{python[1] if python[1] is not None else '-'})"
    return cell + ("" if f.get("compiled_trees_agree") else " trees differ!")


# The phase rows a compiled extraction would not remove ("main side": the whole group): the
# facts still go to the store and the snapshot is still assembled from them, whoever extracts them.
KEPT_BY_COMPILED = ["encode facts for the store", "facts writer process", "main side", "rest"]
# The cold index's CPU time the issue allows, in native floors (parse + shipped tags query in C).
COLD_VS_NATIVE = 2.0


def compiled_best_case(results: list[dict]) -> list[str]:
    """A compiled extraction's floor plus the measured phase rows it would not remove,
    against the cold target of 2 x the native floor: whether compiling extraction alone can
    meet it (arithmetic on the figures of the same run, an estimate)."""
    rows = [r for r in results if "compiled_cpu" in r.get("floors", {}) and r["floors"].get("native_tags_cpu")
            and r.get("phases", {}).get("phases")]
    if not rows:
        return []
    main_side = next(names for group, names in PHASE_ORDER if group == "main side")
    lines = ["", "Best case of a compiled extraction path, an estimate (arithmetic on measured rows, not a run of "
             "one): a compiled extraction's floor plus the rows of the cold index's phase table below, from "
             "the same run, that compiling the extraction would not remove: `encode facts for the store` and "
             "`facts writer process` (the facts still go to the store), every `main side` row (the plan, "
             "resolution, rank, fingerprint and the rest of assembly work on the facts whoever extracts them) "
             "and `rest` (process start, imports, worker start). Not counted, taken as gone: the `floor` rows "
             "(the compiled floor does that work itself) and the other `extraction beyond` rows (the Python "
             "per match, local scopes, symbols, identifier sites, hooks, the per-blob rest), as if the "
             "extraction cost no more than visiting its captures. The floor's own figure holds its process "
             "start and imports, which `rest` holds too: the sum is also given without `rest`. Against the "
             "cold target, 2 x the native floor:", ""]
    limit = COLD_VS_NATIVE
    for r in rows:
        f, p = r["floors"], r["phases"]
        values = phase_values(p)
        kept = {name: sum(values.get(n, 0.0) for n in main_side) if name == "main side" else values.get(name, 0.0)
                for name in KEPT_BY_COMPILED}
        total = f["compiled_cpu"] + sum(kept.values())
        bare = total - kept["rest"]
        target = limit * f["native_tags_cpu"]
        verdict = ("not reachable by compiling extraction alone" if bare > target else
                   "reachable on these figures" if total <= target else
                   "undecided: within what `rest` counts twice")
        lines.append(f"- Best case of a compiled extraction path, {r['label']}: {f['compiled_cpu']:.2f} (compiled "
                     f"extraction's floor) + " + " + ".join(f"{v:.2f} ({k})" for k, v in kept.items())
                     + f" = {total:.2f} CPU s, {total / f['native_tags_cpu']:.2f}x the native floor "
                     f"({f['native_tags_cpu']:.2f}); without `rest` {bare:.2f}, "
                     f"{bare / f['native_tags_cpu']:.2f}x. Target {limit:g} x native = {target:.2f} CPU s: "
                     f"{verdict}" + (f", over by {bare - target:.2f} s at the least" if bare > target else "") + ".")
    return lines


def reindex_cpu(results: list[dict]) -> list[str]:
    """The first re-index against the cold index in CPU seconds, which move less than wall
    seconds when other work shares the cores (and do not favour the cold index's two workers)."""
    rows = [r for r in results if "size" in r and r.get("reindex") and "cpu" in r["reindex"][0] and r["cold"].get("cpu")]
    if not rows:
        return []
    lines = ["", "The 1% re-index in CPU seconds (user + system of the process and its children, median of the "
             "runs; wall in brackets) against the cold index's; and the floor of such a re-index as the "
             "indexer now builds it, the same tree indexed under another commit once the 1% change is "
             "indexed (`same_tree_commit`): nothing to parse and no query compiled, only the process, the "
             "plan, the stored facts loaded and the whole snapshot assembled again (medians of 3; `same "
             "fingerprint` checks it against the re-index's). Above 0.1 of the cold index, no faster "
             "extraction meets the re-index target: only a cheaper start or assembly can. Last, the same "
             "1% re-index with the tags queries of the languages it changes (by the files' names) compiled "
             "in its process before the clock, and inherited by its forked workers (`probe index "
             "--prepared`; the compile's own seconds taken off, medians of 3): the most that compiling "
             "them anywhere else, ahead of the run or beside its start, could take off it. Above 0.1 of "
             "the cold index, no such compile meets the target either.", "",
             "| corpus | cold CPU s (wall) | 1% re-index CPU s (wall) | re-index / cold CPU | the same in wall "
             "| nothing to parse CPU s (wall) | its / cold CPU (wall) | same fingerprint "
             "| queries compiled before CPU s (wall) | its / cold CPU (wall) |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        re_, cold = r["reindex"][0], r["cold"]
        twin = re_.get("nothing_parsed")
        floor = (f"{twin['cpu']:.2f} ({fmt_s(twin['wall'])}) | {twin['cpu'] / cold['cpu']:.3f} "
                 f"({twin['wall'] / cold['wall']:.3f}) | "
                 + ("yes" if twin["same_fingerprint"] else "NO") + ("" if not twin["parsed_blobs"] else
                                                                    f", {twin['parsed_blobs']} parsed!")
                 if twin else "- | - | -")
        ahead = twin.get("compiled_before") if twin else None
        before = (f"{ahead['cpu']:.2f} ({fmt_s(ahead['wall'])})" + ("" if ahead["same_fingerprint"] else ", NOT the same fingerprint!")
                  + f" | {ahead['cpu'] / cold['cpu']:.3f} ({ahead['wall'] / cold['wall']:.3f})" if ahead else "- | -")
        lines.append(f"| {r['label']} | {cold['cpu']:.2f} ({fmt_s(cold['wall'])}) | {re_['cpu']:.2f} "
                     f"({fmt_s(re_['wall'])}) | {re_['cpu'] / cold['cpu']:.3f} | {re_['wall'] / cold['wall']:.3f} "
                     f"| {floor} | {before} |")
    return lines


# The phases of `benchmarks/phases.py`, in the order of the table: first the work the Python
# floor also does (read, parse, query), then the extraction's own Python, then the main side.
PHASE_ORDER = [
    ("floor", ["read blob from git", "content rules", "grammar setup (query compile)", "parse", "tree checks",
               "query matches (C + binding objects)"]),
    ("extraction beyond", ["tags: Python per match", "local scopes", "symbols", "identifier sites",
                           "extract_tree rest (language hooks, merge)", "plain tokenizer (no grammar / unparseable)",
                           "encode facts for the store", "extraction rest"]),
    ("main side", ["plan (tree walk, stored keys)", "size blobs to parse (headers)", "load stored summaries", "decode parsed facts (main)",
                   "store writes: facts (hand-over)", "store writes: facts", "extraction, main side rest",
                   "load earlier facts", "file entries", "marks", "manifests", "resolution", "rank", "fan-in",
                   "entry points", "fingerprint", "pack snapshot record", "assembly rest", "store writes: snapshot"]),
]


def phase_table(results: list[dict]) -> list[str]:
    """Where the cold index spends its CPU time, by phase (an extra cold run, benchmarks/phases.py),
    and the first re-index."""
    cold = [r for r in results if r.get("phases", {}).get("phases")]
    lines = _phase_rows(cold, "Where the cold index spends its CPU time, by phase: one more cold run with "
                        "`RENNET_PHASES` set (benchmarks/phases.py wraps each phase's functions in a per-thread "
                        "CPU clock, inner phases subtracted; the clocks cost that run a little). Seconds summed "
                        "over the indexer's process and its workers, and the share of the run's CPU time. `floor` "
                        "rows are the work the Python floor does too (its query is the shipped patterns alone; "
                        "the index's also matches every identifier leaf and its own patterns); `facts writer "
                        "process` is the CPU of reaped children beyond the workers' own figures; `rest` is process "
                        "start, imports, worker start and what no phase covers.", languages=True)
    again = [{**r, "phases": r["reindex"][0]["phases"]} for r in results
             if r.get("reindex") and r["reindex"][0].get("phases", {}).get("phases")]
    lines += _phase_rows(again, "Where the first re-index (the 1% change of a synthetic corpus) spends its CPU "
                         "time, by phase: one more run of it on a copy of the store, as above. Most of it is "
                         "the fixed cost of a run: process start and imports (in `rest`), the query compiled "
                         "for each language met, and assembling the whole snapshot again.")
    return lines


def phase_values(p: dict) -> dict[str, float]:
    """The CPU seconds of each row of a phase table (benchmarks/phases.py's figures of one run):
    its phases, the facts writer process (the CPU of reaped children beyond the workers' own
    figures) and the rest (what none of them covers)."""
    writer = max(0.0, p["children_cpu"] - p["workers_cpu"])
    return {**p["phases"], "facts writer process": writer, "rest": p["cpu"] - sum(p["phases"].values()) - writer}


def _phase_rows(rows: list[dict], title: str, languages: bool = False) -> list[str]:
    """The phase table of runs whose "phases" are benchmarks/phases.py's figures."""
    if not rows:
        return []
    lines = ["", title, "", "| group | phase | " + " | ".join(r["label"] for r in rows) + " |",
             "|---|---|" + "---:|" * len(rows)]

    def cells(values: list[float]) -> str:
        return " | ".join(f"{v:.2f} ({v / r['phases']['cpu']:.0%})" if r["phases"]["cpu"] else f"{v:.2f}"
                          for v, r in zip(values, rows))

    known: set[str] = set()
    values_of = [phase_values(r["phases"]) for r in rows]
    for group, names in PHASE_ORDER:
        for name in names:
            known.add(name)
            values = [v.get(name, 0.0) for v in values_of]
            if any(values):
                lines.append(f"| {group} | {name} | {cells(values)} |")
        if group == "extraction beyond":
            lines.append(f"| {group} | facts writer process | {cells([v['facts writer process'] for v in values_of])} |")
    for name in sorted({n for r in rows for n in r["phases"]["phases"]} - known):
        lines.append(f"| other | {name} | {cells([r['phases']['phases'].get(name, 0.0) for r in rows])} |")
    lines.append(f"| - | rest | {cells([v['rest'] for v in values_of])} |")
    lines.append("| - | the run's CPU s (wall s) | "
                 + " | ".join(f"{r['phases']['cpu']:.2f} ({fmt_s(r['phases']['wall'])})" for r in rows) + " |")
    if not languages:
        return lines
    by_language = sorted({k for r in rows for k in r["phases"].get("languages", {})},
                          key=lambda k: -sum(r["phases"]["languages"].get(k, 0.0) for r in rows))
    lines += ["", "Extraction by language (a blob's whole extraction: content rules, parse, tags, sites; "
              "CPU seconds over the workers, and the share of the run's CPU time):", "",
              "| language | " + " | ".join(r["label"] for r in rows) + " |", "|---|" + "---:|" * len(rows)]
    for k in by_language:
        values = [r["phases"]["languages"].get(k, 0.0) for r in rows]
        if max(values) >= 0.005:
            lines.append(f"| {k} | {cells(values)} |")
    return lines


def agreement_table(results: list[dict]) -> list[str]:
    """Definitions side by side with ctags (benchmarks.agreement), per corpus."""
    rows = [r for r in results if r.get("agreement")]
    if not rows:
        return []

    def kinds(pairs: list) -> str:
        return ", ".join(f"{kind} {n}" for kind, n in pairs) or "-"

    lines = ["", "Definitions side by side with ctags, in the files the snapshot parses (same path, name "
             "and line; untimed, no verdict: see benchmarks/agreement.py for what each tool counts; ctags' "
             "import, package, impl-block and object-key tags, and the names it makes up for nameless "
             "functions, are counted apart):", "",
             "| corpus | ctags definitions | rennet symbols | both | of ctags', in rennet | only ctags (top kinds) "
             "| only rennet (top kinds) | ctags tags apart |", "|---|---:|---:|---:|---:|---|---|---|"]
    for r in rows:
        a = r["agreement"]["all"]
        share = f"{a['both'] / a['ctags']:.1%}" if a["ctags"] else "-"
        lines.append(f"| {r['label']} | {a['ctags']} | {a['rennet']} | {a['both']} | {share} "
                     f"| {a['only_ctags']}: {kinds(a['only_ctags_kinds'])} "
                     f"| {a['only_rennet']}: {kinds(a['only_rennet_kinds'])} "
                     f"| {kinds(r['agreement'].get('not_definitions', []))} |")
    return lines


def precision_table(results: list[dict]) -> list[str]:
    """The references' precision, a table for each analyzer: Jedi on the Python registry
    corpora (benchmarks.precision), the TypeScript language service on the npm ones
    (benchmarks.precision_ts); a corpus whose half could not run, the one line saying why."""
    from benchmarks import precision

    rows = precision.rows_of([row for r in results for row in r.get("precision", [])])
    lines = []
    for analyzer in dict.fromkeys(row.analyzer for row in rows):
        lines += precision.table([row for row in rows if row.analyzer == analyzer])
    for r in results:
        if r.get("precision_note"):
            lines += ["", f"Precision of `context.references` on {r['label']}: not measured, {r['precision_note']}"]
    return lines


PRECISION_HALVES = {"pypi": "python", "npm": "ts"}  # a registry corpus's ecosystem -> the half measuring it


def run_precision(repo: Path, work: Path, ecosystem: str, halves: str = "both") -> tuple[list[dict], str | None]:
    """The precision rows of a registry corpus, by the half of its ecosystem when `halves`
    ("both", "python", "ts", "none") asks for it, and why none were measured when its analyzer
    is not at hand: Jedi (the `bench` extra) for PyPI; Node and TypeScript in the corpora cache
    for npm, nothing fetched (the run stays offline: `python -m benchmarks.precision_ts` fetches it)."""
    half = PRECISION_HALVES.get(ecosystem)
    if half is None or halves not in ("both", half):
        return [], None
    why = None
    if half == "python":
        from benchmarks import precision

        try:
            import jedi  # noqa: F401 - the independent analyzer
        except ImportError:
            why = "jedi is not installed (pip install .[bench])"
        else:
            return precision.run_precision([repo], work), None
    else:
        from benchmarks import precision_ts

        try:
            return precision_ts.run_precision([repo], work, fetch_missing=False), None
        except precision_ts.AnalyzerUnavailable as exc:
            why = str(exc)
    print(f"[precision] {repo.name}: left out, {why}", file=sys.stderr)
    return [], why


def scaling_steps(results: list[dict]) -> list[dict]:
    """Consecutive synthetic sizes: how wall time and memory grow against the file count."""
    syn = sorted((r for r in results if "size" in r), key=lambda r: r["size"])
    return [{"from": lo["size"], "to": hi["size"], "files_x": hi["indexed_files"] / lo["indexed_files"],
             "cold_wall_x": hi["cold"]["wall"] / lo["cold"]["wall"],
             "reindex_wall_x": hi["reindex"][0]["wall"] / lo["reindex"][0]["wall"],
             "peak_mib_x": hi["ratios"]["peak_mib"] / lo["ratios"]["peak_mib"]}
            for lo, hi in zip(syn, syn[1:])]


def report(results: list[dict], info: dict, command: str, out: Path, finished_at: str | None = None,
           failed: list[dict] | None = None) -> str:
    rows = verdicts(results)
    steps = scaling_steps(results)
    table = markdown(results, rows, info, command)
    for f in failed or []:
        table += f"\n\nFAILED {f['label']}: {f['error'].strip().splitlines()[-1][:300]}"
    if steps:
        table += "\n\nScaling (linear would be the files factor): " + "; ".join(
            f"{s['from']:,} -> {s['to']:,} files (x{s['files_x']:.0f}): cold wall x{s['cold_wall_x']:.1f}, "
            f"1% re-index x{s['reindex_wall_x']:.1f}, peak memory x{s['peak_mib_x']:.1f}" for s in steps)
    print(table)
    finished_at = finished_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": info, "command": command, "results": results, "failed": failed or [],
                               "targets": rows,
                               "scaling": steps, "markdown": table,
                               "finished_at": finished_at},
                              indent=1))
    page = out.parent / results_page_name(finished_at, info.get("rennet_commit", ""))
    page.write_text(f"# Benchmark run of {finished_at[:10]}, rennet {info.get('rennet_commit') or 'unknown'}\n\n"
                    f"What each column is: [benchmarks/README.md](../README.md).\n\n{table}\n")
    return table


def results_page_name(finished_at: str, commit: str) -> str:
    """`<date>-<commit>.md`: one page per run, in the order the runs were made."""
    return f"{finished_at[:10]}-{commit or 'unknown'}.md"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="synthetic sizes, comma-separated (default 1000,10000)")
    ap.add_argument("--with-100k", action="store_true", help="add the 100,000-file synthetic corpus")
    ap.add_argument("--corpus", action="append", default=[],
                    help="a registry corpus repository (python -m corpora.registry_corpus ... --out DIR); repeatable")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1,
                    help="cold index runs per corpus, and runs of its first re-index, medians reported (ctags: 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default=os.environ.get("RENNET_BENCH_WORK", "/tmp/rennet-bench"),
                    help="cache of generated corpora, checkouts and scratch stores")
    ap.add_argument("--out", default=str(RESULTS / "latest.json"))
    ap.add_argument("--from-json", help="re-render the report of an earlier results file (measures nothing)")
    ap.add_argument("--precision", choices=("both", "python", "ts", "none"), default="both",
                    help="the references' precision on the registry corpora: against Jedi on PyPI ones, the "
                         "TypeScript language service on npm ones (each when its analyzer is at hand offline)")
    args = ap.parse_args(argv)
    if args.from_json:
        old = json.loads(Path(args.from_json).read_text())
        report(old["results"], old["machine"], old["command"], Path(args.out), old.get("finished_at"),
               old.get("failed"))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.with_100k:
        sizes.append(100_000)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    leftover_stores(work / "stores")
    ctags = ensure_ctags()
    info = machine()
    native = native_floor_ready(info)
    info["calibration_start_s"] = calibration_loop()
    results = []
    failed: list[dict] = []
    for size in sizes:
        label = f"synthetic {size:,}"
        try:
            repo, meta = synthetic_corpus(work, size, args.seed)
            r = bench_repo(label, repo, "base", ["main"], work, args.workers, ctags, meta["query_names"],
                           meta.get("query_functions", []), repo / "synthetic.json", args.repeat, native)
        except SystemExit as exc:  # one failed corpus must not lose the others' figures
            failed.append({"label": label, "error": str(exc)})
            continue
        r["size"] = size
        r["ratios"] = ratios(r)
        results.append(r)
    for corpus_dir in args.corpus:
        repo = Path(corpus_dir)
        try:
            meta = json.loads((repo / "corpus.json").read_text())
        except (OSError, ValueError) as exc:
            failed.append({"label": corpus_dir, "error": f"not a registry corpus: {exc}"})
            continue
        tags = meta["tags"]
        label = f"{meta['package']} {meta['versions'][0]}..{meta['versions'][-1]}"
        try:
            r = bench_repo(label, repo, tags[0], tags[1:], work, args.workers, ctags, [], [], None, args.repeat,
                           native)
        except SystemExit as exc:
            failed.append({"label": label, "error": str(exc)})
            continue
        r["ratios"] = ratios(r)
        found, why = run_precision(repo, work, meta.get("ecosystem", ""), args.precision)
        if found:
            r["precision"] = found
        if why:
            r["precision_note"] = why
        results.append(r)
    info["calibration_end_s"] = calibration_loop()
    if Path("/proc/loadavg").exists():
        info["loadavg_at_end"] = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    command = "python -m benchmarks.run " + " ".join(argv if argv is not None else sys.argv[1:])
    report(results, info, command.strip(), Path(args.out), failed=failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
