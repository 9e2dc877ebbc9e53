"""A commit some of whose blobs the object database lacks (a blobless partial clone's): each
missing blob is listed as skipped (`missing_object`), the rest is indexed, the freshness says
`partial` with the count, and `--require-complete` refuses it as before; `rennet batch` does
the same, and a partial snapshot's bundle round-trips, its missing blobs checked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import msgspec
import pygit2
import pytest

from corpora.gitbuild import Link, RepoBuilder, Submodule
from indexer import api
from indexer.contract.errors import MissingObjects, UnknownRev
from indexer.store.database import Store
from tests.cli_runs import run_cli

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
    builder, part, oid = partial_clone(tmp_path, FILES)
    return builder.path, part, oid


def blobless_clone(builder: RepoBuilder, tmp_path) -> Path:
    """A blobless partial clone of the builder's repository, at `tmp_path / "part"`, no blob fetched."""
    subprocess.run(["git", "-C", str(builder.path), "config", "uploadpack.allowFilter", "true"], check=True)
    part = tmp_path / "part"
    subprocess.run(["git", "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{builder.path}",
                    str(part)], check=True, capture_output=True)
    return part


def partial_clone(tmp_path, files) -> tuple[RepoBuilder, Path, str]:
    """The builder of the source repository (one commit of `files`), its partial clone, the commit."""
    builder = RepoBuilder(tmp_path / "src")
    oid = builder.commit(files)
    part = blobless_clone(builder, tmp_path)
    # git fetches one blob on demand; libgit2 (the indexer's reader) never does
    subprocess.run(["git", "-C", str(part), "cat-file", "-p", f"{oid}:pkg/a.py"], check=True, capture_output=True)
    repo = pygit2.Repository(str(part))
    tree = repo[oid].peel(pygit2.Tree)
    assert tree["pkg"]["a.py"].id in repo.odb and tree["pkg"]["b.py"].id not in repo.odb
    return builder, part, oid


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


def test_an_index_reads_the_partial_clone_config_once(clones, tmp_path, monkeypatch):
    """Whether the repository is a partial clone is read from git's config (parsed afresh at each
    ask) once an index, by the build, which tells extraction (was: asked by both). The answer
    is the same, the clone's blobs listed missing as before."""
    from indexer.git import read as gitread

    src, part, oid = clones
    asked: list[str] = []
    real = gitread.partial_clone

    def counted(repo):
        asked.append(repo.path)
        return real(repo)

    monkeypatch.setattr(gitread, "partial_clone", counted)
    for repo, missing in ((part, 3), (src, 0)):
        asked.clear()
        with Store.open(tmp_path / f"store-{missing}") as store:
            report = api.index(str(repo), store=store, workers=1)
        assert len(asked) == 1 and len(report.skipped) == missing, (repo, asked, report.skipped)


