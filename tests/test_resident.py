"""A resident host (one that indexes more than once in its process): what it keeps from one
index for the next (facts summaries, indexer/store/resident.py; every language's compiled
query in the forkserver its workers come from, indexer/extract/prepared.py) changes no
snapshot byte, and is dropped where the store no longer backs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from corpora.synthetic import generate
from indexer import api
from indexer.store import resident
from indexer.store.database import Store
from indexer.store.records import facts_key
from indexer.store.resident import KeptSummaries
from tests.mcp_clients import run_stdio, text_of
from tests.test_context_world import PY, ROOT, cli_env
from tests.test_index import _module, assert_as_cold, indexed_losing


@pytest.fixture
def keeping():
    """This test's process keeps summaries, as the MCP server does; nothing kept after it."""
    resident.keep()
    yield resident.kept()
    resident.stop()


def dump(repo: str, oid: str, home: Path) -> tuple[bytes, str]:
    with Store.open(home) as store:
        snap = api.snapshot(repo, oid, store=store, index_if_absent=False)
        return b"".join(snap.canonical_lines()), snap.fingerprint


def fresh_process_index(repo: str, oid: str, home: Path) -> None:
    """`rennet index` of `oid` in a process of its own, into a store of its own."""
    done = subprocess.run([PY, "-m", "context_tools.faces.cli", "index", "--repo", repo, "--rev", oid, "--quiet"],
                          env=cli_env(str(home)), cwd=str(ROOT), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_mcp_server_indexes_a_series_as_fresh_processes_do(tmp_path):
    """The server (workers from its forkserver, summaries kept) indexes a base commit and two
    follow-ups, each changing enough files to fork workers; each follow-up's snapshot is byte
    for byte the one a fresh process writes into a fresh store."""
    corpus = generate(tmp_path / "repo", files=60, seed=3, change_share=0.2, follow_ups=2)
    repo = str(corpus.path)
    assert all(len(changed) > 8 for changed in corpus.changed)  # each re-index parses in workers
    served = tmp_path / "served"

    async def work(client):
        return [text_of(await client.call_tool("repo_index", {"repo": repo, "rev": oid})) for oid in corpus.commits]

    replies = run_stdio(str(served), work, root=str(tmp_path))
    assert [r["ok"] for r in replies] == [True, True, True]
    assert [r["data"]["parsed_blobs"] > 8 for r in replies] == [True, True, True]
    for oid in corpus.commits[1:]:
        fresh = tmp_path / f"fresh-{oid[:8]}"
        fresh_process_index(repo, oid, fresh)
        assert dump(repo, oid, served) == dump(repo, oid, fresh)


def test_kept_summaries_serve_the_next_index_and_change_no_byte(tmp_path, keeping):
    corpus = generate(tmp_path / "repo", files=120, seed=5, change_share=0.1, follow_ups=1)
    repo = str(corpus.path)
    base, head = corpus.commits
    with Store.open(tmp_path / "store") as store:
        first = api.index(repo, base, store=store, workers=2)
        assert len(keeping) == first.parsed_blobs and keeping.served == 0  # a cold index parses all it keeps
        second = api.index(repo, head, store=store, workers=2)
        # every blob the follow-up did not change comes from memory, not from the store
        assert keeping.served == second.reused_blobs
        assert len(keeping) == first.parsed_blobs + second.parsed_blobs
    resident.stop()
    with Store.open(tmp_path / "cold") as cold:
        api.index(repo, head, store=cold, workers=2)
    assert dump(repo, head, tmp_path / "store") == dump(repo, head, tmp_path / "cold")


def test_a_kept_summary_is_never_claimed_for_facts_the_store_lost(tmp_path, keeping):
    """As tests/test_index.py's lost facts, in a host that keeps summaries: the lost blob is
    parsed again rather than served from memory (and its kept summary dropped)."""
    with indexed_losing(tmp_path, "pkg/mod4.py") as (builder, store):
        kept_before = len(keeping)
        second_oid = builder.commit({"pkg/mod3.py": _module(3) + "\n\ndef added():\n    return 3\n"})
        second = api.index(str(builder.path), second_oid, store=store, workers=1)
        assert second.parsed_blobs == 2  # the changed file, and the one whose facts were lost
        assert len(keeping) == kept_before + 1  # the lost one dropped and kept again, the changed one added
        assert_as_cold(tmp_path, builder, second_oid, second.fingerprint)


def _stored(tmp_path: Path, files: int) -> tuple[Store, dict[str, bytes]]:
    """A store holding the facts of a commit of `files` Python modules, and path -> facts key."""
    builder = RepoBuilder(tmp_path / "repo")
    oid = builder.commit({f"pkg/mod{i}.py": _module(i) for i in range(files)})
    store = Store.open(tmp_path / "store")
    api.index(str(builder.path), oid, store=store, workers=1)
    snap = api.snapshot(str(builder.path), oid, store=store)
    keys = {path: facts_key(snap.file(path).blob, "python", snap.extractor_version) for path in snap.paths}
    return store, keys


def test_kept_summaries_stay_under_their_ceiling_the_least_recently_used_dropped(tmp_path):
    from indexer.store.facts_table import load_summaries

    store, keys = _stored(tmp_path, 12)
    try:
        stored = load_summaries(store, keys)
        assert len(stored) == 12
        sizes = {keys[path]: resident.estimate(s) for path, s in stored.items()}
        paths = sorted(keys)
        first, second = paths[:6], paths[6:]
        ceiling = sum(sizes[keys[p]] for p in second) + 1  # room for the second half, not for a seventh
        kept = KeptSummaries(ceiling)
        assert kept.load(store, {p: keys[p] for p in first}) == {p: stored[p] for p in first}
        assert kept.load(store, {p: keys[p] for p in second}) == {p: stored[p] for p in second}
        assert kept.bytes <= ceiling and len(kept) == 6
        # the second half stayed, so asking for it again is served from memory
        served = kept.served
        kept.load(store, {p: keys[p] for p in second})
        assert kept.served == served + 6
        # and the first half comes from the store again, whole
        assert kept.load(store, {p: keys[p] for p in first}) == {p: stored[p] for p in first}
        assert kept.served == served + 6 and kept.bytes <= ceiling
    finally:
        store.close()



def test_facts_parsed_twice_are_kept_and_counted_once(tmp_path):
    """Two indexes of one host may parse the same new blob: its summary is kept once, and the
    bytes the ceiling is held to count it once."""
    from indexer.model import BlobFacts, Symbol
    from indexer.store.records import stored_facts

    facts = BlobFacts("python", 3, symbols=[Symbol("f", "function", "", 1, 2, 0, 10, "def f():")])
    x = stored_facts(b"a" * 40 + b"|python|1", facts)
    kept = KeptSummaries()
    with Store.open(tmp_path / "store") as store:
        kept.add_stored(store, [x])
        once = kept.bytes
        kept.add_stored(store, [x])
    assert len(kept) == 1 and kept.bytes == once > 0


def test_another_store_starts_the_kept_summaries_afresh(tmp_path):
    store, keys = _stored(tmp_path / "one", 3)
    other, other_keys = _stored(tmp_path / "two", 3)
    try:
        kept = KeptSummaries()
        kept.load(store, keys)
        assert len(kept) == 3
        kept.load(other, other_keys)  # the same blobs: still read from the other store, not served
        assert kept.served == 0 and len(kept) == 3
        kept.load(other, other_keys)
        assert kept.served == 3
    finally:
        store.close()
        other.close()


WORKER_CHECK = """
import json, sys
from indexer import worker_start
from indexer.lang.registry import GRAMMAR_LANGUAGES
from indexer.pipeline.extract import fork_pool
from tests.test_resident import compiled_in_worker

worker_start.from_forkserver()
with fork_pool(2, None, sys.argv[1]) as pool:
    before, facts, after = pool.apply(compiled_in_worker, (sys.argv[2],))
print(json.dumps({"languages": len(GRAMMAR_LANGUAGES), "before": before, "after": after, "facts": facts}))
"""


def compiled_in_worker(blob: str) -> tuple[int, str, int]:
    """In an extraction worker: the languages whose tags query this process compiled itself
    (not inherited) before and after extracting `blob`, a Python module, and its facts."""
    from indexer.lang import grammars
    from indexer.pipeline.extract import extract_facts
    from indexer.pipeline.plan import BlobJob

    before = grammars._tags.cache_info()
    facts = extract_facts(BlobJob(blob, "pkg/mod1.py", "python", "v"))
    after = grammars._tags.cache_info()
    return before.currsize, repr(facts), after.currsize - before.currsize


@pytest.mark.parametrize("prepared", [None, "languages", "roots", "roots of no repository"])
def test_forkserver_workers_start_with_the_prepared_language_queries_compiled(tmp_path, prepared):
    """The MCP server's workers come from its forkserver, which compiled every language's
    query before forking them, or those `PREPARE_ENV` names, or those the HEAD trees of the
    `ROOTS_ENV` repositories name: a worker compiles none of them, a language left out is
    compiled where it is met, and the facts are those of a process that compiled its own."""
    from indexer.lang.registry import GRAMMAR_LANGUAGES
    from indexer.pipeline.extract import extract_facts
    from indexer.pipeline.plan import BlobJob
    from indexer.worker_start import PREPARE_ENV, ROOTS_ENV

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"pkg/mod1.py": _module(1)})
    other = RepoBuilder(tmp_path / "other")
    other.commit({"include/api.h": "int api(void);\n", "src/main.go": "package main\n", "README": "text\n"})
    (tmp_path / "plain").mkdir()
    import pygit2

    repo = pygit2.Repository(str(builder.path))
    blob = str(repo.revparse_single("HEAD:pkg/mod1.py").id)
    env = cli_env()
    env.pop(PREPARE_ENV, None)
    env.pop(ROOTS_ENV, None)
    if prepared == "languages":
        env[PREPARE_ENV] = "go,typescript"
    elif prepared == "roots":
        env[ROOTS_ENV] = json.dumps([str(other.path)])
    elif prepared == "roots of no repository":
        env[ROOTS_ENV] = json.dumps([str(tmp_path / "plain")])
    done = subprocess.run([PY, "-c", WORKER_CHECK, str(builder.path), blob], env=env,
                          cwd=str(ROOT), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    if prepared in (None, "roots of no repository"):  # not known: every language
        assert out["before"] == out["languages"] == len(GRAMMAR_LANGUAGES) and out["after"] == 0
    elif prepared == "languages":
        assert out["before"] == 2 and out["after"] == 1  # Python's, compiled by the worker meeting it
    else:  # the header counts for C and C++, the Go file for Go; the text file names none
        assert out["before"] == 3 and out["after"] == 1
    assert out["facts"] == repr(extract_facts(BlobJob(blob, "pkg/mod1.py", "python", "v"), repo))


def test_prepare_sets_a_language_up_without_a_failed_extraction():
    """`prepare`'s one-line blob parses in every grammar language (a failure would leave the
    setup half done and say nothing)."""
    from indexer.extract.blob import extract_blob
    from indexer.lang import grammars
    from indexer.lang.registry import GRAMMAR_LANGUAGES

    grammars.compile_quickly(())  # as a forkserver starts: an earlier run in this process may have chosen
    grammars._tags.cache_clear()
    for language in sorted(GRAMMAR_LANGUAGES):
        assert extract_blob(b"x\n", "prepared", language, sites=False).skipped == "", language
    assert grammars._tags.cache_info().currsize == len(GRAMMAR_LANGUAGES)  # one query each, in one form



def test_the_forkserver_starts_once_the_tools_are_listed_not_at_initialize(tmp_path):
    """`initialize` starts no forkserver (a client waits on it); listing the tools does, so the
    preload runs while an agent thinks before its first call rather than on that call's clock.
    It is told the served roots, to prepare the languages their HEAD trees name (the test
    above checks what a forkserver makes of them), and no list of languages."""
    import os
    import time

    import anyio

    from benchmarks.measure import children_of, command_line
    from indexer.worker_start import PREPARE_ENV, ROOTS_ENV

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"pkg/mod1.py": _module(1), "include/api.h": "int api(void);\n", "README": "text\n"})

    def forkservers() -> list[int]:
        # this test's server, by its root: another test's may still be leaving under load
        root = str(builder.path).encode()
        servers = [pid for pid in children_of(os.getpid()) if b"mcp" in (line := command_line(pid)) and root in line]
        assert len(servers) == 1
        return [pid for pid in children_of(servers[0]) if b"forkserver" in command_line(pid)]

    async def work(client):
        await anyio.sleep(1.0)  # time enough for a forkserver to show, were one started
        before = forkservers()
        await client.list_tools()
        deadline = time.monotonic() + 30
        while not forkservers() and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        after = forkservers()
        # read while the server lives: the forkserver leaves with it
        environ = Path(f"/proc/{after[0]}/environ").read_bytes() if len(after) == 1 else b""
        return before, after, environ

    before, after, environ = run_stdio(str(tmp_path / "store"), work, root=str(builder.path))
    assert before == [] and len(after) == 1
    environment = environ.split(b"\0")
    told = {k: v for k, _, v in (e.partition(b"=") for e in environment)}
    assert json.loads(told[ROOTS_ENV.encode()]) == [os.path.realpath(builder.path)]
    assert PREPARE_ENV.encode() not in told


