"""Hostile input on the user-facing faces: each case ends in one typed line and a non-zero
exit (or an answer), never a traceback, a crash or a silently dropped file; nothing stored
is lost. Real repositories built in-test, a real store, `rennet` run as a process."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from corpora.gitbuild import RepoBuilder
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parent.parent


def rennet(*args: str, home: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run_cli(*args, home=home, cwd=home.parent, input=stdin, timeout=120)


def one_typed_line(out: subprocess.CompletedProcess, code: str) -> None:
    """One typed error line on stderr; besides it only the notice of a rev indexed on the way."""
    assert out.returncode == 1, (out.returncode, out.stderr)
    lines = [line for line in out.stderr.strip().splitlines() if not line.startswith("rennet: indexing ")]
    assert len(lines) == 1 and f"rennet: {code}: " in lines[0], out.stderr
    assert "Traceback" not in out.stderr


def commit_raw_tree(repo: pygit2.Repository, entries: list[tuple[bytes, pygit2.Oid]], folder: str) -> str:
    """Commit HEAD's tree plus `folder/` holding blobs under raw byte names (git allows any
    bytes but NUL and '/'; pygit2's TreeBuilder only takes text)."""
    raw = b"".join(b"100644 " + name + b"\x00" + oid.raw for name, oid in sorted(entries))
    sub = repo.odb.write(pygit2.GIT_OBJECT_TREE, raw)
    head = repo.head.peel(pygit2.Commit)
    builder = repo.TreeBuilder(head.tree)
    builder.insert(folder, sub, pygit2.GIT_FILEMODE_TREE)
    sig = pygit2.Signature("t", "t@example.invalid", 1_700_000_100, 0)
    return str(repo.create_commit("refs/heads/main", sig, sig, "raw names", builder.write(), [head.id]))


def test_a_path_that_is_not_utf8_is_indexed_with_its_bytes_escaped(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "def fine():\n    return 1\n"})
    blob = b.repo.create_blob(b"def q():\n    pass\n")
    commit_raw_tree(b.repo, [(b"bad\xffname.py", blob), (b"caf\xe9.py", blob)], "raw")
    home = tmp_path / "home"

    out = rennet("index", str(tmp_path / "repo"), "--rev", "main~1", "--json", home=home)
    assert out.returncode == 0, out.stderr
    out = rennet("index", str(tmp_path / "repo"), "--json", home=home)  # from its parent's snapshot
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["data"]
    assert data["files"] == 3 and data["skipped"] == []
    cold = rennet("index", str(tmp_path / "repo"), "--json", home=tmp_path / "cold")
    assert json.loads(cold.stdout)["data"]["fingerprint"] == data["fingerprint"]

    out = rennet("context", "file", "raw/bad\\xffname.py", "--repo", str(tmp_path / "repo"), "--json", home=home)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["data"]["meta"]["path"] == "raw/bad\\xffname.py"
    out = rennet("delta", "--repo", str(tmp_path / "repo"), "--base", "main~1", "--head", "main", "--json",
                 home=home)
    assert out.returncode == 0, out.stderr
    assert {f["path"] for f in json.loads(out.stdout)["data"]["files"]} == {"raw/bad\\xffname.py", "raw/caf\\xe9.py"}


@pytest.fixture(scope="module")
def small_repo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "repo"
    b = RepoBuilder(path)
    b.commit({"pkg/__init__.py": "", "pkg/a.py": "class A:\n    def f(self):\n        return 1\n",
              "pkg/b.py": "from pkg.a import A\n\n\ndef g():\n    return A()\n"})
    b.commit({"pkg/c.py": "def h():\n    pass\n"})
    return path


@pytest.fixture(scope="module")
def small_home(small_repo: Path) -> Path:
    """`small_repo` indexed into a store once, for `indexed_home` to copy: no test changes it."""
    home = small_repo.parent / "indexed"
    assert rennet("index", str(small_repo), "--quiet", home=home).returncode == 0
    return home


def indexed_home(indexed: Path, home: Path) -> Path:
    """A copy of the indexed store at `home` for one test to damage or lock; its data file."""
    shutil.copytree(indexed, home, ignore=shutil.ignore_patterns("lock.mdb"))
    return home / "lmdb" / "data.mdb"


@pytest.mark.parametrize("case", ["current folder", "subfolder", "link to it", "store by variable", "mcp root",
                                  "mcp store"])