def test_only_a_missing_blob_makes_a_snapshot_partial_not_a_link_or_a_submodule(tmp_path):
    """A link and a submodule are listed unread too (skipped as `symlink`, `submodule`), but their
    objects are at hand: the snapshot lacks none and is complete."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit({"a.py": "x = 1\n", "alias.py": Link("a.py"), "vendor/lib": Submodule("1" * 40)})
    with Store.open(tmp_path / "store") as store:
        snap = api.snapshot(str(builder.path), store=store)
        assert {f.path: f.skipped for f in snap.files} == {"a.py": "", "alias.py": "symlink", "vendor/lib": "submodule"}
        assert snap.missing_objects == 0


def test_the_freshness_says_partial_and_require_complete_refuses(clones, tmp_path):
    _, part, oid = clones
    home = str(tmp_path / "store")

    def rennet(*args: str) -> subprocess.CompletedProcess:
        return run_cli("--store", home, *args)

    refused = rennet("index", "--repo", str(part), "--require-complete", "--quiet")
    assert refused.returncode != 0 and refused.stderr.count("\n") == 1 and "missing_objects" in refused.stderr
    assert "3 blob(s) are missing from the object database (first: README.md, " in refused.stderr  # first by path
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


# --- batch and bundles (docs/fleet.md "Partial snapshots") ----------------------------------

def test_batch_lists_missing_blobs_as_index_does_and_require_complete_fails_the_job(clones, tmp_path):
    from indexer.fleet import batch

    src, part, oid = clones
    with Store.open(tmp_path / "indexed") as store:
        partial_print = api.index(str(part), store=store, workers=1).fingerprint
    with Store.open(tmp_path / "store") as store:
        refused = batch.run(store, [batch.JobSpec(str(part), oid)], workers=1, require_complete=True)
        [job] = refused.jobs
        assert not job.ok and job.error is not None and job.error.code == "missing_objects"
        assert "3 blob(s)" in job.error.message
        done = batch.run(store, [batch.JobSpec(str(part), oid)], workers=1)
        [job] = done.jobs
        assert job.ok and job.status == "indexed" and job.missing_objects == 3
        # the refused run parsed the one blob at hand; the three missing are neither parsed nor reused
        assert (job.parsed_blobs, job.reused_blobs) == (0, 1)
        assert job.fingerprint == partial_print  # the same partial snapshot `rennet index` makes
        snap = api.snapshot(str(part), oid, store=store, index_if_absent=False)
        assert snap.missing_objects == 3 and snap.facts("pkg/a.py").symbols[0].name == "alpha"
        assert batch.result_line(job)["missing_objects"] == 3
        # stored and partial: skipped while its blobs are still missing, refused when asked complete
        [again] = batch.run(store, [batch.JobSpec(str(part), oid)], workers=1).jobs
        assert again.status == "skipped_existing" and again.missing_objects == 3
        [strict] = batch.run(store, [batch.JobSpec(str(part), oid)], workers=1, require_complete=True).jobs
        assert not strict.ok and strict.error is not None and strict.error.code == "missing_objects"
        # once the blobs are fetched the partial snapshot gives way to the complete one
        subprocess.run(["git", "-C", str(part), "reset", "-q", "--hard"], check=True, capture_output=True)
        [full] = batch.run(store, [batch.JobSpec(str(part), oid)], workers=1).jobs
        assert full.status == "indexed" and full.missing_objects == 0
        assert "missing_objects" not in batch.result_line(full)  # said only of a partial snapshot
        assert api.snapshot(str(part), oid, store=store, index_if_absent=False).missing_objects == 0
    with Store.open(tmp_path / "whole") as store:
        assert api.index(str(src), store=store, workers=1).fingerprint == full.fingerprint


def test_batch_cli_require_complete_exits_non_zero(clones, tmp_path):
    import sys

    _, part, oid = clones
    home = str(tmp_path / "store")
    base = [sys.executable, "-m", "context_tools.faces.cli", "--store", home, "batch", f"{part}@{oid}"]
    refused = subprocess.run([*base, "--require-complete", "--quiet"], capture_output=True, text=True)
    assert refused.returncode != 0 and refused.stderr.count("\n") == 1 and "missing_objects" in refused.stderr
    done = subprocess.run([*base, "--quiet", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    job = json.loads(done.stdout.splitlines()[0])
    assert job["status"] == "indexed" and job["missing_objects"] == 3


def _partial_bundle(part, tmp_path, key: bytes | None = None):
    from indexer.fleet import bundle

    with Store.open(tmp_path / "exporter") as store:
        api.index(str(part), store=store, workers=1)
        snap = api.snapshot(str(part), store=store)
        out = tmp_path / "partial.rnb"
        report = bundle.export(snap, out, key=key)
    assert report.missing_objects == 3 and report.facts == 1
    return out, report


def test_a_partial_bundle_round_trips_signed_and_rederived(clones, tmp_path):
    from indexer.fleet import bundle

    src, part, oid = clones
    key = b"k" * 32
    signed, exported = _partial_bundle(part, tmp_path, key)
    with Store.open(tmp_path / "signed") as store:
        report = bundle.import_bundle(store, signed, str(part), key=key)
        assert report.provenance == "signed" and report.missing_objects == 3
        assert report.fingerprint == exported.fingerprint
        snap = api.snapshot(str(part), oid, store=store, index_if_absent=False)
        assert snap.missing_objects == 3 and [s.name for s in snap.facts("pkg/a.py").symbols] == ["alpha"]
    unsigned, _ = _partial_bundle(part, tmp_path / "u")
    # made again from the partial clone, and from the complete repository, with the bundle's
    # missing blobs taken as missing: the same partial snapshot either way
    for repo in (part, src):
        with Store.open(tmp_path / f"rederived-{repo.name}") as store:
            report = bundle.import_bundle(store, unsigned, str(repo))
            assert report.provenance == "rederived" and report.missing_objects == 3
            assert report.fingerprint == exported.fingerprint


def test_a_bundle_cannot_list_a_file_as_missing_inconsistently(clones, tmp_path):
    from indexer.fleet import bundle
    from indexer.store.canonical import fingerprint
    from indexer.store.records import decode_facts, decode_record, entry_facts_key
    from tests.test_bundle import _parts, _seal

    _, part, _ = clones
    path, _ = _partial_bundle(part, tmp_path)
    header, body = _parts(path.read_bytes())
    for change in ({"skipped": "missing_object"}, {"language": "missing", "size": 0, "lines": -1},
                   {"path": "README.md", "skipped": ""}, {"path": "README.md", "size": 7}):
        record = decode_record(body.record)
        target = change.get("path", "pkg/a.py")
        edits = {k: v for k, v in change.items() if k != "path"}
        record.files = [msgspec.structs.replace(f, **edits) if f.path == target else f for f in record.files]
        by_key = {bytes(e.key): decode_facts(e.facts) for e in body.facts}
        by_path = {f.path: by_key[entry_facts_key(f, record.extractor_version)] for f in record.files
                   if entry_facts_key(f, record.extractor_version) in by_key}
        record.fingerprint = fingerprint(record, by_path)
        forged = tmp_path / "forged.rnb"
        forged.write_bytes(_seal(dict(header, fingerprint=record.fingerprint),
                                 bundle.Body(msgspec.msgpack.encode(record), body.facts)))
        with Store.open(tmp_path / "victim") as store:
            with pytest.raises(bundle.BadBundle, match="missing inconsistently"):
                bundle.import_bundle(store, forged, trust_unsigned=True)


def test_a_partial_snapshot_whose_rev_moved_is_stale_not_partial(clones, tmp_path):
    """`partial` is a current pin's word: once the rev moves, the answer is `stale` (the missing
    count still travels with it)."""
    import context_tools

    _, part, oid = clones
    client = context_tools.Client(store=str(tmp_path / "store"))
    client.call("repo.index", repo=str(part))
    before = client.call("context.symbol", repo=str(part), name="alpha").freshness
    assert (before.status, before.missing_objects) == ("partial", 3)
    repo = pygit2.Repository(str(part))
    sig = pygit2.Signature("t", "t@example.invalid")
    moved = repo.create_commit(None, sig, sig, "moved", repo[oid].peel(pygit2.Tree).id, [pygit2.Oid(hex=oid)])
    repo.references[repo.head.name].set_target(moved)
    after = client.call("context.symbol", repo=str(part), name="alpha").freshness
    assert (after.status, after.pinned_oid, after.current_oid, after.missing_objects) == ("stale", oid, str(moved), 3)


def test_repo_snapshots_lists_each_rev_as_an_answer_read_from_it_says(clones, tmp_path):
    """`repo.snapshots` says of a partial snapshot's rev what every answer read from it says:
    `partial` while the rev resolves to its commit (was: `current`), `stale` once it moved; a
    complete snapshot of the same repository beside it stays `current`."""
    import context_tools

    _, part, oid = clones
    repo = pygit2.Repository(str(part))
    sig = pygit2.Signature("t", "t@example.invalid")
    kept = repo.TreeBuilder()  # a commit of the one blob the clone has: complete
    pkg = repo.TreeBuilder()
    pkg.insert("a.py", repo[oid].peel(pygit2.Tree)["pkg"]["a.py"].id, pygit2.GIT_FILEMODE_BLOB)
    kept.insert("pkg", pkg.write(), pygit2.GIT_FILEMODE_TREE)
    whole = repo.create_commit("refs/heads/whole", sig, sig, "whole", kept.write(), [pygit2.Oid(hex=oid)])
    client = context_tools.Client(store=str(tmp_path / "store"))
    client.call("repo.index", repo=str(part))
    client.call("repo.index", repo=str(part), rev="whole")

    def listed() -> dict[str, tuple[str, str]]:
        return {r.rev: (r.pinned_oid, r.status) for r in client.call("repo.snapshots", repo=str(part)).data.revs}

    def answered(rev: str) -> str:
        return client.call("context.symbol", repo=str(part), rev=rev, name="alpha").freshness.status

    assert listed() == {"HEAD": (oid, "partial"), "whole": (str(whole), "current")}
    assert (answered("HEAD"), answered("whole")) == ("partial", "current")
    moved = repo.create_commit(None, sig, sig, "moved", repo[oid].peel(pygit2.Tree).id, [pygit2.Oid(hex=oid)])
    repo.references[repo.head.name].set_target(moved)
    assert listed() == {"HEAD": (oid, "stale"), "whole": (str(whole), "current")}
    assert answered("HEAD") == "stale"


def test_a_workspace_member_pinned_to_a_partial_snapshot_is_partial_as_its_answers_say(clones, tmp_path):
    """A member whose pinned snapshot lacks blobs is `partial` in `workspace.add`'s freshness, in
    `workspace.status` (its counts and its human reply too) and in the workspace's overview (its
    totals too; were: stale and unknown alone), as
    every answer read from it says (were: `current`, the workspace keeping a copy of the rule
    that stopped at `dirty`, and `add` saying `current` of any pin); a complete member beside it
    stays `current`, and the partial one is `stale` once its rev moved."""
    import context_tools
    from context_tools.faces.packs.fleet import render_workspace
    from indexer.fleet import workspace

    _, part, oid = clones
    whole = RepoBuilder(tmp_path / "whole")
    whole.commit({"lib.py": "def gamma():\n    return 3\n"})
    home = tmp_path / "store"
    client = context_tools.Client(store=str(home))
    client.call("workspace.create", name="ws")
    added = client.call("workspace.add", name="ws", repo=str(part), member="part").freshness
    assert (added.status, added.missing_objects, added.pinned_oid) == ("partial", 3, oid)
    assert client.call("workspace.add", name="ws", repo=str(whole.path), member="whole").freshness.status == "current"

    def told() -> dict[str, object]:
        status = client.call("workspace.status", name="ws")
        with Store.open(home) as store:
            overview = workspace.overview(store, "ws")
        answer = client.call("context.symbol", workspace="ws", name="alpha").data
        totals = client.call("context.overview", workspace="ws").data.totals
        return {"status": {m.name: m.freshness for m in status.data.members},
                "totals": {k: getattr(totals, k) for k in ("stale", "unknown", "dirty", "partial")},
                "counts": {k: n for k, n in status.data.counts.items() if n},
                "overview": {s.member.name: s.freshness.status for s in overview.members},
                "answer": {f.member: f.status for f in answer.member_freshness.items},
                "reason": next(m.reason for m in status.data.members if m.name == "part"),
                "shown": render_workspace(status).splitlines()[0]}

    now = told()
    assert {k: now[k] for k in ("status", "overview", "answer")} == {
        k: {"part": "partial", "whole": "current"} for k in ("status", "overview", "answer")}
    assert now["counts"] == {"current": 1, "partial": 1}
    assert now["totals"] == {"stale": 0, "unknown": 0, "dirty": 0, "partial": 1}
    assert "3 of its blobs were missing" in str(now["reason"]) and "`rennet workspace add` it again" in str(now["reason"])
    assert now["shown"].endswith("(1 current, 0 stale, 0 unknown, 1 partial)")
    repo = pygit2.Repository(str(part))
    sig = pygit2.Signature("t", "t@example.invalid")
    moved = repo.create_commit(None, sig, sig, "moved", repo[oid].peel(pygit2.Tree).id, [pygit2.Oid(hex=oid)])
    repo.references[repo.head.name].set_target(moved)
    after = told()
    assert {k: after[k] for k in ("status", "overview", "answer")} == {
        k: {"part": "stale", "whole": "current"} for k in ("status", "overview", "answer")}
    assert after["counts"] == {"current": 1, "stale": 1}
    assert after["totals"] == {"stale": 1, "unknown": 0, "dirty": 0, "partial": 0}
    assert "run `rennet workspace sync ws` to re-pin" in str(after["reason"])


def test_a_bundle_that_completes_a_partial_snapshot_leaves_none_of_its_rank_arcs(tmp_path):
    """A batch's signed bundle takes the place of a stored partial snapshot of its commit; a
    bundle carries no rank arcs, and the partial snapshot's (made without its missing blobs'
    facts) were left under the same key, where the next re-index read them as the complete
    snapshot's (was: a re-index from it a fingerprint other than a cold index's)."""
    from indexer.fleet import bundle
    from indexer.rank.arcs import load_rank_arcs

    builder, part, oid = partial_clone(tmp_path, {
        "pkg/a.py": "def alpha():\n    return 1\n",
        "pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    return alpha() + alpha()\n",
        "pkg/c.py": "from pkg.b import beta\n\n\ndef gamma():\n    return beta()\n",
        "README.md": "# demo\n"})
    src, key = builder.path, b"k" * 32
    with Store.open(tmp_path / "whole") as store:
        api.index(str(src), oid, store=store, workers=1)
        out = tmp_path / "full.rnb"
        bundle.export(api.snapshot(str(src), oid, store=store), out, key=key)
    two = builder.commit({"README.md": "# demo, again\n"}, "two")
    with Store.open(tmp_path / "store") as store:
        assert api.index(str(part), store=store, workers=1).skipped  # the partial snapshot, and its arcs
        assert load_rank_arcs(store, oid) is not None
        [report] = bundle.import_signed(store, [(out.read_bytes(), str(src), None)], key, replace={0})
        assert report.missing_objects == 0 and api.snapshot(str(src), oid, store=store).missing_objects == 0
        assert load_rank_arcs(store, oid) is None  # made again by the next re-index
        again = api.index(str(src), two, store=store, workers=1)
    with Store.open(tmp_path / "cold") as store:
        assert api.index(str(src), two, store=store, workers=1).fingerprint == again.fingerprint


def test_a_symbolic_link_whose_blob_a_partial_clone_lacks_is_listed_missing(tmp_path):
    """A link's target is its blob: where the partial clone lacks it, the link is listed as a
    missing regular blob is (`missing_object`), never read."""
    _, part, oid = partial_clone(tmp_path, {**FILES, "docs/link.py": Link("../pkg/b.py")})
    with Store.open(tmp_path / "store") as store:
        report = api.index(str(part), store=store, workers=1)
        assert ("docs/link.py", "missing_object") in {(s.path, s.reason) for s in report.skipped}
        entry = api.snapshot(str(part), oid, store=store).file("docs/link.py")
        assert (entry.language, entry.skipped, entry.target) == ("missing", "missing_object", "")


def test_a_gitattributes_file_a_partial_clone_lacks_is_listed_missing_and_marks_nothing(tmp_path):
    """Marking reads each `.gitattributes` blob: one the partial clone lacks is listed as
    `missing_object` like any other, and read as no attributes, not as the index's failure."""
    files = {**FILES, ".gitattributes": "*.py linguist-generated\n"}
    _, part, oid = partial_clone(tmp_path, files)
    with Store.open(tmp_path / "store") as store:
        report = api.index(str(part), store=store, workers=1)
        assert (".gitattributes", "missing_object") in {(s.path, s.reason) for s in report.skipped}
        assert api.snapshot(str(part), oid, store=store).file("pkg/a.py").mark == ""


