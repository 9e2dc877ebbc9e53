"""A loose object whose compressed stream ends early: libgit2 (as pygit2 bundles it) loops on
it without end at full CPU. Each is read and checked before libgit2 meets it
(`indexer/git/loose.py`): a typed error in time, whether it is a blob, a tree or a commit."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer.contract.errors import MissingObjects
from indexer.git.loose import (
    Damaged,
    _inflated,
    check_intact,
    check_loose_commits,
    loose_size,
    object_dirs,
    read_loose,
)
from indexer.git.read import blob_size, intact_tree_of, read_blob
from tests.examples import examples
from tests.indexed import fingerprint_indexed

ROOT = Path(__file__).resolve().parent.parent


def _repo(path: Path, seed: int = 7) -> tuple[RepoBuilder, str, str]:
    """A repository of two commits whose files are written loose; (builder, base, head)."""
    rng = random.Random(seed)
    noise = "\n".join(f"x{i} = {''.join(rng.choice('abcdefghij') for _ in range(40))!r}" for i in range(200))
    builder = RepoBuilder(path)
    base = builder.commit({"pkg/big.py": noise + "\n", "pkg/small.py": f"def f():\n    return {seed}\n"})
    head = builder.commit({"pkg/small.py": "def f():\n    return 2\n", "pkg/more.py": f"Y = {seed}\n"})
    return builder, base, head


def _cut(repo: pygit2.Repository, oid: str, keep: float = 0.5) -> None:
    """Cut the loose file of `oid` short, well before its stream's end (not just its checksum)."""
    place = Path(repo.path) / "objects" / oid[:2] / oid[2:]
    data = place.read_bytes()
    place.chmod(0o644)
    place.write_bytes(data[: max(2, int(len(data) * keep))])


def _index(store: Path, repo: Path, rev: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "context_tools.faces.cli", "index", "--repo", str(repo), "--rev", rev,
                           "--store", str(store), "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def other_store(tmp_path_factory) -> tuple[Path, str, Path]:
    """Another repository (no object in common with `_repo`'s default) indexed into a store:
    (the repository, its head, the store), which each test copies and never changes."""
    root = tmp_path_factory.mktemp("other")
    other, _, other_head = _repo(root / "other", seed=8)
    fingerprint_indexed(root / "store", other.path, "HEAD")
    return other.path, other_head, root / "store"


@pytest.mark.parametrize(("what", "rev"), [("blob", "HEAD"), ("tree", "HEAD"), ("subtree", "HEAD"),
                                          ("head commit", "HEAD"), ("head commit", "its OID"),
                                          ("head commit", "its OID's start"), ("parent commit", "HEAD~1"),
                                          ("parent commit", "HEAD^"), ("parent commit", "@~1"),
                                          ("head commit", "its OID's first four")])
def test_a_loose_object_cut_short_is_a_typed_error_not_a_loop_without_end(what, rev, tmp_path, other_store):
    """Was: the index never returned (libgit2 spinning in its inflate); now one typed error
    naming the object, at once. Another repository's snapshot in the same store still answers."""
    builder, base, head = _repo(tmp_path / "repo")
    other, other_head, indexed = other_store
    store = tmp_path / "store"
    shutil.copytree(indexed, store, ignore=shutil.ignore_patterns("lock.mdb", "*.lock"))
    repo = builder.repo
    commit = repo[head]
    damaged = {
        "blob": str(commit.tree["pkg/big.py"].id),
        "tree": str(commit.tree_id),
        "subtree": str(commit.tree["pkg"].id),
        "head commit": head,
        "parent commit": base,
    }[what]
    _cut(repo, damaged)
    done = _index(store, builder.path, {"its OID": head, "its OID's start": head[:9],
                                        "its OID's first four": head[:4]}.get(rev, rev))
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] in ("missing_objects", "bad_tree"), error
    assert "damaged" in error["message"] and damaged[:12] in error["message"], error
    from indexer import api
    from indexer.store.database import Store

    with Store.open(store) as opened:  # read here: the store, not a face of it, is what must still answer
        assert api.snapshot(str(other), "HEAD", store=opened, index_if_absent=False).oid == other_head


_KIND = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}  # pygit2's object type numbers