def test_a_folder_not_named_in_utf8_is_bad_input_not_an_internal_error(case, tmp_path):
    """A repository, the store or a served root in a folder whose name is not UTF-8 (Linux
    allows any bytes): Rennet keeps those paths as text, so each is one `bad_input` line, exit
    1, naming the folder with its bytes escaped, and no store folder is made (was:
    `internal_error: UnicodeEncodeError` from the repository's identity or from LMDB, and a
    store folder under that name; an argument naming it was already `bad_input`)."""
    odd = os.fsencode(tmp_path) + b"/r\xffx"
    builder = RepoBuilder(os.fsdecode(odd))
    builder.commit({"a.py": "def a():\n    return 1\n", "sub/b.py": "B = 1\n"})
    home, cwd, args = tmp_path / "home", os.fsdecode(odd), ["context", "overview"]
    env = {**os.environ, "RENNET_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("RENNET_DEBUG", None)
    if case == "subfolder":
        os.makedirs(odd + b"/sub", exist_ok=True)
        cwd = os.fsdecode(odd + b"/sub")
    elif case == "link to it":
        (tmp_path / "link").symlink_to(os.fsdecode(odd))
        cwd, args = str(tmp_path), ["index", str(tmp_path / "link")]
    elif case == "store by variable":
        home = Path(os.fsdecode(os.fsencode(tmp_path) + b"/h\xffome"))
        env["RENNET_HOME"], cwd = os.fsdecode(os.fsencode(home)), str(tmp_path)
        (tmp_path / "plain").mkdir()
        RepoBuilder(tmp_path / "plain").commit({"a.py": "A = 1\n"})
        args = ["index", str(tmp_path / "plain")]
    elif case == "mcp root":
        cwd, args = str(tmp_path), ["mcp", "--root", os.fsdecode(odd)]
    elif case == "mcp store":
        home = Path(os.fsdecode(os.fsencode(tmp_path) + b"/h\xffome"))
        cwd, args = str(tmp_path), ["mcp", "--store", os.fsdecode(os.fsencode(home))]
    out = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *args], env=env, cwd=cwd,
                         capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    err = out.stderr.decode("utf-8", "backslashreplace")
    assert out.returncode == 1 and err.count("\n") == 1 and err.startswith("rennet: bad_input: "), err
    assert "\\xff" in err and "not UTF-8" in err and "Traceback" not in err
    if case in ("store by variable", "mcp store"):
        assert not os.path.exists(os.fsencode(home))


@pytest.mark.parametrize("args", [["index"], ["--store", "relative", "store", "info"], ["mcp"],
                                  ["call", "store.info", "{}", "--store", "relative"]])