def test_a_reindex_of_a_partial_clone_keeps_a_blob_still_missing_listed(clones, tmp_path):
    """The earlier snapshot lists a blob as missing (no facts stored) at a path the next commit
    keeps: the re-index finds no facts for it, and rather than parsing a blob the clone still
    lacks, lists it as missing again."""
    _, part, oid = clones
    repo = pygit2.Repository(str(part))
    with Store.open(tmp_path / "store") as store:
        api.index(str(part), oid, store=store, workers=1)
        tree = repo[oid].peel(pygit2.Tree)
        builder = repo.TreeBuilder(tree)
        builder.insert("added.py", repo.create_blob(b"def added():\n    return 2\n"), pygit2.GIT_FILEMODE_BLOB)
        sig = pygit2.Signature("t", "t@example.com", 1, 0)
        second = str(repo.create_commit(None, sig, sig, "second", builder.write(), [repo[oid].id]))
        report = api.index(str(part), second, store=store, workers=1)
        assert report.parsed_blobs == 1
        assert {(s.path, s.reason) for s in report.skipped} == {
            ("pkg/b.py", "missing_object"), ("pyproject.toml", "missing_object"), ("README.md", "missing_object")}


def test_a_bundle_of_a_commit_the_driver_cannot_read_replaces_a_partial_snapshot_only_completing_it(clones, tmp_path):
    """docs/fleet.md: a Dask job named by URL (its commit unread by the driver) replaces a
    stored partial snapshot only where every blob its bundle lacks the stored one lacks too,
    and the stored one lacks more: the same partial snapshot again replaces nothing (its rank
    arcs stay), a complete one takes its place. `rennet import` of the complete one is a
    fingerprint conflict: only a batch's bundle takes a partial snapshot's place."""
    from indexer.fleet import bundle
    from indexer.rank.arcs import load_rank_arcs

    src, part, oid = clones
    key = b"k" * 32
    with Store.open(tmp_path / "whole") as store:
        api.index(str(src), oid, store=store, workers=1)
        full = b"".join(bundle.make(api.snapshot(str(src), oid, store=store), key)[0])
    with Store.open(tmp_path / "store") as store:
        api.index(str(part), store=store, workers=1)
        same = b"".join(bundle.make(api.snapshot(str(part), oid, store=store), key)[0])
        with pytest.raises(bundle.FingerprintConflict):  # `rennet import`: a stored snapshot never gives way
            bundle.import_data(store, full, key=key)
        [kept] = bundle.import_signed(store, [(same, None, None)], key, unchecked={0})
        assert isinstance(kept, bundle.ImportReport) and kept.missing_objects == 3
        assert load_rank_arcs(store, oid) is not None  # not replaced: the same blobs lacking
        [done] = bundle.import_signed(store, [(full, None, None)], key, unchecked={0})
        assert isinstance(done, bundle.ImportReport) and done.missing_objects == 0
        assert api.snapshot(str(part), oid, store=store, index_if_absent=False).missing_objects == 0