def _loose_bytes(kind: bytes, body: bytes) -> tuple[str, bytes]:
    raw = kind + b" " + str(len(body)).encode() + b"\0" + body
    return hashlib.sha1(raw).hexdigest(), zlib.compress(raw)


class _File:
    def __init__(self, data: bytes) -> None:
        self._data, self._at = data, 0

    def read(self, n: int) -> bytes:
        piece = self._data[self._at:self._at + n]
        self._at += len(piece)
        return piece


@settings(max_examples=examples(200), deadline=None)
@given(body=st.binary(max_size=3000), kind=st.sampled_from([b"blob", b"tree", b"commit"]),
       cut=st.integers(min_value=0, max_value=4000), tail=st.binary(max_size=8), flip=st.integers(0, 4000))
def test_a_loose_file_reads_back_whole_or_is_damaged(body, kind, cut, tail, flip):
    """Whatever a loose file holds (a whole object, cut anywhere, extended, a byte flipped),
    it reads back as exactly its object or is `Damaged`: no other exception, no loop. The
    check that keeps none of the body (or part of it) gives the same verdict."""
    oid, data = _loose_bytes(kind, body)
    assert _inflated(_File(data), oid).data == body  # whole, as git writes it
    assert _inflated(_File(data), oid, keep=0) == (_KIND[kind], b"", len(body))  # checked a chunk at a time
    assert _inflated(_File(data), oid, keep=cut).data == body[:cut]
    for damaged in (data[:cut], data + tail if tail else data[:-1],
                    data[:flip % len(data)] + bytes([data[flip % len(data)] ^ 0x55]) + data[flip % len(data) + 1:]):
        if damaged == data:
            continue
        try:
            read = _inflated(_File(damaged), oid)
        except Damaged:
            # the check that keeps none of the body says the same
            with pytest.raises(Damaged):
                _inflated(_File(damaged), oid, keep=0)
            continue
        # a byte past the stream's end is not its object's: only the object itself may come back
        assert read.data == body and damaged.startswith(data), damaged
        assert _inflated(_File(damaged), oid, keep=0).kind == _KIND[kind]


def test_a_small_file_inflating_past_its_header_is_damaged_before_it_is_inflated_whole():
    """A loose file whose header says 10 bytes and whose stream holds 64 MiB is refused as it
    passes its size: its stream is not inflated whole into memory."""
    raw = b"blob 10\0" + b"\0" * (64 << 20)
    data = zlib.compress(raw, 9)
    tracemalloc.start()
    try:
        with pytest.raises(Damaged, match="longer than its header says"):
            _inflated(_File(data), hashlib.sha1(raw).hexdigest())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak


def test_an_object_not_stored_loose_is_left_to_libgit2(tmp_path):
    builder, _, head = _repo(tmp_path / "repo")
    assert read_loose(builder.repo, head) is not None  # written loose
    subprocess.run(["git", "-C", str(builder.path), "gc", "-q"], check=True)
    assert read_loose(builder.repo, head) is None  # packed now: libgit2 reads it


