"""Stage 2, extract: the blobs of a plan the store lacks -> blob facts.

Extraction runs in worker processes forked from the indexer; everything written to the
store goes through the indexer's own process (the facts writer), facts with their
name-index rows in one transaction each.
"""

from __future__ import annotations

import gc
import os
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterable, Iterator, NamedTuple, TypeVar

import pygit2

from indexer import worker_start
from indexer.contract.errors import MissingObjects, RennetError
from indexer.contract.limits import Limits, keep, limits
from indexer.contract.memory_limit import room_for_thread
from indexer.extract.child_process import HELD, start_as_child
from indexer.git import read as gitread
from indexer.pipeline.blob_bytes import check_read_bytes, read_bytes
from indexer.pipeline.plan import BlobJob, Plan
from indexer.store import resident
from indexer.store.database import Store, WriteLock, unpack
from indexer.store.facts_table import FactsSummary, Summary
from indexer.store.facts_writer import FactsWriter
from indexer.store.records import PendingNames, StoredFacts, decode_core, facts_key, stored_facts
from indexer.store.resident import load_summaries  # the facts table's, from memory where the host keeps them

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

    from indexer.model import BlobFacts
    from indexer.pipeline.pool_watch import Watched

SIZE_CAP = 1 << 20  # a blob larger than this is listed, not parsed


# --- worker side ------------------------------------------------------------------------

_worker_repo: pygit2.Repository | None = None
POOL_THREADS = 3  # the threads a multiprocessing Pool starts as it starts


def fork_pool(workers: int, lock: WriteLock | None, repo_path: str | None = None) -> Pool:
    """Extraction workers forked from the indexer. A worker must not outlive a killed indexer,
    nor keep its write lock alive; with `repo_path` each opens that repository once."""
    import multiprocessing  # here: a run that parses in its own process never needs it

    # The pool's three threads (its worker, task and result handlers) are started by
    # multiprocessing, after its workers: room for all of them is asked first, so that none is a
    # start waited on for good, and a refusal leaves nothing started to unwind (not even a
    # half-made pool, whose collection would find it without its state).
    room_for_thread(POOL_THREADS)
    held = limits()  # before anything starts: a `$RENNET_LIMITS` it cannot read is `bad_input`
    method = worker_start.method()
    quick: frozenset[str] | None = None
    if method == "forkserver" and not worker_start.prepared():
        from indexer.lang import grammars

        worker_start.for_threads()
        quick = grammars.quick()  # what a forked worker would have inherited
    # a forked worker holds a copy of the lock's descriptor; one from a forkserver never had it
    inherited = (lock.fd,) if lock is not None and lock.fd is not None and method == "fork" else ()
    # A Ctrl-C (or a SIGTERM, SIGHUP a CLI host takes as one) reaching a worker before its
    # first line would print its traceback: the workers start with them blocked, until they
    # ignore or default them (`start_as_child`); ours is raised here after.
    from indexer.pipeline.pool_watch import hold_unwinder

    hold_unwinder()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    worker_start.quiet_tracker()
    try:
        if method == "forkserver":
            worker_start.tracker_first()  # else the pool's start would let the held signals through
        pool = _quiet_pool()(workers, initializer=_worker_init, initargs=(repo_path, inherited, quick, held),
                             context=multiprocessing.get_context(method))
    except (EOFError, ConnectionError) as exc:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        if method != "forkserver":
            raise
        from indexer.pipeline.pool_watch import WorkerLost

        # The forkserver ended (killed, or by the OOM killer): multiprocessing starts another
        # for the next pool, so a retry finds one.
        raise WorkerLost("the forkserver the workers start from ended before it started them; "
                         "nothing stored was lost: retry") from exc
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        raise
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # raises what came meanwhile
    except KeyboardInterrupt:
        pool.terminate()  # now, not at whatever collection finds the pool dropped
        raise
    return pool


# Set while this thread builds a pool: its first workers are started by the builder, any
# later one by the pool's worker handler.
_building = threading.local()


