"""CPU seconds per phase of a cold index, for the benchmark's breakdown (`probe index` with
`RENNET_PHASES=DIR`): nothing in the indexer is timed unless this is installed, and installing
it changes no output, only wraps the functions each phase runs in a per-thread CPU clock.

The wrappers are set on the modules before `indexer.api.index` forks its workers, so the
workers inherit them; each worker writes its totals to DIR after every chunk it extracts, the
indexer's process at the end (`dump`). `collect` sums them. A phase's figure is the thread
CPU time of its calls, inner phases subtracted (so the figures add up). The breakdown runs
apart from the timed cold runs: the clocks cost every call (local scopes' handlers run once
per match), so read its shares rather than its seconds.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import threading
import time
from pathlib import Path
from typing import Any, Callable

_totals: dict[str, float] = {}
_local = threading.local()  # .stack: per open phase of the thread, [start, seconds of inner phases]
_dir: Path | None = None


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    clock = time.thread_time

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        stack = _local.__dict__.setdefault("stack", [])
        frame = [clock(), 0.0]
        stack.append(frame)
        try:
            return fn(*args, **kwargs)
        finally:
            stack.pop()
            spent = clock() - frame[0]
            _totals[name] = _totals.get(name, 0.0) + spent - frame[1]
            if stack:
                stack[-1][1] += spent
    return wrapper


def _patch(module: Any, attr: str, name: str) -> None:
    setattr(module, attr, _timed(name, getattr(module, attr)))


class _Cursor:
    """tags.py's QueryCursor, its `matches` (the C query and the binding's match objects) timed."""

    def __init__(self, cursor_type: type, *args: Any, **kwargs: Any) -> None:
        self._cursor = cursor_type(*args, **kwargs)
        self.matches = _timed("query matches (C + binding objects)", self._cursor.matches)

    @property
    def did_exceed_match_limit(self) -> bool:
        return self._cursor.did_exceed_match_limit


def install(directory: str) -> None:
    """Wrap the phases' functions; the figures go to `directory`."""
    global _dir
    _dir = Path(directory)
    _dir.mkdir(parents=True, exist_ok=True)
    import indexer.build as build
    import indexer.extract.blob as blob
    import indexer.extract.tags as tags
    import indexer.git.attributes as marks
    import indexer.git.read as gitread
    import indexer.lang.grammars as grammars
    import indexer.lang.local_scopes as local_scopes
    import indexer.manifests.entrypoints as entrypoints
    import indexer.manifests.read as manifests
    import indexer.pipeline.assemble as assemble
    import indexer.pipeline.commit as commit
    import indexer.pipeline.extract as extract
    import indexer.rank.arcs as rank_arcs
    import indexer.rank.boilerplate as boilerplate
    import indexer.rank.graph as graph
    import indexer.resolve.imports as resolve
    import indexer.store.canonical as canonical
    import indexer.store.facts_writer as facts_writer

    # extraction, in the workers (and in the indexer's process for a single worker)
    _patch(gitread, "read_blob_within", "read blob from git")  # read_blob reads through it
    _patch(blob, "skip_reason", "content rules")
    _patch(blob, "generated_rule", "content rules")
    _patch(grammars, "parse", "parse")
    _patch(grammars, "_tags", "grammar setup (query compile)")
    _patch(grammars, "language", "grammar setup (query compile)")
    _patch(grammars, "has_wide_error", "tree checks")
    _patch(grammars, "is_too_deep", "tree checks")
    cursor_type = tags.QueryCursor
    tags.QueryCursor = functools.partial(_Cursor, cursor_type)  # type: ignore[assignment, misc]
    _patch(tags, "_run_tags", "tags: Python per match")
    _patch(tags, "_symbols", "symbols")
    _patch(tags, "_occurrences", "identifier sites")
    _patch(blob, "extract_tree", "extract_tree rest (language hooks, merge)")
    _patch(blob, "_plain", "plain tokenizer (no grammar / unparseable)")
    _patch(local_scopes.Collector, "__init__", "local scopes")
    _patch(local_scopes.Collector, "finish", "local scopes")
    handler = local_scopes.LocalScopes.handler
    local_scopes.LocalScopes.handler = lambda self, key: _timed("local scopes", handler(self, key))  # type: ignore
    _patch(extract, "stored_facts", "encode facts for the store")
    _patch(extract, "extract_job", "extraction rest")
    by_language = blob._extract
    blob._extract = _per_language(by_language)  # type: ignore[assignment]
    chunk = extract._extract_chunk

    @functools.wraps(chunk)
    def chunk_then_dump(jobs: list) -> list:
        try:
            return chunk(jobs)
        finally:
            dump()
    extract._extract_chunk = chunk_then_dump  # type: ignore[assignment]
    init = extract._worker_init

    @functools.wraps(init)
    def worker_init(*args: Any) -> None:
        global _worker
        _totals.clear()
        _languages.clear()
        _worker = True
        init(*args)
    extract._worker_init = worker_init  # type: ignore[assignment]
    # the indexer's process
    _patch(build, "plan", "plan (tree walk, stored keys)")
    _patch(extract, "_absent", "size blobs to parse (headers)")
    _patch(extract, "load_summaries", "load stored summaries")
    _patch(extract, "decode_core", "decode parsed facts (main)")
    _patch(facts_writer.FactsWriter, "flush", "store writes: facts (hand-over)")
    _patch(facts_writer, "write_facts", "store writes: facts")
    _patch(build, "extract", "extraction, main side rest")
    _patch(build, "load_facts", "load earlier facts")
    _patch(assemble, "file_entries", "file entries")
    _patch(marks, "mark_files", "marks")
    _patch(manifests, "parse_manifests", "manifests")
    _patch(resolve, "tree_of", "resolution")
    _patch(resolve, "resolve_since", "resolution")
    _patch(graph, "import_pairs", "rank")
    _patch(graph, "rank_weights", "rank")
    _patch(rank_arcs, "from_weights", "rank")
    _patch(graph, "pagerank", "rank")
    _patch(graph, "rounded", "rank")
    _patch(rank_arcs, "update", "rank")
    _patch(boilerplate, "below_definers", "rank")
    _patch(graph, "fan_in", "fan-in")
    _patch(entrypoints, "find_entry_points", "entry points")
    _patch(canonical, "fingerprint", "fingerprint")
    _patch(assemble, "pack_tail", "pack snapshot record")
    _patch(commit, "packed", "pack snapshot record")
    _patch(commit, "commit_snapshot", "store writes: snapshot")
    _patch(assemble, "assemble", "assembly rest")