def test_a_current_folder_deleted_under_the_shell_is_bad_input(args, tmp_path):
    """Run from a folder deleted (or moved) after the shell entered it: what needs the current
    folder (the default repository `.`, a relative store, the MCP server's default root) is
    one `bad_input` line saying so, exit 1, and `call` answers it in its envelope (was:
    `internal_error: FileNotFoundError`, or `not_a_repository: .` for `rennet index`)."""
    gone = tmp_path / "gone"
    gone.mkdir()
    env = {**os.environ, "RENNET_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("RENNET_DEBUG", None)
    line = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "context_tools.faces.cli", *args])
    out = subprocess.run(["sh", "-c", f'cd "$1" && rmdir "$1" && exec {line}', "sh", str(gone)], env=env,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("rennet: bad_input: the current folder no longer exists"), out.stderr
    if args[0] == "call":
        assert json.loads(out.stdout)["error"]["code"] == "bad_input"
    assert not (tmp_path / "home").exists() or args == ["index"]


def test_only_a_file_not_found_is_read_as_the_current_folder_gone(tmp_path):
    """With the current folder gone, a FileNotFoundError is `bad_input` saying so; any other
    exception stays what it is (a bug is not told as the shell's folder)."""
    gone = tmp_path / "gone"
    gone.mkdir()
    check = ("from indexer.contract.local_paths import folder_gone\n"
             "told = folder_gone(FileNotFoundError(2, 'x'))\n"
             "assert told is not None and told.code == 'bad_input', told\n"
             "assert folder_gone(ValueError('x')) is None and folder_gone(PermissionError(13, 'x')) is None\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(["sh", "-c", 'cd "$1" && rmdir "$1" && exec "$2" -c "$3"', "sh", str(gone), sys.executable,
                          check], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("args", [("index", "{repo}"), ("context", "symbol", "A", "--repo", "{repo}"), ("ledger",)])
def test_a_truncated_store_file_is_store_corrupt_not_a_crash(small_repo, small_home, tmp_path, args):
    data = indexed_home(small_home, tmp_path / "home")
    os.truncate(data, 8192)  # the two meta pages survive; every page they point at is gone
    out = rennet(*(a.format(repo=small_repo) for a in args), home=tmp_path / "home")
    one_typed_line(out, "store_corrupt")  # was: killed by SIGBUS (exit -7), nothing said
    assert "truncated" in out.stderr and data.stat().st_size == 8192


def test_a_store_record_that_does_not_read_back_is_store_corrupt(small_repo, small_home, tmp_path):
    indexed_home(small_home, tmp_path / "home")
    import lmdb
    env = lmdb.open(str(tmp_path / "home" / "lmdb"), max_dbs=32, subdir=True)
    snapshots = env.open_db(b"snapshots")
    with env.begin(db=snapshots, write=True) as txn:
        for key in [bytes(k) for k, _ in txn.cursor()]:
            txn.put(key, b"z" + b"\x00not zlib" * 8)
    env.close()
    out = rennet("context", "symbol", "A", "--repo", str(small_repo), home=tmp_path / "home")
    one_typed_line(out, "store_corrupt")  # was: internal_error


def test_a_store_that_is_not_lmdb_is_reported_once(small_repo, small_home, tmp_path):
    data = indexed_home(small_home, tmp_path / "home")
    data.write_bytes(b"\xde\xad" * 4096)
    out = rennet("ledger", home=tmp_path / "home")
    one_typed_line(out, "store_corrupt")  # was: a second line, "receipt not recorded: store_corrupt: ..."


@pytest.mark.parametrize("payload", ['{{"repo": "{repo}", "name": "\\ud800"}}',
                                     '{{"repo": "{repo}", "name": "A", "path": "\\udcff/x"}}'])
def test_a_lone_surrogate_in_call_input_is_bad_input(small_repo, tmp_path, payload):
    out = rennet("call", "context.symbol", payload.format(repo=small_repo), home=tmp_path / "home")
    one_typed_line(out, "bad_input")  # was: internal_error (UnicodeEncodeError)
    assert json.loads(out.stdout)["error"]["code"] == "bad_input"


@pytest.mark.parametrize("verb", ["dump", "export"])
def test_out_to_a_named_pipe_writes_through_it_and_keeps_it_a_pipe(small_repo, small_home, tmp_path, verb):
    import stat

    indexed_home(small_home, tmp_path / "home")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = tmp_path / "received"
    reader = subprocess.Popen(["sh", "-c", f'cat "{fifo}" > "{received}"'])
    try:
        args = (["snapshot", "dump", str(small_repo)] if verb == "dump" else ["export", "--repo", str(small_repo)])
        out = rennet(*args, "--out", str(fifo), home=tmp_path / "home")
        assert out.returncode == 0, out.stderr
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # was: replaced by a plain file, the reader left waiting
        reader.wait(timeout=30)
    finally:
        reader.kill()
        reader.wait()
    if verb == "dump":
        whole = rennet("snapshot", "dump", str(small_repo), home=tmp_path / "home").stdout
        assert received.read_text() == whole
    else:
        assert received.read_bytes().startswith(b"RENNET-BUNDLE")


def test_out_that_cannot_take_the_write_is_one_typed_line(small_repo, small_home, tmp_path):
    """A full disk: the process may write 4 kB per file (RLIMIT_FSIZE: EFBIG, as ENOSPC). The
    store cannot take the call's receipt either, which may say so on a line of its own."""
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    indexed_home(small_home, tmp_path / "home")
    # no bytecode written: a module compiled first by a process under this limit left a cut .pyc
    env = {**os.environ, "RENNET_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    target = tmp_path / "dump.jsonl"
    target.write_text("kept\n")
    big = RepoBuilder(tmp_path / "big")
    big.commit({f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(200)})
    assert rennet("index", str(tmp_path / "big"), "--quiet", home=tmp_path / "home").returncode == 0
    out = subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "snapshot", "dump", str(tmp_path / "big"),
                          "--out", str(target)], env=env, capture_output=True, text=True, timeout=120,
                         preexec_fn=small_files)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("rennet: bad_input: cannot write "), out.stderr
    assert target.read_text() == "kept\n" and not (tmp_path / "dump.jsonl.partial").exists()


