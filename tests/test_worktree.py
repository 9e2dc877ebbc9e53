"""The working tree as a snapshot: `--worktree` reads the checkout as `git add -A && git
write-tree` would commit it, says so in its freshness, and writes neither the index nor the
working tree; an answer from the checked-out commit of a dirty checkout is never `current`."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import context_tools
from context_tools.faces.dispatch import worktree_default
from context_tools.faces.registry import registry
from indexer.contract.errors import RennetError
from tests.cli_runs import run_cli
from tests.mcp_clients import python_prepared  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[1]
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def rennet(*args: str, home: Path) -> subprocess.CompletedProcess:
    return run_cli(*args, home=home, timeout=120)


def written_tree(checkout: Path, scratch: Path) -> str:
    """What git itself writes for the checkout's working tree, run in a copy of it."""
    shutil.copytree(checkout, scratch, symlinks=True)
    git(scratch, "add", "-A")
    return git(scratch, "write-tree")


def state_of(checkout: Path) -> dict[str, str]:
    """A digest of the git index and of every file of the working tree (links by target)."""
    out = {}
    for folder, dirs, files in os.walk(checkout):
        dirs[:] = [d for d in dirs if not (folder == str(checkout) and d == ".git")]
        for name in files:
            path = Path(folder, name)
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            out[str(path.relative_to(checkout))] = hashlib.sha256(data).hexdigest() + oct(path.lstat().st_mode)
    out[".git/index"] = hashlib.sha256((checkout / ".git" / "index").read_bytes()).hexdigest()
    return out


def make_checkout(root: Path) -> Path:
    repo = root / "checkout"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "helpers.py").write_text("def old_helper():\n    return 1\n")
    (repo / "pkg" / "gone.py").write_text("def gone_function():\n    return 0\n")
    (repo / "run.sh").write_text("echo run\n")
    (repo / ".gitignore").write_text("build/\n*.log\n")
    os.symlink("pkg/helpers.py", repo / "helpers_link.py")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    return repo


def edit(repo: Path) -> None:
    """An agent's uncommitted change: an edit, a new file, an ignored file, a deletion, a mode."""
    with open(repo / "pkg" / "helpers.py", "a") as f:
        f.write("\n\ndef fresh_helper(x):\n    return old_helper() + x\n")
    (repo / "pkg" / "new_module.py").write_text("def brand_new():\n    return 2\n")
    (repo / "build").mkdir()
    (repo / "build" / "generated.py").write_text("def ignored_function():\n    return 3\n")
    (repo / "debug.log").write_text("def ignored_too(): pass\n")
    (repo / "pkg" / "gone.py").unlink()
    os.chmod(repo / "run.sh", 0o755)


@pytest.fixture()
def edited(tmp_path):
    repo = make_checkout(tmp_path)
    edit(repo)
    return repo


def test_worktree_answer_sees_the_edit_pinned_to_the_tree_git_writes(edited, tmp_path):
    before = state_of(edited)
    client = context_tools.Client(store=str(tmp_path / "home"))
    result = client.call("context.symbol", repo=str(edited), name="fresh_helper", worktree=True)
    assert [(d.path, d.name) for d in result.data.definitions] == [("pkg/helpers.py", "fresh_helper")]
    fresh = result.freshness
    assert fresh.status == "worktree" and fresh.rev == "WORKTREE"
    tree = written_tree(edited, tmp_path / "scratch")
    assert fresh.pinned_oid == tree and fresh.worktree.tree_oid == tree
    assert fresh.worktree.base_oid == git(edited, "rev-parse", "HEAD")
    # helpers.py edited, new_module.py added, gone.py deleted, run.sh made executable
    assert fresh.worktree.changed == 4 and fresh.worktree.skipped == []
    assert state_of(edited) == before  # neither the index nor a file of the working tree was written


def test_untracked_file_is_indexed_ignored_and_deleted_ones_are_not(edited, tmp_path):
    client = context_tools.Client(store=str(tmp_path / "home"))
    found = client.call("context.symbol", repo=str(edited), name="brand_new", worktree=True)
    assert [d.path for d in found.data.definitions] == ["pkg/new_module.py"]
    by_rev = client.call("context.symbol", repo=str(edited), name="brand_new", rev="WORKTREE")
    assert by_rev.freshness.status == "worktree" and by_rev.freshness.pinned_oid == found.freshness.pinned_oid
    for name in ("ignored_function", "gone_function"):
        with pytest.raises(RennetError) as err:
            client.call("context.symbol", repo=str(edited), name=name, worktree=True, fuzzy=False)
        assert err.value.code == "not_found"
    script = client.call("context.file", repo=str(edited), path="run.sh", worktree=True)
    assert script.data.meta.mode == "100755"
    link = client.call("context.file", repo=str(edited), path="helpers_link.py", worktree=True)
    assert link.data.meta.mode == "120000" and link.data.meta.target == "pkg/helpers.py"
    page = client.call("context.file", repo=str(edited), path="pkg/helpers.py", worktree=True)
    assert "def fresh_helper(x):" in page.data.content.lines
    with pytest.raises(RennetError) as err:
        client.call("context.file", repo=str(edited), path="pkg/gone.py", worktree=True)
    assert err.value.code == "not_found"
    # the commit still has it: the working tree is its own snapshot, the commit's is untouched
    kept = client.call("context.symbol", repo=str(edited), name="gone_function", fuzzy=False)
    assert [d.path for d in kept.data.definitions] == ["pkg/gone.py"]