_languages: dict[str, float] = {}


def _per_language(fn: Callable[..., Any]) -> Callable[..., Any]:
    """One blob's whole extraction (content rules, parse, tags, sites), by its language."""
    clock = time.thread_time

    @functools.wraps(fn)
    def wrapper(data: bytes, path: str, language: str, *rest: Any) -> Any:
        started = clock()
        try:
            return fn(data, path, language, *rest)
        finally:
            _languages[language] = _languages.get(language, 0.0) + clock() - started
    return wrapper


def dump() -> None:
    """This process' totals (and its CPU time) to the directory, replacing its earlier ones."""
    if _dir is None:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {"totals": _totals, "languages": _languages, "cpu": usage.ru_utime + usage.ru_stime,
           "children_cpu": children.ru_utime + children.ru_stime, "worker": _worker}
    path = _dir / f"{os.getpid()}.json"
    path.with_suffix(".tmp").write_text(json.dumps(out))
    path.with_suffix(".tmp").replace(path)


_worker = False


def collect(directory: str) -> dict:
    """The totals of every process, summed: {"phases": {name: s}, "workers_cpu", "main_cpu",
    "children_cpu"}."""
    phases: dict[str, float] = {}
    languages: dict[str, float] = {}
    workers_cpu = main_cpu = children_cpu = 0.0
    for path in Path(directory).glob("*.json"):
        got = json.loads(path.read_text())
        for k, v in got["totals"].items():
            phases[k] = phases.get(k, 0.0) + v
        for k, v in got["languages"].items():
            languages[k] = languages.get(k, 0.0) + v
        if got["worker"]:
            workers_cpu += got["cpu"]
        else:
            main_cpu += got["cpu"]
            children_cpu += got["children_cpu"]
    return {"phases": phases, "languages": languages, "workers_cpu": workers_cpu, "main_cpu": main_cpu, "children_cpu": children_cpu}