def _run(store: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *args, "--store", str(store), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_damaged_commit_deep_in_history_ends_a_walk_typed_and_spares_an_index(tmp_path):
    """A damaged loose commit no rev names, which libgit2 reads only walking history: the
    merge base of a Delta packet and a batch's range answer `missing_objects` naming it, in
    time (was: both never returned); an index of the head, which needs none of it, is made
    as a fresh store's (its search for an earlier snapshot stops there)."""
    builder, first, second = _repo(tmp_path / "repo")
    third = builder.commit({"pkg/third.py": "Z = 3\n"})
    builder.checkout(first)
    builder.commit({"pkg/side.py": "S = 1\n"}, branch="side", parents=[first])
    store = tmp_path / "store"
    fingerprint_indexed(store, builder.path, "side")
    fresh = fingerprint_indexed(tmp_path / "fresh", builder.path, third)  # the reference, made before the damage
    _cut(builder.repo, second)  # on main's line only: HEAD~1
    for args in (("delta", "--repo", str(builder.path), "--base", "side", "--head", "main"),
                 ("batch", "--repo", str(builder.path), "--range", "side..main")):
        done = _run(store, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "damaged" in done.stdout + done.stderr and second[:12] in done.stdout + done.stderr, done
        assert "Traceback" not in done.stderr
    indexed = _run(store, "index", "--repo", str(builder.path), "--rev", "main")
    assert indexed.returncode == 0, indexed.stdout + indexed.stderr
    assert json.loads(indexed.stdout)["data"]["fingerprint"] == fresh


def test_a_range_of_one_commit_walks_no_history_and_is_empty_despite_damage(tmp_path):
    """docs/delta.md: base == head is a valid, empty range. Its merge base is the commit itself,
    so no history is walked to find it, and a damaged commit below it is no reason to refuse
    it; a range that needs the walk is `missing_objects` (the test above)."""
    from delta.packet import build_delta_packet

    builder, first, second = _repo(tmp_path / "repo")
    third = builder.commit({"pkg/third.py": "Z = 3\n"})
    _cut(builder.repo, second)  # HEAD~1: below the head, above nothing the range reads
    built = build_delta_packet(builder.path, third, "main", index=False, write=False)
    assert built.packet.files == [] and built.packet.range.merge_base_oid == third
    with pytest.raises(MissingObjects):
        build_delta_packet(builder.path, first, "main", index=False, write=False)


@pytest.mark.parametrize(("damaged", "rev"), [("parent commit", ":/no such message"),
                                              ("parent commit", "HEAD^{/no such message}"),
                                              ("parent commit", "main@{1}"), ("parent commit", "@{-1}"),
                                              ("tag", "v1^{}"), ("tag", "v1^{commit}~1"),
                                              ("tag", "v1^{tree}"), ("parent commit", "v1~1"),
                                              ("parent commit", "v1^{}~1"), ("parent commit", "v2~1")])
def test_a_rev_libgit2_resolves_alone_checks_history_first(damaged, rev, tmp_path):
    """A rev whose resolution reads a reflog, searches messages or peels a tag (`v2` a tag of
    the tag `v1`): libgit2 reads commits and tags no name of it gives. Was: each of these
    never returned; now `missing_objects` naming the damaged object."""
    builder, base, head = _repo(tmp_path / "repo")
    repo = builder.repo
    tag = str(repo.create_tag("v1", pygit2.Oid(hex=head), pygit2.enums.ObjectType.COMMIT,
                              repo[head].author, "release\n"))
    repo.create_tag("v2", pygit2.Oid(hex=tag), pygit2.enums.ObjectType.TAG, repo[head].author, "again\n")
    repo.references.create("refs/heads/other", pygit2.Oid(hex=head))
    subprocess.run(["git", "-C", str(builder.path), "checkout", "-q", "other"], check=True)
    subprocess.run(["git", "-C", str(builder.path), "checkout", "-q", "main"], check=True)  # a reflog, @{-1}
    target = {"parent commit": base, "tag": tag}[damaged]
    _cut(repo, target)
    done = _index(tmp_path / "store", builder.path, rev)
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "missing_objects" and target[:12] in error["message"], error


@pytest.mark.parametrize("rev", ["HEAD:pkg", "HEAD:pkg/more.py", ":pkg/more.py", "main~0:pkg"])
def test_a_rev_naming_a_path_reads_its_trees_checked(rev, tmp_path):
    """`rev:path` names a file or folder, never a commit: what it names is read here, each tree
    on the way checked, and the index's entry for `:path` (was: libgit2 read the trees on the
    way, and a damaged one held the index for good)."""
    builder, _, head = _repo(tmp_path / "repo")
    subprocess.run(["git", "-C", str(builder.path), "reset", "-q", "--mixed"], check=True)  # an index for `:path`
    pkg = str(builder.repo[head].tree["pkg"].id)
    blob = str(builder.repo[head].tree["pkg/more.py"].id)
    _cut(builder.repo, pkg)
    done = _index(tmp_path / "store", builder.path, rev)
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    if rev.startswith(":"):
        assert error == {"code": "unknown_rev", "message": f"{rev!r} names a blob ({blob[:12]}), not a commit"}
    else:
        assert error["code"] == "bad_tree" and pkg[:12] in error["message"] and "damaged" in error["message"]


@pytest.mark.parametrize("rev", ["HEAD^{/fix: the parser}", ":/fix: the parser", "main@{2126-12-01 10:00:00}"])
def test_a_colon_inside_a_search_or_a_date_is_no_path(rev, tmp_path):
    """A colon in a message searched for or a reflog's date does not make the rev a path: each
    names the commit git names."""
    builder, _, _ = _repo(tmp_path / "repo")
    builder.commit({"pkg/fix.py": "F = 1\n"}, message="fix: the parser")
    builder.commit({"pkg/later.py": "L = 1\n"}, message="later")
    git = subprocess.run(["git", "-C", str(builder.path), "rev-parse", "--verify", "-q", rev],
                         capture_output=True, text=True, check=True).stdout.strip()
    done = _index(tmp_path / "store", builder.path, rev)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert json.loads(done.stdout)["data"]["oid"] == git


def _range(path: Path) -> tuple[RepoBuilder, str, str]:
    """A base and a head: a binary file changed (the index never parses it), a folder deleted,
    a changed file under a folder whose `.gitattributes` stays as it was."""
    builder = RepoBuilder(path)
    base = builder.commit({"data.bin": bytes(range(256)) * 40, "old/gone.py": "G = 1\n" * 300,
                           "docs/.gitattributes": "*.md linguist-documentation\n" * 200,
                           "docs/guide.md": "one\n", "a.py": "def f():\n    return 1\n"})
    head = builder.commit({"data.bin": bytes(range(255, -1, -1)) * 40, "old/gone.py": None,
                           "docs/guide.md": "two\n", "a.py": "def f():\n    return 2\n"})
    return builder, base, head


@pytest.mark.parametrize("what", ["a changed binary blob", "a deleted folder's tree", "an unchanged .gitattributes"])
def test_a_delta_packet_checks_what_its_diff_reads(what, tmp_path):
    """A Delta packet diffs the trees and reads `.gitattributes` before any snapshot is indexed:
    those reads go through libgit2 too. Was: over a loose object cut short each never returned;
    now a typed error naming it, at once."""
    builder, base, head = _range(tmp_path / "repo")
    repo = builder.repo
    damaged = {"a changed binary blob": str(repo[head].tree["data.bin"].id),
               "a deleted folder's tree": str(repo[base].tree["old"].id),
               "an unchanged .gitattributes": str(repo[head].tree["docs/.gitattributes"].id)}[what]
    _cut(repo, damaged, keep=0.8)  # the header whole: only a read of the object itself finds it
    done = _run(tmp_path / "store", "delta", "--repo", str(builder.path), "--base", base, "--head", head)
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] in ("missing_objects", "bad_tree") and damaged[:12] in error["message"], error
    assert "damaged" in error["message"], error


def test_a_dossier_config_file_is_checked_and_bounded_before_it_is_read(tmp_path):
    """The commit under review's `.rennet.toml`: a damaged loose one is `missing_objects` (was:
    never returned); one over the bound is a `bad_config` fact naming its size, and the
    dossier goes on with the user's own settings."""
    builder = RepoBuilder(tmp_path / "repo")
    base = builder.commit({"a.py": "A = 1\n"})
    head = builder.commit({".rennet.toml": "[dossier]\n" + "# x\n" * 400})
    big = builder.commit({".rennet.toml": "#" * (2 << 20)})
    _cut(builder.repo, str(builder.repo[head].tree[".rennet.toml"].id), keep=0.8)
    done = _run(tmp_path / "store", "dossier", "--repo", str(builder.path), "--base", base, "--head", head)
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "missing_objects" and "damaged" in error["message"], error
    done = _run(tmp_path / "store", "dossier", "--repo", str(builder.path), "--base", base, "--head", big)
    assert done.returncode == 0, (done.stdout, done.stderr)
    facts = [f for f in json.loads(done.stdout)["data"]["facts"] if f["code"] == "bad_config"]
    assert len(facts) == 1 and f"larger than 1048576 bytes ({2 << 20})" in facts[0]["message"], facts


def test_a_checkouts_status_checks_heads_trees_first(tmp_path):
    """libgit2's status reads every tree of HEAD (git's own uses the index's tree cache and reads
    none). Was: with one of them a loose object cut short, `--worktree` and the dirty check of
    any answer about the checked-out commit never returned. Now `--worktree` is `bad_tree`
    naming it, and an answer from a snapshot stored before is given with the commit's freshness."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"src/deep/mod.py": "def helper():\n    return 1\n" * 200, "app.py": "A = 1\n"})
    for args in (["checkout", "-q", "-f", "main"], ["reset", "-q", "--hard"]):  # an index: a checkout
        subprocess.run(["git", "-C", str(builder.path), *args], check=True)
    store = tmp_path / "store"
    fingerprint_indexed(store, builder.path, "HEAD")
    (builder.path / "app.py").write_text("A = 2\n")
    src = str(builder.repo[builder.repo.head.target].tree["src"].id)
    _cut(builder.repo, src, keep=0.8)
    done = _run(store, "context", "map", "--repo", str(builder.path), "--worktree")
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "bad_tree" and src[:12] in error["message"], error
    done = _run(store, "context", "symbol", "helper", "--repo", str(builder.path))
    assert done.returncode == 0, (done.stdout, done.stderr)
    answer = json.loads(done.stdout)
    assert answer["freshness"]["status"] == "current" and answer["data"]["definitions"], answer


def test_a_huge_loose_commit_is_checked_in_bounded_memory(tmp_path):
    """A loose commit of 32 MiB (a huge message): the check before a history walk, the check
    before libgit2 reads it and the read of its tree line each hold a chunk of it at a time,
    not the whole (was: each inflated it whole, so the repository chose the memory spent).
    The verdicts are the same: whole, it passes; cut short, it is `Damaged`."""
    builder, _, head = _repo(tmp_path / "repo")
    repo = builder.repo
    header = f"tree {repo[head].tree_id}\nparent {head}\nauthor A <a@x> 0 +0000\ncommitter A <a@x> 0 +0000\n\n"
    raw = b"commit %d\0" % (len(header) + (32 << 20)) + header.encode() + b"m" * (32 << 20)
    oid = hashlib.sha1(raw).hexdigest()
    place = Path(repo.path) / "objects" / oid[:2] / oid[2:]
    place.parent.mkdir(exist_ok=True)
    place.write_bytes(zlib.compress(raw, 1))
    del raw
    for check in (check_loose_commits, lambda r: check_intact(r, oid), lambda r: intact_tree_of(r, oid)):
        tracemalloc.start()
        try:
            check(repo)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 4 << 20, (check, peak)
    data = place.read_bytes()
    place.write_bytes(data[: len(data) * 3 // 4])
    for check in (check_loose_commits, lambda r: check_intact(r, oid)):
        with pytest.raises(Damaged, match="cut short"):
            check(repo)


def _shared(path: Path) -> tuple[RepoBuilder, str, str]:
    """A base and a head sharing the folder `lib/` (and its `lib/deep/`), one file changed, the
    folder `old/` deleted."""
    builder = RepoBuilder(path)
    base = builder.commit({"lib/keep.py": "K = 1\n" * 300, "lib/deep/more.py": "M = 1\n" * 300,
                           "old/gone.py": "G = 1\n" * 300, "a.py": "def f():\n    return 1\n"})
    head = builder.commit({"a.py": "def f():\n    return 2\n", "old/gone.py": None})
    return builder, base, head


@pytest.mark.parametrize("what", ["lib", "lib/deep"])
def test_a_tree_both_sides_share_is_checked_before_libgit2_diffs_them(what, tmp_path):
    """libgit2's tree diff reads every tree of both sides, those the two share too. Was: with
    such a tree a loose object cut short, a Delta packet never returned; now `bad_tree`
    naming it, at once."""
    builder, base, head = _shared(tmp_path / "repo")
    damaged = str(builder.repo[head].tree[what].id)
    _cut(builder.repo, damaged, keep=0.8)
    done = _run(tmp_path / "store", "delta", "--repo", str(builder.path), "--base", base, "--head", head)
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "bad_tree" and damaged[:12] in error["message"] and "damaged" in error["message"], error


@pytest.mark.parametrize("what", ["lib/deep", "old"])
def test_an_index_from_an_earlier_snapshot_reads_only_the_trees_that_differ(what, tmp_path):
    """An index from an earlier snapshot reads the diff of the two trees itself: only the trees
    that differ, each checked, as git's diff-tree reads them. Was: libgit2's tree diff read
    every tree of both sides, and with one of them a loose object cut short after the earlier
    snapshot was made, the index never returned. Now a tree the two share (`lib/deep`) is not
    read, and a damaged one only the earlier commit holds (`old`, deleted since) gives the
    diff up for the whole walk: either way the snapshot is the one made before the damage."""
    builder, base, head = _shared(tmp_path / "repo")
    store = tmp_path / "store"
    fingerprint_indexed(store, builder.path, base)
    before = fingerprint_indexed(tmp_path / "before", builder.path, head)
    _cut(builder.repo, str(builder.repo[base].tree[what].id), keep=0.8)
    done = _run(store, "index", "--repo", str(builder.path), "--rev", head)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert json.loads(done.stdout)["data"]["fingerprint"] == before


def _history(path: Path) -> tuple[RepoBuilder, str]:
    """main: three commits; side: one off the first. The second commit's OID is given."""
    builder, first, second = _repo(path)
    builder.commit({"pkg/third.py": "Z = 3\n"})
    builder.checkout(first)
    builder.commit({"pkg/side.py": "S = 1\n"}, branch="side", parents=[first])
    return builder, second


@pytest.mark.parametrize("keep", [0.0, 0.5])
@pytest.mark.parametrize("command", ["index", "delta", "batch"])
def test_a_damaged_commit_is_one_line_naming_it_and_what_shows_it(command, keep, tmp_path):
    """A commit whose loose file is cut before its header ends (its kind unknown) or after:
    an index of a rev passing it, a Delta packet and a batch range over it each say, on one
    line, `missing_objects` naming the object, that it is cut short and that `git fsck`
    shows it. Was: "the history of ... holds a damaged object: loose object X ends before
    its header does", and for an index "... ends before its compressed stream does"."""
    builder, second = _history(tmp_path / "repo")
    _cut(builder.repo, second, keep=keep)
    args = {"index": ("index", "--rev", "main~1"), "delta": ("delta", "--base", "side", "--head", "main"),
            "batch": ("batch", "--range", "side..main")}[command]
    done = _run(tmp_path / "store", args[0], "--repo", str(builder.path), *args[1:])
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout.splitlines()[-1])["error"]
    message = error["message"]
    assert error["code"] == "missing_objects" and "\n" not in message, error
    assert f"loose object {second[:12]} is cut short" in message and "`git fsck` shows it" in message, error


