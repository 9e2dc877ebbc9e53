"""The forkserver's preload (indexer/forkserver_first.py `preload`): a module of ours whose
import fails there by anything but an ImportError (a MemoryError under the host's `ulimit
-v`) is left to the workers, and the forkserver serves on; a forkserver that ended before it
started the workers is the typed `worker_lost`. Each host runs in an interpreter of its own,
its forkserver refused by a `sitecustomize` of the test's, which runs at that interpreter's
start and nowhere else (the workers are forked from it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from corpora.synthetic import generate
from indexer import api
from indexer.contract.errors import NotIndexed
from indexer.store.database import Store
from tests.test_context_world import ROOT, cli_env

# Runs at the start of every interpreter with the test's folder on its path; acts only in the
# forkserver's, told by its command line.
_SITE = """
import os, sys

_FORKSERVER = os.getpid()
with open("/proc/self/cmdline", "rb") as cmdline:
    _in_forkserver = b"multiprocessing.forkserver" in cmdline.read()
if _in_forkserver and os.environ.get("REFUSE") == "exit":
    os._exit(3)  # as a forkserver killed before it serves


class _Refusing:
    # Refuses the indexer's heavy modules in the forkserver itself, as a MemoryError would
    # refuse them under a limit; a worker forked from it (another pid) imports them.
    def find_spec(self, name, path=None, target=None):
        if os.getpid() == _FORKSERVER and name in ("indexer.build", "indexer.extract.prepared",
                                                  "indexer.extract.blob"):
            raise MemoryError(f"refused {name} in the forkserver")
        return None


if _in_forkserver and os.environ.get("REFUSE") == "memory":
    sys.meta_path.insert(0, _Refusing())
"""

# The host: workers from a forkserver, chosen at start (`from_forkserver`) or taken because
# another thread runs (`for_threads`); prints the index's fingerprint, or its error's code.
_HOST = """
import json, sys, threading, time
from indexer import worker_start, api
from indexer.contract.errors import RennetError
from indexer.store.database import Store

repo, home, how = sys.argv[1:4]
if how == "chosen":
    worker_start.from_forkserver([])
else:
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
with Store.open(home) as store:
    try:
        report = api.index(repo, store=store, workers=2)
    except RennetError as exc:
        print(json.dumps({"code": exc.code, "message": str(exc)}))
    else:
        print(json.dumps({"fingerprint": report.fingerprint, "parsed": report.parsed_blobs}))
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return generate(tmp_path_factory.mktemp("preload") / "repo", files=60, seed=5).path


def _host(corpus: Path, home: Path, how: str, refuse: str, site: Path) -> tuple[dict, str]:
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(_SITE)
    env = cli_env(None, REFUSE=refuse)
    env["PYTHONPATH"] = os.pathsep.join((str(site), env["PYTHONPATH"]))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_HOST), str(corpus), str(home), how], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("how", ["chosen", "threads"])
def test_a_preload_refused_by_other_than_an_import_error_leaves_the_forkserver_serving(corpus, tmp_path, how):
    """Both preloads (a host's that chose the forkserver, and one taken beside other threads)
    with the indexer's modules refused in the forkserver by a MemoryError: the index is made
    by its workers, which import them, and is the index a host with nothing refused makes;
    nothing reaches stderr (was: the forkserver ended with the MemoryError's traceback, and
    the index with a bare EOFError)."""
    refused, said = _host(corpus, tmp_path / "refused", how, "memory", tmp_path / "site")
    plain, _ = _host(corpus, tmp_path / "plain", how, "", tmp_path / "site")
    assert said == ""
    assert refused == plain and refused["parsed"] > 0, (refused, plain)


def test_a_forkserver_ended_before_it_started_the_workers_is_worker_lost(corpus, tmp_path):
    """A forkserver that ends before it serves (killed, or by the OOM killer): the index is the
    typed `worker_lost`, telling that nothing stored was lost and to retry (was: a bare
    EOFError, `internal_error`), and the store holds no snapshot of it."""
    home = tmp_path / "home"
    said, _ = _host(corpus, home, "chosen", "exit", tmp_path / "site")
    assert said == {"code": "worker_lost", "message": "worker_lost: the forkserver the workers start from ended "
                    "before it started them; nothing stored was lost: retry"}, said
    with Store.open(home) as store, pytest.raises(NotIndexed):
        api.snapshot(str(corpus), store=store, index_if_absent=False)