def test_a_snapshot_completes_another_of_its_commit_lacking_a_part_of_its_missing_blobs():
    from indexer.fleet import bundle
    from indexer.model import FileEntry, SnapshotRecord
    from indexer.pipeline.extract import MISSING, MISSING_OBJECT

    def lacking(*paths: str) -> SnapshotRecord:
        files = [FileEntry(p, p * 40, 0o100644, 0, -1, MISSING, skipped=MISSING_OBJECT) if p in paths
                 else FileEntry(p, p * 40, 0o100644, 1, 1, "python") for p in "abc"]
        return SnapshotRecord("a" * 40, "b" * 40, "v", files, [], [], [], [], [], {}, {})

    assert bundle.completes(lacking("a", "b"), lacking("a")) and bundle.completes(lacking("a"), lacking())
    for stored, record in ((lacking("a"), lacking("a")), (lacking(), lacking()), (lacking("a", "b"), lacking("c")),
                           (lacking("a"), lacking("a", "b"))):
        assert not bundle.completes(stored, record)


def test_a_partial_clone_indexes_in_a_store_holding_the_facts_of_blobs_it_lacks(tmp_path):
    """Was: `missing_objects: blob ... is missing from the object database`, the whole index
    refused, for a blobless partial clone indexed into a store that already held the facts of
    blobs it lacks (the default store, where a full clone of the project was indexed): they were
    taken as read, and assembly read the manifest's blob from the clone. Now each blob the clone
    lacks is listed as missing, as a store without those facts lists it, to the same snapshot;
    and the earlier snapshot (the full clone's parent commit) is not carried over, its files
    being read as present."""
    builder = RepoBuilder(tmp_path / "src")
    first = builder.commit(FILES)
    second = builder.commit({"pkg/c.py": "def gamma():\n    return 3\n"})
    part = blobless_clone(builder, tmp_path)
    with Store.open(tmp_path / "fresh") as store:
        cold = api.index(str(part), second, store=store, workers=1)
    assert {s.reason for s in cold.skipped} == {"missing_object"} and len(cold.skipped) == 5
    with Store.open(tmp_path / "store") as store:
        api.index(str(builder.path), first, store=store, workers=1)
        report = api.index(str(part), second, store=store, workers=1)
        assert report.fingerprint == cold.fingerprint
        assert report.skipped == cold.skipped
        assert api.snapshot(str(part), second, store=store).missing_objects == 5