def test_delta_out_naming_a_file_is_bad_input(small_repo, tmp_path):
    (tmp_path / "afile").write_text("x")
    out = rennet("delta", "--repo", str(small_repo), "--base", "HEAD~1", "--head", "HEAD",
                 "--out", str(tmp_path / "afile"), home=tmp_path / "home")
    one_typed_line(out, "bad_input")  # was: internal_error (FileExistsError)
    assert (tmp_path / "afile").read_text() == "x"


LFS_POINTER = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


def test_hostile_files_are_listed_in_skipped_with_their_reason(tmp_path):
    from indexer.lang.content import MINIFIED_MIN_SIZE

    deep = 50_000
    cap = b"#" + b"x" * ((1 << 20) - 2) + b"\n"
    b = RepoBuilder(tmp_path / "repo")
    b.commit({
        "models/weights.py": LFS_POINTER,  # the content lives outside the repository
        "deep.py": "x = " + "[" * deep + "]" * deep + "\n",
        "open.py": "x = " + "(" * deep + "\n",
        "calls.py": "x = " + "f(" * 33_000 + ")" * 33_000 + "\n",  # 66,003 levels deep
        "deep.js": "var x = " + "[" * deep + "]" * deep + ";\n",
        "deep.c": "int x = " + "(" * deep + "1" + ")" * deep + ";\n",
        "cap.py": cap, "over.py": cap + b"\n",
        "bundle.js": "var a=1;" * (MINIFIED_MIN_SIZE // 4),
        "nul.py": b"def n():\n    return '\x00'\n",
        "crlf.py": "def crlf():\r\n    return 1\r\n", "bom.py": "\ufeffdef bom():\n    pass\n",
        "empty.py": "", "package.json": '{"name": ', "go.mod": "module\nrequire (\n  foo\n",
    })
    out = rennet("index", str(tmp_path / "repo"), "--json", home=tmp_path / "home")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["data"]
    assert data["files"] == 15
    assert {s["path"]: s["reason"] for s in data["skipped"]} == {
        "models/weights.py": "lfs_pointer",  # was: parsed as Python, its `version`/`oid` lines claimed as code
        "open.py": "unparseable", "deep.js": "minified", "over.py": "too_large", "bundle.js": "minified",
        "calls.py": "unparseable",  # was: parsed, 65,535 of its 66,002 matches kept (at 50,000 calls: 40 s)
        "nul.py": "binary", "package.json": "bad_manifest", "go.mod": "bad_manifest"}
    out = rennet("context", "file", "models/weights.py", "--repo", str(tmp_path / "repo"), "--json",
                 home=tmp_path / "home")
    meta = json.loads(out.stdout)["data"]
    assert meta["meta"]["skipped"] == "lfs_pointer" and meta["outline"]["unknown"] == "not_applicable"


def test_mcp_server_survives_a_truncated_store_and_says_store_corrupt(small_repo, small_home, tmp_path):
    from tests.mcp_clients import run_stdio, text_of

    data = indexed_home(small_home, tmp_path / "home")
    os.truncate(data, 8192)

    async def work(client):
        first = await client.call_tool("context_symbol", {"repo": str(small_repo), "name": "A"})
        again = await client.call_tool("context_symbol", {"repo": str(small_repo), "name": "A"})
        return first, again

    for reply in run_stdio(str(tmp_path / "home"), work):  # was: the server died of SIGBUS on the first call
        assert reply.is_error is True and text_of(reply)["error"]["code"] == "store_corrupt"


def test_an_unborn_head_beside_other_branches_says_so(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"a.py": "def a():\n    pass\n"})
    b.repo.references["HEAD"].set_target("refs/heads/orphan")
    out = rennet("index", str(tmp_path / "repo"), home=tmp_path / "home")
    one_typed_line(out, "empty_repository")
    assert "'orphan'" in out.stderr and "--rev" in out.stderr  # was: "... has no commits yet"
    assert rennet("index", str(tmp_path / "repo"), "--rev", "main", home=tmp_path / "home").returncode == 0