def test_a_batch_job_on_a_damaged_blob_says_its_code_once(tmp_path):
    """A job of a batch that fails on a typed error says the error's own message after the
    path (was: "b.py: MissingObjects: missing_objects: blob ...", the code twice)."""
    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit({"a.py": "A = 1\n" * 50})
    second = builder.commit({"b.py": "B = 1\n" * 50})
    blob = str(builder.repo[second].tree["b.py"].id)
    _cut(builder.repo, blob, keep=0.8)
    done = _run(tmp_path / "store", "batch", "--repo", str(builder.path), "--range", f"{first}..{second}")
    assert done.returncode == 1, (done.stdout, done.stderr)
    job = json.loads(done.stdout.splitlines()[0])
    assert job["error"]["code"] == "missing_objects", job
    assert job["error"]["message"].startswith(f"b.py: blob {blob[:12]} is damaged"), job


def test_a_blob_cut_before_its_header_is_damaged_by_its_size_too(tmp_path):
    """The size of a blob (asked before it is read, to pair renames) of a loose file cut before
    its header ends: `missing_objects` saying it is damaged and what shows it, as a read of it
    says (not that it is missing, as libgit2's header read would have it)."""
    builder, _, head = _repo(tmp_path / "repo")
    blob = str(builder.repo[head].tree["pkg/big.py"].id)
    _cut(builder.repo, blob, keep=0.0)
    for read in (blob_size, read_blob):
        with pytest.raises(MissingObjects) as raised:
            read(builder.repo, blob)
        assert f"blob {blob[:12]} is damaged" in raised.value.message and "`git fsck` shows it" in raised.value.message