def test_dirty_checkout_is_never_current_and_a_clean_one_is(tmp_path):
    repo = make_checkout(tmp_path)
    client = context_tools.Client(store=str(tmp_path / "home"))
    clean = client.call("context.symbol", repo=str(repo), name="old_helper")
    assert clean.freshness.status == "current" and clean.freshness.worktree is None
    (repo / "pkg" / "helpers.py").write_text("def old_helper():\n    return 2\n")
    (repo / "notes.py").write_text("x = 1\n")
    dirty = client.call("context.symbol", repo=str(repo), name="old_helper")
    assert dirty.freshness.status == "dirty"
    assert dirty.freshness.worktree.state == "dirty" and dirty.freshness.worktree.changed == 2
    assert dirty.freshness.pinned_oid == git(repo, "rev-parse", "HEAD")


def test_a_working_tree_answer_says_when_the_tree_is_clean_and_counts_one_path_as_one(tmp_path):
    """An agent that committed its edit reads the working tree again: the reason says the tree
    is clean, as HEAD, and how to read the commit itself (was: "0 paths differ from HEAD", read
    as if something still differed); one path changed is counted as one."""
    repo = make_checkout(tmp_path)
    client = context_tools.Client(store=str(tmp_path / "home"))
    head = git(repo, "rev-parse", "HEAD")[:12]
    clean = client.call("context.symbol", repo=str(repo), name="old_helper", worktree=True).freshness
    assert clean.status == "worktree" and clean.worktree.changed == 0
    assert clean.reason == (f"read from the working tree as it is now: clean, the same files as HEAD ({head}); "
                            "an answer asked with rev HEAD reads that commit")
    (repo / "pkg" / "helpers.py").write_text("def old_helper():\n    return 2\n")
    one = client.call("context.symbol", repo=str(repo), name="old_helper", worktree=True).freshness
    assert one.reason == f"read from the working tree as it is now: 1 path differs from HEAD ({head})"


