"""What a rev or a `--repo` that names nothing usable is said as (`indexer.git.read`):
each a typed error saying why, in the user's words."""

from __future__ import annotations

import subprocess

import pytest

from corpora.gitbuild import RepoBuilder
from indexer.contract.errors import MissingObjects, NotARepository, UnknownRev
from indexer.git.read import open_repo, resolve_rev


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
    """libgit2's complaint about a name it does not know is the name again: said once."""
    with pytest.raises(UnknownRev) as raised:
        resolve_rev(shallow, "no-such-branch")
    assert raised.value.message == "unknown revision 'no-such-branch'"