def test_a_batch_of_a_partial_clone_indexes_in_a_store_holding_the_facts_of_blobs_it_lacks(tmp_path):
    """`rennet batch` as `rennet index` (above): a blobless partial clone batched into a store
    holding the facts of blobs it lacks failed its job (`missing_objects: blob ... is missing
    from the object database`, the stored facts taken as read and assembly reading a manifest's
    blob). Each blob it lacks is now listed as missing, to the snapshot a store without those
    facts builds."""
    from indexer.fleet import batch

    builder = RepoBuilder(tmp_path / "src")
    first = builder.commit(FILES)
    second = builder.commit({"pkg/c.py": "def gamma():\n    return 3\n"})
    part = blobless_clone(builder, tmp_path)
    with Store.open(tmp_path / "fresh") as store:
        [cold] = batch.run(store, [batch.JobSpec(str(part), second)], workers=1).jobs
    assert cold.ok and cold.missing_objects == 5, cold
    with Store.open(tmp_path / "store") as store:
        api.index(str(builder.path), first, store=store, workers=1)
        [job] = batch.run(store, [batch.JobSpec(str(part), second)], workers=1).jobs
        assert job.ok, job.error
        assert (job.fingerprint, job.missing_objects) == (cold.fingerprint, 5)
        assert api.snapshot(str(part), second, store=store).missing_objects == 5


