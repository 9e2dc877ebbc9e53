"""Environment faults named truly: a full disk is `store_full` and loses nothing, a read-only
file system still answers reads, and reader slots of killed readers never lock others out.
The faults are real (a small tmpfs filled up, a remount read-only, processes killed with
SIGKILL), driven through the real CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from tests.indexed import fingerprint_indexed
from tests.test_interrupt import ended_within

ROOT = Path(__file__).resolve().parent.parent


def rennet(home: Path, *args: str, limit: tuple[int, int] | None = None) -> tuple[int, dict, str]:
    """Run a command on the store at `home`; with `limit` (a resource, a value) under that
    resource limit, as `ulimit` sets it."""
    import resource

    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *args, "--store", str(home), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          # no bytecode written: under a file-size limit, a module compiled first left a cut .pyc
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
                          preexec_fn=None if limit is None else lambda: resource.setrlimit(limit[0], (limit[1],) * 2))
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def answers(home: Path, repo: Path, rev: str) -> str:
    """What the store at `home` holds of `rev`, read in this process without indexing: its
    fingerprint, once `first` (the first commit's function) is found defined in it."""
    from indexer import api
    from indexer.store.database import Store

    with Store.open(home) as store:
        snap = api.snapshot(str(repo), rev, store=store, index_if_absent=False)
        assert snap.definitions("first"), f"`first` not defined in {rev}"
        return snap.fingerprint


def mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"the OS refused `mount {' '.join(args)}`: {done.stderr.strip()}")


@pytest.fixture
def device(tmp_path):
    """A 4 MB tmpfs of our own, unmounted after the test."""
    point = tmp_path / "device"
    point.mkdir()
    mount("-t", "tmpfs", "-o", "size=4m", "tmpfs", str(point))
    yield point
    subprocess.run(["umount", "-l", str(point)], capture_output=True)


@pytest.fixture(scope="module")
def two_revs(tmp_path_factory):
    """A repository of two commits; the tests read it and never change it."""
    builder = RepoBuilder(tmp_path_factory.mktemp("two-revs") / "repo")
    builder.commit({"a.py": "def first():\n    return 1\n"}, "one")
    builder.commit({f"m{i}.py": "".join(f"def f{i}_{j}(x):\n    return x + {j}\n" for j in range(40))
                    for i in range(12)}, "two")
    return builder.path


@pytest.fixture(scope="module")
def clean_main(two_revs, tmp_path_factory) -> str:
    """The fingerprint of `main` indexed into a fresh store, with no limit: what an index
    after a fault must give."""
    return fingerprint_indexed(tmp_path_factory.mktemp("clean") / "home", two_revs, "main")


@pytest.fixture(scope="module")
def first_stored(two_revs, tmp_path_factory) -> tuple[Path, str]:
    """A store holding `main~1` alone, to be copied by each test that faults it; its fingerprint."""
    home = tmp_path_factory.mktemp("first-stored") / "home"
    return home, fingerprint_indexed(home, two_revs, "main~1")


def _copy_of(first_stored: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    import shutil

    home = tmp_path / "home"
    shutil.copytree(first_stored[0], home)
    return home, first_stored[1]


def fill(point: Path) -> Path:
    filler = point / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    try:
        with open(filler, "ab") as fh:  # the last few blocks
            while fh.write(b"\0" * 512):
                fh.flush()
    except OSError:
        pass
    return filler


def test_a_full_disk_is_store_full_and_loses_nothing(device, two_revs, clean_main):
    home = device / "home"
    first = fingerprint_indexed(home, two_revs, "main~1")
    filler = fill(device)
    assert os.statvfs(device).f_bavail == 0
    code, reply, _ = rennet(home, "index", str(two_revs), "--rev", "main")
    assert code == 1 and reply["error"]["code"] == "store_full", reply
    assert "free space and retry" in reply["error"]["message"] and "nothing stored was lost" in reply["error"]["message"]
    # what was stored before still answers, on the full disk
    code, answer, said = rennet(home, "context", "symbol", "first", "--repo", str(two_revs), "--rev", "main~1")
    assert code == 0 and answer["freshness"]["fingerprint"] == first
    assert said.strip() == "" or "receipt not recorded: store_full: " in said
    filler.unlink()
    assert fingerprint_indexed(home, two_revs, "main") == clean_main


def test_a_store_under_an_address_space_limit_indexes_and_answers(two_revs, clean_main, tmp_path):
    """Under `ulimit -v` (here 2 GiB, room enough for the interpreter and its libraries) the
    store maps what the limit allows: the index and a read work, with the snapshot an
    unlimited run makes (was: `store_corrupt` at every open, advising to move a sound store
    aside: LMDB could not reserve its 256 GiB map)."""
    import resource

    two_gib = (resource.RLIMIT_AS, 2 << 30)
    code, limited, said = rennet(tmp_path / "limited", "index", str(two_revs), "--rev", "main", limit=two_gib)
    assert code == 0 and limited["data"]["fingerprint"] == clean_main, said
    code, answer, said = rennet(tmp_path / "limited", "context", "symbol", "first", "--repo", str(two_revs),
                                "--rev", "main", limit=two_gib)
    assert code == 0 and answer["data"]["definitions"], said


@pytest.mark.parametrize("mib", [200, 250])
def test_a_limit_too_small_for_the_imports_is_out_of_memory_and_loses_nothing(mib, two_revs, clean_main,
                                                                              first_stored, tmp_path):
    """Under a `ulimit -v` too small for numpy's import (a store maps half the limit; the
    rest is the interpreter's, its threads' and its libraries'), the index is `out_of_memory`
    on one line naming the limit; what was stored still answers, and the index succeeds once
    the limit is gone (was: `internal_error: ImportError`, numpy's C extensions not loaded;
    at other limits OpenBLAS's own `Memory allocation still failed` line and exit 1, or
    `internal_error: RuntimeError: can't start new thread`)."""
    import resource

    home, first = _copy_of(first_stored, tmp_path)
    code, reply, said = rennet(home, "index", str(two_revs), "--rev", "main", limit=(resource.RLIMIT_AS, mib << 20))
    assert code == 1 and reply["error"]["code"] == "out_of_memory", reply
    assert f"(`ulimit -v` is {mib} MiB)" in reply["error"]["message"] and "nothing stored was lost" in said
    assert said.startswith("rennet: out_of_memory: ") and said.count("\n") == 1, said
    assert answers(home, two_revs, "main~1") == first
    assert fingerprint_indexed(home, two_revs, "main") == clean_main


def test_an_mcp_server_under_a_limit_too_small_to_read_a_message_says_so_on_one_line(tmp_path):
    """The MCP faces scan each message with numpy before parsing it. Under a `ulimit -v` the
    server starts in but numpy does not fit, the first message ended it with OpenBLAS's own
    `Memory allocation still failed` line. Now it is `out_of_memory`, on one line naming the
    limit and what did not fit. The session's `initialize` may have been answered already, before
    the server loaded (`mcp_start`): its one answer is the only line written to stdout."""
    import resource

    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    done = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "mcp", "--root", str(tmp_path),
                           "--store", str(tmp_path / "home")], input=init + "\n", cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (120 << 20,) * 2))
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] in ([], [0]), done.stdout
    assert done.stderr.startswith("rennet: out_of_memory: this process's address-space limit (`ulimit -v` is 120 MiB)")
    assert "to read the client's messages" in done.stderr and done.stderr.count("\n") == 1, done.stderr