def test_a_linked_worktrees_loose_objects_are_those_of_its_main_repository(tmp_path):
    """A linked worktree (`git worktree add`) reads the objects of the repository it was made
    from (its `commondir`): those are the loose objects checked, so a damaged commit there is
    `Damaged` read from the linked worktree too."""
    builder, base, head = _repo(tmp_path / "repo")
    subprocess.run(["git", "-C", str(builder.path), "worktree", "add", "-q", str(tmp_path / "linked"), base],
                   check=True)
    linked = pygit2.Repository(str(tmp_path / "linked"))
    assert object_dirs(linked) == (str((builder.path / ".git" / "objects").resolve()),)
    _cut(builder.repo, head)
    with pytest.raises(Damaged, match=head[:12]):
        check_intact(linked, head)
    with pytest.raises(Damaged, match=head[:12]):
        check_loose_commits(linked)


def test_a_loose_file_whose_stream_ends_before_a_header_is_damaged(tmp_path):
    """A loose file that is a whole zlib stream of `blob 12` and no more (no NUL ends the
    header): no object, by its size as by its bytes."""
    builder, _, _ = _repo(tmp_path / "repo")
    oid = "ab" * 20
    place = Path(builder.repo.path) / "objects" / oid[:2] / oid[2:]
    place.parent.mkdir(exist_ok=True)
    place.write_bytes(zlib.compress(b"blob 12"))
    for read in (blob_size, read_blob):
        with pytest.raises(MissingObjects, match="has no object header"):
            read(builder.repo, oid)