def test_a_member_whose_clone_lacks_blobs_of_its_complete_snapshot_is_left_out_saying_why(tmp_path):
    """A blobless clone of a commit the store already holds complete (the full checkout was
    indexed into the same store) is pinned to that snapshot; its sites cannot be read from the
    clone. A workspace's references answer from the other members and say the clone's member
    was not read and why (was: the whole answer `missing_objects`, whichever member the name
    was in)."""
    import context_tools

    source = RepoBuilder(tmp_path / "src")
    source.commit({"lib/__init__.py": "def alpha():\n    return 1\n", "README.md": "alpha\n"})
    part = blobless_clone(source, tmp_path)
    app = RepoBuilder(tmp_path / "app")
    app.commit({"use.py": "from lib import alpha\n\n\nalpha()\n"})
    with Store.open(tmp_path / "store") as store:
        api.index(str(source.path), store=store, workers=1)
    client = context_tools.Client(store=str(tmp_path / "store"))
    client.call("workspace.create", name="ws")
    client.call("workspace.add", name="ws", repo=str(part), member="lib")
    client.call("workspace.add", name="ws", repo=str(app.path), member="app")
    out = client.call("context.references", workspace="ws", name="alpha")
    assert [(s.member, s.path, s.line) for s in out.data.sites] == [("app", "use.py", 1), ("app", "use.py", 4)]
    lib = next(f for f in out.data.member_freshness.items if f.member == "lib")
    assert lib.status == "unknown" and "is not local to" in lib.reason and "cat-file -e" in lib.reason, lib
    assert "its sites are left out of this answer" in lib.reason
    assert out.freshness.status == "unknown" and "lib: member not read" in out.freshness.reason