@pytest.fixture(scope="module")
def many_files(tmp_path_factory) -> Path:
    """Two commits of 2,000 files: a batch of them parses in its worker pool."""
    from corpora.synthetic import generate

    repo = tmp_path_factory.mktemp("many") / "syn.git"
    generate(repo, files=2000, seed=0)
    return repo


@pytest.mark.parametrize("mib", [200, 300])
def test_a_batch_under_a_limit_too_small_ends_typed_and_never_hangs(mib, many_files, tmp_path):
    """`rennet batch` whose pool runs short under `ulimit -v`: it ends within a minute, each line
    on stderr typed, `out_of_memory` naming the limit, no traceback, no process left (was: it
    hung for good: at 300 MiB OpenBLAS ended each pool worker mid-task, whose task the pool
    then awaited without end; at 200 MiB the pool's thread receiving results died of a
    MemoryError, its traceback on the terminal, and its terminate then waited on a lock the
    blocked workers held)."""
    import resource

    limit = mib << 20
    p = subprocess.Popen([sys.executable, "-m", "context_tools.faces.cli", "batch", f"{many_files}@HEAD~1",
                          f"{many_files}@HEAD", "--store", str(tmp_path / "store"), "--quiet"], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    _, err = ended_within(p, 60, "the batch hung under the limit")
    lines = err.splitlines()
    assert p.returncode == 1 and lines and f"out_of_memory: this process's address-space limit (`ulimit -v` is " \
        f"{mib} MiB)" in err, err
    assert all(line.startswith(("rennet: ", "failed ")) for line in lines), err
    deadline = time.monotonic() + 10  # a worker's parent-death signal is asynchronous
    while time.monotonic() < deadline:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("a process of the batch was left")
    code, info, _ = rennet(tmp_path / "store", "store", "info")
    assert code == 0 and info["ok"]


def test_only_a_failure_of_memory_under_a_set_limit_is_out_of_memory(monkeypatch):
    """What `memory_fault` calls out_of_memory: a MemoryError, an OSError ENOMEM, a library the
    loader could not map (through the ImportError numpy raises from it), a thread with no room
    for its stack, a task group's failures all of memory (was: `internal_error: ExceptionGroup`,
    the stdio MCP server's read of a line finding no room for its thread), OpenSSL's `malloc
    failure` through libgit2 (was: `internal_error: GitError`, the MCP server's first index
    under 320 and 344 MiB, libgit2 loading certificates), pyo3's panic at an object the
    interpreter did not make (pydantic-core's, encoding an answer under a limit: was the stdio
    server ended by a traceback); a module missing, another panic, a
    thread refused with room to spare, a group holding any other failure, or any failure
    without a limit stays as it was. The limit set here leaves a GiB above what this process
    maps (an in-process store maps 256 GiB). OpenSSL's shortage typed here is this process's
    own for the test's length: it types OpenSSL's later failures too (the next test)."""
    import errno
    import resource

    import pygit2

    from indexer.contract import memory_limit
    from indexer.contract.memory_limit import memory_fault, room_for

    monkeypatch.setattr(memory_limit, "_openssl_ran_short", False)

    def raised_from(cause: BaseException) -> ImportError:
        try:
            try:
                raise cause
            except BaseException as inner:
                raise ImportError("Importing the numpy C-extensions failed.") from inner
        except ImportError as outer:
            return outer

    unmapped = ImportError("libscipy_openblas64_.so: failed to map segment from shared object")
    panic = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})  # as pyo3 makes it
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    assert memory_fault(MemoryError()) is None or soft != resource.RLIM_INFINITY
    mapped = int(Path("/proc/self/status").read_text().split("VmSize:")[1].split()[0]) << 10
    limit = (mapped >> 20) + 1024 << 20  # whole MiB, as the message names it
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        for exc in (MemoryError(), OSError(errno.ENOMEM, "Cannot allocate memory"), unmapped, raised_from(unmapped),
                    SystemError("error return without exception set"),
                    pygit2.GitError("OpenSSL error: failed to load certificates: error:078C0100:common libcrypto "
                                    "routines::malloc failure"),
                    ExceptionGroup("unhandled errors in a TaskGroup", [MemoryError(), ExceptionGroup("", [unmapped])]),
                    panic("PyObject pointer is null")):
            typed = memory_fault(exc, "the test")
            assert typed is not None and typed.code == "out_of_memory", exc
            assert f"(`ulimit -v` is {limit >> 20} MiB) is too small for the test" in typed.message
        for exc in (ImportError("No module named 'numpy'"), raised_from(ModuleNotFoundError("No module named 'x'")),
                    RuntimeError("can't start new thread"), OSError(errno.EACCES, "Permission denied"),
                    SystemError("another bug"),
                    ValueError("a bug"), ExceptionGroup("unhandled errors in a TaskGroup", [MemoryError(), ValueError()]),
                    panic("called `Option::unwrap()` on a `None` value")):
            assert memory_fault(exc) is None, exc
        with pytest.raises(Exception) as caught:
            room_for(limit, "a map as large as the limit")
        assert getattr(caught.value, "code", None) == "out_of_memory"
        room_for(1 << 20, "one MiB")
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert memory_fault(MemoryError()) is None


