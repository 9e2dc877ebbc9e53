"""A Python program that indexes while another of its threads runs: its workers start safely
all the same, with nothing asked of it (`indexer.worker_start.method`). A child forked beside
a thread keeps every lock that thread held at the fork, held for good. Each case runs in an
interpreter of its own, bounded in time: the fault is a wait without end."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from indexer.lang.grammars import COMPILING_FORM, MATCHING_FORM
from tests.cli_runs import ROOT, cli_env

# A caller's thread importing a module the workers import as they work and the indexer's own
# process has not imported when it starts them (tree-sitter's Python grammar, which an index's
# workers import at their first Python blob; numpy, which the batch's import as they assemble):
# that import is slow (here until the process has forked two children), holding the module's
# import lock. A worker forked meanwhile inherits the lock held by a thread it does not have,
# and its own import of the module waits for it forever.
_HOLD = """
import importlib.abc, importlib.machinery, json, os, sys, threading, time
from pathlib import Path

def children():
    found = []
    for task in Path("/proc/self/task").glob("*"):
        try:
            found += (task / "children").read_text().split()
        except FileNotFoundError:
            pass
    return found

done = threading.Event()
held = threading.Event()

class Slow(importlib.abc.MetaPathFinder):
    # Slow to run the module, in the caller's thread alone: its import lock is held meanwhile
    # (not the interpreter's global import lock, which a finder runs under).
    def find_spec(self, name, path, target=None):
        if name != MODULE or threading.current_thread() is not importer:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        loader = spec.loader

        class Held(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                held.set()
                while len(children()) < 2 and not done.is_set():
                    time.sleep(0.01)
                loader.exec_module(module)

        spec.loader = Held()
        return spec

sys.meta_path.insert(0, Slow())
importer = threading.Thread(target=lambda: __import__(MODULE), daemon=True)
importer.start()
held.wait()
"""

# Each entry that starts workers, given the repository's two commits; prints how the first
# workers start and the commits' fingerprints.
_INDEX = """
from indexer import api, worker_start
store = api.open_store(HOME)
how = worker_start.method()
print(json.dumps([how, *(api.index(REPO, rev, store=store, workers=2).fingerprint for rev in REVS)]))
"""
_BATCH = """
from indexer import worker_start
from indexer.fleet import batch
from indexer.store.database import Store
how = worker_start.method()
report = batch.run(Store.open(HOME), [batch.JobSpec(REPO, rev) for rev in REVS], workers=2)
print(json.dumps([how, *(job.fingerprint for job in report.jobs)]))
"""
# A process with no other thread throughout: numpy's OpenBLAS, which the first index imports,
# held to the calling thread, as the `rennet` script holds it.
_ALONE = """
from indexer.rank import hold_blas_pool
hold_blas_pool()
"""


def _repo(tmp_path: Path) -> tuple[str, list[str]]:
    def module(i: int, n: int, extra: str = "") -> str:
        return (f"from pkg import m{(i + 1) % n}\n\n\nclass C{i}:\n    def f(self, x):\n"
                f"        return m{(i + 1) % n}.C{(i + 1) % n}().f(x) + {i}\n{extra}")

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({f"pkg/m{i}.py": module(i, 72) for i in range(72)}, message="base")
    second = builder.commit({f"pkg/m{i}.py": module(i, 72, f"\n\ndef g{i}():\n    return {i}\n")
                             for i in range(0, 72, 2)}, message="more")
    return str(tmp_path / "repo"), [first, second]


def _run(script: str, **names: object) -> list[str]:
    head = "import json\n" + "".join(f"{name} = {value!r}\n" for name, value in names.items())
    done = subprocess.run([sys.executable, "-c", head + textwrap.dedent(script)], cwd=ROOT, env=cli_env(None),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("entry", "module"), [(_INDEX, "tree_sitter_python"), (_BATCH, "numpy")],
                         ids=["index", "batch"])
def test_workers_started_beside_a_thread_holding_an_import_lock_do_not_wait_for_it(tmp_path, entry, module):
    """`api.index`, and the local batch, in a process whose other thread holds the import lock
    of a module the workers import: the workers come from the forkserver (a process with no
    such thread), and the snapshots are those a process with no other thread makes, which
    forks them (was: the workers, forked beside that thread, waited for its lock forever, and
    the index or the batch with them; the run is bounded in time)."""
    repo, revs = _repo(tmp_path)
    threaded = _run(_HOLD + entry, MODULE=module, REPO=repo, REVS=revs, HOME=str(tmp_path / "threaded"))
    alone = _run(_ALONE + entry, REPO=repo, REVS=revs, HOME=str(tmp_path / "alone"))
    assert threaded[0] == "forkserver" and alone[0] == "fork", (threaded, alone)
    assert threaded[1:] == alone[1:] and len(set(alone[1:])) == 2 and None not in alone, (threaded, alone)


def test_a_script_indexing_at_its_top_level_beside_a_thread_runs_once(tmp_path):
    """A script with no `__main__` guard that indexes at its top level while a thread of its
    own runs: its workers come from the forkserver, and none runs the script again (was, as
    multiprocessing has each child it starts so run the host's main module: each worker ran
    the script, whose index there found the store locked by the host's, and the workers were
    lost, `worker_lost`)."""
    repo, revs = _repo(tmp_path)
    script = tmp_path / "caller.py"
    script.write_text(textwrap.dedent(f"""
        import json, threading
        from indexer import api, worker_start

        threading.Thread(target=threading.Event().wait, daemon=True).start()
        how = worker_start.method()
        print(json.dumps([how, api.index({repo!r}, {revs[0]!r}, store=api.open_store({str(tmp_path / "home")!r}),
                                         workers=2).fingerprint]))
    """))
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=cli_env(None), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    how, fingerprint = json.loads(done.stdout)  # one line: the script ran once
    alone = _run(_ALONE + _INDEX, REPO=repo, REVS=revs[:1], HOME=str(tmp_path / "alone"))
    assert [how, fingerprint] == ["forkserver", alone[1]], (how, fingerprint, alone)


def test_workers_from_the_forkserver_hold_the_limits_of_their_indexer(tmp_path):
    """A threaded program's batch assembles in workers from the forkserver, started with the
    environment of the program's first batch; `$RENNET_LIMITS` lowered after it holds in the
    next batch's workers as in the program (was: they read the forkserver's environment, and
    the commits past the lowered limit were indexed)."""
    repo, revs = _repo(tmp_path)
    out = _run("""
        import os, threading
        from indexer import worker_start
        from indexer.fleet import batch
        from indexer.store.database import Store

        threading.Thread(target=threading.Event().wait, daemon=True).start()
        seen = [worker_start.method()]
        for home, symbols in (("first", None), ("second", "64")):
            if symbols:
                os.environ["RENNET_LIMITS"] = f"symbols={symbols}"
            report = batch.run(Store.open(os.path.join(HOME, home)), [batch.JobSpec(REPO, rev) for rev in REVS],
                               workers=2)
            seen.append([job.error.code if job.error else job.status for job in report.jobs])
        print(json.dumps(seen))
    """, REPO=repo, REVS=revs, HOME=str(tmp_path))
    assert out == ["forkserver", ["indexed", "indexed"], ["too_large", "too_large"]], out


def test_workers_from_the_forkserver_compile_in_the_form_their_indexer_chose():
    """The form each language's tags query is compiled in, chosen for the run before the
    workers start (`grammars.compile_quickly`), is the workers' from the forkserver as a forked
    worker's: the cheapest to compile for a language with few blobs to parse. Unlike the
    forkserver of a host that chose it, this one compiles no query ahead
    (`worker_start.for_threads`): a worker starts with none, as a forked worker does."""
    out = _run("""
        import threading
        from indexer import worker_start
        from indexer.lang import grammars
        from indexer.pipeline.extract import fork_pool

        threading.Thread(target=threading.Event().wait, daemon=True).start()
        grammars.compile_quickly(["python"])
        from tests.test_threaded_host import compiled_queries

        with fork_pool(2, None, None) as pool:
            compiled = pool.apply(compiled_queries)
            print(json.dumps([worker_start.method(), pool.map(grammars.form, ["python", "go"]), compiled]))
    """)
    assert out == ["forkserver", [COMPILING_FORM, MATCHING_FORM], 0], out


def compiled_queries() -> int:
    """In a worker: how many tags queries its process holds compiled."""
    from indexer.lang import grammars

    return grammars._tags.cache_info().currsize


def test_a_process_alone_again_once_a_pool_ended_forks_its_next_workers():
    """Once a pool has ended, its threads have left the kernel's count too, so the next pool
    of a process with no other thread (a batch's started afresh, the next index) forks its
    workers (was: the pool's joined threads were still counted a moment longer, about one end
    in six, and the next workers came from a forkserver started for nothing)."""
    out = _run("""
        from indexer import worker_start
        from indexer.pipeline.extract import fork_pool

        seen = []
        for _ in range(40):
            with fork_pool(2, None, None) as pool:
                pool.map(abs, [1, 2])
            seen.append(worker_start.method())
        print(json.dumps(sorted(set(seen))))
    """)
    assert out == ["fork"], out