def test_a_blobless_member_whose_snapshot_is_whole_tells_the_agent_how_to_fetch_a_files_text(scratch_server):
    """A blobless clone whose commit the store indexed whole from another clone (the blobs' facts
    were there): its member is `current`, but `context_file` of a file git has not fetched is
    `missing_objects`. Was: "blob 596d290f3ede is missing from the object database", naming
    neither the repository nor what to do, beside a reason that claimed no more than `current`.
    Now the error names the file, the repository, that it is a partial clone whose blobs are not
    all local, and the git command that fetches the blob; the reason says the repository is a
    partial clone whose lines are read where fetched; and the command in the message works."""
    import shlex

    import context_tools
    from tests.mcp_clients import text_of

    place = scratch_server.place("blobless-member")
    builder = RepoBuilder(place / "src")
    builder.commit(FILES)
    part = blobless_clone(builder, place)
    client = context_tools.Client(store=str(scratch_server.store))
    client.call("repo.index", repo=str(builder.path))  # every blob's facts in the store
    client.call("workspace.create", name="blobless-member")
    added = client.call("workspace.add", name="blobless-member", repo=str(part), member="part").freshness
    assert (added.status, added.missing_objects) == ("current", 0), added

    async def ask(client):
        return [text_of(await client.call_tool(name, args)) for name, args in (
            ("context_file", {"workspace": "blobless-member", "path": "pkg/b.py"}),
            ("workspace_status", {"name": "blobless-member"}),
            ("context_symbol", {"repo": str(part), "name": "beta"}))]

    refused, status, symbol = scratch_server.run(ask)
    error = refused["error"]
    assert error["code"] == "missing_objects", refused
    real = str(Path(part).resolve())
    assert error["message"].startswith("blob ") and f"(pkg/b.py) is not local to {real}: it is a partial clone" in (
        error["message"]), error
    command = error["message"].split("`")[-2]
    assert command.startswith(f"git -C {real} cat-file -e "), error
    for reason in (status["data"]["members"][0]["reason"], symbol["freshness"]["reason"]):
        assert "the repository is a partial clone (`git clone --filter`), so a file's lines are read only where git " \
               "fetched its blob" in reason, reason
    assert status["data"]["members"][0]["freshness"] == symbol["freshness"]["status"] == "current"
    subprocess.run(shlex.split(command), check=True, capture_output=True)  # what the message says to run

    async def again(client):
        return text_of(await client.call_tool("context_file", {"workspace": "blobless-member", "path": "pkg/b.py"}))

    read = scratch_server.run(again)
    assert read["ok"] and read["data"]["content"]["lines"][0] == "from pkg.a import alpha", read
