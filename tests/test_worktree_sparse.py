"""A sparse checkout's working tree: the files outside its cone are not checked out, and the
index marks them skip-worktree, so `git add -A` keeps them as the index holds them. libgit2's
status lists them deleted; a working-tree snapshot read so dropped every one of them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pygit2
import pytest

from indexer.contract.errors import RennetError
from indexer.git.worktree import changed_on, read_worktree
from tests.test_worktree import git


def _written_by_git(repo: Path, scratch: Path) -> str:
    """What `git add -A && git write-tree` writes for the checkout, on a copy of its index."""
    index = scratch / "index"
    shutil.copy(repo / ".git" / "index", index)
    env = {"GIT_INDEX_FILE": str(index)}
    os.environ.update(env)
    try:
        git(repo, "add", "-A")
        return git(repo, "write-tree")
    finally:
        for name in env:
            os.environ.pop(name)


def _checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "checkout"
    for folder in ("app", "docs/guide", "docs/api"):
        (repo / folder).mkdir(parents=True)
        for n in range(3):
            (repo / folder / f"part_{n}.py").write_text(f"def f{n}():\n    return {n}\n")
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    return repo


@pytest.fixture(params=["3", "4"])
def sparse(request, tmp_path) -> Path:
    """A sparse checkout of `app/` alone, its index of format version 3 or 4."""
    repo = _checkout(tmp_path)
    git(repo, "sparse-checkout", "set", "--cone", "app")
    git(repo, "update-index", f"--index-version={request.param}")
    assert not (repo / "docs").exists()
    return repo


def test_files_outside_a_sparse_checkouts_cone_stay_in_the_tree_git_writes(sparse, tmp_path):
    (sparse / "app" / "part_0.py").write_text("def edited():\n    return 9\n")
    (sparse / "app" / "new.py").write_text("def new():\n    return 1\n")
    tree = read_worktree(pygit2.Repository(str(sparse)))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert tree.tree_oid == _written_by_git(sparse, scratch)
    assert tree.changed == ["app/new.py", "app/part_0.py"]


def test_a_clean_sparse_checkout_is_not_dirty(sparse):
    head = git(sparse, "rev-parse", "HEAD")
    assert changed_on(pygit2.Repository(str(sparse)), head) == 0
    assert read_worktree(pygit2.Repository(str(sparse))).tree_oid == git(sparse, "rev-parse", "HEAD^{tree}")


def test_a_skip_worktree_file_staged_keeps_what_the_index_holds(tmp_path):
    repo = tmp_path / "checkout"
    repo.mkdir()
    (repo / "kept.py").write_text("x = 1\n")
    (repo / "other.py").write_text("y = 1\n")
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "kept.py").write_text("x = 2\n")
    git(repo, "add", "kept.py")  # staged, then marked and taken out of the working tree
    git(repo, "update-index", "--skip-worktree", "kept.py")
    (repo / "kept.py").unlink()
    tree = read_worktree(pygit2.Repository(str(repo)))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert tree.tree_oid == _written_by_git(repo, scratch)
    assert tree.changed == ["kept.py"]


def test_a_sparse_index_libgit2_cannot_read_is_bad_input_naming_the_way_out(tmp_path):
    """A sparse index (`--sparse-index`, folders as entries) carries an extension libgit2 refuses:
    a read of the working tree says so in one line (was: `internal_error`, GitError), and the dirty
    check of the commit's answer keeps the commit's freshness."""
    repo = _checkout(tmp_path)
    git(repo, "sparse-checkout", "set", "--cone", "--sparse-index", "app")
    with pytest.raises(RennetError) as err:
        read_worktree(pygit2.Repository(str(repo)))
    assert err.value.code == "bad_input" and "--no-sparse-index" in err.value.message
    assert changed_on(pygit2.Repository(str(repo)), git(repo, "rev-parse", "HEAD")) == 0
    git(repo, "sparse-checkout", "init", "--no-sparse-index")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert read_worktree(pygit2.Repository(str(repo))).tree_oid == _written_by_git(repo, scratch)
