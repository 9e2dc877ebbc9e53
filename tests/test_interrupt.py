"""A Ctrl-C, as a terminal sends it: SIGINT to every process of the foreground group.

The command stops with one line on stderr and exit status 130, no process of it is left, no
child prints a traceback, and what the store held stays usable.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.test_context_world import PY, ROOT, cli_env

INTERRUPTED = "rennet: interrupted\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A generated repository large enough that its index runs workers for a while."""
    from corpora.synthetic import generate

    repo = tmp_path_factory.mktemp("interrupt") / "syn.git"
    generate(repo, files=2000, seed=0)
    return repo


def _children(pid: int) -> list[int]:
    """The process's children, whichever of its threads started them."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:  # the thread ended meanwhile
            pass
    return found


def _wait_for_children(p: subprocess.Popen, count: int) -> None:
    """Until `p` has `count` children (its workers forked), or it ended."""
    deadline = time.monotonic() + 60
    while len(_children(p.pid)) < count and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)


def _group_gone(pgid: int) -> bool:
    """True once no process of the group is left (waited for up to 10 s: a killed worker's
    parent-death signal is asynchronous)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _fingerprint(repo: Path, store: Path) -> str:
    p = subprocess.run([PY, "-m", "context_tools.faces.cli", "index", "--repo", str(repo), "--store", str(store),
                        "--json", "--quiet"], cwd=ROOT, env=cli_env(None), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["data"]["fingerprint"]


@pytest.mark.parametrize("after", ["workers", "a moment of work"])
def test_a_ctrl_c_during_an_index_is_one_line_and_the_store_stays_whole(after, corpus, tmp_path):
    """Interrupted once its workers are forked, or a moment into their work: exit 130 with
    `rennet: interrupted` alone on stderr (was: a worker's `Process ForkPoolWorker-2:` and
    its traceback), every process of the command gone, and the next index into that store
    gives the snapshot a fresh store gets."""
    store = tmp_path / "store"
    p = subprocess.Popen([PY, "-m", "context_tools.faces.cli", "index", "--repo", str(corpus), "--store",
                          str(store), "--workers", "2", "--quiet"], cwd=ROOT, env=cli_env(None),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    _wait_for_children(p, 2)
    if after != "workers":
        time.sleep(0.4)
    assert p.poll() is None, "the index ended before it could be interrupted"
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert (p.returncode, err, out) == (130, INTERRUPTED, "")
    assert _group_gone(p.pid)
    assert _fingerprint(corpus, store) == _fingerprint(corpus, tmp_path / "fresh")


def _initialize(p: subprocess.Popen) -> None:
    assert p.stdin is not None and p.stdout is not None
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
    p.stdin.write(json.dumps(hello).encode() + b"\n" + b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["id"] == 1


@pytest.mark.parametrize("busy", [False, True])
def test_a_ctrl_c_stops_the_stdio_server_with_its_client_still_connected(busy, corpus, tmp_path):
    """A server started by hand and stopped with Ctrl-C while its stdin stays open, idle or
    with an index in flight: it ends at once, exit 130, `rennet: interrupted` last on stderr,
    and no process of it is left (was: the line, then the process waited for its stdin to
    end, held by the thread reading it)."""
    p = subprocess.Popen([PY, "-m", "context_tools.faces.cli", "mcp", "--root", str(corpus.parent)], cwd=ROOT,
                         env=cli_env(str(tmp_path / "home")), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    _initialize(p)
    if busy:
        assert p.stdin is not None
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "repo_index", "arguments": {"repo": str(corpus)}}}
        p.stdin.write(json.dumps(call).encode() + b"\n")
        p.stdin.flush()
        _wait_for_children(p, 1)  # the forkserver its index's workers come from
        time.sleep(0.5)
    assert p.poll() is None
    os.killpg(p.pid, signal.SIGINT)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("the server did not stop on Ctrl-C")
    assert p.stderr is not None
    assert p.returncode == 130 and p.stderr.read().decode().endswith(INTERRUPTED)
    assert _group_gone(p.pid)


def test_a_ctrl_c_stops_the_stdio_server_at_once_with_a_call_waiting(tmp_path):
    """A call in flight that would take a minute (`dossier_build` waiting on a tracker that
    accepted and never answers, the user's timeout 60 s): the Ctrl-C ends the server at once,
    exit 130 (was: asyncio's handler cancelled the server's tasks and waited for the call,
    which runs in a thread no cancel reaches, so the server stayed until the call ended: an
    index in flight was finished and stored first)."""
    import socket
    import threading

    from corpora.gitbuild import RepoBuilder

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"app.py": "def main():\n    return 1\n"}, message="base")
    builder.commit({"app.py": "def main():\n    return 2\n"}, message="Fixes ABC-1")
    tracker = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    accepted = threading.Event()

    def hold() -> None:  # accept and keep the connection, answering nothing
        try:
            held.append(tracker.accept()[0])
            accepted.set()
        except OSError:
            pass

    threading.Thread(target=hold, daemon=True).start()
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[dossier]\ntimeout_seconds = 60\n[dossier.jira]\nbase_url = "http://127.0.0.1:{tracker.getsockname()[1]}"\n'
        'token_env = "RENNET_TEST_JIRA"\nprojects = ["ABC"]\n')
    p = subprocess.Popen([PY, "-m", "context_tools.faces.cli", "mcp", "--root", str(tmp_path)], cwd=ROOT,
                         env={**cli_env(str(home)), "RENNET_TEST_JIRA": "t"}, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _initialize(p)
        assert p.stdin is not None
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "dossier_build", "arguments": {"repo": str(tmp_path / "repo"), "base": "HEAD~1", "head": "HEAD"}}}
        p.stdin.write(json.dumps(call).encode() + b"\n")
        p.stdin.flush()
        assert accepted.wait(60), "the call never reached the tracker"
        os.killpg(p.pid, signal.SIGINT)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            pytest.fail("the server waited for the call in flight")
        assert p.stderr is not None
        assert p.returncode == 130 and p.stderr.read().decode().endswith(INTERRUPTED)
        assert _group_gone(p.pid)
    finally:
        tracker.close()
        for conn in held:
            conn.close()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_stdio_server_killed_during_an_index_leaves_no_word_from_its_children(sig, corpus, tmp_path):
    """A client ends its server with SIGTERM, then SIGKILL, whatever it is doing: with an index
    in flight, its workers find the pipe for their answers closed. Nothing of it reaches
    stderr, the client's log (was: each busy worker's `BrokenPipeError` traceback, and the
    resource tracker's warning of leaked semaphores), and no process of it is left."""
    p = subprocess.Popen([PY, "-m", "context_tools.faces.cli", "mcp", "--root", str(corpus.parent)], cwd=ROOT,
                         env=cli_env(str(tmp_path / "home")), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    _initialize(p)
    assert p.stdin is not None
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "repo_index", "arguments": {"repo": str(corpus)}}}
    p.stdin.write(json.dumps(call).encode() + b"\n")
    p.stdin.flush()
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while len(workers) < 2 and p.poll() is None and time.monotonic() < deadline:  # the forkserver's
        workers = [w for c in _children(p.pid) for w in _children(c)]
        time.sleep(0.005)
    time.sleep(0.3)  # into their work
    assert p.poll() is None, "the index ended before the server could be killed"
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)  # to the end of stderr: every process holding it is gone
    assert p.returncode == -sig and err.decode() == ""
    assert _group_gone(p.pid)


