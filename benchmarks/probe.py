"""What the benchmark runs in a fresh child process; each verb prints one JSON object.

    python -m benchmarks.probe index REPO REV STORE WORKERS [--prepared]
    python -m benchmarks.probe fanin REPO REV STORE synthetic.json
    python -m benchmarks.probe queries REPO REV STORE ITERATIONS [NAME ...] [--refs NAME ...]
    python -m benchmarks.probe parse REPO REV WORKERS
    python -m benchmarks.probe tags REPO REV WORKERS        (the native floor: benchmarks/native_floor.py)
    python -m benchmarks.probe query REPO REV WORKERS       (the Python floor: the same query from Python)
    python -m benchmarks.probe query-all REPO REV WORKERS   (the same with the indexer's whole tags query)
    python -m benchmarks.probe query-own REPO REV WORKERS   (the indexer's query without its identifier leaves)
    python -m benchmarks.probe compiled REPO REV WORKERS    (a compiled extraction's floor: query-all's query in C)
    python -m benchmarks.probe agreement REPO REV STORE CTAGS.json
    python -m benchmarks.probe resident REPO STORE WORKERS REV... [--fresh] [--fork]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def index(repo: str, rev: str, store_home: str, workers: int, prepared: bool = False) -> dict:
    """A cold or later index. With RENNET_PHASES=DIR, its CPU seconds per phase
    (benchmarks/phases.py) under "phases". With `prepared`, the extraction of each grammar
    language `rev` changes against its first parent (by the names, as the index keys them) is
    set up first, its tags query compiled in the form a small change compiles, and inherited
    by the forked workers; the wall and CPU seconds that took are under "prepared"."""
    started = time.perf_counter()
    phases_dir = os.environ.get("RENNET_PHASES")
    if phases_dir:
        from benchmarks import phases
        phases.install(phases_dir)
    from indexer.rank import hold_blas_pool

    hold_blas_pool()  # as the `rennet` script does
    from indexer import api

    imported = time.perf_counter() - started
    setup = _prepare_changed(repo, rev) if prepared else None
    store = api.open_store(store_home)
    report = api.index(repo, rev=rev, store=store, workers=workers)
    out = {
        "seconds": report.seconds, "import_seconds": imported, "files": report.files,
        "symbols": report.symbols, "edges": report.edges, "parsed_blobs": report.parsed_blobs,
        "reused_blobs": report.reused_blobs, "skipped": len(report.skipped), "oid": report.oid,
        "fingerprint": report.fingerprint,
    }
    if setup is not None:
        out["prepared"] = setup
    if phases_dir:
        phases.dump()
        out["phases"] = phases.collect(phases_dir)
    return out


def _prepare_changed(repo: str, rev: str) -> dict:
    """Set up, here, the extraction of the grammar languages of the files `rev` changes against
    its first parent (what `index(prepared=True)` runs first); its wall and CPU seconds."""
    import pygit2

    from indexer.extract.blob import prepare
    from indexer.lang import grammars
    from indexer.lang.registry import GRAMMAR_LANGUAGES, name_language

    wall, cpu = time.perf_counter(), time.process_time()
    git = pygit2.Repository(repo)
    commit = git.revparse_single(rev).peel(pygit2.Commit)
    diff = git.diff(commit.parents[0], commit)
    languages = sorted({name_language(d.new_file.path) for d in diff.deltas} & GRAMMAR_LANGUAGES)
    grammars.compile_quickly(languages)  # as the index chooses for a language with few blobs to parse
    prepare(languages)
    return {"languages": languages, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


def fan_in(repo: str, rev: str, store_home: str, expect: str) -> dict:
    """Does the snapshot's fan-in agree with the generator's known graph? (untimed)"""
    from indexer import api

    wanted = json.load(open(expect))["fan_in"]
    snap = api.snapshot(repo, rev=rev, store=api.open_store(store_home), index_if_absent=False)
    wrong = sorted(p for p, n in wanted.items() if snap.fan_in(p) != n)
    return {"agree": len(wanted) - len(wrong), "checked": len(wanted),
            "examples": [[p, wanted[p], snap.fan_in(p)] for p in wrong[:5]]}


_parse_repo = None
_native = None  # benchmarks.native_floor.NativeTags in a worker of the native floor
_compiled = None  # benchmarks.native_floor.NativeExtraction in a worker of a compiled extraction's floor
# a worker of the Python floor: "shipped" (the native floor's query), "all" (the indexer's) or "own"
# (the indexer's without the identifier leaves)
_python_query = ""
_queries: dict = {}  # language -> its compiled query, in a worker of the Python floor


def _parse_init(repo: str, library: str | None, python_query: str = "", compiled: bool = False) -> None:
    global _parse_repo, _native, _compiled, _python_query
    import pygit2
    _parse_repo = pygit2.Repository(repo)
    if library is not None:
        from benchmarks.native_floor import NativeExtraction, NativeTags
        if compiled:
            _compiled = NativeExtraction(Path(library))
        else:
            _native = NativeTags(Path(library))
    _python_query = python_query
    if python_query:  # as the indexer's extraction runs: its match objects are acyclic
        import gc
        gc.disable()


def _python_matches(language: str, root) -> tuple[int, int]:
    """The native floor's query (the shipped patterns in the indexer's compact form), or with
    "all" the indexer's whole tags query (its own patterns and every identifier leaf too), with
    "own" the same without the identifier leaves (what the leaves add to the query is the most
    reading the sites some other way could save of it), run from Python: every match and every
    capture node handed over, and nothing done with them but counting. (matches, captures)."""
    from tree_sitter import Query, QueryCursor

    from indexer.extract.tags import MATCH_LIMIT
    from indexer.lang import grammars
    if _python_query == "all":
        cursor = QueryCursor(grammars.tags_query(language), match_limit=MATCH_LIMIT)  # as the indexer runs it
        return _iterate(cursor.matches(root))
    query = _queries.get(language)
    if query is None:
        source = grammars.shipped_source(language)
        if _python_query == "own":
            source = "\n".join(p for p in (source, grammars.own_query(language)) if p)
        compact = grammars.compact_patterns(source, grammars.language(language))
        text = "\n".join(compact[0] if compact is not None else [source])
        query = _queries[language] = Query(grammars.language(language), text) if text else False
    if query is False:
        return 0, 0
    return _iterate(QueryCursor(query).matches(root))


def _iterate(matches: list) -> tuple[int, int]:
    found = captured = 0
    for _pattern, caps in matches:
        found += 1
        for nodes in caps.values():
            captured += len(nodes)
            for _node in nodes:
                pass
    return found, captured


def _parse_chunk(jobs: list[tuple[str, str, str]]) -> tuple[int, int, int, int, int]:
    """(blobs of a grammar language, of them parsed, their trees' nodes, tags matches, their
    captures), as the index would choose them: where the name leaves the language open, the
    blob's head decides. The native floor also runs the shipped tags query (its captures not
    counted), a compiled extraction's floor the indexer's whole query in C, the Python floors
    their query from Python; the other parses alone."""
    from indexer.git import read as gitread
    from indexer.lang import grammars
    from indexer.lang.content import is_binary
    from indexer.lang.registry import CONTENT_DECIDES, GRAMMAR_LANGUAGES, detect_language
    from indexer.pipeline.extract import SIZE_CAP
    blobs = parsed = nodes = matches = captures = 0
    for blob, path, language in jobs:
        data = gitread.read_blob(_parse_repo, blob)  # read as the index reads it
        if language in CONTENT_DECIDES:
            language = detect_language(path, data[:8192])
        if language not in GRAMMAR_LANGUAGES or is_binary(data):
            continue
        blobs += 1
        if len(data) > SIZE_CAP:
            continue
        if _native is not None or _compiled is not None:
            if _compiled is not None:
                found = _compiled.parse_and_extract(language, data)
            else:
                tags = _native.parse_and_match(language, data)
                found = None if tags is None else (*tags, 0)
            if found is not None:
                parsed += 1
                nodes += found[0]
                matches += found[1]
                captures += found[2]
            continue
        tree = grammars.parse(language, data)
        if tree is not None:
            parsed += 1
            nodes += tree.root_node.descendant_count
            if _python_query:
                found_matches, found_captures = _python_matches(language, tree.root_node)
                matches += found_matches
                captures += found_captures
    return blobs, parsed, nodes, matches, captures


def parse_only(repo: str, rev: str, workers: int, native: bool = False, python_query: str = "",
               compiled: bool = False) -> dict:
    """The floor under any tree-sitter indexer: read every blob the index would parse and
    parse it with the same parsers and workers, nothing else (no query, no facts, no store).
    `native`: the floor under one that reads the shipped tags, the parse and that query in C
    (benchmarks/native_floor.py). `compiled`: a compiled extraction's floor, the parse and the
    indexer's whole query in C, every match and capture visited there (with "tags_captures").
    `python_query`: a query run from Python after the parse, every match and capture iterated
    (the floor under a pure-Python extraction of those tags, with the indexer's collector off
    as its extraction has it): "shipped", the native floor's query; "all", the indexer's whole
    query (with "tags_captures", to hold against the compiled floor's); "own", that without
    its identifier leaves. The benchmark times the whole process, as it times ctags and the
    cold index."""
    import multiprocessing

    from indexer.git import read as gitread
    from indexer.lang.registry import CONTENT_DECIDES, GRAMMAR_LANGUAGES
    from indexer.pipeline.extract import chunks
    from indexer.pipeline.plan import Plan
    from indexer.store.versions import snapshot_version

    library = None
    if native or compiled:
        from benchmarks.native_floor import build
        library = str(build())  # built ahead by the benchmark: found in the cache here
    r = gitread.open_repo(repo)
    # the blobs a cold index parses: its plan's, each facts key once, with nothing stored
    known: set[bytes] = set()
    jobs = []
    for key, job in Plan(*gitread.walk_tree(r, gitread.resolve_rev(r, rev)), None, snapshot_version()).missing(
            lambda key: False, known):
        known.add(key)
        if job.language in GRAMMAR_LANGUAGES or job.language in CONTENT_DECIDES:
            jobs.append(job)
    tasks = [[(j.blob, j.path, j.language) for j in chunk] for chunk in chunks(jobs, 64)]
    with multiprocessing.get_context("fork").Pool(workers, initializer=_parse_init,
                                                  initargs=(r.path, library, python_query, compiled)) as pool:
        counts = list(pool.imap_unordered(_parse_chunk, tasks))
    blobs, parsed, nodes, matches, captures = (sum(c[i] for c in counts) for i in range(5))
    out = {"blobs": blobs, "parsed": parsed, "nodes": nodes}
    if native or compiled or python_query:
        out["tags_matches"] = matches
    if compiled or python_query == "all":
        out["tags_captures"] = captures
    return out


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _names_from_snapshot(repo: str, rev: str) -> tuple[list[str], list[str]]:
    """Classes and functions of the best-ranked files, when the corpus names none."""
    from indexer import api

    snap = api.snapshot(repo, rev=rev, index_if_absent=False)
    ranked = sorted(snap.record.rank.items(), key=lambda kv: (-kv[1], kv[0]))
    classes: list[str] = []
    functions: list[str] = []
    for path, _ in ranked:
        facts = snap.facts(path)
        for s in facts.symbols if facts else []:
            if s.kind == "class" and s.name not in classes and len(classes) < 10:
                classes.append(s.name)
            if s.kind == "function" and s.name not in functions and len(functions) < 10:
                functions.append(s.name)
        if len(classes) >= 10 and len(functions) >= 10:
            break
    return classes or functions, functions or classes


def queries(repo: str, rev: str, store_home: str, iterations: int, names: list[str], refs: list[str]) -> dict:
    os.environ["RENNET_HOME"] = store_home
    import context_tools

    if not names or not refs:
        found = _names_from_snapshot(repo, rev)
        names, refs = names or found[0], refs or found[1]
    out: dict = {"names": names, "refs": refs}
    for command, pool in (("context.symbol", names), ("context.references", refs)):
        hits = 0
        first_calls = []
        context_tools.call(command, repo=repo, rev=rev, name=pool[0])  # loads the pinned snapshot
        for name in pool:  # each name's first answer: nothing of it memoized yet
            t = time.perf_counter()
            result = context_tools.call(command, repo=repo, rev=rev, name=name)
            first_calls.append(time.perf_counter() - t)
            hits += result.page.total if result.page else 0
        times = []
        for i in range(iterations):
            name = pool[i % len(pool)]
            t = time.perf_counter()
            context_tools.call(command, repo=repo, rev=rev, name=name)
            times.append(time.perf_counter() - t)
        key = command.split(".")[1]
        out[key] = {"p50_ms": _pct(times, 0.5) * 1e3, "p99_ms": _pct(times, 0.99) * 1e3,
                    "n": iterations, "total_hits_warm": hits,
                    "first_p50_ms": _pct(first_calls[1:] or first_calls, 0.5) * 1e3}
    return out


def agreement(repo: str, rev: str, store_home: str, tags_json: str) -> dict:
    """The snapshot's definitions side by side with ctags' tags (benchmarks.agreement; untimed)."""
    from benchmarks.agreement import compare, ctags_tags
    from indexer import api
    from indexer.lang.registry import GRAMMAR_LANGUAGES

    snap = api.snapshot(repo, rev=rev, store=api.open_store(store_home), index_if_absent=False)
    parsed = {f.path: f.language for f in snap.files if f.language in GRAMMAR_LANGUAGES and not f.skipped}
    symbols = {(path, s.name, s.line): s.kind for path, s in snap.symbols()}
    return compare(ctags_tags(Path(tags_json)), parsed, symbols)


def _tree_cpu() -> float:
    """CPU seconds of this process, its waited-for children and the forkserver's (which
    reaps the extraction workers it forks)."""
    import resource

    used = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))
    from multiprocessing import forkserver

    from benchmarks.measure import process_cpu

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid:
        try:
            used += process_cpu(pid, reaped=True)
        except (OSError, ValueError):
            pass
    return used


def resident(repo: str, store_home: str, workers: int, revs: list[str], fresh: bool = False,
             fork: bool = False) -> dict:
    """Index each rev in turn in this one process, as a resident host does (the MCP server:
    workers from a forkserver, summaries kept between indexes; `fork`: workers forked from
    here, as a batch's are); `fresh`: keep nothing, as one-off processes would not. Per rev:
    wall and CPU seconds (this process, its children and the forkserver's)."""
    from indexer.rank import hold_blas_pool

    hold_blas_pool()
    from indexer import api, worker_start
    from indexer.store import resident as kept

    if not fork:
        worker_start.from_forkserver()
    if not fresh:
        kept.keep()
    store = api.open_store(store_home)
    out = []
    for rev in revs:
        started, cpu = time.perf_counter(), _tree_cpu()
        report = api.index(repo, rev=rev, store=store, workers=workers)
        out.append({"rev": rev, "wall": round(time.perf_counter() - started, 3), "cpu": round(_tree_cpu() - cpu, 3),
                    "parsed_blobs": report.parsed_blobs, "fingerprint": report.fingerprint})
    summaries = kept.kept()
    return {"indexes": out, "kept_summaries": len(summaries) if summaries else 0,
            "kept_bytes": summaries.bytes if summaries else 0}


def main(argv: list[str]) -> int:
    verb, rest = argv[0], argv[1:]
    if verb == "index":
        repo, rev, store, workers = [a for a in rest if a != "--prepared"]
        print(json.dumps(index(repo, rev, store, int(workers), prepared="--prepared" in rest)))
        return 0
    if verb == "fanin":
        repo, rev, store, expect = rest
        print(json.dumps(fan_in(repo, rev, store, expect)))
        return 0
    if verb == "queries":
        refs: list[str] = []
        if "--refs" in rest:
            k = rest.index("--refs")
            refs = rest[k + 1:]
            rest = rest[:k]
        repo, rev, store, iterations, *names = rest
        print(json.dumps(queries(repo, rev, store, int(iterations), names, refs)))
        return 0
    if verb in ("parse", "tags", "compiled", "query", "query-all", "query-own"):
        repo, rev, workers = rest
        python_query = {"query": "shipped", "query-all": "all", "query-own": "own"}.get(verb, "")
        print(json.dumps(parse_only(repo, rev, int(workers), native=verb == "tags", python_query=python_query,
                                    compiled=verb == "compiled")))
        return 0
    if verb == "agreement":
        repo, rev, store, tags_json = rest
        print(json.dumps(agreement(repo, rev, store, tags_json)))
        return 0
    if verb == "resident":
        flags = {"--fresh", "--fork"}
        repo, store, workers, *revs = [a for a in rest if a not in flags]
        print(json.dumps(resident(repo, store, int(workers), revs, fresh="--fresh" in rest, fork="--fork" in rest)))
        return 0
    print(f"bad_input: unknown probe {verb!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    from context_tools.faces.quick_exit import quick_exit

    quick_exit(main(sys.argv[1:]))  # as `rennet` leaves