_OPENSSL_LEFT_ERRORS = """
import ctypes, resource, sys

import pygit2

from indexer.contract.memory_limit import mapped_bytes, memory_fault

resource.setrlimit(resource.RLIMIT_AS, ((mapped_bytes() >> 20) + 1024 << 20, resource.RLIM_INFINITY))
crypto = ctypes.CDLL(sys.modules["pygit2._libgit2"].__file__)  # the OpenSSL libgit2 links


def failed(what):
    try:
        pygit2.settings.set_ssl_cert_locations("/nonexistent/certificates.pem", None)
    except pygit2.GitError as exc:
        fault = memory_fault(exc, what)
        print(exc, "|", fault.code if fault else None)


nested = pygit2.GitError("OpenSSL error: failed to load certificates: error:0688010A:asn1 encoding routines::nested "
                         "asn1 error")
print(memory_fault(nested))  # before OpenSSL ran short in this process: not memory
# What a load of certificates refused memory leaves in OpenSSL's queue, oldest first
for code in (0x078C0100, 0x0688010A, 0x05880009):  # malloc failure, nested asn1 error, PEM lib
    crypto.ERR_new()
    crypto.ERR_set_error(code >> 23, code & 0x7FFFFF, None)
failed("the first")  # reported with the oldest, typed, and the rest let go
failed("the second")  # a failure of its own, in its own words
print(getattr(memory_fault(nested, "the third"), "message", None))  # as a thread not emptied says: the shortage named
"""


def test_openssls_errors_left_by_a_shortage_are_not_the_words_of_the_next_failure():
    """libgit2 reports a failure of OpenSSL with the oldest error OpenSSL queued, and takes only
    that one: a load of certificates refused memory left the rest of its errors queued
    (`nested asn1 error`, `PEM lib`), and the next failure on the thread was reported in their
    words, `internal_error`. Once `memory_fault` has typed OpenSSL's `malloc failure`, the
    thread's queue is empty: the next failure (certificates from a file that is not there)
    says its own cause. A failure of libgit2's OpenSSL that still says what a shortage left
    (on a thread whose queue was not emptied) is `out_of_memory` naming that shortage; before
    one, it stays as it was. The errors left are put in OpenSSL's queue as a real shortage
    leaves them (seen with `ERR_get_error` after one)."""
    done = subprocess.run([sys.executable, "-c", _OPENSSL_LEFT_ERRORS], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    before, first, second, third = done.stdout.splitlines()
    assert before == "None"
    assert first == ("OpenSSL error: failed to load certificates: error:078C0100:common libcrypto routines::malloc "
                     "failure | out_of_memory"), first
    assert second == ("OpenSSL error: failed to load certificates: error:80000002:system library::No such file or "
                      "directory | None"), second
    assert third.endswith("is too small for the third (GitError: OpenSSL error: failed to load certificates: "
                          "error:0688010A:asn1 encoding routines::nested asn1 error; OpenSSL ran short of memory "
                          "earlier in this process); nothing stored was lost: raise the limit and retry"), third


_SHORT_IN_A_GIT_READ = """
import importlib, json, resource, sys

import context_tools.faces.cli as cli
from indexer.contract.memory_limit import mapped_bytes, memory_fault

repository = sys.argv[1]


def read(path):  # a call's read of git, importing pygit2 as it comes to it, as a call's modules do
    try:
        pygit2 = importlib.import_module("pygit2")
        len(pygit2.Repository(repository).revparse_single("HEAD:" + path).data)
        return "ok"
    except Exception as exc:
        fault = memory_fault(exc, "the read")
        return fault.code if fault is not None else f"internal_error: {type(exc).__name__}: {exc}"


def command():
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    start = mapped_bytes()
    seen = []
    for spare in range(0, 64 << 20, 64 << 10):
        resource.setrlimit(resource.RLIMIT_AS, (start + spare, hard))  # a call holding all room but `spare`
        large = read("large.txt")
        resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (512 << 10), hard))  # that call gone
        seen.append((spare >> 10, large, read("small.py")))
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        if large == "ok":
            break
    print(json.dumps(seen))
    return 0


cli.main = command
cli.run()
"""


def test_a_process_that_ran_short_in_a_git_read_reads_git_once_a_read_has_room(tmp_path):
    """A process of ours under `ulimit -v` (`cli.run` starts it) whose read of a 4 MiB blob runs
    short, its limit set to what it mapped as its command began and 64 KiB more each try,
    until the read fits: after each try, with room for a small read (512 KiB), a read of a
    small file succeeds, and each read is answered or `out_of_memory`, never `internal_error`.
    Was: pygit2 was imported by the first call that read git, and its import has libgit2 load
    the system's CA certificates through OpenSSL: each read that ran short left it unimported,
    the next read imported it again and needed its libraries' room, and where the load of
    certificates was refused, the next failure was reported in the words OpenSSL left queued
    (`internal_error: GitError: OpenSSL error: failed to load certificates: ... PEM lib`, or
    `nested asn1 error` in the MCP server's reads under 320 to 368 MiB). The room is set from
    what the process maps, not fixed."""
    import resource

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"small.py": "def first():\n    return 1\n", "large.txt": "x" * (4 << 20)}, "one")
    done = subprocess.run([sys.executable, "-c", _SHORT_IN_A_GIT_READ, str(builder.path)], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30,) * 2))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    seen = json.loads(done.stdout)
    assert seen[0][1] == "out_of_memory" and seen[-1][1] == "ok", seen  # it ran short, then fit
    assert not [step for step in seen if "internal_error" in step[1] + step[2]], seen
    assert [later for _, _, later in seen] == ["ok"] * len(seen), seen