def _ignores_ctrl_c(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    ignored = next(line for line in status.splitlines() if line.startswith("SigIgn:")).split()[1]
    return bool(int(ignored, 16) & (1 << (signal.SIGINT - 1)))


def _dask_batch(corpus: Path, store: Path) -> subprocess.Popen:
    return subprocess.Popen([PY, "-m", "context_tools.faces.cli", "batch", "--engine", "dask", "--scheduler", "local:2",
                             "--store", str(store), f"{corpus}@HEAD~1", f"{corpus}@HEAD", "--quiet"],
                            cwd=ROOT, env=cli_env(None), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def test_a_ctrl_c_during_a_dask_batch_closes_the_cluster_quietly(corpus, tmp_path):
    """`rennet batch --engine dask` on a LocalCluster it started, interrupted once its workers
    are up: exit 130, `rennet: interrupted` alone on stderr (was: each worker's traceback and
    the cluster's warnings of tasks cancelled and workers killed), no process left."""
    p = _dask_batch(corpus, tmp_path / "store")
    deadline = time.monotonic() + 120
    while p.poll() is None and time.monotonic() < deadline:  # both workers started: they ignore it
        workers = [c for c in _children(p.pid) if "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text()]
        if len(workers) == 2 and all(map(_ignores_ctrl_c, workers)):
            break
        time.sleep(0.01)
    assert p.poll() is None, "the batch ended, its workers never ignoring a Ctrl-C"
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert (p.returncode, err) == (130, INTERRUPTED)
    assert _group_gone(p.pid)


def test_a_ctrl_c_while_the_dask_cluster_starts_still_stops_the_batch(corpus, tmp_path):
    """Interrupted as the cluster's first worker process starts, before it could ignore a
    Ctrl-C: the batch stops, exit 130, `rennet: interrupted` the last line (a worker still
    starting may print its own traceback first), no process left (was, at times: the
    cluster's failed start as `internal_error`)."""
    p = _dask_batch(corpus, tmp_path / "store")
    _wait_for_children(p, 2)  # multiprocessing's resource tracker, then the first worker
    assert p.poll() is None
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and err.endswith(INTERRUPTED), err[-2000:]
    assert _group_gone(p.pid)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_http_server_told_to_stop_leaves_within_its_grace(sig, code, tmp_path):
    """`rennet mcp --http` with a request in flight (a POST whose body is still coming), then a
    Ctrl-C or SIGTERM: it leaves once `SHUTDOWN_SECONDS` have passed, exit 130 (with its line)
    or 143 (was: uvicorn waited for the request without end, here until the body's own
    deadline a minute later; a call running in a thread, such as an index, held it longer)."""
    import socket

    from context_tools.faces.mcp_http import BODY_SECONDS, SHUTDOWN_SECONDS

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = "t" * 40
    p = subprocess.Popen([PY, "-m", "context_tools.faces.cli", "mcp", "--http", f"127.0.0.1:{port}", "--token-env",
                          "RENNET_TEST_TOKEN", "--root", str(tmp_path)], cwd=ROOT,
                         env={**cli_env(str(tmp_path / "home")), "RENNET_TEST_TOKEN": token},
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            client = socket.create_connection(("127.0.0.1", port))
            break
        except OSError:
            assert p.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
    with client:
        client.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                       "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                       "Content-Length: 1000\r\n\r\n{".encode())
        time.sleep(0.5)
        os.killpg(p.pid, sig)
        try:
            p.wait(timeout=(SHUTDOWN_SECONDS + BODY_SECONDS) / 2)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            pytest.fail("the server waited on the request in flight")
    assert p.stderr is not None
    err = p.stderr.read()
    assert p.returncode == code and err.endswith(INTERRUPTED if sig == signal.SIGINT else "/mcp\n"), err
