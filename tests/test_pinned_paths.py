"""How a path an agent or a user gives is read as the path a snapshot names a file by
(`context_tools/query/pinned.py`): the `./` and slashes a shell leaves dropped, and an absolute
path inside the checkout (as an agent's own file tools name a file) taken relative to its top
folder, the folders above the file resolved as the checkout's own top is, the file's own name
kept. Read off real snapshots, through the Python API."""

from __future__ import annotations

import os
import subprocess

import pytest

from context_tools.query.pinned import snapshot_path, tree_path
from corpora.gitbuild import Link, RepoBuilder
from indexer import api
from indexer.store.database import Store


@pytest.mark.parametrize(("given", "named"), [
    ("src/app.py", "src/app.py"),
    ("./src/app.py", "src/app.py"),
    ("././src/app.py", "src/app.py"),  # a completion after a completion
    (".//src/app.py", "src/app.py"),
    ("././/./src/", "src"),
    ("src/", "src"),
    ("/src/app.py", "src/app.py"),
    ("./", ""),
    ("..data", "..data"),  # a name starting with dots is a name
])
def test_a_tree_path_drops_every_leading_dot_slash_and_the_slashes_around(given, named):
    assert tree_path(given) == named


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    """A checkout under a folder reached through a link (as `/tmp` is on some systems), holding a
    link of its own and a file whose name starts with two dots; and its snapshot, opened through
    the link."""
    root = tmp_path_factory.mktemp("pinned")
    builder = RepoBuilder(root / "real" / "repo")
    builder.commit({"pkg/app.py": "class App:\n    pass\n", "..data": "kept\n", "alias.py": Link("pkg/app.py")})
    (root / "real" / "repo" / "pkg").mkdir()
    (root / "real" / "repo" / "pkg" / "app.py").write_text("class App:\n    pass\n")
    os.symlink("pkg/app.py", root / "real" / "repo" / "alias.py")  # as a checkout writes it
    os.symlink(root / "real", root / "link")
    with Store.open(root / "store") as store:
        snap = api.snapshot(str(root / "link" / "repo"), "HEAD", store=store)
        yield root, snap


def test_an_absolute_path_through_a_linked_folder_is_read_inside_the_checkout(linked):
    """The checkout's folder named through the link or as it really is: the same file."""
    root, snap = linked
    assert snapshot_path(snap, str(root / "link" / "repo" / "pkg" / "app.py")) == "pkg/app.py"
    assert snapshot_path(snap, str(root / "real" / "repo" / "pkg" / "app.py")) == "pkg/app.py"
    assert snapshot_path(snap, str(root / "link" / "repo" / "pkg")) == "pkg"


def test_a_link_in_the_tree_named_by_absolute_path_is_that_link_not_its_target(linked):
    """A link in the tree is a file of its own: naming it is asking for it, not for the file it
    points at."""
    root, snap = linked
    assert snap.file("alias.py") is not None and snap.file("alias.py").target == "pkg/app.py"
    assert snapshot_path(snap, str(root / "link" / "repo" / "alias.py")) == "alias.py"


def test_a_top_file_whose_name_starts_with_two_dots_is_inside_the_checkout(linked):
    root, snap = linked
    assert snap.file("..data") is not None
    assert snapshot_path(snap, str(root / "real" / "repo" / "..data")) == "..data"


def test_an_absolute_path_of_a_bare_repository_is_read_as_a_tree_path(linked, tmp_path):
    """A bare repository has no top folder a file stands in: an absolute path is read as the
    tree path it spells (a typed miss after), never a TypeError of resolving no folder."""
    root, _ = linked
    subprocess.run(["git", "clone", "-q", "--bare", str(root / "real" / "repo"), str(tmp_path / "bare.git")],
                   check=True)
    with Store.open(tmp_path / "store") as store:
        bare = api.snapshot(str(tmp_path / "bare.git"), "HEAD", store=store)
        assert bare.repo.workdir is None
        assert snapshot_path(bare, "/pkg/app.py") == "pkg/app.py"
        assert snapshot_path(bare, "./pkg/app.py") == "pkg/app.py"