_THREAD_REFUSED_THEN_ROOM = """
import resource
from indexer.contract.memory_limit import mapped_bytes, memory_fault, room_for_thread

soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (4 << 20), hard))
try:
    room_for_thread()
    refused = None
except RuntimeError as exc:
    refused = exc
resource.setrlimit(resource.RLIMIT_AS, ((mapped_bytes() >> 20) + 1024 << 20, hard))  # room again, a limit still set
print(refused, getattr(memory_fault(refused), "code", None) if refused else None)
"""


def test_a_thread_refused_for_want_of_room_is_out_of_memory_once_the_room_is_back():
    """A thread `memory_limit` refused (4 MiB of room, short of a stack) is `out_of_memory` when
    typed after the work that was short let its memory go (was: `internal_error: RuntimeError:
    can't start new thread`, the room asked for again as it was typed and found: `rennet index
    --workers 2` of 1,000 files under `ulimit -v` 372 and 376 MiB, the snapshot's tail refused
    its thread)."""
    done = subprocess.run([sys.executable, "-c", _THREAD_REFUSED_THEN_ROOM], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "can't start new thread out_of_memory\n")


_THREADS_ALLOCATING = """
import os, sys, threading
from indexer.contract.memory_limit import mapped_bytes, one_malloc_arena


def grown_by_threads():
    held, together = [], threading.Barrier(5)

    def allocate():
        held.append(bytearray(4096))  # past pymalloc's sizes: glibc's malloc, on this thread's arena
        together.wait()  # all alive at once, so that none takes over the arena of one that ended
        together.wait()

    threads = [threading.Thread(target=allocate) for _ in range(4)]
    before = mapped_bytes()
    for thread in threads:
        thread.start()
    together.wait()
    grown = mapped_bytes() - before
    together.wait()
    for thread in threads:
        thread.join()
    os.write(1, b"%d\\n" % (grown >> 20))  # fd 1 itself: the writer's process points sys.stdout elsewhere


if sys.argv[1] == "one":
    one_malloc_arena()
    grown_by_threads()
elif sys.argv[1] == "forked":  # as a pool's workers are forked from the CLI, after its start
    one_malloc_arena()
    if (child := os.fork()) == 0:
        grown_by_threads()
        os._exit(0)
    os.waitpid(child, 0)
elif sys.argv[1] == "cli":  # the command's own work begins once `run` has set its process up
    from context_tools.faces import cli

    def command():
        grown_by_threads()
        return 0

    cli.main = command
    cli.run()
elif sys.argv[1] == "writer":  # the facts writer's process, as its work begins: the store's open
    from indexer.store import facts_writer

    class Opening:
        @staticmethod
        def open(home):
            grown_by_threads()
            os._exit(0)

    facts_writer.Store = Opening
    facts_writer.serve(sys.argv[2])
elif sys.argv[1] == "forkserver":  # its preload's first module, imported first as it starts
    import indexer.forkserver_first

    grown_by_threads()
elif sys.argv[1] == "reader":  # a reader's process, as its work begins: the registry's load
    from context_tools.faces import readers, registry

    def loading():
        grown_by_threads()
        os._exit(0)

    registry.registry = loading
    readers.serve_reads(None, None)
else:
    grown_by_threads()
"""


def _grown_by_threads(how: str, *args: str) -> int:
    """What four threads that allocate add to the mapped address space (MiB) of a process
    under a 4 GiB `ulimit -v`, its malloc set up `how`."""
    import resource

    done = subprocess.run([sys.executable, "-c", _THREADS_ALLOCATING, how, *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30,) * 2))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return int(done.stdout)


_STACKS = 4 * 8  # four 8 MiB stacks


def test_under_a_limit_threads_allocate_from_one_malloc_arena():
    """Under a `ulimit -v`, `one_malloc_arena` has glibc's malloc serve every thread from one
    arena, in the process and in one forked from it later (a pool's worker): four threads that
    allocate then map little more than their stacks, where each had an arena of its own, 64 MiB
    of address space the limit counts (was: `rennet index --workers 2` of 1,000 files
    `out_of_memory` under every limit from 336 to 736 MiB; with one arena 376 MiB and every
    limit above it pass)."""
    grown = {how: _grown_by_threads(how) for how in ("default", "one", "forked")}
    assert grown["default"] >= _STACKS + 3 * 64, grown  # what the test tells apart: glibc's own arenas
    assert grown["one"] <= _STACKS + 16, grown
    assert grown["forked"] <= _STACKS + 16, grown