def test_a_damaged_commit_in_an_alternate_named_by_its_oids_start_is_typed(tmp_path):
    """A repository borrowing its objects from another (`objects/info/alternates`), asked for a
    commit by the start of its OID: the loose objects of every object directory that start may
    name are checked, not only the repository's own (was: libgit2 read the damaged one there)."""
    builder, _, head = _repo(tmp_path / "lender")
    borrower = pygit2.init_repository(str(tmp_path / "borrower"))
    (Path(borrower.path) / "objects" / "info" / "alternates").write_text(f"{builder.path / '.git' / 'objects'}\n")
    _cut(builder.repo, head)
    with pytest.raises(Damaged, match=head[:12]):  # the check before a history walk looks there too
        check_loose_commits(borrower)
    done = _index(tmp_path / "store", tmp_path / "borrower", head[:9])
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "missing_objects" and head[:12] in error["message"], error


def _loose_file(repo: pygit2.Repository, raw: bytes, name: str | None = None) -> str:
    """`raw` (an object's header and body) written loose, under its hash or `name`; the name."""
    oid = name or hashlib.sha1(raw).hexdigest()
    place = Path(repo.path) / "objects" / oid[:2] / oid[2:]
    place.parent.mkdir(exist_ok=True)
    place.write_bytes(zlib.compress(raw))
    return oid


