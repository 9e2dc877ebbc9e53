"""What a commit's blobs make indexing read: git stores thousands of blobs that differ by a
line each, or one of a million lines, in a few kilobytes of deltas, and parsing is paid by
the byte. The distinct blobs a snapshot reads are held to the `blob_bytes` limit, counted from
their headers before any is parsed; a blob over `READ_CAP` is never inflated, a link's target
past any path is never read."""

from __future__ import annotations

import json
import subprocess
import zlib
from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpora.gitbuild import Link, RepoBuilder
from indexer import api
from indexer.build import derive
from indexer.contract.errors import MissingObjects, TooLarge
from indexer.contract.limits import DEFAULT, Limits, in_force
from indexer.fleet import batch
from indexer.git import read as gitread
from indexer.store.database import Store
from tests.examples import examples
from tests.indexed import facts_stored
from tests.test_hostile_inputs import one_typed_line, rennet
from tests.test_hostile_trees import BLOB, raw_commit, raw_tree


def distinct(n: int, size: int, tag: str = "") -> dict[str, str]:
    """`n` Python files of `size` bytes each, no two alike."""
    out = {}
    for i in range(n):
        head = f"# {tag}{i}\n"
        out[f"m{i:03d}.py"] = head + "x = 1\n" * ((size - len(head)) // 6) + "#" * ((size - len(head)) % 6)
    return out


def test_blobs_past_what_a_snapshot_reads_are_refused_before_any_is_parsed(tmp_path, monkeypatch):
    """Five distinct blobs of 10,000 bytes against a limit of 40 KiB: `rennet index` refuses the
    commit in one typed line naming the setting that doubles it, parses none of its blobs, and
    the parent's snapshot answers as before."""
    b = RepoBuilder(tmp_path / "repo")
    parent = b.commit({"ok.py": "x = 1\n"})
    head = b.commit(distinct(5, 10_000))
    home = tmp_path / "home"
    monkeypatch.setenv("RENNET_LIMITS", "blob_bytes=40k")
    assert rennet("index", str(tmp_path / "repo"), "--rev", parent, home=home).returncode == 0
    before = facts_stored(home)
    out = rennet("index", str(tmp_path / "repo"), "--rev", head, home=home)
    one_typed_line(out, "too_large")
    assert "the blobs this snapshot would parse hold 50,000 bytes together, over the 40,960 a snapshot reads " \
           "($RENNET_LIMITS=blob_bytes=80k raises it); not indexed" in out.stderr
    assert facts_stored(home) == before
    kept = rennet("context", "file", "ok.py", "--repo", str(tmp_path / "repo"), "--rev", parent, "--json", home=home)
    assert kept.returncode == 0 and json.loads(kept.stdout)["data"]["meta"]["lines"] == 1


def test_at_the_limit_a_commit_is_indexed_and_past_it_refused_cold_or_from_its_parent(tmp_path):
    """Four blobs of 10,000 bytes are 40,000, at a limit of 40,000: indexed. A child adding one
    of 7 bytes is past it: refused from the parent's snapshot (which parses that one blob
    alone, counting the rest from the file table) as it is cold; the parent's stays."""
    b = RepoBuilder(tmp_path / "repo")
    parent = b.commit(distinct(4, 10_000))
    child = b.commit({"new.py": "y = 2\n#"})
    with in_force(Limits(blob_bytes=40_000)):
        with Store.open(tmp_path / "warm") as store:
            first = api.index(str(tmp_path / "repo"), parent, store=store, workers=1)
            with pytest.raises(TooLarge, match="the files of this snapshot hold 40,007 bytes together, over the 40,000"):
                api.index(str(tmp_path / "repo"), child, store=store, workers=1)
            kept = api.snapshot(str(tmp_path / "repo"), parent, store=store, index_if_absent=False)
            assert kept.fingerprint == first.fingerprint
        with Store.open(tmp_path / "cold") as store:
            with pytest.raises(TooLarge, match="hold 40,007 bytes together, over the 40,000"):
                api.index(str(tmp_path / "repo"), child, store=store, workers=2)


def test_one_blob_at_many_paths_is_counted_once(tmp_path):
    """A blob of 10,000 bytes at 300 folders is read once: within a limit of 12,000, indexed at
    every path."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    repo = b.repo
    one = repo.create_blob(distinct(1, 10_000)["m000.py"].encode())
    folder = raw_tree(repo, [(BLOB, b"m.py", one)])
    head = raw_commit(repo, raw_tree(repo, [(b"40000", f"d{i:03d}".encode(), folder) for i in range(300)]),
                      repo.head.target, branch=None)
    with in_force(Limits(blob_bytes=12_000)), Store.open(tmp_path / "home") as store:
        report = api.index(str(tmp_path / "repo"), head, store=store, workers=2)
    assert report.files == 300 and report.parsed_blobs == 1


def test_a_blob_over_the_read_cap_is_listed_unread_and_counts_nothing(tmp_path):
    """A blob one byte over `READ_CAP` (its lines were counted by inflating it whole) is listed
    `too_large` with its size and no lines; it counts nothing against the limit, and
    `context.file` says its lines and content were not read."""
    b = RepoBuilder(tmp_path / "repo")
    line = b"x = 1\n"
    big = line * (gitread.READ_CAP // len(line)) + b"#" * (gitread.READ_CAP % len(line) + 1)
    assert len(big) == gitread.READ_CAP + 1
    b.commit({"big.py": big.decode(), "ok.py": "def ok():\n    pass\n"})
    del big
    home = tmp_path / "home"
    with in_force(Limits(blob_bytes=1024)), Store.open(home) as store:
        report = api.index(str(tmp_path / "repo"), "HEAD", store=store, workers=1)
        snap = api.snapshot(str(tmp_path / "repo"), report.oid, store=store, index_if_absent=False)
        f = next(f for f in snap.record.files if f.path == "big.py")
    assert (f.size, f.lines, f.skipped, f.language) == (gitread.READ_CAP + 1, -1, "too_large", "python")
    out = rennet("context", "file", "big.py", "--repo", str(tmp_path / "repo"), "--json", home=home)
    data = json.loads(out.stdout)["data"]
    said = f"not read: the blob holds {gitread.READ_CAP + 1:,} bytes, over the {gitread.READ_CAP:,} read of one file"
    assert data["meta"]["lines"] == {"unknown": "not_assessed", "reason": said}
    assert data["content"] == {"unknown": "not_assessed", "reason": said}


def test_a_link_whose_target_is_past_any_path_is_listed_without_it(tmp_path):
    """A link of 4,096 bytes keeps its target; one of 4,097 (no system resolves it, and git
    stores one of gigabytes in kilobytes) is listed `too_large` with its size and no target:
    it was read whole into the snapshot record."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"at.py": Link("a/" * 2048), "past.py": Link("a/" * 2048 + "b"), "ok.py": "x = 1\n"})
    with Store.open(tmp_path / "home") as store:
        report = api.index(str(tmp_path / "repo"), "HEAD", store=store, workers=1)
        files = {f.path: f for f in api.snapshot(str(tmp_path / "repo"), report.oid, store=store,
                                                 index_if_absent=False).record.files}
    assert (files["at.py"].target, files["at.py"].skipped) == ("a/" * 2048, "symlink")
    assert (files["past.py"].target, files["past.py"].skipped, files["past.py"].size) == ("", "too_large", 4097)
    assert files["past.py"].language == "symlink"


def test_a_batch_job_past_the_limit_fails_alone(tmp_path):
    """Two repositories in one batch: the one whose blobs pass the limit fails `too_large`
    before any of its blobs is parsed; the other is indexed."""
    small = RepoBuilder(tmp_path / "small")
    small.commit(distinct(2, 1_000))
    large = RepoBuilder(tmp_path / "large")
    large.commit(distinct(3, 10_000, tag="large"))
    with in_force(Limits(blob_bytes=20_000)), Store.open(tmp_path / "home") as store:
        report = batch.run(store, [batch.JobSpec(str(tmp_path / "large"), "HEAD"),
                                   batch.JobSpec(str(tmp_path / "small"), "HEAD")], workers=2)
        with store.env.begin(db=store.facts) as txn:
            parsed = txn.stat(store.facts)["entries"]
    failed, done = report.jobs
    assert failed.status == "failed" and failed.error is not None and failed.error.code == "too_large"
    assert "would parse hold 30,000 bytes together, over the 20,000" in failed.error.message
    assert done.status == "indexed" and parsed == 2


def test_a_bundles_commit_is_made_again_within_the_limit(tmp_path):
    """A snapshot made again from its repository, to check a bundle's claims, reads no more than
    an index would: past the limit it is `too_large` before any blob is parsed."""
    b = RepoBuilder(tmp_path / "repo")
    oid = b.commit(distinct(3, 10_000))
    with in_force(Limits(blob_bytes=29_999)), pytest.raises(TooLarge, match="hold 30,000 bytes together"):
        derive(b.repo, oid)
    with in_force(Limits(blob_bytes=30_000)):
        record, facts = derive(b.repo, oid)
    assert len(record.files) == 3 and len(facts) == 3


def test_the_default_limit_is_what_the_limits_name():
    assert DEFAULT.blob_bytes == 1 << 30


def loose_object(repo: pygit2.Repository, oid: str, raw: bytes) -> None:
    """Write `raw`, deflated, where git keeps the loose object `oid`."""
    folder = Path(repo.path) / "objects" / oid[:2]
    folder.mkdir(exist_ok=True)
    path = folder / oid[2:]
    if path.exists():
        path.chmod(0o644)
    path.write_bytes(zlib.compress(raw))


def test_a_loose_blob_over_the_bound_is_never_inflated_past_its_header(tmp_path):
    """A loose object whose header says 100,000 bytes and whose body is damage: read within a
    bound under its size, its size comes from the header and nothing else is inflated (a read
    of the body would find the damage); read whole it is `missing_objects` naming the damage."""
    b = RepoBuilder(tmp_path / "repo")
    b.commit({"ok.py": "x = 1\n"})
    oid = "ab" * 20
    loose_object(b.repo, oid, b"blob 100000\0" + b"short")
    assert gitread.read_blob_within(b.repo, oid, 99_999) == gitread.BlobRead(100_000, None)
    with pytest.raises(MissingObjects, match="damaged"):
        gitread.read_blob_within(b.repo, oid, 100_000)


@pytest.fixture(scope="module")
def loose_repo(tmp_path_factory) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path_factory.mktemp("loose")), bare=True)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=300), most=st.none() | st.integers(0, 320))
def test_a_loose_blob_is_read_within_any_bound_as_its_size_says(loose_repo, content, most):
    """Any loose blob within any bound: its size always, its bytes exactly when it holds no
    more than the bound."""
    oid = str(loose_repo.create_blob(content))
    assert (Path(loose_repo.path) / "objects" / oid[:2] / oid[2:]).exists()
    assert gitread.read_blob_within(loose_repo, oid, most) == \
        gitread.BlobRead(len(content), content if most is None or len(content) <= most else None)
    assert gitread.present_size(loose_repo, oid) == len(content)


def test_a_packed_blob_is_read_within_any_bound_as_its_size_says(tmp_path):
    """Blobs of every size from 0 to 300 bytes, in a pack (libgit2 reads them, deltas and all),
    each within bounds around its size: its size always, its bytes exactly when it fits. A
    blob the object database lacks has no size."""
    b = RepoBuilder(tmp_path / "repo")
    contents = {f"f{n:03d}.txt": ("".join(chr(97 + (n * 7 + i) % 26) for i in range(n))) for n in range(301)}
    b.commit(contents)
    subprocess.run(["git", "-C", str(tmp_path / "repo"), "gc", "-q"], check=True)
    repo = pygit2.Repository(str(tmp_path / "repo"))
    for text in contents.values():
        oid = str(pygit2.hash(text.encode()))
        assert not (Path(repo.path) / "objects" / oid[:2] / oid[2:]).exists()
        n = len(text)
        for most in (None, 0, n - 1, n, n + 1):
            if most is not None and most < 0:
                continue
            fits = most is None or n <= most
            assert gitread.read_blob_within(repo, oid, most) == gitread.BlobRead(n, text.encode() if fits else None)
        assert gitread.present_size(repo, oid) == n
    assert gitread.present_size(repo, "cd" * 20) is None