@pytest.mark.parametrize("process", ["cli", "writer", "reader", "forkserver"])
def test_our_processes_set_one_malloc_arena_before_their_work_runs(process, tmp_path):
    """Each process of ours sets one malloc arena under a `ulimit -v` before its work starts
    threads: `cli.run` (every `rennet` command, `rennet mcp` too), the facts writer's process
    (`facts_writer.serve`), an MCP reader's (`readers.serve_reads`), the forkserver
    (`forkserver_first`, whose workers fork from it). Four threads started where each one's
    work begins map little more than their stacks."""
    grown = _grown_by_threads(process, str(tmp_path / "home"))
    assert grown <= _STACKS + 16, grown


_GIT_AT_START = """
import os, sys

if sys.argv[1] == "cli":  # the command's own work begins once `run` has set its process up
    from context_tools.faces import cli

    def command():
        print("pygit2" in sys.modules)
        return 0

    cli.main = command
    cli.run()
else:  # a reader's process, as its work begins: the registry's load
    from context_tools.faces import readers, registry

    def loading():
        print("pygit2" in sys.modules, flush=True)
        os._exit(0)

    registry.registry = loading
    readers.serve_reads(None, None)
"""


@pytest.mark.parametrize("process", ["cli", "reader"])
@pytest.mark.parametrize("limited", [True, False])
def test_our_processes_that_read_git_load_it_as_they_start_under_a_limit(process, limited):
    """Under a `ulimit -v`, `cli.run` (every `rennet` command, `rennet mcp` too) and an MCP
    reader's process (`readers.serve_reads`) import pygit2 before their work begins, while
    they have the most room: its import loads the system's CA certificates through OpenSSL,
    which, left to a call, ran in what that call left (the test of a process that ran short
    in a git read, above). Without a limit they leave it to the work that reads git."""
    import resource

    done = subprocess.run([sys.executable, "-c", _GIT_AT_START, process], cwd=ROOT, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60,
                          preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30,) * 2)) if limited
                          else None)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", f"{limited}\n")