@cache
def _quiet_pool() -> type[Pool]:
    """A pool whose workers run `_quiet_worker`; made on first use, as multiprocessing is imported."""
    from multiprocessing.pool import Pool

    from indexer.pipeline.pool_watch import (
        NoReplacement,
        abandon,
        adopt,
        adopt_this_thread,
        end_when_dropped,
        unwind_start,
    )

    class QuietPool(Pool):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            _building.now = True
            try:
                super().__init__(*args, **kwargs)
                end_when_dropped(self)
                adopt(self)
            except BaseException:
                unwind_start(self)
                raise
            finally:
                _building.now = False

        # untyped: the pool's context and process are forkserver's, which typeshed spells as the default's
        @staticmethod
        def Process(ctx: Any, *args: Any, **kwds: Any) -> Any:
            if not getattr(_building, "now", False):
                # The worker handler, replacing a worker that died. It forked the new one from
                # its thread while the pool's other threads ran, and a child can inherit a lock
                # one of them held (Python 3.12 warns of it); the dead worker's task is lost all
                # the same, as the watched results report. The handler ends here instead, its
                # end the pool's to report, never a traceback on stderr.
                adopt_this_thread()
                raise NoReplacement("a worker died: the pool is abandoned, not replenished")
            return ctx.Process(*args, **{**kwds, "target": _quiet_worker, "name": worker_start.WORKER_NAME})

        def terminate(self) -> None:
            # multiprocessing's own first takes the lock of the tasks' pipe, which an idle
            # worker holds as it waits for a task: one ended meanwhile (a SIGTERM or SIGHUP
            # to the group, the OOM killer, a server's stop as its call ended) holds it for
            # good. Nothing the workers do is waited for; they are killed (`pool_watch`).
            abandon(self)

    return QuietPool


def _quiet_worker(*args: object) -> None:
    """The pool's own worker loop. A worker whose indexer was killed (SIGKILL, SIGTERM, a
    server's Ctrl-C) finds the pipe for its answer closed: the loop's traceback would reach
    the terminal, or the log of the agent that ran the server, for nothing anyone did wrong."""
    from multiprocessing.pool import worker  # type: ignore[attr-defined]  # the loop Pool runs, untyped

    try:
        worker(*args)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _worker_init(repo_path: str | None, inherited_fds: tuple[int, ...], quick: frozenset[str] | None,
                 held: Limits) -> None:
    global _worker_repo
    start_as_child(pool_worker=True)
    keep(held)
    if quick is not None:
        from indexer.lang import grammars

        grammars.compile_quickly(quick)
    for fd in inherited_fds:
        try:
            os.close(fd)
        except OSError:
            pass
    # The indexer may fork with its collector off and a large heap: what came from it is never
    # garbage here (freezing keeps collections off those pages), what extraction makes may be.
    gc.freeze()
    gc.enable()
    if repo_path is not None:
        _worker_repo = pygit2.Repository(repo_path)


def extract_job(job: BlobJob, repo: pygit2.Repository | None = None) -> StoredFacts:
    """Parse one blob into its facts, encoded for the store. Keyed by `job.language`, what
    the name says; where that leaves the language to the content, it is detected here.
    Without `repo`, a pool worker's own (fork_pool's `repo_path`)."""
    return stored_facts(facts_key(job.blob, job.language, job.version), extract_facts(job, repo))


def extract_facts(job: BlobJob, repo: pygit2.Repository | None = None) -> BlobFacts:
    """One blob's facts, as `extract_job` stores them."""
    from indexer.extract.blob import extract_blob
    from indexer.lang.registry import CONTENT_DECIDES, HEAD_BYTES, detect_language
    source = repo if repo is not None else _worker_repo
    if source is None:
        raise RennetError(f"no repository to read {job.path} from", code="internal_error")
    size, data = gitread.read_blob_within(source, job.blob)
    if data is None:
        return unread_facts(job, size)
    language = detect_language(job.path, data[:HEAD_BYTES]) if job.language in CONTENT_DECIDES else job.language
    facts = extract_blob(data, job.path, language, SIZE_CAP, sites=False)
    facts.size = size
    return facts


def unread_facts(job: BlobJob, size: int) -> BlobFacts:
    """The facts of a blob over `gitread.READ_CAP`: listed `too_large` by what its name says,
    its lines not counted (-1), as reading it would hold all of it at once."""
    from indexer.lang.registry import CONTENT_DECIDES, detect_language
    from indexer.model import BlobFacts
    language = detect_language(job.path, b"") if job.language in CONTENT_DECIDES else job.language
    return BlobFacts(language=language, lines=-1, skipped="too_large", size=size)


def _extract_chunk(jobs: list[BlobJob]) -> list[StoredFacts]:
    try:
        return [extract_job(job) for job in jobs]
    except pygit2.GitError as exc:
        # pygit2's exception classes live in `_pygit2`, which the parent cannot import to unpickle
        # them: what leaves a worker is the typed error
        if isinstance(exc, KeyError):
            raise MissingObjects(f"an object is missing from the object database ({exc})") from None
        raise RennetError(f"git: {exc}", code="git_error") from None


