"""A checkout whose files of git's rules are no regular files: libgit2 opens a `.gitignore`,
a `.gitattributes`, the index and the git directory's `info/exclude` blocking and through links,
so a FIFO in the place of one held a read of the working tree (and every dirty check of the commit the
checkout is on) waiting for a writer for good.

Each test watches the FIFOs it makes: any open of one for reading is let go at once (a writer
opens and closes it, so the reader meets its end) and counted, so code that waits on one fails
its assertions instead of hanging."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pygit2
import pytest

from indexer.contract.errors import RennetError
from indexer.git import checkout_memo
from indexer.git.worktree import changed_on, read_worktree
from tests.test_worktree import git, make_checkout

# Run apart from the test's process: libgit2 waits on a FIFO holding the GIL, so no thread of
# the test could let it go.
_WATCH = """
import os, sys, time
while True:
    for fifo in sys.argv[1:]:
        try:  # succeeds only while a reader has it open, and ends that reader's wait
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            continue
        print(fifo, flush=True)
    time.sleep(0.01)
"""


@contextmanager
def watched(*fifos: Path) -> Iterator[list[str]]:
    """The FIFOs someone opened for reading while inside, each let go as soon as it was."""
    opened: list[str] = []
    watcher = subprocess.Popen([sys.executable, "-c", _WATCH, *map(str, fifos)], stdout=subprocess.PIPE, text=True)
    try:
        yield opened
    finally:
        watcher.kill()
        opened.extend(watcher.communicate()[0].split())


def _refused(repo: Path) -> RennetError:
    with pytest.raises(RennetError) as err:
        read_worktree(pygit2.Repository(str(repo)))
    return err.value


@pytest.mark.parametrize("place", [".gitignore", "pkg/.gitignore", ".gitattributes", ".git/info/exclude",
                                   "link:.gitignore", "nested/.gitignore", ".git/index"])
def test_a_fifo_in_the_place_of_a_file_of_gits_rules_is_bad_input_and_never_waited_on(tmp_path, place):
    repo = make_checkout(tmp_path)
    (repo / "pkg" / "helpers.py").write_text("def changed():\n    return 2\n")  # a file to filter into a blob
    if place.startswith("link:"):  # a link to a FIFO outside the checkout: libgit2 follows it
        fifo = tmp_path / "outside.fifo"
        named = place.removeprefix("link:")
        (repo / named).unlink()
        os.symlink(fifo, repo / named)
    else:
        fifo = repo / place
        named = place
        fifo.unlink(missing_ok=True)
        if place.startswith("nested/"):  # a repository of its own: git's status reads its rules too
            pygit2.init_repository(str(fifo.parent))
    os.mkfifo(fifo)
    with watched(fifo) as opened:
        error = _refused(repo)
        dirty = changed_on(pygit2.Repository(str(repo)), git(repo, "rev-parse", "HEAD"))
    assert opened == []
    assert error.code == "bad_input" and named in error.message and "not a regular file" in error.message
    assert dirty == 0  # the dirty check cannot read the status: the commit's freshness stands


def test_a_fifo_in_a_folder_git_ignores_leaves_the_read_as_it_was(tmp_path):
    """A FIFO `.gitignore` in an ignored folder, which git's status never walks, is no file
    libgit2 opens: the read goes on and the tree is HEAD's."""
    repo = make_checkout(tmp_path)
    (repo / "build" / "deep").mkdir(parents=True)  # `build/` is ignored
    os.mkfifo(repo / "build" / "deep" / ".gitignore")
    with watched(repo / "build" / "deep" / ".gitignore") as opened:
        tree = read_worktree(pygit2.Repository(str(repo)))
    assert opened == []
    assert tree.tree_oid == git(repo, "rev-parse", "HEAD^{tree}") and tree.changed == []


def test_a_fifo_made_after_its_folder_was_listed_is_still_found(tmp_path, monkeypatch):
    """Folders are listed again only once their entries changed: a FIFO made in a folder read
    before, and a link whose target became a FIFO in a folder that did not change, are found."""
    repo = make_checkout(tmp_path)
    (repo / "pkg" / "inner").mkdir()
    (repo / "pkg" / "inner" / "x.py").write_text("x = 1\n")
    target = tmp_path / "rules"
    target.write_text("*.tmp\n")
    os.symlink(target, repo / "pkg" / ".gitattributes")
    monkeypatch.setattr(checkout_memo, "RACY_NS", -1)  # every listing kept, however new its folder
    read_worktree(pygit2.Repository(str(repo)))
    os.mkfifo(repo / "pkg" / "inner" / ".gitignore")
    with watched(repo / "pkg" / "inner" / ".gitignore") as opened:
        error = _refused(repo)
    assert opened == [] and "pkg/inner/.gitignore" in error.message
    (repo / "pkg" / "inner" / ".gitignore").unlink()
    read_worktree(pygit2.Repository(str(repo)))
    target.unlink()
    os.mkfifo(target)  # the link's folder is as it was
    with watched(target) as opened:
        error = _refused(repo)
    assert opened == [] and "pkg/.gitattributes" in error.message


def test_a_worktree_server_answers_a_fifo_gitignore_typed_and_serves_the_checkout_after(tmp_path, worktree_server):
    """Over MCP the call is `bad_input` on one line; once the FIFO is gone the same checkout is
    answered (was: the call waited for good, and with it the checkout's turn and one of the
    server's 8 call slots)."""
    from tests.mcp_clients import text_of

    repo = make_checkout(tmp_path)
    git(repo, "commit", "-q", "--allow-empty", "-m", str(tmp_path))  # a commit no other test's store holds
    os.mkfifo(repo / "pkg" / ".gitignore")

    async def work(client):
        with watched(repo / "pkg" / ".gitignore") as opened:
            refused = text_of(await client.call_tool("context_symbol", {"repo": str(repo), "name": "old_helper"}))
        (repo / "pkg" / ".gitignore").unlink()
        answered = text_of(await client.call_tool("context_symbol", {"repo": str(repo), "name": "old_helper"}))
        return opened, refused, answered

    opened, refused, answered = worktree_server.run(work)
    assert opened == []
    assert refused["error"]["code"] == "bad_input" and "pkg/.gitignore" in refused["error"]["message"], refused
    assert answered["ok"] and answered["freshness"]["status"] == "worktree", answered