def test_one_edited_path_is_dirty_and_a_rev_not_checked_out_stays_current(tmp_path):
    """`dirty` is for the commit the checkout is on, whatever the number of paths that differ."""
    repo = make_checkout(tmp_path)
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "pkg" / "other.py").write_text("def on_other():\n    return 3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "pkg" / "helpers.py").write_text("def old_helper():\n    return 2\n")
    client = context_tools.Client(store=str(tmp_path / "home"))
    on_main = client.call("context.symbol", repo=str(repo), rev="main", name="old_helper").freshness
    assert on_main.status == "dirty" and on_main.worktree.changed == 1
    elsewhere = client.call("context.symbol", repo=str(repo), rev="other", name="on_other").freshness
    assert elsewhere.status == "current" and elsewhere.worktree is None


def test_a_second_edit_in_a_warm_process_is_seen(edited, tmp_path):
    client = context_tools.Client(store=str(tmp_path / "home"))
    first = client.call("context.symbol", repo=str(edited), name="fresh_helper", worktree=True)
    with open(edited / "pkg" / "new_module.py", "a") as f:
        f.write("\n\ndef second_thought():\n    return 4\n")
    again = client.call("context.symbol", repo=str(edited), name="second_thought", worktree=True)
    assert [d.path for d in again.data.definitions] == ["pkg/new_module.py"]
    assert again.freshness.pinned_oid != first.freshness.pinned_oid
    assert again.freshness.pinned_oid == written_tree(edited, tmp_path / "scratch")
    # the same tree asked again is the same snapshot
    same = client.call("context.symbol", repo=str(edited), name="brand_new", worktree=True)
    assert same.freshness.fingerprint == again.freshness.fingerprint


def test_worktree_with_rev_or_workspace_is_bad_input(edited, tmp_path):
    client = context_tools.Client(store=str(tmp_path / "home"))
    with pytest.raises(RennetError) as err:
        client.call("context.symbol", repo=str(edited), name="x", worktree=True, rev="HEAD")
    assert err.value.code == "bad_input"
    with pytest.raises(RennetError) as err:
        client.call("context.symbol", workspace="w", name="x", worktree=True)
    assert err.value.code == "bad_input"


def test_bare_repository_is_a_typed_error(tmp_path):
    repo = make_checkout(tmp_path)
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    proc = rennet("context", "symbol", "old_helper", "--repo", str(bare), "--worktree", "--json", home=tmp_path / "h")
    assert proc.returncode == 1
    reply = json.loads(proc.stdout)
    assert reply["ok"] is False and reply["error"]["code"] == "not_a_checkout"
    assert "Traceback" not in proc.stderr


def test_a_checkout_with_no_commit_yet_is_named_as_every_other_message_names_it(tmp_path):
    """An agent's new project (`git init`, files written, nothing committed): `empty_repository`,
    the checkout named by its path as elsewhere (was: with a trailing `/`, libgit2's workdir)."""
    repo = tmp_path / "new"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.py").write_text("def first():\n    pass\n")
    client = context_tools.Client(store=str(tmp_path / "home"))
    with pytest.raises(RennetError) as caught:
        client.call("context.symbol", repo=str(repo), name="first", worktree=True)
    assert caught.value.code == "empty_repository"
    assert caught.value.message.startswith(f"{repo} has no commit yet: "), caught.value.message


def test_rennet_delta_worktree_lists_the_uncommitted_change(edited, tmp_path):
    before = state_of(edited)
    proc = rennet("delta", "--repo", str(edited), "--base", "main", "--worktree", "--out", str(tmp_path / "out"),
                  "--json", home=tmp_path / "home")
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    files = {f["path"]: f["status"] for f in reply["data"]["files"]}
    assert files == {"pkg/helpers.py": "modified", "pkg/new_module.py": "added", "pkg/gone.py": "deleted",
                     "run.sh": "modified"}
    rng = reply["data"]["range"]
    tree = written_tree(edited, tmp_path / "scratch")
    assert rng["head_oid"] == tree and rng["worktree_base_oid"] == git(edited, "rev-parse", "HEAD")
    assert reply["freshness"]["status"] == "worktree"
    helpers = next(e for e in reply["data"]["elements"]["items"] if e["path"] == "pkg/helpers.py")
    assert [(c["change"], c["qualified"]) for c in helpers["changes"]["items"]] == [("added", "fresh_helper")]
    same = rennet("delta", "--repo", str(edited), "--base", "main", "--head", "WORKTREE", "--out",
                  str(tmp_path / "out2"), "--json", home=tmp_path / "home")
    assert json.loads(same.stdout)["data"]["range"]["head_oid"] == tree
    with_dossier = rennet("delta", "--repo", str(edited), "--base", "main", "--worktree", "--dossier", "--json",
                          home=tmp_path / "home")
    assert with_dossier.returncode == 1 and json.loads(with_dossier.stdout)["error"]["code"] == "bad_input"
    assert state_of(edited) == before


def test_novelty_takes_the_working_tree_as_head(edited, tmp_path):
    client = context_tools.Client(store=str(tmp_path / "home"))
    result = client.call("context.novelty", repo=str(edited), base="main", worktree=True, section="symbols")
    assert ("added", "fresh_helper") in {(s.change, s.qualified) for s in result.data.items}
    assert result.freshness.status == "worktree"


def test_mcp_worktree_default_applies_only_where_the_caller_chose_nothing():
    table = registry()
    symbol = table.get("context.symbol")
    assert worktree_default(symbol, {"name": "x"}) == {"name": "x", "worktree": True}
    assert worktree_default(symbol, {"name": "x", "rev": "main"}) == {"name": "x", "rev": "main"}
    assert worktree_default(symbol, {"name": "x", "worktree": False}) == {"name": "x", "worktree": False}
    assert worktree_default(symbol, {"name": "x", "workspace": "w"}) == {"name": "x", "workspace": "w"}
    novelty = table.get("context.novelty")
    assert worktree_default(novelty, {"base": "v1", "head": "main"}) == {"base": "v1", "head": "main"}
    delta = table.get("delta.build")
    assert worktree_default(delta, {"base": "v1"}) == {"base": "v1", "worktree": True}


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_mcp_server_with_worktree_default_answers_from_the_working_tree(edited, tmp_path, transport, request):
    from tests.mcp_clients import run_session, text_of

    async def work(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        indexed = await client.call_tool("repo_index", {"repo": str(edited), "rev": "HEAD"})
        seen = await client.call_tool("context_symbol", {"repo": str(edited), "name": "fresh_helper"})
        committed = await client.call_tool("context_symbol", {"repo": str(edited), "name": "old_helper",
                                                              "rev": "HEAD"})
        return tools, text_of(indexed), text_of(seen), text_of(committed)

    if transport == "stdio":
        tools, indexed, seen, committed = request.getfixturevalue("worktree_server").run(work)
    else:
        tools, indexed, seen, committed = run_session(transport, str(tmp_path / "home"), work, "--worktree")
    # a tool that reads the working tree writes its snapshot, and removes the checkout's older
    # ones (`test_old_working_tree_snapshots_are_swept_and_a_reverted_edit_is_indexed_again`),
    # which the user's own CLI may have written: the server says both (was: destructiveHint false)
    assert tools["context_symbol"].annotations.read_only_hint is False
    tree_readers = {name for name, tool in tools.items() if "worktree" in tool.input_schema["properties"]}
    assert {"context_symbol", "context_references", "context_novelty", "delta_packet"} <= tree_readers
    assert {name for name in tree_readers if tools[name].annotations.read_only_hint
            or not tools[name].annotations.destructive_hint} == set()
    assert {name: tools[name].annotations.destructive_hint for name in ("repo_snapshots", "workspace_status",
                                                                        "repo_index")} == dict.fromkeys(
        ("repo_snapshots", "workspace_status", "repo_index"), False)
    assert tools["repo_snapshots"].annotations.read_only_hint is True
    assert indexed["ok"]
    assert seen["ok"] and seen["freshness"]["status"] == "worktree"
    assert seen["freshness"]["worktree"]["tree_oid"] == written_tree(edited, tmp_path / "scratch")
    assert [d["path"] for d in seen["data"]["definitions"]] == ["pkg/helpers.py"]
    assert committed["ok"] and committed["freshness"]["status"] == "dirty"
    assert committed["freshness"]["worktree"]["changed"] == 4


def test_a_worktree_servers_read_tool_reads_a_worktree_argument_of_a_lost_type(edited, worktree_server):
    """docs/agents.md, argument types: a value whose JSON type a client lost is read as the tool's
    schema declares it. A `--worktree` server lists `worktree` on its read tools, so `"true"` and
    `"false"` read as the booleans there, as `"5"` does for a limit."""
    from tests.mcp_clients import text_of

    async def work(client):
        await client.call_tool("repo_index", {"repo": str(edited), "rev": "HEAD"})
        answers = []
        for quirky, typed in (("true", True), ("false", False)):
            pair = []
            for value in (quirky, typed):
                reply = await client.call_tool("context_symbol", {"repo": str(edited), "name": "old_helper",
                                                                  "worktree": value})
                pair.append(text_of(reply))
            answers.append(pair)
        return answers

    answers = worktree_server.run(work)
    for got, want in answers:
        assert want["ok"], want
        for body in (got, want):
            body["freshness"].pop("indexed_at", None)
        assert got == want
    assert [want["freshness"]["status"] for _, want in answers] == ["worktree", "dirty"]


def test_a_read_only_mcp_server_refuses_working_tree_answers_and_writes_nothing(scratch_server):
    """A server without `--worktree` (the shared one, in a folder of its own) refuses a read of
    the working tree and stores no snapshot for it."""
    from indexer.store.database import Store
    from tests.mcp_clients import text_of

    edited = make_checkout(scratch_server.place("read-only"))
    edit(edited)

    def snapshots() -> int:
        with Store.open(scratch_server.store) as store, store.env.begin(db=store.snapshots) as txn:
            return txn.stat(store.snapshots)["entries"]

    async def work(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        answer = await client.call_tool("context_symbol", {"repo": str(edited), "name": "fresh_helper",
                                                           "worktree": True})
        return tools, text_of(answer)

    before = snapshots()
    tools, answer = scratch_server.run(work)
    assert tools["context_symbol"].annotations.read_only_hint is True
    assert not answer["ok"] and answer["error"]["code"] == "forbidden"
    assert "--worktree" in answer["error"]["message"]
    assert snapshots() == before


def test_old_working_tree_snapshots_are_swept_and_a_reverted_edit_is_indexed_again(edited, tmp_path):
    from indexer.build import extractor_version
    from indexer.git.read import open_repo, repo_identity
    from indexer.store.records import load_stored_record
    from indexer.store.worktrees import remember

    client = context_tools.Client(store=str(tmp_path / "home"))
    first = client.call("context.symbol", repo=str(edited), name="fresh_helper", worktree=True)
    helpers = edited / "pkg" / "helpers.py"
    before = helpers.read_bytes()
    helpers.write_bytes(before + b"\n\ndef later():\n    return 5\n")
    second = client.call("context.symbol", repo=str(edited), name="later", worktree=True)
    store = client._executor.handle.store
    dropped = remember(store, repo_identity(open_repo(str(edited))), second.freshness.pinned_oid,
                       extractor_version(), keep=1)
    assert dropped == [first.freshness.pinned_oid]
    assert load_stored_record(store, first.freshness.pinned_oid) is None
    assert load_stored_record(store, second.freshness.pinned_oid) is not None
    helpers.write_bytes(before)  # back to the first tree: its snapshot is built again, not read deleted
    again = client.call("context.references", repo=str(edited), name="old_helper", worktree=True)
    assert again.freshness.pinned_oid == first.freshness.pinned_oid
    assert again.freshness.fingerprint == first.freshness.fingerprint


def test_tree_oid_matches_git_through_staged_moves_and_type_changes(tmp_path):
    import pygit2

    from indexer.git.worktree import read_worktree

    repo = make_checkout(tmp_path)
    (repo / "pkg" / "sub").mkdir()
    (repo / "pkg" / "sub" / "inner.py").write_text("x = 1\n")
    (repo / "solo.txt").write_text("a file that becomes a folder\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "second")
    git(repo, "mv", "pkg/helpers.py", "pkg/renamed.py")  # staged, then edited again
    with open(repo / "pkg" / "renamed.py", "a") as f:
        f.write("y = 2\n")
    (repo / "run.sh").write_text("echo staged\n")
    git(repo, "add", "run.sh")
    (repo / "run.sh").write_text("echo run\n")  # staged, then put back as committed
    shutil.rmtree(repo / "pkg" / "sub")
    (repo / "pkg" / "sub").write_text("a folder that became a file\n")
    (repo / "solo.txt").unlink()
    (repo / "solo.txt").mkdir()
    (repo / "solo.txt" / "inside.py").write_text("z = 3\n")
    (repo / "helpers_link.py").unlink()
    os.symlink("run.sh", repo / "helpers_link.py")
    before = state_of(repo)
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert tree.tree_oid == written_tree(repo, tmp_path / "scratch")
    assert tree.changed == sorted(["helpers_link.py", "pkg/helpers.py", "pkg/renamed.py", "pkg/sub",
                                   "pkg/sub/inner.py", "solo.txt", "solo.txt/inside.py"])
    assert state_of(repo) == before


def test_a_submodule_is_recorded_at_the_commit_it_has_checked_out(tmp_path):
    import pygit2

    from indexer.git.worktree import read_worktree

    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    (sub / "lib.py").write_text("def lib(): pass\n")
    git(sub, "add", "-A")
    git(sub, "commit", "-q", "-m", "lib")
    repo = make_checkout(tmp_path)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    git(repo, "commit", "-q", "-m", "submodule")
    inner = repo / "vendor" / "sub"
    (inner / "lib.py").write_text("def lib(): return 1\n")
    git(inner, "commit", "-q", "-am", "moved")
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert tree.changed == ["vendor/sub"]
    assert tree.tree_oid == written_tree(repo, tmp_path / "scratch")
    entry = pygit2.Repository(str(repo))[tree.tree_oid].peel(pygit2.Tree)["vendor/sub"]
    assert entry.filemode == pygit2.GIT_FILEMODE_COMMIT and str(entry.id) == git(inner, "rev-parse", "HEAD")


_READ_AS_OTHER_USER = """
import json, os, sys, time
import pygit2
from indexer.git.worktree import read_worktree  # imported first: the interpreter's files may be root's alone
if os.geteuid() == 0:  # root reads every file: read as nobody, who owns the checkout
    os.setgid(65534)
    os.setuid(65534)
tree = read_worktree(pygit2.Repository(sys.argv[1]))
print(json.dumps({"tree": tree.tree_oid, "skipped": [[s.path, s.reason] for s in tree.skipped]}))
"""


def test_an_unreadable_file_is_left_out_and_listed_in_skipped(tmp_path):
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="rennet-unreadable-"))  # pytest's own folders are closed to others
    try:
        os.chmod(top, 0o755)
        repo = make_checkout(top)
        (repo / "secret.py").write_text("def secret(): pass\n")
        os.chmod(repo / "secret.py", 0)
        (repo / "open.py").write_text("def public(): pass\n")
        if os.geteuid() == 0:  # the checkout is the reader's own, its secret.py too, mode 000
            for folder, dirs, files in os.walk(repo):
                for name in [*dirs, *files]:
                    os.lchown(os.path.join(folder, name), 65534, 65534)
            os.lchown(repo, 65534, 65534)
        proc = subprocess.run([sys.executable, "-c", _READ_AS_OTHER_USER, str(repo)], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(top), XDG_CONFIG_HOME=str(top)),
                              timeout=60)
        assert proc.returncode == 0, proc.stderr
        read = json.loads(proc.stdout)
        assert [path for path, _ in read["skipped"]] == ["secret.py"]
        assert read["skipped"][0][1].startswith("unreadable")
        (repo / "secret.py").unlink()  # what git would write without the file it cannot read
        assert read["tree"] == written_tree(repo, tmp_path / "scratch")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_only_blobs_never_seen_are_parsed(edited, tmp_path):
    import pygit2

    from indexer import api
    from indexer.build import index_tree
    from indexer.git.worktree import WORKTREE, read_worktree

    store = api.open_store(tmp_path / "home")
    try:
        base = api.index(str(edited), "HEAD", store=store, workers=1)
        tree = read_worktree(pygit2.Repository(str(edited)))
        report = index_tree(str(edited), tree.tree_oid, WORKTREE, earlier=[tree.base_oid], store=store, workers=1)
        # helpers.py's new content and new_module.py; run.sh changed only its mode, gone.py left
        assert report.parsed_blobs == 2 and report.oid == tree.tree_oid
        assert report.files == base.files  # one added, one deleted
        again = index_tree(str(edited), tree.tree_oid, WORKTREE, earlier=[tree.base_oid], store=store, workers=1)
        assert again.snapshot_reused and again.fingerprint == report.fingerprint
    finally:
        store.close()


def test_a_file_over_the_cap_is_not_hashed_but_listed(edited, tmp_path, monkeypatch):
    import pygit2

    from indexer.git import worktree

    monkeypatch.setattr(worktree, "FILE_CAP", 1000)
    (edited / "data.bin").write_bytes(b"\0" * 1001)
    tree = worktree.read_worktree(pygit2.Repository(str(edited)))
    assert [(s.path, s.reason.split(":")[0]) for s in tree.skipped] == [("data.bin", "too_large")]
    (edited / "data.bin").unlink()
    assert tree.tree_oid == written_tree(edited, tmp_path / "scratch")


def test_a_working_tree_of_names_differing_in_case_is_two_files(tmp_path):
    """On a case-sensitive file system `A.py` and `a.py` are two files: the working tree's
    snapshot holds both, as git writes them, and each path finds its own."""
    import pygit2

    from indexer.git.worktree import read_worktree

    repo = tmp_path / "checkout"
    repo.mkdir()
    (repo / "A.py").write_text("def upper():\n    return 1\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "core.ignorecase", "false")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "a.py").write_text("def lower():\n    return 2\n")
    (repo / "A.py").write_text("def upper_edited():\n    return 1\n")
    before = state_of(repo)
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert tree.tree_oid == written_tree(repo, tmp_path / "scratch") and tree.changed == ["A.py", "a.py"]
    assert state_of(repo) == before
    home = tmp_path / "home"
    for path, name in (("A.py", "upper_edited"), ("a.py", "lower")):
        out = rennet("context", "file", path, "--repo", str(repo), "--worktree", "--json", home=home)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)["data"]
        assert data["meta"]["path"] == path and [o["name"] for o in data["outline"]["items"]] == [name]


def test_a_path_git_reads_as_dot_git_is_left_out_and_listed(tmp_path):
    """A working-tree path with a part git reads as `.git` (NTFS's `git~1` and trailing dots,
    HFS+'s ignored code points) is left out of the tree and listed, as a commit holding it
    would be refused (`bad_tree`); the rest is read and indexed as git writes it."""
    import pygit2

    from indexer import api
    from indexer.git.worktree import read_worktree

    repo = make_checkout(tmp_path)
    (repo / ".git.").write_text("def dotted(): pass\n")
    (repo / "git~1").write_text("def short(): pass\n")
    (repo / "pkg" / ".g\u200cit").mkdir()
    (repo / "pkg" / ".g\u200cit" / "x.py").write_text("def hidden(): pass\n")
    (repo / "fine.py").write_text("def fine(): pass\n")
    before = state_of(repo)
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert state_of(repo) == before
    assert [s.path for s in tree.skipped] == [".git.", "git~1", "pkg/.g\u200cit/x.py"]
    assert all(s.reason.startswith("invalid_path: ") for s in tree.skipped)
    assert tree.changed == ["fine.py"]
    store = api.open_store(tmp_path / "home")
    try:
        snap = api.worktree_snapshot(pygit2.Repository(str(repo)), tree, store=store, workers=1)
        assert [f.path for f in snap.files] == [".gitignore", "fine.py", "helpers_link.py", "pkg/gone.py",
                                                "pkg/helpers.py", "run.sh"]
    finally:
        store.close()
    for name in (".git.", "git~1", "pkg/.g\u200cit"):
        shutil.rmtree(repo / name) if (repo / name).is_dir() else (repo / name).unlink()
    assert tree.tree_oid == written_tree(repo, tmp_path / "scratch")


def test_nothing_beyond_a_symlinked_folder_is_read_from_outside_the_checkout(tmp_path):
    """A tracked `conf/id_rsa` whose folder became a link to a folder outside the checkout is
    listed as changed; git adds nothing beyond a link, so the file is gone from the tree, never
    the outside file read in its place. FIFOs and links to devices are no files to read."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("OUTSIDE-PRIVATE-KEY\n")
    repo = tmp_path / "checkout"
    (repo / "conf").mkdir(parents=True)
    (repo / "conf" / "id_rsa").write_text("placeholder\n")
    (repo / "conf" / "deep").mkdir()
    (repo / "conf" / "deep" / "id_rsa").write_text("placeholder\n")
    (repo / "main.py").write_text("def main():\n    return 0\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    shutil.rmtree(repo / "conf")
    os.symlink(outside, repo / "conf")
    os.mkfifo(repo / "pipe")
    os.symlink("/dev/zero", repo / "zero")
    (repo / "main.py").write_text("def main():\n    return 10\n")
    client = context_tools.Client(store=str(tmp_path / "home"))
    result = client.call("context.file", repo=str(repo), path="main.py", worktree=True)
    # what git writes, from a copy of the index (a copy of the checkout cannot hold the FIFO)
    shutil.copy(repo / ".git" / "index", tmp_path / "index")
    env = {**os.environ, **GIT_ENV, "GIT_INDEX_FILE": str(tmp_path / "index")}
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True, capture_output=True)
    tree = subprocess.run(["git", "write-tree"], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()
    assert result.freshness.pinned_oid == tree
    import pygit2

    git_repo = pygit2.Repository(str(repo))
    blobs = []
    stack = [("", git_repo[tree])]
    while stack:
        prefix, folder = stack.pop()
        for entry in folder:
            if entry.type_str == "tree":
                stack.append((f"{prefix}{entry.name}/", git_repo[entry.id]))
            else:
                blobs.append((f"{prefix}{entry.name}", oct(entry.filemode), git_repo[entry.id].data))
    assert sorted(blobs) == [("conf", "0o120000", str(outside).encode()), ("main.py", "0o100644", b"def main():\n    return 10\n"),
                             ("zero", "0o120000", b"/dev/zero")]
    for path in ("conf/id_rsa", "conf/deep/id_rsa"):
        with pytest.raises(RennetError) as err:
            client.call("context.file", repo=str(repo), path=path, worktree=True)
        assert err.value.code == "not_found"


def test_a_tracked_file_that_became_a_fifo_or_lies_beyond_a_deeper_link_is_gone_from_the_tree(tmp_path):
    """Tracked files git adds nothing for: one whose folder two levels down (`conf/deep`) became
    a link to a folder outside the checkout (the tree is the one git writes, the outside file
    never read in its place), and one replaced by a FIFO (git's `add -A` refuses it; no file
    to read: gone from the tree, as a deleted one)."""
    import pygit2

    from indexer.git.worktree import read_worktree

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("OUTSIDE-PRIVATE-KEY\n")
    repo = tmp_path / "checkout"
    (repo / "conf" / "deep").mkdir(parents=True)
    (repo / "conf" / "deep" / "id_rsa").write_text("placeholder\n")
    (repo / "conf" / "keep.txt").write_text("kept\n")
    (repo / "pipe.txt").write_text("a file for now\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    shutil.rmtree(repo / "conf" / "deep")
    os.symlink(outside, repo / "conf" / "deep")
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert tree.tree_oid == written_tree(repo, tmp_path / "scratch")
    assert tree.changed == ["conf/deep", "conf/deep/id_rsa"]  # the link added as a link
    (repo / "pipe.txt").unlink()
    os.mkfifo(repo / "pipe.txt")
    tree = read_worktree(pygit2.Repository(str(repo)))
    (repo / "pipe.txt").unlink()
    assert tree.tree_oid == written_tree(repo, tmp_path / "scratch2")
    assert tree.changed == ["conf/deep", "conf/deep/id_rsa", "pipe.txt"]


def test_a_tracked_file_grown_over_the_cap_is_left_out_of_the_tree(edited, monkeypatch):
    """A tracked file over the cap is not hashed: it is left out of the tree (not kept as the
    commit had it) and listed as skipped."""
    import pygit2

    from indexer.git import worktree

    monkeypatch.setattr(worktree, "FILE_CAP", 1000)
    repo = pygit2.Repository(str(edited))
    tracked = next(e.path for e in repo.index if e.mode == pygit2.GIT_FILEMODE_BLOB)
    (edited / tracked).write_bytes(b"#" * 1001)
    tree = worktree.read_worktree(repo)
    assert [(s.path, s.reason.split(":")[0]) for s in tree.skipped] == [(tracked, "too_large")]
    assert tracked in tree.changed
    with pytest.raises(KeyError):
        repo[tree.tree_oid].peel(pygit2.Tree)[tracked]


def test_the_executable_bit_is_read_as_git_reads_it_with_file_mode_on_and_off(tmp_path):
    """git records a file as executable when its owner may run it (0o744 is, 0o711 too,
    0o645 is not); with `core.fileMode` off a tracked file keeps the mode its commit has and
    a new file is not executable. Each tree is the one git writes."""
    import pygit2

    from indexer.git.worktree import read_worktree

    repo = make_checkout(tmp_path)
    os.chmod(repo / "run.sh", 0o744)
    (repo / "tool.sh").write_text("echo tool\n")
    os.chmod(repo / "tool.sh", 0o645)
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert tree.tree_oid == written_tree(repo, tmp_path / "on")
    assert pygit2.Repository(str(repo))[tree.tree_oid].peel(pygit2.Tree)["run.sh"].filemode == 0o100755
    git(repo, "config", "core.fileMode", "false")
    git(repo, "update-index", "--chmod=+x", "run.sh")
    git(repo, "commit", "-q", "-m", "run.sh executable")
    os.chmod(repo / "run.sh", 0o644)  # the bit dropped in the checkout: git keeps the commit's
    os.chmod(repo / "tool.sh", 0o755)  # new and runnable: git records it as a plain file
    (repo / "run.sh").write_text("echo run again\n")
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert tree.tree_oid == written_tree(repo, tmp_path / "off")
    modes = {e.name: e.filemode for e in pygit2.Repository(str(repo))[tree.tree_oid].peel(pygit2.Tree)}
    assert (modes["run.sh"], modes["tool.sh"]) == (0o100755, 0o100644)


def test_a_file_hashed_before_is_hashed_again_once_it_changed(tmp_path, monkeypatch):
    """A changed file's blob is kept by its stat data for the next read of the working tree
    once the file is older than a racy change could be (the clock read as ten seconds on);
    rewritten, the same size but at another time, it is hashed again."""
    import time

    import pygit2

    from indexer.git import checkout_memo, worktree

    monkeypatch.setattr(checkout_memo, "now_ns", lambda: time.time_ns() + 10 * 10**9)
    repo = make_checkout(tmp_path)
    helpers = repo / "pkg" / "helpers.py"
    for n, stamp in ((1, 1_000_000_000), (2, 1_000_000_100)):
        helpers.write_text(f"def helper_{n}():\n    return {n}\n")
        os.utime(helpers, ns=(stamp * 10**9, stamp * 10**9))
        tree = worktree.read_worktree(pygit2.Repository(str(repo)))
        blob = pygit2.Repository(str(repo))[tree.tree_oid].peel(pygit2.Tree)["pkg/helpers.py"]
        assert blob.data == helpers.read_bytes(), n


def test_a_nested_repository_with_no_commit_and_an_untracked_fifo_are_not_in_the_tree(tmp_path):
    """Nothing git could add: an untracked nested repository with no commit yet, and an
    untracked FIFO, are neither in the tree, nor skipped as unreadable, nor changed."""
    import pygit2

    from indexer.git.worktree import read_worktree

    repo = make_checkout(tmp_path)
    pygit2.init_repository(str(repo / "nested"))
    (repo / "nested" / "notes.txt").write_text("not committed\n")  # listed by status as `nested/`
    os.mkfifo(repo / "pipe")
    tree = read_worktree(pygit2.Repository(str(repo)))
    assert tree.skipped == [] and tree.changed == []
    assert tree.tree_oid == git(repo, "rev-parse", "HEAD^{tree}")


def test_a_worktree_servers_agent_is_told_what_its_answers_and_misses_are_of(edited, worktree_server, tmp_path):
    """A coding agent on a `--worktree` server: its instructions say its calls answer from the
    working tree and index it themselves (were: "at a pinned commit", "read tools never index");
    a miss of a name or file it deleted names the working tree, since an error carries no
    freshness (was: a bare tree OID, as a commit is named); and `repo_snapshots` lists the
    checkout's working-tree snapshot as `worktree` (was: `unknown`, "WORKTREE no longer resolves
    in the repository", beside answers of that very tree); a commit not indexed is `not_indexed`
    with the call to make, not "this tool only reads and never indexes", untrue there; a cursor of
    a page read before an edit says the working tree changed (was: "issued for another snapshot",
    which named no cause an agent could see)."""
    from tests.mcp_clients import text_of

    # a commit of its own: the shared server's store may hold another test's commit of the same tree and time
    git(edited, "commit", "-q", "--allow-empty", "-m", str(tmp_path))

    async def work(client):
        gone = await client.call_tool("context_symbol", {"repo": str(edited), "name": "gone_function",
                                                         "fuzzy": False})
        no_file = await client.call_tool("context_file", {"repo": str(edited), "path": "pkg/gone.py"})
        no_refs = await client.call_tool("context_references", {"repo": str(edited), "name": "gone_function",
                                                                "kind": "function"})
        listed = await client.call_tool("repo_snapshots", {"repo": str(edited)})
        novelty = await client.call_tool("context_novelty", {"repo": str(edited), "base": "main"})
        first = text_of(await client.call_tool("context_file", {"repo": str(edited), "path": "pkg/helpers.py",
                                                                "limit": 1}))
        tree = written_tree(edited, tmp_path / "scratch")  # what the calls above read
        (edited / "pkg" / "other.py").write_text("def another():\n    pass\n")  # an edit elsewhere
        moved = await client.call_tool("context_file", {"repo": str(edited), "path": "pkg/helpers.py",
                                                        "limit": 1, "cursor": first["page"]["cursor"]})
        return (client.instructions, text_of(gone), text_of(no_file), text_of(no_refs), text_of(listed),
                text_of(novelty), text_of(moved), tree)

    told, gone, no_file, no_refs, listed, novelty, moved, tree = worktree_server.run(work)
    # a page's cursor after an edit: the edit is named as why, with what to do over MCP
    assert moved["error"]["code"] == "bad_cursor"
    assert "the working tree changed since the page it came from" in moved["error"]["message"], moved
    assert "repeat the query without a cursor" in moved["error"]["message"]
    # the base commit is not indexed: the call to make, and no claim that this server's tools never index
    assert novelty["error"]["code"] == "not_indexed" and "`repo_index` tool" in novelty["error"]["message"]
    assert "never indexes" not in novelty["error"]["message"], novelty
    assert "working tree as it is now" in told and "Read tools never index" not in told
    assert "a Git repository at a pinned commit" not in told
    named = f"the working tree as it is now (tree {tree[:12]})"
    assert gone["error"]["code"] == "not_found" and named in gone["error"]["message"], gone
    assert no_file["error"]["code"] == "not_found" and f"is not a file of {named}" in no_file["error"]["message"]
    assert no_refs["error"]["code"] == "not_found" and named in no_refs["error"]["message"], no_refs
    rows = {row["rev"]: row for row in listed["data"]["revs"]}
    assert rows["WORKTREE"]["pinned_oid"] == tree and rows["WORKTREE"]["status"] == "worktree"
    assert rows["WORKTREE"]["current_oid"]["unknown"] == "not_assessed"


def test_a_changed_file_the_index_did_not_parse_is_named_in_the_freshness(edited, tmp_path, monkeypatch):
    """An agent that writes a file past the parse cap (1 MiB) asks for a name in it and reads a
    miss: the answer's freshness names each changed file left unparsed and why, so the miss is
    not read as the name's absence (was: nothing said it; `worktree.skipped` lists only files the
    working tree's read left out). A binary file is not named: nobody looks in one for a name.
    A file the read left out is not called unreadable when it is over the cap (was: "N unreadable
    files left out" for both). One file is told in the singular (was: "1 files left out", "1 of
    the changed files were not parsed")."""
    from indexer.git import worktree

    monkeypatch.setattr(worktree, "FILE_CAP", 2_000_000)
    big = "def big_one():\n    return 1\n" + "x = 1\n" * 200_000
    (edited / "pkg" / "big.py").write_text(big)
    (edited / "pkg" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" * 64)
    (edited / "dump.sql").write_text("-- data\n" * 300_000)
    client = context_tools.Client(store=str(tmp_path / "home"))
    result = client.call("context.symbol", repo=str(edited), name="fresh_helper", worktree=True)
    assert result.freshness.status == "worktree"
    reason = result.freshness.reason
    assert "1 of the changed files was not parsed, so no answer finds its names: pkg/big.py (too_large)" in reason
    assert "logo.png" not in reason and "dump.sql" not in reason
    assert "; 1 file left out of it (listed in worktree.skipped)" in reason
    assert result.freshness.worktree.skipped == ["dump.sql"]
    # past UNPARSED_SHOWN (lowered to 1) the rest are counted, not named: a minified script is the second
    from context_tools.query import worktree as freshness_of

    monkeypatch.setattr(freshness_of, "UNPARSED_SHOWN", 1)
    again = client.call("context.symbol", repo=str(edited), name="fresh_helper", worktree=True).freshness.reason
    assert again.endswith("1 of the changed files was not parsed, so no answer finds its names: pkg/big.py (too_large)")  # one, no more
    (edited / "pkg" / "app.min.js").write_text("var a=" + "1+" * 3000 + "1;\n")
    third = client.call("context.symbol", repo=str(edited), name="fresh_helper", worktree=True).freshness.reason
    assert third.endswith("2 of the changed files were not parsed, so no answer finds their names: "
                          "pkg/app.min.js (minified), ...")
