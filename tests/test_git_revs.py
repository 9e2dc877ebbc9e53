"""What a rev or a `--repo` that names nothing usable is said as (`indexer.git.read`):
each a typed error saying why, in the user's words."""

from __future__ import annotations

import subprocess

import pytest

from corpora.gitbuild import RepoBuilder
from indexer.contract.errors import MissingObjects, NotARepository, UnknownRev
from indexer.git.read import open_repo, require_commit, resolve_rev


@pytest.fixture(scope="module")
def shallow(tmp_path_factory):
    """A clone holding only the last of three commits."""
    root = tmp_path_factory.mktemp("shallow")
    builder = RepoBuilder(root / "full")
    for n in range(3):
        builder.commit({"a.py": f"A = {n}\n"})
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{builder.path}", str(root / "clone")], check=True)
    return open_repo(root / "clone")


@pytest.mark.parametrize("rev", ["HEAD~1", "HEAD^", "HEAD^1", "main~2", "HEAD^^"])
def test_a_rev_past_a_shallow_clones_boundary_says_to_fetch_more(shallow, rev):
    with pytest.raises(MissingObjects, match="reaches past the shallow boundary of this clone; fetch more history"):
        resolve_rev(shallow, rev)


@pytest.mark.parametrize("rev", ["-n", "--all", "-1"])
def test_a_rev_that_reads_as_an_option_is_not_a_revision(shallow, rev):
    with pytest.raises(UnknownRev, match="is not a revision"):
        resolve_rev(shallow, rev)


def test_a_repo_that_is_not_there_is_said_to_not_exist(tmp_path):
    with pytest.raises(NotARepository, match=f"{tmp_path / 'gone'} does not exist"):
        open_repo(tmp_path / "gone")


def test_a_rev_naming_nothing_is_said_once(shallow):
    """libgit2's complaint about a name it does not know is the name again: said once, then the
    branches it may have meant (an agent's `main` where the branch is `master`; was: none)."""
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(shallow, "no-such-branch")
    assert raised.value.message == "unknown revision 'no-such-branch'; the repository's branches: main"


def test_a_second_parent_of_a_commit_with_one_is_an_unknown_rev(tmp_path):
    builder = RepoBuilder(tmp_path / "r")
    builder.commit({"a.py": "A = 1\n"})
    builder.commit({"a.py": "A = 2\n"})
    with pytest.raises(UnknownRev):
        resolve_rev(open_repo(tmp_path / "r"), "HEAD^2")


def test_a_rev_back_past_the_first_commit_says_how_far_back_its_base_goes(tmp_path):
    """`HEAD~5` in a history of three commits: the message counts HEAD's first parents, so the
    reader sees how far back it may ask; within the history the rev resolves, and a base that
    names nothing gets no count."""
    builder = RepoBuilder(tmp_path / "r")
    for n in range(3):
        builder.commit({"a.py": f"A = {n}\n"})
    repo = open_repo(tmp_path / "r")
    assert resolve_rev(repo, "HEAD~2") == str(repo.revparse_single("HEAD~2").id)
    for rev, count in (("HEAD~3", "2 commits"), ("HEAD~5", "2 commits"), ("HEAD~1~2", "1 commit")):
        with pytest.raises(UnknownRev) as raised:
            resolve_rev(repo, rev)
        base = rev.rsplit("~", 1)[0]
        assert raised.value.message == f"unknown revision {rev!r}; {base} has {count} before it on its first-parent line"
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(repo, "HEAD~2~1")  # the first commit itself
    assert raised.value.message == "unknown revision 'HEAD~2~1'; HEAD~2 has no commit before it"
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(repo, "nothing~1")
    assert "first-parent" not in raised.value.message


def test_a_pinned_commit_is_a_whole_oid_naming_a_commit(tmp_path):
    """`require_commit` (a bundle's pinned commit): the start of an OID, or the OID of a tree,
    is no commit of the repository."""
    builder = RepoBuilder(tmp_path / "r")
    head = builder.commit({"a.py": "A = 1\n"})
    repo = open_repo(tmp_path / "r")
    require_commit(repo, head)
    for oid in (head[:12], str(repo[head].tree_id), "HEAD"):
        with pytest.raises(MissingObjects, match="is not in"):
            require_commit(repo, oid)


