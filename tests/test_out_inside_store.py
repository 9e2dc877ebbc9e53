"""`--out` of `rennet snapshot dump` and `rennet export` never names a file of the store: the
new file would be renamed over the store's own (its LMDB data file) and every snapshot in it
lost. Such a path is `bad_input` before anything is written, and the store reads as before in
a later process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from tests.cli_runs import run_cli

ROOT = Path(__file__).resolve().parent.parent


def rennet(home: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, "--store", str(home), "--json", text=False)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = tmp_path_factory.mktemp("out-inside-store")
    builder = RepoBuilder(root / "repo")
    builder.commit({"a.py": "def f():\n    return 1\n"})
    home = root / "store"
    done = rennet(home, "index", str(builder.path))
    assert done.returncode == 0, done.stderr.decode()
    (root / "link").symlink_to(home / "lmdb")  # a folder of the store, reached through a link
    return root, builder.path, home


@pytest.mark.parametrize("verb", ["dump", "export"])
@pytest.mark.parametrize("where", ["lmdb/data.mdb", "lmdb/lock.mdb", "lmdb/new-file", "write.lock", "../link/data.mdb",
                                   "untrusted/x/lmdb/data.mdb"])
def test_an_out_inside_the_store_is_bad_input_and_the_store_is_kept(indexed, verb, where):
    root, repo, home = indexed
    out = str(home / where)
    args = ("snapshot", "dump", "--repo", str(repo), "--out", out) if verb == "dump" else \
        ("export", "--repo", str(repo), "--out", out)
    done = rennet(home, *args)
    assert done.returncode != 0
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "bad_input" and "inside the store" in error["message"], error
    listed = rennet(home, "store", "list")  # a later process reads every snapshot as before
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert len(json.loads(listed.stdout)["data"]["snapshots"]) == 1
    assert not (home / "lmdb" / "new-file").exists()


@pytest.mark.parametrize("verb", ["dump", "export"])
def test_an_out_beside_the_stores_own_files_is_written(indexed, verb):
    """The store's folder may be a home a user chose: a file beside the store's own is theirs."""
    root, repo, home = indexed
    out = home / f"beside.{verb}"
    args = ("snapshot", "dump", "--repo", str(repo), "--out", str(out)) if verb == "dump" else \
        ("export", "--repo", str(repo), "--out", str(out))
    done = rennet(home, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.stat().st_size > 0


@pytest.mark.parametrize("verb", ["dump", "export"])
def test_an_out_in_a_folder_that_is_not_there_is_bad_input_naming_it_before_any_work(indexed, verb):
    """`--out` in a folder that does not exist is `bad_input` naming the folder, told before the
    rev is indexed (dump) or its facts read (export)."""
    root, repo, home = indexed
    out = root / "no-such-folder" / f"x.{verb}"
    args = ("snapshot", "dump", "--repo", str(repo), "--rev", "no-such-rev", "--out", str(out)) if verb == "dump" \
        else ("export", "--repo", str(repo), "--rev", "no-such-rev", "--out", str(out))
    done = rennet(home, *args)
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "bad_input", error
    assert error["message"] == f"cannot write {out}: its folder {out.parent} does not exist; create it first"
    assert not out.parent.exists()