def _summaries(tmp_path: Path, files: int):
    """A store of `files` modules, path -> facts key, and path -> its stored summary."""
    from indexer.store.facts_table import load_summaries

    store, keys = _stored(tmp_path, files)
    return store, keys, load_summaries(store, keys)


def test_a_summary_is_counted_as_its_fixed_cost_and_its_symbols_json():
    """Every kept summary counts against the ceiling, one without symbols too (none would be
    free to keep beyond it), and one with symbols by as many bytes more as its JSON holds."""
    from indexer.model import BlobFacts, Symbol
    from indexer.store.database import unpack
    from indexer.store.facts_table import decode_summary
    from indexer.store.records import stored_facts

    def summary(facts):
        return decode_summary(unpack(stored_facts(b"a" * 40 + b"|python|1", facts).packed_core))

    bare = summary(BlobFacts("python", 1))
    rich = summary(BlobFacts("python", 3, symbols=[Symbol("f", "function", "", 1, 2, 0, 10, "def f():")]))
    assert bare.symbols_json == b"" and rich.symbols_json
    assert resident.estimate(bare) > 0
    assert resident.estimate(rich) - resident.estimate(bare) == len(rich.symbols_json)


def test_a_ceiling_keeps_what_fits_exactly_and_drops_the_least_recently_used(tmp_path):
    """Summaries that fill the ceiling to the byte are all kept; one more drops the one asked
    for least recently, not the first one kept: a summary served from memory is used again."""
    store, keys, stored = _summaries(tmp_path, 3)
    try:
        a, b, c = sorted(keys, key=keys.get)  # in the order their keys are read, and kept
        size = {p: resident.estimate(stored[p]) for p in keys}
        kept = KeptSummaries(size[a] + size[b])
        kept.load(store, {a: keys[a], b: keys[b]})
        assert len(kept) == 2 and kept.bytes == kept.ceiling  # at the ceiling, not over it
        kept.load(store, {a: keys[a]})  # served: `a` is now the most recently used
        assert kept.served == 1 and kept.bytes == size[a] + size[b]  # counted once, not again
        kept.load(store, {c: keys[c]})  # no room for a third: `b` goes
        served = kept.served
        assert kept.load(store, {a: keys[a]}) == {a: stored[a]} and kept.served == served + 1
        assert kept.load(store, {b: keys[b]}) == {b: stored[b]} and kept.served == served + 1  # read again
    finally:
        store.close()