def test_a_loose_file_that_is_no_zlib_stream_is_damaged_however_it_is_read(tmp_path):
    """A loose file of bytes that are no zlib stream: `Damaged` read whole, by its header, and
    by the check before a history walk (no zlib error escapes)."""
    builder, _, _ = _repo(tmp_path / "repo")
    oid = "cd" * 20
    place = Path(builder.repo.path) / "objects" / oid[:2] / oid[2:]
    place.parent.mkdir(exist_ok=True)
    place.write_bytes(b"this is no zlib stream at all")
    for read in (lambda r: read_loose(r, oid), lambda r: loose_size(r, oid), check_loose_commits):
        with pytest.raises(Damaged, match="is not a zlib stream"):
            read(builder.repo)


@pytest.mark.parametrize("raw", [b"blub 5\0hello", b"blob 1x\0a", b"blob \0", b"blob -1\0"])
def test_a_loose_header_naming_no_kind_or_no_size_is_damaged(raw, tmp_path):
    """A loose file under its own hash whose header names no kind git has, or no size: `Damaged`
    (no other error), read whole or by its header."""
    builder, _, _ = _repo(tmp_path / "repo")
    oid = _loose_file(builder.repo, raw)
    for read in (read_loose, loose_size):
        with pytest.raises(Damaged, match="has no object header"):
            read(builder.repo, oid)