# --- main side ---------------------------------------------------------------------------

def chunk_size(jobs: int, workers: int) -> int:
    """Blobs per chunk: half a worker's share, from 64 to 256. A language's blobs then come in
    as few chunks as keep the workers even (each worker meeting a language sets its grammar
    up, a query compiled), and the last chunk ends soon after the others."""
    return max(64, min(256, -(-jobs // (2 * workers))))


def chunks(jobs: list[BlobJob], size: int) -> list[list[BlobJob]]:
    """Chunks of one language each, largest first. A worker sets a grammar up (its tags query
    compiled, dearer than parsing a few blobs) the first time it meets the language; chunks of
    one language keep a small re-index from paying that in every worker for a handful of blobs."""
    by_language: dict[str, list[BlobJob]] = {}
    for job in jobs:
        by_language.setdefault(job.language, []).append(job)
    out = [same[i:i + size] for _, same in sorted(by_language.items()) for i in range(0, len(same), size)]
    out.sort(key=len, reverse=True)  # stable: languages stay in name order among equals
    return out


T = TypeVar("T")


class Extracted(NamedTuple, Generic[T]):
    facts: dict[bytes, BlobFacts]  # the parsed blobs' core facts, by facts key
    meanwhile: T  # what the caller's `meanwhile` returned
    stored: Callable[[], None]  # returns once the parsed facts are in the store
    names: PendingNames  # their name-index rows, to read before `stored` returns (kept when asked for)


def extract_missing(store: Store, repo: pygit2.Repository, jobs: list[BlobJob], pool: Pool | None, workers: int,
                    progress: Callable[[int], None], meanwhile: Callable[[], T],
                    keep_names: bool = False) -> Extracted[T]:
    """Parse and store the blobs never seen, in the `pool`'s `workers` (without one, here);
    returns their core facts by facts key, and what `meanwhile` returned: it runs here while
    the workers parse (the store's facts of every other blob are loaded in that time rather
    than after). The last writes may still be under way: the caller waits on `stored` before
    it reads them from the store, or reads their name-index rows from `names` (`keep_names`:
    only a rank update reads them; a cold index's would be some 4 kB per blob held for nothing)."""
    new: dict[bytes, BlobFacts] = {}
    names = PendingNames()

    def flushed(stored: list[StoredFacts]) -> None:
        new.update((x.key, decode_core(unpack(x.packed_core))) for x in stored)
        resident.parsed(store, stored)
        if keep_names:
            names.add(stored)

    writer = FactsWriter(store, flushed, background=True)

    def drain(results: Iterable[list[StoredFacts]]) -> None:
        try:
            for chunk in results:
                writer.add(chunk)
                progress(len(chunk))
            writer.flush()
        except BaseException:
            writer.wait()  # no write left running behind an error
            raise

    if pool is None or not jobs:
        drain([extract_job(job, repo) for job in chunk] for chunk in chunks(jobs, 64))
        return Extracted(new, meanwhile(), writer.wait, names)
    from indexer.pipeline.pool_watch import Watched

    results = Watched(pool, pool.imap_unordered(_extract_chunk, chunks(jobs, chunk_size(len(jobs), workers))))
    done = meanwhile()
    # A small extraction's facts are written here, in passing (FactsWriter.IN_PASSING): those
    # that came in while `meanwhile` ran are written while the last chunks are still parsed,
    # rather than all of them after, when assembly waits on nothing else.
    drain(_arriving(results, writer.flush) if len(jobs) <= FactsWriter.IN_PASSING else results)
    return Extracted(new, done, writer.wait, names)


def _arriving(results: Watched[list[StoredFacts]], before_waiting: Callable[[], None],
              ) -> Iterator[list[StoredFacts]]:
    """The chunks of `results` as they come; `before_waiting` runs whenever none has come yet."""
    from multiprocessing import TimeoutError as NotYet

    while True:
        try:
            try:
                chunk = results.next(timeout=0)
            except NotYet:
                before_waiting()
                chunk = results.next()
        except StopIteration:
            return
        yield chunk


# Up to this many blobs to parse are parsed in the indexer's process: a change made between two
# indexes (a few files, of a language or two) costs its queries' compile and the parse about
# what forking the workers, importing the pool and stopping it cost, and with no workers alive
# the main side's writes to its heap are not copied for them.
IN_PROCESS_MAX = 8


# A language with at most this many blobs to parse in a run has its tags query compiled in the
# form that compiles cheapest (grammars.compile_quickly): below where, for any language, the
# other form's cheaper matching would make up for its dearer compile.
QUICK_COMPILE_MAX = 256


def compile_forms(jobs: list[BlobJob]) -> None:
    """Choose, for this run, the form each language's tags query is compiled in (before the
    workers are forked, which inherit it): the one that compiles cheapest for the languages
    with few blobs to parse."""
    from indexer.lang import grammars
    from indexer.lang.registry import CONTENT_H, HEADER_LANGUAGES

    counts: dict[str, int] = {}
    for job in jobs:
        # a header is C or C++ by its content, known only in the worker: it counts for both
        for language in HEADER_LANGUAGES if job.language == CONTENT_H else (job.language,):
            counts[language] = counts.get(language, 0) + 1
    grammars.compile_quickly(language for language, n in counts.items() if n <= QUICK_COMPILE_MAX)


@contextmanager
def pool_for(jobs: int, workers: int, lock: WriteLock, repo_path: str) -> Iterator[Pool | None]:
    """The extraction workers for `jobs` blobs to parse, forked once the plan says how many:
    none for a single worker, or for IN_PROCESS_MAX blobs or fewer (a tree whose blobs are all
    stored forks nothing and imports no extraction)."""
    if workers <= 1 or jobs <= IN_PROCESS_MAX:
        yield None
        return
    import importlib.resources.readers  # noqa: F401  (the grammar wheels read their queries through it)

    import indexer.extract.blob as extract  # noqa: F401  (imported once here, inherited by every worker)

    with fork_pool(workers, lock, repo_path) as pool:
        yield pool


class ParseProgress:
    """The "parse" step's count of blobs parsed out of `total`, told to `progress`."""

    def __init__(self, progress: Callable[[str, int, int], None] | None) -> None:
        self._progress = progress
        self.done = 0
        self.total = 0

    def step(self, n: int) -> None:
        self.done += n
        if self._progress:
            self._progress("parse", self.done, self.total)


@dataclass
class Extraction:
    """What extraction leaves for assembly: every blob's facts at hand, by path."""

    facts: dict[bytes, BlobFacts]  # the parsed blobs' core facts, by facts key
    summaries: dict[str, Summary]  # path -> its facts (a summary, or the parsed facts), in tree order
    parsed: int  # blobs parsed
    names: PendingNames  # the parsed blobs' name-index rows (kept when the plan has an earlier snapshot)
    stored: Callable[[], None]  # returns once the parsed facts are in the store
    missing: int = 0  # blobs the object database lacks (a partial clone's): listed as `missing_object`


MISSING_OBJECT = "missing_object"  # the skip reason of such a blob
MISSING = "missing"  # the file table's language of a blob the object database lacks (records.NO_FACTS)


def missing_facts() -> BlobFacts:
    """What a blob the object database lacks is listed with: its facts are never stored, so
    the snapshot of the same commit with the blob present parses it."""
    from indexer.model import BlobFacts
    return BlobFacts(language=MISSING, lines=-1, skipped=MISSING_OBJECT)


def _absent(repo: pygit2.Repository, jobs: list[BlobJob], require_complete: bool,
            stored: list[BlobJob] | None = None) -> dict[bytes, BlobJob]:
    """The jobs (by facts key) whose blob the object database lacks, of those to parse and of
    `stored` (blobs whose facts the store holds); with `require_complete`, any such blob is the
    typed refusal `missing_objects` instead. The sizes of those to parse, read from their
    headers, must keep within the `blob_bytes` limit before any is parsed."""
    absent: dict[bytes, BlobJob] = {}
    total = 0
    for j, size in zip(jobs, gitread.present_sizes(repo, (j.blob for j in jobs))):
        if size is None:
            absent[facts_key(j.blob, j.language, j.version)] = j
        else:
            total += read_bytes(size)
    check_read_bytes(total, partial=True)
    for j, size in zip(stored or (), gitread.present_sizes(repo, (j.blob for j in stored or ()))):
        if size is None:
            absent[facts_key(j.blob, j.language, j.version)] = j
    if absent and require_complete:
        first = min(absent.values(), key=lambda j: j.path)
        raise MissingObjects(f"{len(absent)} blob(s) are missing from the object database (first: {first.path}, "
                             f"{first.blob[:12]}); without --require-complete they are listed as skipped")
    return absent


def extract(store: Store, repo: pygit2.Repository, plan: Plan, workers: int, lock: WriteLock,
            parsing: ParseProgress, require_complete: bool = False, *, partial: bool) -> Extraction:
    """Extract the blobs of the plan's tree that the store lacks (on `workers` workers, see
    `pool_for`), loading the summaries of the others meanwhile. A blob the object database
    lacks is listed as skipped (`missing_object`), or refused with `require_complete`.
    `partial`: the repository is a partial clone (`gitread.partial_clone`, asked by the caller)."""
    extracted, jobs, absent = _extract_planned(store, repo, plan, workers, lock, parsing, require_complete,
                                               partial)
    try:
        new, stored = extracted.facts, extracted.meanwhile
        # Blobs the earlier snapshot had at the same path were not looked up (Plan.carried): should
        # the store have lost the facts of one all the same, it is parsed now rather than failed.
        lost_paths = plan.carried - stored.keys()  # a set difference: no loop over the tree unless needed
        lost = {plan.keys[e.path]: BlobJob(e.oid, e.path, plan.languages[e.path], plan.version)
                for e in plan.tree if e.path in lost_paths and plan.keys[e.path] not in new} if lost_paths else {}
        if lost:
            gone = _absent(repo, list(lost.values()), require_complete)
            absent.update(gone)
            lost = {k: j for k, j in lost.items() if k not in gone}
        if lost:
            jobs += sorted(lost.values(), key=lambda j: j.blob)
            parsing.total = len(jobs)
            extracted.stored()  # one writer at a time
            again = extract_missing(store, repo, list(lost.values()), None, 1, parsing.step, lambda: None)
            again.stored()
            new.update(again.facts)
        if absent:
            new.update((key, missing_facts()) for key in absent)
        summaries: dict[str, Summary] = {path: new[key] if key in new else stored[path]  # in tree order
                                         for path, key in plan.keys.items() if key in new or path in stored}
    except BaseException:
        extracted.stored()  # no write left running behind an error
        raise
    missing = sum(1 for key in plan.keys.values() if key in absent) if absent else 0
    return Extraction(new, summaries, len(jobs), extracted.names, extracted.stored, missing)


def _extract_planned(store: Store, repo: pygit2.Repository, plan: Plan, workers: int, lock: WriteLock,
                     parsing: ParseProgress, require_complete: bool, partial: bool,
                     ) -> tuple[Extracted[dict[str, FactsSummary]], list[BlobJob], dict[bytes, BlobJob]]:
    """Extract the blobs of the plan's tree that the store lacks, loading the summaries of
    the others meanwhile; returns that, the jobs, and those whose blob is missing (not run)."""
    with store.env.begin(db=store.facts) as txn:
        present = txn.cursor().set_key  # asks without copying the value out
        missing: dict[bytes, BlobJob] = {}
        for key, job in plan.fresh(present, missing):
            missing[key] = job
    # a partial clone may lack a blob whose facts are stored: it is indexed as a store without
    # them indexes it, the blob listed as `missing_object` (assembly would read a manifest or a
    # `.gitattributes` of it from the object database)
    stored = plan.blobs_besides(missing) if partial else None
    absent = _absent(repo, list(missing.values()), require_complete, stored)
    jobs = sorted((j for k, j in missing.items() if k not in absent), key=lambda j: j.blob)
    parsing.total = len(jobs)

    def load_the_rest() -> dict[str, FactsSummary]:
        # assembly's modules, imported meanwhile too (numpy for the rank above all, and every
        # language's resolver a re-index asks whether a change reaches other files), and the
        # earlier snapshot's import resolution decoded
        import indexer.git.attributes
        import indexer.manifests.entrypoints
        import indexer.rank.boilerplate
        import indexer.rank.graph  # noqa: F401
        import indexer.resolve.imports as resolve
        from indexer.rank import load_numpy

        load_numpy()
        if plan.earlier is not None:
            resolve.changes_others()
            plan.earlier.decode()
        # the whole tree keyed now (Plan.fresh left it), while the workers parse
        return load_summaries(store, {path: key for path, key in plan.keys.items() if key not in missing})

    if jobs:
        compile_forms(jobs)
    with pool_for(len(jobs), workers, lock, repo.path) as pool:
        extracted = extract_missing(store, repo, jobs, pool, workers, parsing.step, load_the_rest,
                                    keep_names=plan.earlier is not None)
    return extracted, jobs, absent