def test_a_summary_of_facts_the_store_lost_is_dropped_and_uncounted(tmp_path):
    """Facts the store no longer holds (gc) are not served from memory, and their summary
    leaves the kept ones, its bytes with it."""
    store, keys, stored = _summaries(tmp_path, 3)
    try:
        kept = KeptSummaries()
        kept.load(store, keys)
        lost = sorted(keys)[0]
        with store.env.begin(write=True, db=store.facts) as txn:
            txn.delete(keys[lost])
        assert kept.load(store, keys) == {p: s for p, s in stored.items() if p != lost}
        assert len(kept) == 2 and kept.bytes == sum(resident.estimate(s) for p, s in stored.items() if p != lost)
    finally:
        store.close()


def test_another_store_counts_only_its_own_summaries(tmp_path):
    """Switching to another store drops what was kept with its bytes; a store removed and made
    again at the same path is another store (its summaries read from it, none served)."""
    import shutil

    store, keys, stored = _summaries(tmp_path / "one", 3)
    other, other_keys, other_stored = _summaries(tmp_path / "two", 2)
    kept = KeptSummaries()
    try:
        kept.load(store, keys)
        kept.load(other, other_keys)
        assert kept.bytes == sum(resident.estimate(s) for s in other_stored.values())
    finally:
        store.close()
        other.close()
    again, again_keys, _ = _summaries(tmp_path / "again", 2)  # made while the first is there: another file
    again.close()
    shutil.rmtree(tmp_path / "two" / "store")
    (tmp_path / "again" / "store").rename(tmp_path / "two" / "store")
    with Store.open(tmp_path / "two" / "store") as remade:
        kept.load(remade, again_keys)
        assert kept.served == 0 and len(kept) == 2


def test_keeping_follows_the_latest_ceiling_and_stops():
    try:
        resident.keep(1 << 20)
        resident.keep(2 << 20)
        assert resident.kept() is not None and resident.kept().ceiling == 2 << 20
    finally:
        resident.stop()
    assert resident.kept() is None