def test_a_loose_file_holding_another_objects_bytes_is_damaged(tmp_path):
    """A loose file holding a whole, well-formed object that is not the one its name says (a
    file copied over another): `Damaged`, as its bytes do not hash to its name."""
    builder, _, head = _repo(tmp_path / "repo")
    small, more = (str(builder.repo[head].tree[f"pkg/{n}.py"].id) for n in ("small", "more"))
    place = Path(builder.repo.path) / "objects"
    (place / more[:2] / more[2:]).chmod(0o644)
    (place / more[:2] / more[2:]).write_bytes((place / small[:2] / small[2:]).read_bytes())
    with pytest.raises(MissingObjects, match="does not hash to its name"):
        read_blob(builder.repo, more)


def test_a_loose_file_with_no_header_is_refused_before_it_is_inflated_whole(tmp_path):
    """A small loose file inflating to 64 MiB with no header (no NUL in its first bytes):
    refused once its header should have ended, holding a few KiB, not 64 MiB."""
    builder, _, _ = _repo(tmp_path / "repo")
    oid = _loose_file(builder.repo, b"x" * (64 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(Damaged, match="has no object header"):
            check_intact(builder.repo, oid)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak


def test_the_history_check_reads_loose_objects_alone(tmp_path):
    """Beside loose objects, an object directory holds packs, `info` and git's temporary files,
    and a fan-out folder may hold what no object is (a folder where an object was): the check
    before a history walk reads the loose objects alone and passes over what it cannot read
    (libgit2 fails on that at once); a read of such an entry by its OID is `missing_objects`."""
    builder, _, head = _repo(tmp_path / "repo")
    subprocess.run(["git", "-C", str(builder.path), "gc", "-q"], check=True)
    builder.commit({"pkg/later.py": "L = 1\n"})  # loose again, after the packs
    objects = Path(builder.repo.path) / "objects"
    fan = next(p for p in objects.iterdir() if len(p.name) == 2)
    (fan / "tmp_obj_Ab12Cd").write_bytes(b"not zlib")  # as git leaves one while writing
    odd = fan.name + "e" * 38
    (fan / odd[2:]).mkdir()
    check_loose_commits(builder.repo)
    with pytest.raises(MissingObjects, match=f"blob {odd[:12]} is damaged.*cannot be read"):
        read_blob(builder.repo, odd)


def test_a_merges_damaged_second_parent_named_by_its_step_is_typed(tmp_path):
    """`HEAD^2` of a merge whose second parent is a loose commit cut short: that parent is the
    one checked (was: the first parent was, and libgit2 read the damaged one)."""
    builder, base, head = _repo(tmp_path / "repo")
    builder.checkout(base)
    side = builder.commit({"pkg/side.py": "S = 1\n"}, branch="side", parents=[base])
    builder.checkout(head)
    builder.commit({"pkg/merged.py": "M = 1\n"}, branch="main", parents=[head, side])
    _cut(builder.repo, side)
    done = _index(tmp_path / "store", builder.path, "main^2")
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "missing_objects" and side[:12] in error["message"], error


@pytest.mark.parametrize("what", ["head commit", "root tree"])
def test_a_checkouts_damaged_head_commit_or_root_tree_is_typed_for_its_working_tree(what, tmp_path):
    """`--worktree` reads HEAD's commit and root tree before its status: each is checked first
    (was: with either a loose object cut short, it never returned)."""
    builder = RepoBuilder(tmp_path / "repo")
    head = builder.commit({"src/mod.py": "def helper():\n    return 1\n" * 50, "app.py": "A = 1\n" * 50})
    subprocess.run(["git", "-C", str(builder.path), "reset", "-q", "--hard"], check=True)
    damaged = {"head commit": head, "root tree": str(builder.repo[head].tree_id)}[what]
    _cut(builder.repo, damaged, keep=0.8)
    done = _run(tmp_path / "store", "context", "map", "--repo", str(builder.path), "--worktree")
    assert done.returncode == 1, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] in ("bad_tree", "missing_objects") and damaged[:12] in error["message"], error