def test_the_faces_hold_what_types_a_fault_of_memory_from_their_start():
    """The CLI and the dispatcher load `memory_limit` (and the mmap module it probes with) as
    they start: loaded when a MemoryError is being typed, under a limit that left no room,
    its own load failed and the MemoryError reached the terminal bare (was: `MemoryError`
    alone on stderr, `rennet context overview` under `ulimit -v` 100 MiB)."""
    code = ("import sys, context_tools.faces.cli, context_tools.faces.dispatch; "
            "print(all(m in sys.modules for m in ('indexer.contract.memory_limit', 'mmap', 'resource')))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "True"


_TYPED_WITHOUT_ROOM = """
import resource, sys
import context_tools.faces.cli as cli
from indexer.contract.memory_limit import mapped_bytes


class NoRoom:  # what the import of a module meets with no room left: a MemoryError lost in C code
    def find_spec(self, name, path=None, target=None):
        if name == "context_tools.faces.sanitize":
            raise SystemError("error return without exception set")


def short(argv):
    raise MemoryError


sys.modules.pop("context_tools.faces.sanitize", None)
sys.meta_path.insert(0, NoRoom())
cli._main = short
resource.setrlimit(resource.RLIMIT_AS, ((mapped_bytes() >> 20) + 1024 << 20, resource.RLIM_INFINITY))
print(cli.main(["context", "overview"]))
"""


def test_a_command_short_of_memory_whose_typing_is_short_too_says_one_line():
    """A command ended by a MemoryError, whose typing then finds no room to load what it reads
    (the import a SystemError, `error return without exception set`): the one `out_of_memory`
    line, exit 1 (was: three tracebacks, at `rennet index` under `ulimit -v` 102 MiB)."""
    done = subprocess.run([sys.executable, "-c", _TYPED_WITHOUT_ROOM], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "1\n"), done.stderr
    assert done.stderr.startswith("rennet: out_of_memory: this process's address-space limit (`ulimit -v` is ")
    assert "is too small for this command (MemoryError)" in done.stderr and done.stderr.count("\n") == 1


_NO_ROOM_TO_TYPE = """
import resource, sys
import context_tools.faces.cli as cli
from indexer.contract.memory_limit import mapped_bytes


def short(*args, **kwargs):
    raise MemoryError


cli._main = short
cli.memory_fault = short  # typing the failure runs short too
sys.argv = ["rennet", "context", "overview"]
resource.setrlimit(resource.RLIMIT_AS, ((mapped_bytes() >> 20) + 1024 << 20, resource.RLIM_INFINITY))
cli.run()
"""


def test_a_command_too_short_of_memory_to_type_its_failure_says_the_line_made_at_its_start():
    """A command ended by a MemoryError whose typing meets one too (the memory the command held
    not yet let go): the `out_of_memory` line the CLI encoded as it started, exit 1 (was: a
    traceback of the MemoryError raised in `memory_fault`, then the threading module's
    `Exception ignored` lines: `rennet index --workers 2` of 3,000 files, a 1% change, under
    `ulimit -v` 356 MiB)."""
    done = subprocess.run([sys.executable, "-c", _NO_ROOM_TO_TYPE], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("rennet: out_of_memory: this process's address-space limit (`ulimit -v` is ")
    assert done.stderr.endswith(" MiB) is too small for this command; nothing stored was lost: raise the limit and "
                                "retry\n") and done.stderr.count("\n") == 1, done.stderr


_ENCODE_WITHOUT_ROOM = """
import resource

import msgspec

from context_tools.faces.dispatch import encode_wire
from indexer.contract.memory_limit import mapped_bytes
from indexer.model import Symbol
from indexer.store.records import encode
from indexer.store.symbol_lines import symbols_json

line = "x" * 1024
value = [line] * (96 << 10)  # 96 MiB encoded, from a list of under 1 MiB
symbols = [Symbol(line, "function", "", 1, 1, 0, 1, "")] * (64 << 10)
cases = {"stored": (encode, value, msgspec.msgpack.encode),
         "reply": (lambda v: encode_wire({"v": v}), value, lambda v: msgspec.json.encode({"v": v})),
         "symbols": (symbols_json, symbols, lambda v: symbols_json(v))}
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
for name, (made, of, reference) in cases.items():
    mapped = mapped_bytes()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + (32 << 20), hard))
    try:
        made(of)
        said = "made"
    except MemoryError:
        said = "MemoryError"
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    print(name, said, made(of) == reference(of))
"""


def test_an_encoding_that_outgrows_the_room_left_is_a_memory_error_not_a_crash():
    """A stored record, a reply and a blob's symbol lines, each encoding to tens of MiB, made
    with 32 MiB of room left under the `ulimit -v`: each a MemoryError (`out_of_memory` to the
    faces), and made whole once the room is back (was: msgspec's own encode, its buffer failing
    to grow, freed it twice: a segmentation fault, `rennet mcp --http` vanishing mid-index on
    a 3,000-file repository under 800 MiB as it packed the snapshot's tail)."""
    done = subprocess.run([sys.executable, "-c", _ENCODE_WITHOUT_ROOM], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.splitlines() == ["stored MemoryError True", "reply MemoryError True", "symbols MemoryError True"]


_DECODE_WITHOUT_ROOM = """
import resource
from indexer.contract.errors import RennetError
from indexer.contract.memory_limit import mapped_bytes
from indexer.model import Symbol, decode_symbols
from indexer.store.symbol_lines import symbols_json

line = symbols_json([Symbol("name\\n" * 64, "function", "", 1, 1, 0, 1, "def name(a='\\t'):\\n" * 64)])
lines = line * 20000  # 30 MiB of a blob's symbol lines, strings full of escapes
decode_symbols(line)
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (8 << 20), hard))
try:
    decode_symbols(lines)
    said = "made"
except RennetError as exc:
    said = exc.code
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
print(said, len(decode_symbols(lines)))
"""


def test_stored_json_decoded_short_of_room_is_out_of_memory_not_a_crash():
    """A blob's stored symbol lines (30 MiB, their strings full of escapes) decoded with 8 MiB
    of room left under the `ulimit -v`: `out_of_memory`, and decoded whole once the room is
    back (was: a segmentation fault in msgspec's JSON decoder, every time; `rennet context
    references` on a 3,000-file repository under 116 MiB)."""
    done = subprocess.run([sys.executable, "-c", _DECODE_WITHOUT_ROOM], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "out_of_memory 20000\n"), done.stderr


def test_nothing_encodes_with_the_msgspec_encoders_that_crash_short_of_memory():
    """Every encoding in Rennet goes through `indexer.contract.encode`, whose encoders raise a
    MemoryError when their buffer cannot grow: msgspec's bytes-returning `encode`,
    `Encoder.encode` and `encode_lines` end the process instead."""
    import re

    crashing = re.compile(r"msgspec\.(msgpack|json)\.(encode|Encoder)\b|\.encode_lines\(|"
                          r"from msgspec(\.msgpack|\.json)? import .*\b(encode|Encoder|msgpack|json)\b")
    kept = ROOT / "indexer" / "contract" / "encode.py"
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for package in ("indexer", "delta", "context_tools") for path in sorted((ROOT / package).rglob("*.py"))
             if path != kept for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if crashing.search(line)]
    assert found == []


_TREE_SITTER_WITHOUT_ROOM = """
import resource
from indexer.contract.errors import RennetError
from indexer.contract.memory_limit import mapped_bytes
from indexer.extract.blob import prepare
from indexer.lang import grammars

source = b"".join(b"def f%d(a, b):\\n    return g(a[1], b.c, [x for x in y]) + %d\\n" % (i, i) for i in range(16000))
grammars.parse("python", b"x = 1\\n")  # the parser made, its grammar loaded
grammars.language("cpp")
cases = {"parse": lambda: grammars.parse("python", source) is not None,
         "compile": lambda: grammars.tags_query("cpp").pattern_count > 0,
         "prepare": lambda: prepare(["rust"]) is None}
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
for name, made in cases.items():
    resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (4 << 20), hard))
    try:
        made()
        said = "made"
    except RennetError as exc:
        said = exc.code
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    print(name, said, made())
"""


def test_tree_sitter_with_too_little_room_is_out_of_memory_not_a_crash():
    """A parse (of a 1 MiB file) and a tags query's compile (C++'s), each with 4 MiB of room left
    under the `ulimit -v`: each `out_of_memory`, and made once the room is back (was: a
    segmentation fault, every time: tree-sitter uses unchecked what py-tree-sitter's allocator
    returns, NULL when the limit refuses the room; `rennet index` died so from 108 to 140 MiB).
    A forkserver's head start (`prepare`) with no room for it stops, saying nothing: its workers
    set a language up as they meet it."""
    done = subprocess.run([sys.executable, "-c", _TREE_SITTER_WITHOUT_ROOM], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.splitlines() == ["parse out_of_memory True", "compile out_of_memory True", "prepare made True"]


_INDEX_WITHOUT_ROOM = """
import resource, sys
from indexer import api
from indexer.contract.errors import RennetError
from indexer.contract.memory_limit import mapped_bytes
from indexer.extract.blob import extract_blob
from indexer.store.database import Store

extract_blob(b"def f():\\n    return 1\\n", "warm.py", "python", sites=False)  # Python's query compiled
with Store.open(sys.argv[2]) as store:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + (32 << 20), hard))
    try:
        api.index(sys.argv[1], "main", store=store, workers=1)
        said = "indexed"
    except RennetError as exc:
        said = exc.code
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
print(said)
"""


def test_a_blob_whose_extraction_runs_short_of_memory_is_not_stored_as_unparsed(tmp_path):
    """An index whose extraction of a blob (of 270 kB) finds too little room (32 MiB left under
    the `ulimit -v`) is `out_of_memory`, and stores nothing of that blob: the next index, with no
    limit, parses it and gives the fingerprint a fresh store gives (was: the lack of memory was
    caught as a fault of the blob and its facts cached, by content, as `extract_error`: the
    blob's symbols lost for good, in every later snapshot holding it)."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "def first():\n    return 1\n",
                    "big.py": "".join(f"def f{i}(a, b):\n    return g(a[1], b.c, [x for x in y if x]) + {i}\n"
                                      for i in range(4000))}, "two")
    home = tmp_path / "home"
    done = subprocess.run([sys.executable, "-c", _INDEX_WITHOUT_ROOM, str(builder.path), str(home)], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "out_of_memory\n"), done.stderr
    assert fingerprint_indexed(home, builder.path, "main") == fingerprint_indexed(tmp_path / "clean", builder.path,
                                                                                  "main")


_OPEN_WITHOUT_ROOM = """
import mmap, resource, sys
from indexer.store.database import Store, map_size
from indexer.contract.errors import RennetError
limit = resource.getrlimit(resource.RLIMIT_AS)[0]
mapped = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) << 10
# every byte of the limit but 64 MiB taken (never touched), so the store's map finds no room
held = mmap.mmap(-1, limit - mapped - (64 << 20), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=0)
try:
    Store.open(sys.argv[1]).close()
    print("opened")
except RennetError as exc:
    print(exc.code, map_size() >> 20, exc.message)
"""


@pytest.mark.parametrize("state", ["sound", "damaged"])
def test_a_store_whose_map_finds_no_room_under_the_limit_is_out_of_memory_and_damage_stays_so(state, two_revs,
                                                                                              tmp_path):
    """A store opened by a process whose `ulimit -v` (1 GiB) leaves no room for the store's map
    (half the limit): `out_of_memory` naming the limit and the map, saying nothing is wrong
    with the store, which then opens and answers as it was (was: `store_error`, as though the
    store were at fault). A store whose header is damaged stays `store_corrupt` under the same
    limit: LMDB reads the header before it maps, and only a map with no room now is memory."""
    import resource

    home = tmp_path / "home"
    first = fingerprint_indexed(home, two_revs, "main")
    data = home / "lmdb" / "data.mdb"
    if state == "damaged":
        with open(data, "r+b") as fh:
            fh.write(b"\xff" * 8192)  # both meta pages
    done = subprocess.run([sys.executable, "-c", _OPEN_WITHOUT_ROOM, str(home)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30,) * 2))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    code, mib, message = done.stdout.rstrip("\n").split(" ", 2)
    if state == "damaged":
        assert code == "store_corrupt" and "move it aside and re-index" in message, done.stdout
        return
    assert (code, mib) == ("out_of_memory", "512"), done.stdout
    assert message.startswith(f"this process's address-space limit (`ulimit -v` is 1024 MiB) leaves no room for the "
                              f"map of the store at {home} (512 MiB, half the limit) beside the "), message
    assert message.endswith("; nothing is wrong with the store and nothing stored was lost: raise the limit and retry")
    assert answers(home, two_revs, "main") == first


_MAP_FAILED_WITH_ROOM = """
import mmap, resource, sys
import lmdb
from indexer.contract.memory_limit import mapped_bytes
from indexer.store.database import fault, map_size

limit = resource.getrlimit(resource.RLIMIT_AS)[0]
for spare in (4, 64):  # MiB of room beside the store's map once LMDB gave up
    held = mmap.mmap(-1, limit - mapped_bytes() - map_size() - (spare << 20), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                     prot=0)
    print(spare, fault(lmdb.MemoryError(sys.argv[1] + ": Cannot allocate memory"), sys.argv[1]).code)
    held.close()
"""


def test_a_map_that_failed_beside_too_little_room_is_out_of_memory_not_store_error(tmp_path):
    """LMDB's open failed for want of memory under a `ulimit -v` (1 GiB) that, once it gave up,
    leaves room for the store's map and 4 MiB: `out_of_memory`, the limit too small; with 64 MiB
    beside the map, the room was taken only for a moment: `store_error`, retry (was:
    `store_error` for both, `rennet context map` under 97 to 101 MiB, every run: the map fitted
    once LMDB had let go of what it took beside it)."""
    import resource

    done = subprocess.run([sys.executable, "-c", _MAP_FAILED_WITH_ROOM, str(tmp_path / "home")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30,) * 2))
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "4 out_of_memory\n64 store_error\n")


def test_a_store_at_the_file_size_limit_is_store_full_and_loses_nothing(two_revs, clean_main, first_stored,
                                                                      tmp_path):
    """Under `ulimit -f` the store's file stops at the limit: `store_full` naming the limit
    and saying to raise it, what was stored still answers, and the index succeeds once the
    limit is gone (was: `store_error`, an I/O error of the device to check: LMDB reports the
    write cut short as EIO)."""
    import resource

    home, first = _copy_of(first_stored, tmp_path)
    data = home / "lmdb" / "data.mdb"
    cap = data.stat().st_size + (64 << 10)  # far less than the second rev adds
    code, reply, _ = rennet(home, "index", str(two_revs), "--rev", "main", limit=(resource.RLIMIT_FSIZE, cap))
    assert code == 1 and reply["error"]["code"] == "store_full", reply
    assert "ulimit -f" in reply["error"]["message"] and "nothing stored was lost" in reply["error"]["message"]
    assert data.stat().st_size <= cap
    assert answers(home, two_revs, "main~1") == first
    assert fingerprint_indexed(home, two_revs, "main") == clean_main


def test_a_store_on_a_read_only_file_system_answers_reads(device, two_revs):
    home = device / "home"
    first = fingerprint_indexed(home, two_revs, "main~1")
    mount("-o", "remount,ro", str(device))
    code, answer, said = rennet(home, "context", "symbol", "first", "--repo", str(two_revs), "--rev", "main~1")
    assert code == 0 and answer["data"]["definitions"][0]["path"] == "a.py"
    assert answer["freshness"]["fingerprint"] == first
    assert said == ""  # a read-only store keeps no receipt, and says nothing of it (was never held)
    code, refused, _ = rennet(home, "index", str(two_revs), "--rev", "main")
    assert code == 1 and refused["error"]["code"] == "store_error" and "read-only" in refused["error"]["message"]


def test_a_spill_on_a_read_only_file_system_is_store_error(device, two_revs):
    """An answer over the agent face's ceiling is spilled under the store's home; on a
    read-only file system the spill cannot be written: `store_error` naming why, not
    `store_full` (freeing space would not help) and not an internal error."""
    from context_tools.faces.dispatch import Executor
    from context_tools.faces.roots import Roots

    home = device / "home"
    fingerprint_indexed(home, two_revs, "main")
    mount("-o", "remount,ro", str(device))
    executor = Executor("mcp", store=str(home), ceiling=600, roots=Roots.of([str(two_revs)]))
    reply = executor.run("context.file", {"repo": str(two_revs), "path": "m0.py", "rev": "main"})
    assert reply.ok is False and reply.wire["error"]["code"] == "store_error", reply.wire
    assert "spill file cannot be written" in reply.wire["error"]["message"]
    assert "Read-only file system" in reply.wire["error"]["message"]


# A reader of the store made with `slots` reader slots (a store keeps the count it was made with).
READER = """
import sys, time
import indexer.store.database as database
database.MAX_READERS = int(sys.argv[2])
try:
    store = database.Store.open(sys.argv[1])
    txn = store.env.begin()
except database.StoreError as exc:
    print(exc.code, flush=True)
    time.sleep(600)
print("reading", flush=True)
time.sleep(600)
"""


def test_readers_killed_mid_read_never_lock_others_out(tmp_path, two_revs):
    """A store with 4 reader slots and one live process holding it open (so no later opener is
    alone and resets the table); twice as many readers as slots are killed mid-read, one after
    another. Each opener clears the slots the killed ones left, so every next reader, and
    then the CLI, still reads."""
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def reader() -> subprocess.Popen:
        started = subprocess.Popen([sys.executable, "-c", READER, str(home), "4"], env=env, stdout=subprocess.PIPE,
                                   text=True)
        readers.append(started)
        return started

    readers: list[subprocess.Popen] = []
    try:
        holder = reader()
        assert holder.stdout.readline().strip() == "reading"
        code, _, _ = rennet(home, "index", str(two_revs), "--rev", "main~1")
        assert code == 0
        for _ in range(8):
            victim = reader()
            assert victim.stdout.readline().strip() == "reading"
            victim.send_signal(signal.SIGKILL)
            victim.wait()
        code, answer, _ = rennet(home, "context", "symbol", "first", "--repo", str(two_revs), "--rev", "main~1")
        assert code == 0, answer
        assert answer["data"]["definitions"][0]["path"] == "a.py"
    finally:
        for p in readers:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()


def test_a_store_this_user_may_only_read_answers_reads(tmp_path, two_revs, first_stored):
    from tests.test_hostile_inputs import modes_bind

    home, first = _copy_of(first_stored, tmp_path)
    files = [home / "lmdb" / "data.mdb", home / "lmdb" / "lock.mdb", home / "lmdb"]
    for f in files:
        f.chmod(0o555 if f.is_dir() else 0o444)
    try:
        done = subprocess.run([*modes_bind(), sys.executable, "-m", "context_tools.faces.cli", "context", "symbol",
                               "first", "--repo", str(two_revs), "--rev", "main~1", "--store", str(home), "--json"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        for f in files:
            f.chmod(0o755 if f.is_dir() else 0o644)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["freshness"]["fingerprint"] == first


def test_a_key_too_long_for_lmdb_is_bad_input_not_store_corrupt(tmp_path):
    """LMDB refuses a key over 511 bytes (MDB_BAD_VALSIZE). Nothing read back wrong: a key was
    made of a value given too long that nothing checked first. Should one reach the faces'
    last net, it is `bad_input` (was: `store_corrupt`, telling the user to move a sound store
    aside, as a rev of 600 characters that resolves did until pins were bounded)."""
    import lmdb

    from context_tools.faces.dispatch import _typed
    from indexer.store.database import Store

    store = Store.open(tmp_path / "home")
    try:
        with pytest.raises(lmdb.BadValsizeError) as refused:
            with store.env.begin(write=True) as txn:
                txn.put(b"k" * 600, b"v")
    finally:
        store.close()
    typed = _typed(refused.value, tmp_path / "home")
    assert typed.code == "bad_input" and "too long" in typed.message
