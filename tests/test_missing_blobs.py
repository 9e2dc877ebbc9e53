"""A commit some of whose blobs the object database lacks (a blobless partial clone's): each
missing blob is listed as skipped (`missing_object`), the rest is indexed, the freshness says
`partial` with the count, and `--require-complete` refuses it as before."""

from __future__ import annotations

import json
import subprocess

import pygit2
import pytest

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.contract.errors import MissingObjects, UnknownRev
from indexer.store.database import Store

FILES = {
    "pkg/a.py": "def alpha():\n    return 1\n",
    "pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    return alpha()\n",
    "pyproject.toml": "[project]\nname = 'demo'\nversion = '1'\n",
    "README.md": "# demo\n",
}


@pytest.fixture
def clones(tmp_path):
    """The source repository, a blobless partial clone of it with only pkg/a.py's blob
    fetched, and the commit."""
    builder = RepoBuilder(tmp_path / "src")
    oid = builder.commit(FILES)
    subprocess.run(["git", "-C", str(builder.path), "config", "uploadpack.allowFilter", "true"], check=True)
    part = tmp_path / "part"
    subprocess.run(["git", "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{builder.path}",
                    str(part)], check=True, capture_output=True)
    # git fetches one blob on demand; libgit2 (the indexer's reader) never does
    subprocess.run(["git", "-C", str(part), "cat-file", "-p", f"{oid}:pkg/a.py"], check=True, capture_output=True)
    repo = pygit2.Repository(str(part))
    tree = repo[oid].peel(pygit2.Tree)
    assert tree["pkg"]["a.py"].id in repo.odb and tree["pkg"]["b.py"].id not in repo.odb
    return builder.path, part, oid


def test_a_partial_clone_indexes_with_each_missing_blob_skipped(clones, tmp_path):
    src, part, oid = clones
    with Store.open(tmp_path / "store") as store:
        report = api.index(str(part), store=store, workers=1)
        assert report.oid == oid
        assert {(s.path, s.reason) for s in report.skipped} == {
            ("pkg/b.py", "missing_object"), ("pyproject.toml", "missing_object"), ("README.md", "missing_object")}
        snap = api.snapshot(str(part), store=store)
        assert snap.missing_objects == 3
        by_path = {f.path: f for f in snap.files}
        assert by_path["pkg/a.py"].skipped == "" and by_path["pkg/a.py"].language == "python"
        assert [s.name for s in snap.facts("pkg/a.py").symbols] == ["alpha"]
        assert by_path["pkg/b.py"].skipped == "missing_object"
        partial_print = report.fingerprint
    with Store.open(tmp_path / "whole") as store:
        whole = api.index(str(src), store=store, workers=1)
    assert not whole.skipped and whole.fingerprint != partial_print


def test_the_freshness_says_partial_and_require_complete_refuses(clones, tmp_path):
    _, part, oid = clones
    home = str(tmp_path / "store")

    def rennet(*args: str) -> subprocess.CompletedProcess:
        import sys
        return subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "--store", home, *args],
                              capture_output=True, text=True)

    refused = rennet("index", "--repo", str(part), "--require-complete", "--quiet")
    assert refused.returncode != 0 and refused.stderr.count("\n") == 1 and "missing_objects" in refused.stderr
    done = rennet("index", "--repo", str(part), "--quiet", "--json")
    assert done.returncode == 0, done.stderr
    fresh = json.loads(done.stdout)["freshness"]
    assert fresh["status"] == "partial" and fresh["missing_objects"] == 3 and fresh["pinned_oid"] == oid
    # the stored partial snapshot is refused too when completeness is asked for
    again = rennet("index", "--repo", str(part), "--require-complete", "--quiet")
    assert again.returncode != 0 and "missing_objects" in again.stderr


def test_a_partial_snapshot_gives_way_once_its_blobs_are_at_hand(clones, tmp_path):
    src, part, oid = clones
    with Store.open(tmp_path / "store") as store:
        assert api.index(str(part), store=store, workers=1).skipped
        # a checkout fetches every blob it writes
        subprocess.run(["git", "-C", str(part), "reset", "-q", "--hard"], check=True, capture_output=True)
        full = api.index(str(part), store=store, workers=2)
        assert not full.skipped and not full.snapshot_reused
        assert api.snapshot(str(part), store=store).missing_objects == 0
    with Store.open(tmp_path / "whole") as store:
        assert api.index(str(src), store=store, workers=1).fingerprint == full.fingerprint


def test_a_shallow_boundary_stays_typed(tmp_path):
    builder = RepoBuilder(tmp_path / "src")
    builder.commit({"a.py": "x = 1\n"})
    builder.commit({"a.py": "x = 2\n"})
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{builder.path}", str(shallow)], check=True)
    with Store.open(tmp_path / "store") as store:
        with pytest.raises((MissingObjects, UnknownRev)) as info:
            api.index(str(shallow), "HEAD~1", store=store, workers=1)
    assert info.value.code in ("missing_objects", "unknown_rev")