def test_a_checkout_whose_git_directory_is_elsewhere_is_read_from_its_own_folder(tmp_path):
    """A checkout made with `git init --separate-git-dir` (its `.git` a file naming the git
    directory): its work tree is its own folder, from itself or a subfolder, so its working
    tree is the one read (was: libgit2, opening the git directory found, took that folder's
    parent for the work tree, and `--worktree` read it). In a folder whose name is not
    UTF-8, that folder is refused, as a git directory there would be."""
    import os

    from indexer.contract.errors import BadInput
    from indexer.git.read import repository_places
    from indexer.git.worktree import read_worktree

    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "--separate-git-dir", str(tmp_path / "plain.git"), str(work)], check=True)
    (work / "sub").mkdir()
    (work / "sub" / "a.py").write_text("A = 1\n")
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "one"],
                   check=True)
    (work / "sub" / "a.py").write_text("A = 2\n")
    for where in (work, work / "sub"):
        repo = open_repo(where)
        assert repo.workdir == f"{work}/"
        assert read_worktree(repo).changed == ["sub/a.py"]
        places = repository_places(where)
        assert places is not None and places.folder == str(work)
    odd = os.fsdecode(os.fsencode(tmp_path) + b"/r\xffx")
    subprocess.run(["git", "init", "-q", "--separate-git-dir", str(tmp_path / "odd.git"), odd], check=True)
    with pytest.raises(BadInput, match="not UTF-8"):
        open_repo(odd)


@pytest.fixture(scope="module")
def paths_repo(tmp_path_factory):
    from corpora.gitbuild import Submodule

    root = tmp_path_factory.mktemp("paths")
    builder = RepoBuilder(root / "r")
    head = builder.commit({"a.py": "A = 1\n", "pkg/m.py": "M = 1\n", "sub": Submodule("1" * 40)})
    subprocess.run(["git", "-C", str(builder.path), "reset", "-q", "--mixed"], check=True)  # an index for `:path`
    repo = open_repo(builder.path)
    return repo, head


@pytest.mark.parametrize(("rev", "says"), [
    ("HEAD:", "names a tree ({tree})"), ("HEAD:pkg", "names a tree ({pkg})"), ("HEAD:sub", "names a commit (111111111111)"),
    ("HEAD:a.py", "names a blob ({a})"), (":a.py", "names a blob ({a})"), (":0:a.py", "names a blob ({a})"),
    ("HEAD:a.py/x", "unknown revision 'HEAD:a.py/x' ('a.py' is not a folder in HEAD)"),
    ("HEAD:pkg/none.py", "unknown revision 'HEAD:pkg/none.py' (no 'pkg/none.py' in HEAD)"),
])
def test_a_rev_naming_a_path_says_what_is_there(paths_repo, rev, says):
    """`rev:path` (or `:path`, `:N:path` of the index) names no commit: `unknown_rev` saying
    what the path names, as git's `cat-file -t` would, or why nothing is there."""
    repo, head = paths_repo
    tree = repo[head].tree
    oids = {"tree": str(tree.id)[:12], "pkg": str(tree["pkg"].id)[:12], "a": str(tree["a.py"].id)[:12]}
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(repo, rev)
    message = raised.value.message
    expected = says.format(**oids)
    assert message == expected if expected.startswith("unknown") else message == f"{rev!r} {expected}, not a commit"


def test_an_unknown_name_lists_five_branches_each_cut_to_100_characters(tmp_path):
    """The branches a name may have meant: the first five in name order, then `...`; a ref name,
    which may run to kilobytes, cut to 100 characters; none said where the repository has none."""
    builder = RepoBuilder(tmp_path / "r")
    oid = builder.commit({"a.py": "A = 1\n"})
    repo = open_repo(tmp_path / "r")
    commit = repo.get(oid)
    for name in ("b1", "b2", "b3", "x" * 120):
        repo.branches.local.create(name, commit)
    with pytest.raises(UnknownRev) as raised:  # five: main and these four
        resolve_rev(repo, "nope")
    assert raised.value.message == f"unknown revision 'nope'; the repository's branches: b1, b2, b3, main, {'x' * 100}…"
    repo.branches.local.create("a0", commit)
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(repo, "nope")
    assert raised.value.message == "unknown revision 'nope'; the repository's branches: a0, b1, b2, b3, main, ..."
    repo.set_head(commit.id)  # detached, and then no branch at all
    for name in list(repo.branches.local):
        repo.branches.local.delete(name)
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(repo, "nope")
    assert raised.value.message == "unknown revision 'nope'"


def test_a_walk_back_cut_short_counts_no_commits(tmp_path, monkeypatch):
    """Past `_HISTORY_HINT` first parents the count stops, and a count that did not reach the
    first commit is not told as the history's length (the bound lowered for the test)."""
    from indexer.git import read

    builder = RepoBuilder(tmp_path / "r")
    for n in range(3):
        builder.commit({"a.py": f"A = {n}\n"})
    monkeypatch.setattr(read, "_HISTORY_HINT", 1)
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(open_repo(tmp_path / "r"), "HEAD~5")
    assert raised.value.message == "unknown revision 'HEAD~5'"