def stored(home: Path) -> dict[str, list[tuple[bytes, bytes]]]:
    """What the store holds of snapshots: their records, pins and blob facts (not the ledger,
    which takes a receipt of every call, a failed one too)."""
    import lmdb

    env = lmdb.open(str(home / "lmdb"), max_dbs=32, readonly=True, lock=False)
    try:
        tables = {}
        for name in ("meta", "snapshots", "repos", "facts", "rank"):
            with env.begin(db=env.open_db(name.encode(), create=False)) as txn:
                tables[name] = [(bytes(k), bytes(v)) for k, v in txn.cursor()]
        return tables
    finally:
        env.close()


def modes_bind() -> list[str]:
    """An argv prefix under which file modes bind the process: none for a user; for root, which
    reads a mode-000 folder all the same, setpriv dropping the capabilities that let it."""
    import shutil

    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root bypasses file modes and setpriv is not here to drop that")
    caps = "-dac_override,-dac_read_search,-fowner"
    return ["setpriv", "--bounding-set", caps, "--inh-caps", caps]


@pytest.mark.parametrize("locked, args, says", [
    (".", ("index", "{repo}", "--rev", "HEAD~1", "--json"), "Permission denied"),  # was: internal_error
    (".", ("context", "symbol", "A", "--repo", "{repo}", "--json"), "Permission denied"),
    ("lmdb", ("snapshot", "dump", "{repo}"), "Permission denied"),  # was: store_corrupt, "move it aside"
    # a data file this user may only read is opened read-only: reads work (tests/test_store_faults.py),
    # a write is refused as such
    ("lmdb/data.mdb", ("call", "repo.index", '{{"repo": "{repo}", "rev": "HEAD~1"}}'), "read-only"),
    ("write.lock", ("index", "{repo}", "--rev", "HEAD~1", "--json"), "Permission denied"),  # was: internal_error
])
def test_a_store_this_user_may_not_open_is_store_error_and_kept(small_repo, small_home, tmp_path, locked, args, says):
    home = tmp_path / "home"
    indexed_home(small_home, home)
    before = stored(home)
    target = home / locked
    target.chmod(0o444 if target.is_file() else 0o000)
    env = {**os.environ, "RENNET_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("RENNET_DEBUG", None)
    try:
        out = subprocess.run([*modes_bind(), sys.executable, "-m", "context_tools.faces.cli",
                              *(a.format(repo=small_repo) for a in args)],
                             env=env, capture_output=True, text=True, timeout=120)
    finally:
        target.chmod(0o755 if target.is_dir() else 0o644)
    one_typed_line(out, "store_error")
    assert says in out.stderr
    if "--json" in args or args[0] == "call":
        assert json.loads(out.stdout)["error"]["code"] == "store_error"
    assert stored(home) == before
    assert sorted(p.name for p in home.iterdir()) == ["lmdb", "write.lock"]


def test_a_rev_with_a_nul_is_not_read_up_to_it(small_repo, small_home, tmp_path):
    home = tmp_path / "home"
    indexed_home(small_home, home)
    before = stored(home)
    jobs = tmp_path / "jobs.txt"
    jobs.write_bytes(f"{small_repo}@HEAD~1\x00\n".encode())  # a jobs file is read as it is: JSON never sees it
    out = rennet("batch", "--from", str(jobs), "--json", "--quiet", home=home)
    assert out.returncode == 1, out.stderr
    job = json.loads(out.stdout.splitlines()[0])
    assert job["error"]["code"] == "unknown_rev"  # was: indexed HEAD~1 and pinned the rev "HEAD~1\x00" to it
    assert stored(home) == before


@pytest.mark.parametrize("command, payload", [
    ("context.symbol", '{{"repo": "{repo}\\u0000", "name": "A"}}'),  # was: internal_error (embedded null byte)
    ("snapshot.dump", '{{"repo": "{repo}", "out": "{out}\\u0000"}}'),  # was: internal_error
    ("repo.index", '{{"repo": "{repo}", "rev": "HEAD~1\\u0000"}}'),
], ids=["symbol-repo", "dump-out", "index-rev"])
def test_a_nul_in_call_input_is_bad_input(small_repo, small_home, tmp_path, command, payload):
    home = tmp_path / "home"
    indexed_home(small_home, home)
    before = stored(home)
    out = rennet("call", command, payload.format(repo=small_repo, out=tmp_path / "dump"), home=home)
    one_typed_line(out, "bad_input")
    assert "NUL" in out.stderr and json.loads(out.stdout)["error"]["code"] == "bad_input"
    assert stored(home) == before and sorted(p.name for p in tmp_path.iterdir()) == ["home"]
