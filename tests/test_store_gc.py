"""`rennet store info|list|gc`: what the store holds, and dropping what nothing holds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.store.database import Store
from indexer.store.gc import collect
from indexer.store.inventory import info, inventory
from tests.cli_runs import ROOT, run_cli

if TYPE_CHECKING:
    import pygit2

FIRST = {
    "app/core.py": "def shared():\n    return 1\n\n\ndef only_old():\n    return shared()\n",
    "app/util.py": "from app.core import shared\n\n\ndef helper():\n    return shared()\n",
    "lib/keep.py": "class Kept:\n    def run(self):\n        return 2\n",
}
SECOND = {"app/core.py": "def shared():\n    return 1\n\n\ndef brand_new():\n    return shared()\n"}


def _dump(store: Store) -> dict[str, list[tuple[bytes, bytes]]]:
    """Every row of every table but the ledger (each call on a face appends a receipt)."""
    out = {}
    with store.env.begin() as txn:
        for name, _ in txn.cursor():
            if name.startswith(b"kv:ledger"):
                continue
            db = store.env.open_db(bytes(name), txn=txn, create=False)
            out[bytes(name).decode()] = [(bytes(k), bytes(v)) for k, v in txn.cursor(db=db)]
    return out


def _facts_keys(store: Store) -> set[bytes]:
    with store.env.begin(db=store.facts) as txn:
        return {bytes(k) for k in txn.cursor().iternext(values=False)}


def _answers(store: Store, repo: str, rev: str) -> tuple:
    snap = api.snapshot(repo, rev, store=store, index_if_absent=False)
    return (snap.record.fingerprint, sorted(p for p, _ in snap.definitions("shared")),
            sorted(p for p, _ in snap.occurrences("shared")), sorted(snap.defined_names()), list(snap.canonical_lines()))


@pytest.fixture
def repinned(tmp_path):
    """A repository indexed at main, then main moved and indexed again (re-pinning main), with
    v1 tagged at the first commit and indexed under the tag: a second repository indexed at
    its own main."""
    repo = RepoBuilder(tmp_path / "repo")
    first = repo.commit(FIRST, message="first")
    store = api.open_store(tmp_path / "store")
    api.index(str(tmp_path / "repo"), "main", store=store)
    repo.commit(SECOND, message="second")
    api.index(str(tmp_path / "repo"), "main", store=store)
    other = RepoBuilder(tmp_path / "other")
    other.commit({"x.py": "def lonely():\n    return 3\n"}, message="other")
    api.index(str(tmp_path / "other"), "main", store=store)
    yield store, str(tmp_path / "repo"), str(tmp_path / "other"), first
    store.close()


def _old_only_key(store: Store, first: str) -> bytes:
    """The facts key of app/core.py at the first commit: only the dropped snapshot needs it."""
    with store.env.begin() as txn:
        inv = inventory(store, txn)
    old = next(s for s in inv.snapshots if s.oid == first)
    new = set().union(*(s.facts_keys for s in inv.snapshots if s.oid != first))
    only = old.facts_keys - new
    assert len(only) == 1
    return next(iter(only))


def test_gc_drops_the_repinned_snapshot_and_facts_only_it_used(repinned):
    store, repo, other, first = repinned
    old_key = _old_only_key(store, first)
    before_keys = _facts_keys(store)
    kept_before = (_answers(store, repo, "main"), _answers(store, other, "main"))
    assert info(store).snapshots == 3 and info(store).held_snapshots == 2

    plan = collect(store)

    assert [s.oid for s in plan.snapshots] == [first]
    assert plan.facts == 1 and _facts_keys(store) == before_keys - {old_key}
    with store.env.begin() as txn:
        assert {s.oid for s in inventory(store, txn).snapshots} == {s for s in
                                                                    (api.snapshot(repo, "main", store=store).oid,
                                                                     api.snapshot(other, "main", store=store).oid)}
        # the name only the dropped blob defined is gone from the name index and its runs
        assert txn.get(b"only_old", db=store.defs) is None and txn.get(b"brand_new", db=store.defs) is not None
    assert plan.names == 1
    runs_text = "".join(r.text for r in __import__("indexer.store.name_runs", fromlist=["load"]).load(store))
    assert "\nonly_old\n" not in runs_text and "\nbrand_new\n" in runs_text
    # the kept snapshots answer the same, fingerprint included
    assert (_answers(store, repo, "main"), _answers(store, other, "main")) == kept_before
    # a second collection finds nothing
    again = collect(store)
    assert not again.snapshots and again.facts == 0 and again.name_rows == 0


def test_gc_keeps_what_a_pin_or_a_workspace_holds(repinned, tmp_path):
    store, repo, _other, first = repinned
    api.index(repo, first, store=store)  # the first commit pinned by its own OID
    plan = collect(store, dry_run=True)
    assert not plan.snapshots and plan.facts == 0
    # a workspace member pinned at the first commit keeps it once the OID pin is the only other holder
    from indexer.fleet import workspace

    workspace.create(store, "ws")
    workspace.add(store, "ws", repo, first, None)
    with store.env.begin(write=True) as txn:  # drop the OID pin: the member alone holds the snapshot
        from indexer.git import read as gitread
        from indexer.store.records import pin_key

        txn.delete(pin_key(gitread.repo_identity(gitread.open_repo(repo)), first), db=store.repos)
    with store.env.begin() as txn:
        held = next(s for s in inventory(store, txn).snapshots if s.oid == first).held_by
    assert [h.kind for h in held] == ["workspace"]
    plan = collect(store)
    assert not plan.snapshots and plan.facts == 0
    assert api.snapshot(repo, first, store=store, index_if_absent=False).oid == first


def test_dry_run_changes_nothing(repinned):
    store, _repo, _other, first = repinned
    before = _dump(store)
    plan = collect(store, dry_run=True)
    assert [s.oid for s in plan.snapshots] == [first] and plan.facts == 1 and plan.bytes > 0
    assert _dump(store) == before


_KILLER = """
import os, signal, sys
from indexer.store.database import Store
from indexer.store.gc import collect

def step(name):
    if name == sys.argv[2]:
        os.kill(os.getpid(), signal.SIGKILL)

collect(Store.open(sys.argv[1]), step=step)
"""


@pytest.mark.parametrize("stage", ["facts", "names"])
def test_killed_gc_leaves_a_store_that_opens_and_answers(repinned, tmp_path, stage):
    store, repo, other, _first = repinned
    home = str(store.home)
    kept = (_answers(store, repo, "main"), _answers(store, other, "main"))
    before = _dump(store)
    store.close()
    p = subprocess.run([sys.executable, "-c", _KILLER, home, stage], cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, timeout=120)
    assert p.returncode == -signal.SIGKILL, p.stderr
    with Store.open(home) as reopened:
        assert _dump(reopened) == before  # the one transaction never committed
        assert (_answers(reopened, repo, "main"), _answers(reopened, other, "main")) == kept
        assert collect(reopened).snapshots  # and a collection run to its end still finds its work


def test_store_commands_on_the_cli(repinned):
    store, repo, _other, first = repinned
    home = str(store.home)
    store.close()

    def rennet(*args):
        return run_cli(*args, "--store", home, timeout=120)

    p = rennet("store", "info", "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)["data"]
    assert data["snapshots"] == 3 and data["held_snapshots"] == 2 and data["repositories"] == 2
    p = rennet("store", "list", "--json", "--limit", "2")
    listed = json.loads(p.stdout)
    assert listed["page"]["total"] == 3 and listed["page"]["returned"] == 2 and listed["page"]["cursor"]
    rest = json.loads(rennet("store", "list", "--json", "--cursor", listed["page"]["cursor"]).stdout)
    rows = listed["data"]["snapshots"] + rest["data"]["snapshots"]
    dropped = next(r for r in rows if r["oid"] == first)
    assert dropped["pinned_by"] == [] and all(r["pinned_by"] for r in rows if r["oid"] != first)
    human = rennet("store", "list")
    assert human.stdout.splitlines()[0].split()[:3] == ["OID", "fingerprint", "indexed"]
    dry = rennet("store", "gc", "--dry-run")
    assert dry.returncode == 0 and "would free" in dry.stdout and first[:12] in dry.stdout
    assert json.loads(rennet("store", "info", "--json").stdout)["data"]["snapshots"] == 3
    done = rennet("store", "gc", "--json")
    assert json.loads(done.stdout)["data"]["snapshots"] == 1
    assert json.loads(rennet("store", "info", "--json").stdout)["data"]["snapshots"] == 2


def _worktree_snapshots(store: Store, repo: str, count: int) -> tuple[pygit2.Repository, list[str]]:
    """The checkout of `repo`, and the oids of `count` working-tree snapshots indexed into
    `store`, app/util.py edited before each."""
    import pygit2

    from indexer.git.worktree import read_worktree

    checkout = pygit2.Repository(repo)
    checkout.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    trees = []
    for n in range(count):
        (Path(repo) / "app" / "util.py").write_text(f"def edited_{n}():\n    return {n}\n")
        trees.append(api.worktree_snapshot(checkout, read_worktree(checkout), store=store).oid)
    return checkout, trees


def test_gc_keeps_the_working_tree_snapshots_a_checkout_lists(repinned, tmp_path):
    import pygit2

    from indexer.git.worktree import read_worktree

    store, repo, _other, first = repinned
    checkout = pygit2.Repository(repo)
    checkout.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    (Path(repo) / "app" / "util.py").write_text("def edited():\n    return 5\n")
    snap = api.worktree_snapshot(checkout, read_worktree(checkout), store=store)
    with store.env.begin() as txn:
        held = next(s for s in inventory(store, txn).snapshots if s.oid == snap.oid).held_by
    assert "worktree" in {h.kind for h in held}
    plan = collect(store)
    assert [s.oid for s in plan.snapshots] == [first]
    from indexer.git import read as gitread
    from indexer.store.worktrees import LIST_PREFIX, listed

    with store.env.begin(db=store.repos) as txn:  # the checkout's list of its working-tree snapshots stays
        row = txn.get(LIST_PREFIX + gitread.repo_identity(checkout).encode())
    assert row is not None and listed(LIST_PREFIX, bytes(row), store.home)[1][0] == snap.oid
    again = api.worktree_snapshot(checkout, read_worktree(checkout), store=store)
    assert again.oid == snap.oid and again.record.fingerprint == snap.record.fingerprint
    assert sorted(p for p, _ in again.definitions("edited")) == ["app/util.py"]


def test_store_list_names_each_repository_by_the_path_it_was_indexed_from(repinned):
    """Each snapshot's repository by the path it was last indexed from, however it was indexed
    (here through the Python API, which writes no receipt), in the text and in --json (was: by
    the store's identity, a digest, unless a workspace member or the ledger's newest receipt
    named its path). A store written before paths were kept still names one by a receipt."""
    from indexer.git import read as gitread
    from indexer.store.commit import REPO_PATHS

    store, repo, other, _first = repinned
    home = str(store.home)
    kept = list(store.kv(REPO_PATHS).items())  # dropped below: the store as one written before paths were kept
    assert len(kept) == 2
    store.close()

    def listed(*args: str) -> subprocess.CompletedProcess:
        return run_cli("store", "list", *args, "--store", home, timeout=120)

    rows = json.loads(listed("--json").stdout)["data"]["snapshots"]
    assert sorted(r["repos"][0]["path"] for r in rows) == sorted([os.path.realpath(repo)] * 2 +
                                                                 [os.path.realpath(other)])
    text = listed().stdout
    ids = [gitread.repo_identity(gitread.open_repo(path)) for path in (repo, other)]
    assert text.count("rev main of /") == 2, text  # a path (cut to fit the table)
    assert not any(i in text for i in ids), text  # never the store's digest of a repository
    with Store.open(home) as reopened:
        table = reopened.kv(REPO_PATHS)
        table.delete_many(key for key, _ in kept)
    run_cli("context", "overview", "--repo", other, "--store", home, timeout=120).check_returncode()
    paths = [r["repos"][0]["path"] for r in json.loads(listed("--json").stdout)["data"]["snapshots"]]
    assert paths.count(os.path.realpath(other)) == 1 and paths.count(None) == 2


def test_gc_leaves_no_row_of_what_it_dropped_and_every_row_of_what_it_kept(repinned):
    """The dropped snapshot's rank arcs, `repos` stamp, occurrence list and name-index rows go
    with it; the kept snapshots' stamps (when they were indexed) stay as they were."""
    from indexer.store.records import PIN_PREFIX, repo_key_parts
    from indexer.store.worktrees import LIST_PREFIX

    store, repo, other, first = repinned
    old_key = _old_only_key(store, first)
    old_blob = bytes.fromhex(old_key[:40].decode())

    def rows():
        with store.env.begin() as txn:
            stamps = {repo_key_parts(bytes(k))[1]: bytes(v) for k, v in txn.cursor(db=store.repos)
                      if not bytes(k).startswith((PIN_PREFIX, LIST_PREFIX))}
            ranked = {bytes(k).split(b"|")[0].decode() for k, _ in txn.cursor(db=store.rank)}
            named = {bytes(v) for db in (store.defs, store.occ) for _, v in txn.cursor(db=db)}
            return stamps, ranked, named, txn.get(old_key, db=store.occurrences) is not None

    stamps, ranked, named, listed = rows()
    assert first in stamps and first in ranked and old_blob in named and listed  # each had a row to drop
    indexed_at = (api.snapshot(repo, "main", store=store).indexed_at, api.snapshot(other, "main", store=store).indexed_at)
    collect(store)
    after, ranked, named, listed = rows()
    assert after == {oid: raw for oid, raw in stamps.items() if oid != first}
    assert first not in ranked and old_blob not in named and not listed
    assert (api.snapshot(repo, "main", store=store).indexed_at,
            api.snapshot(other, "main", store=store).indexed_at) == indexed_at


def test_gc_keeps_the_name_rows_of_a_blob_a_kept_snapshot_reads_under_another_language(tmp_path):
    """A blob renamed from .js to .ts is read under another facts key: the dropped snapshot's
    key goes, but the name index still lists the blob for the kept one."""
    code = "export function sharedName() {\n  return 1;\n}\n"
    repo = RepoBuilder(tmp_path / "repo")
    first = repo.commit({"web/a.js": code, "web/b.js": "export const other = 2;\n"}, message="js")
    with api.open_store(tmp_path / "store") as store:
        api.index(str(repo.path), "main", store=store)
        repo.commit({"web/a.ts": code, "web/a.js": None}, message="ts")
        api.index(str(repo.path), "main", store=store)
        plan = collect(store)
        assert [s.oid for s in plan.snapshots] == [first] and plan.facts == 1
        snap = api.snapshot(str(repo.path), "main", store=store, index_if_absent=False)
        assert [p for p, _ in snap.definitions("sharedName")] == ["web/a.ts"]
        assert "sharedName" in snap.defined_names() and snap.defines(b"sharedName")


def test_gc_keeps_every_working_tree_snapshot_a_checkout_lists(repinned):
    store, repo, _other, first = repinned
    _, trees = _worktree_snapshots(store, repo, 3)
    plan = collect(store)
    assert [s.oid for s in plan.snapshots] == [first]
    with store.env.begin() as txn:
        assert {s.oid for s in inventory(store, txn).snapshots} >= set(trees)


def test_a_held_snapshot_whose_head_does_not_decode_keeps_every_facts_key_of_its_version(repinned):
    """What such a snapshot reads cannot be told, so no facts key of its version is dropped."""
    from indexer.store.records import snapshot_key

    store, repo, _other, first = repinned
    main = api.snapshot(repo, "main", store=store, index_if_absent=False)
    before = _facts_keys(store)
    with store.env.begin(write=True) as txn:
        txn.put(snapshot_key(main.oid, main.extractor_version), (5).to_bytes(4, "big") + b"junk!", db=store.snapshots)
    plan = collect(store)
    assert [s.oid for s in plan.snapshots] == [first] and plan.facts == 0 and _facts_keys(store) == before


def test_a_held_snapshot_whose_head_names_another_extractor_version_keeps_every_facts_key_of_its_version(repinned):
    """A head of another extractor version than its key's does not read back whole: which facts
    keys its files are read under cannot be told, so none of its version's is dropped (the
    facts only the unheld snapshot needed stay too)."""
    from indexer.store.records import snapshot_key
    from tests.test_store_damage import with_head

    store, repo, _other, first = repinned
    main = api.snapshot(repo, "main", store=store, index_if_absent=False)
    key = snapshot_key(main.oid, main.extractor_version)
    with store.env.begin(write=True) as txn:
        txn.put(key, with_head(bytes(txn.get(key, db=store.snapshots)), extractor_version="assembly=1"),
                db=store.snapshots)
    before = _facts_keys(store)
    plan = collect(store)
    assert [s.oid for s in plan.snapshots] == [first] and plan.facts == 0 and _facts_keys(store) == before


def test_gc_drops_every_name_only_the_dropped_blob_defined(tmp_path):
    """Names next to each other in the name index, and a name that is not plain ASCII (kept
    apart in the runs), all go when the one blob defining them goes."""
    from indexer.store import name_runs

    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"a.py": "def zz_one():\n    pass\n\n\ndef zz_two():\n    pass\n\n\ndef grüße():\n    pass\n"})
    with api.open_store(tmp_path / "store") as store:
        api.index(str(repo.path), "main", store=store)
        repo.commit({"a.py": "def kept():\n    pass\n"})
        api.index(str(repo.path), "main", store=store)
        assert "grüße".encode() in {k for r in name_runs.load(store) for k in r.others}
        plan = collect(store)
        assert plan.names == 3
        with store.env.begin(db=store.defs) as txn:
            assert [name for name in ("zz_one", "zz_two", "grüße", "kept") if txn.get(name.encode())] == ["kept"]
        runs = name_runs.load(store)
        assert {n for r in runs for n in r.plain()} == {"kept"} and not any(r.others for r in runs)


def _defined_names(store: Store, repo: str, other: str, first: str) -> set[str]:
    """Every name the store's three snapshots define, read snapshot by snapshot."""
    snaps = [api.snapshot(repo, rev, store=store, index_if_absent=False) for rev in ("main", first)]
    return set().union(*(s.defined_names() for s in [*snaps, api.snapshot(other, "main", store=store)]))


def test_store_info_counts_each_kind_of_thing_the_store_holds(repinned):
    """`store info`'s counts, each against what is there by another way of reading it: two
    repositories, two rev pins, one workspace, three snapshots of which two are held, every
    blob facts key, each defined name once (`shared` is defined by two blobs), no dossier and
    the receipts appended; a store never collected uses every page of its file."""
    from context_tools.faces import ledger
    from indexer.fleet import workspace

    store, repo, other, first = repinned
    workspace.create(store, "ws")
    workspace.add(store, "ws", other, "main")
    receipt = ledger.Receipt(at="2026-01-01T00:00:00Z", command="store.info", surface="cli", input_digest="d",
                             outcome="ok")
    ledger.append_many(store, [receipt] * 3)
    names = _defined_names(store, repo, other, first)
    assert "shared" in names
    got = info(store)
    assert (got.repositories, got.pins, got.workspaces, got.snapshots, got.held_snapshots) == (2, 2, 1, 3, 2)
    assert got.blob_facts == len(_facts_keys(store)) and got.names == len(names)
    assert (got.dossiers, got.receipts) == (0, 3)
    assert got.file_bytes == os.path.getsize(Path(store.env.path()) / "data.mdb") == got.used_bytes > 0


def test_store_list_says_what_holds_each_snapshot(repinned):
    """Each holder as `store list` names it: a rev pin with its repository, a workspace
    member, the working-tree snapshots of a checkout, newest first (`newest`, then `2 back`;
    the newest is pinned as `WORKTREE` too),
    the repository's path where a workspace member says it; each snapshot with its files,
    fingerprint and when it was indexed."""
    import pygit2

    from indexer.fleet import workspace
    from indexer.git import read as gitread

    store, repo, other, first = repinned
    workspace.create(store, "ws")
    workspace.add(store, "ws", other, "main", member_name="lonely")
    checkout, trees = _worktree_snapshots(store, repo, 2)
    repo_id, other_id = gitread.repo_identity(checkout), gitread.repo_identity(pygit2.Repository(other))
    main, lonely = api.snapshot(repo, "main", store=store), api.snapshot(other, "main", store=store)
    with store.env.begin() as txn:
        inv = inventory(store, txn)
    by_oid = {s.oid: s for s in inv.snapshots}
    described = {oid: sorted(h.describe() for h in s.held_by) for oid, s in by_oid.items()}
    assert described == {
        first: [], main.oid: [f"rev main of {repo_id}"],
        lonely.oid: [f"rev main of {other_id}", "workspace member ws/lonely"],
        trees[1]: [f"rev WORKTREE of {repo_id}", f"working tree of {repo_id} (newest)"],
        trees[0]: [f"working tree of {repo_id} (2 back)"]}
    assert inv.repo_paths == {repo_id: os.path.realpath(repo), other_id: os.path.realpath(other)}
    for snap in (main, lonely):
        entry = by_oid[snap.oid]
        assert (entry.files, entry.fingerprint, entry.indexed_at) == (
            len(snap.files), snap.record.fingerprint, snap.indexed_at)
        assert entry.repos == [repo_id if snap is main else other_id]


def _records_indexed_at(store: Store, stamps: dict[str, str]) -> None:
    """A one-file snapshot of each OID, indexed at its stamp, committed with its rank arcs."""
    from indexer.model import FileEntry, SnapshotRecord
    from indexer.store.commit import PackedSnapshot, commit_snapshot
    from indexer.store.records import pack_record
    from indexer.store.versions import snapshot_version

    version = snapshot_version()
    for oid, at in stamps.items():
        record = SnapshotRecord(oid, "d" * 40, version, [FileEntry("a.py", "e" * 40, 0o100644, 1, 1, "python")],
                                [], [], [], [], [], {"a.py": 0}, {"a.py": 1.0}, indexed_at=at)
        commit_snapshot(store, PackedSnapshot(oid, version, pack_record(record), b"arcs", at))


def test_store_list_is_newest_first_and_sizes_a_snapshot_with_its_rank_arcs(tmp_path):
    """Snapshots listed by when they were indexed, newest first (their OIDs in another order),
    those indexed in the same second by OID; a snapshot's size is its record's and its rank
    arcs' rows, keys included."""
    from indexer.store.records import snapshot_key
    from indexer.store.versions import snapshot_version

    stamps = {"a" * 40: "2026-01-02T00:00:00Z", "b" * 40: "2026-01-03T00:00:00Z", "c" * 40: "2026-01-01T00:00:00Z",
              "d" * 40: "2026-01-03T00:00:00Z"}
    with api.open_store(tmp_path / "store") as store:
        _records_indexed_at(store, stamps)
        with store.env.begin() as txn:
            inv = inventory(store, txn)
            key = snapshot_key("a" * 40, snapshot_version())
            rows = len(key) + len(txn.get(key, db=store.snapshots)) + len(key) + len(txn.get(key, db=store.rank))
    assert [s.oid[0] for s in inv.snapshots] == ["d", "b", "a", "c"]
    assert [s.indexed_at for s in inv.snapshots] == sorted(stamps.values(), reverse=True)
    assert next(s for s in inv.snapshots if s.oid == "a" * 40).bytes == rows


def _aged(store: Store, oid: str) -> None:
    """The snapshot of `oid` as a store an older extractor wrote holds it: under its version."""
    from indexer.store.records import snapshot_key
    from indexer.store.versions import snapshot_version

    with store.env.begin(write=True) as txn:
        for db in (store.snapshots, store.rank):
            value = txn.pop(snapshot_key(oid, snapshot_version()), db=db)
            if value is not None:
                txn.put(snapshot_key(oid, "older"), value, db=db)


def test_a_pin_holds_no_snapshot_of_an_older_extractor_version_and_still_names_its_repository(repinned):
    """A rev pin is read at this code's extractor version: a snapshot of the pinned commit
    that an older extractor wrote is held by nothing, and `gc` drops it with the commit's link;
    the pin stays, and `store info` still counts its repository."""
    store, repo, other, first = repinned
    lonely = api.snapshot(other, "main", store=store)
    _aged(store, lonely.oid)
    with store.env.begin() as txn:
        aged = next(s for s in inventory(store, txn).snapshots if s.oid == lonely.oid)
    assert (aged.extractor_version, aged.held_by) == ("older", [])
    assert sorted(s.oid for s in collect(store).snapshots) == sorted([first, lonely.oid])
    got = info(store)
    assert (got.repositories, got.pins, got.snapshots) == (2, 2, 1)


def test_a_workspace_member_holds_the_snapshot_of_the_version_it_was_pinned_at(repinned):
    """A workspace member pinned by an older extractor holds that version's snapshot of its
    commit, which `gc` keeps: the member reads it."""
    from indexer.fleet import workspace

    store, repo, other, first = repinned
    workspace.create(store, "ws")
    member = workspace.add(store, "ws", other, "main", member_name="lonely").member
    _aged(store, member.oid)
    ws = workspace.load(store, "ws")
    ws.members[0].extractor_version = "older"
    workspace._save(store, ws)
    with store.env.begin() as txn:
        aged = next(s for s in inventory(store, txn).snapshots if s.oid == member.oid)
    assert aged.extractor_version == "older" and [h.describe() for h in aged.held_by] == ["workspace member ws/lonely"]
    assert [s.oid for s in collect(store).snapshots] == [first]


def test_a_snapshot_with_a_submodule_and_a_link_names_the_facts_keys_of_its_files(tmp_path):
    """A submodule's and a symbolic link's rows have no blob facts: the snapshot's facts keys
    are its regular files' (a submodule's empty blob, taken for one, would make the head read
    as damaged, and keep every facts key of its version from `gc`)."""
    from corpora.gitbuild import Link, Submodule
    from indexer.store.records import entry_facts_key

    repo = RepoBuilder(tmp_path / "repo")
    repo.commit({"a.py": "def a():\n    return 1\n", "b.md": "b\n", "link.py": Link("a.py"),
                 "vendor/sub": Submodule("5" * 40)})
    with api.open_store(tmp_path / "store") as store:
        snap = api.snapshot(str(repo.path), "main", store=store)
        assert {f.language for f in snap.files} >= {"submodule", "symlink"}
        with store.env.begin() as txn:
            entry, = inventory(store, txn).snapshots
        regular = [f for f in snap.files if f.language not in ("submodule", "symlink")]
        assert entry.facts_keys == {entry_facts_key(f, snap.extractor_version) for f in regular}


def test_store_list_says_a_working_tree_snapshots_tree_was_pruned_never_that_a_commit_is_missing(repinned):
    """A working-tree snapshot's OID is the tree read from the checkout, which git writes
    unreferenced and `git gc` prunes: `store list` marks the row a working tree's, and says
    whether the repository still holds that tree (`holds_tree`), never `holds_commit`, of a
    commit there never was (was: `commit not in PATH` once git pruned the tree, and `holds_commit`
    true of a tree before). A commit's row is told as before."""
    import context_tools
    from context_tools.faces.packs.store import render_list

    store, repo, _other, _first = repinned
    _checkout, (tree,) = _worktree_snapshots(store, repo, 1)
    client = context_tools.Client(store=str(store.home))

    def rows() -> dict[str, tuple[bool, list[tuple[bool | None, bool | None]]]]:
        return {s.oid: (s.worktree, [(r.holds_commit, r.holds_tree) for r in s.repos])
                for s in client.call("store.list").data.snapshots}

    main = api.snapshot(repo, "main", store=store).oid
    assert (rows()[tree], rows()[main]) == ((True, [(None, True)]), (False, [(True, None)]))
    shown = render_list(client.call("store.list"))
    assert f"working tree, of {os.path.realpath(repo)[:20]}" in shown
    assert f"working tree of {os.path.realpath(repo)[:20]}" in shown  # its holder by the same path (was: a digest)
    # git's own gc, its grace cut to now: the tree, referenced by nothing, goes
    subprocess.run(["git", "-C", repo, "-c", "gc.reflogExpireUnreachable=now", "gc", "-q", "--prune=now"],
                   check=True)
    assert (rows()[tree], rows()[main]) == ((True, [(None, False)]), (False, [(True, None)]))
    shown = render_list(client.call("store.list"))
    assert f"working tree, its tree not in {os.path.realpath(repo)[:20]}" in shown and "commit not in" not in shown


def test_store_list_names_a_pinning_repository_by_the_path_its_row_knows():
    """The `pinned by` column names a rev pin's repository by the path the repositories column
    shows for it (was: by the store's digest of it beside that very path); a repository whose
    path is not known stays its digest."""
    from context_tools.faces.packs.store import RepoRef, SnapshotList, SnapshotRow, render_list
    from indexer.contract.result import Result

    known, unknown = "9228c1b7e67bd4cb", "ffba065e6bef30ca"
    rows = [SnapshotRow("a" * 40, "v", True, "f" * 64, "2026-01-01T00:00:00Z", 60, 3, 100,
                        [RepoRef(known, "/src/flask")], [f"rev main of {known}", f"rev v1 of {known}"]),
            SnapshotRow("b" * 40, "v", True, "e" * 64, "2026-01-01T00:00:00Z", 60, 3, 100,
                        [RepoRef(unknown, None)], [f"rev HEAD of {unknown}"])]
    shown = render_list(Result(data=SnapshotList(rows)))
    assert "rev main of /src/flask; rev v1 of /src/flask" in shown
    assert f"rev HEAD of {unknown}" in shown and f"of {known}" not in shown


def test_a_snapshot_dropped_by_gc_while_a_read_reads_it_is_read_again_never_store_error(tmp_path, monkeypatch):
    """`store gc` may drop a snapshot between a read's open of its head and its read of the
    tail (edges, manifests): its rev was indexed at another commit meanwhile, so nothing held it.
    Was: `store_error` ("the snapshot record of ... left the store while it was read"), a fault
    of the environment it was not. Now the snapshot says `busy` (SnapshotLeft: nothing is
    damaged, ask again), and a read row is asked again once by the face, answering from what
    the rev names now."""
    import context_tools
    from indexer.contract.errors import SnapshotLeft
    from indexer.store import snapshot as snapshot_module

    builder = RepoBuilder(tmp_path / "repo")
    builder.commit(FIRST)
    home, repo = str(tmp_path / "store"), str(builder.path)
    store = api.open_store(home)
    api.index(repo, "main", store=store)
    snap = api.snapshot(repo, "main", store=store)  # its head read, its tail not yet
    second = builder.commit(SECOND)
    api.index(repo, "main", store=store)
    assert [s.oid for s in collect(store).snapshots] == [snap.oid]
    with pytest.raises(SnapshotLeft) as left:
        snap.importers("app/core.py")
    assert left.value.code == "busy" and "left the store while this call read it" in left.value.message

    third = builder.commit({"lib/keep.py": FIRST["lib/keep.py"] + "\n\ndef later():\n    return 3\n"})
    opened = snapshot_module.load_stored_record
    moved: list[str] = []

    def dropped_once_read(store, oid, version=None):  # the head is read; then an index and a gc drop it
        stored = opened(store, oid, version)
        if not moved and oid == second:
            moved.append(oid)
            api.index(repo, "main", store=store)
            assert [s.oid for s in collect(store).snapshots] == [second]
        return stored

    monkeypatch.setattr(snapshot_module, "load_stored_record", dropped_once_read)
    client = context_tools.Client(store=home)
    r = client.call("context.file", repo=repo, rev="main", path="app/core.py")
    assert moved == [second] and r.freshness.pinned_oid == third, r.freshness
    assert r.data.meta.importers.items == ["app/util.py"]


def test_a_gc_between_finding_a_stored_snapshot_and_pinning_it_leaves_no_pin_to_a_dropped_snapshot(
        tmp_path, monkeypatch):
    """An index of a commit whose snapshot is stored but held by nothing finds it, then a
    `store gc` in another process drops it before the pin is written. Was: the rev pinned to
    the dropped snapshot, the index reporting it `snapshot_reused`, and a read of the rev right
    after (an agent's, which indexes nothing) `not_indexed`. Now the pin checks the record in its
    own transaction, finds it gone, and the index builds it again under the write lock."""
    from indexer import build

    builder = RepoBuilder(tmp_path / "repo")
    first = builder.commit(FIRST)
    home, repo = str(tmp_path / "store"), str(builder.path)
    store = api.open_store(home)
    api.index(repo, "main", store=store)
    builder.commit(SECOND)
    api.index(repo, "main", store=store)  # main moved on: nothing holds the first commit's snapshot
    found = build.existing_head
    dropped: list[str] = []

    def gc_once_found(store, oid, version, repo=None):  # a gc in another process, between find and pin
        head = found(store, oid, version, repo)
        if head is not None and not dropped:
            out = subprocess.run([sys.executable, "-c", "import sys\nfrom indexer.store.database import Store\n"
                                  "from indexer.store.gc import collect\n"
                                  "print(*[s.oid for s in collect(Store.open(sys.argv[1])).snapshots])", home],
                                 cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                                 text=True, timeout=120, check=True)
            dropped.append(out.stdout.strip())
        return head

    monkeypatch.setattr(build, "existing_head", gc_once_found)
    report = api.index(repo, first, store=store)
    assert dropped == [first]  # the gc ran between the two steps, and dropped that very snapshot
    snap = api.snapshot(repo, first, store=store, index_if_absent=False)
    assert snap.oid == first and report.fingerprint == snap.record.fingerprint
    assert report.oid == first and not report.snapshot_reused
    with store.env.begin() as txn:
        entry, = [s for s in inventory(store, txn).snapshots if s.oid == first]
    assert [h.describe().split(" of ")[0] for h in entry.held_by] == [f"rev {first}"]
    store.close()


def test_gc_drops_the_path_of_a_repository_left_with_no_snapshot_and_keeps_every_other(tmp_path):
    """A repository's kept path (`kv:repo_paths`, what `store list` names it by) goes with its
    last snapshot once nothing holds it: here one indexed by a batch told not to pin. A clone
    linked to a snapshot another repository pins keeps its path, and `store list` still names
    both by theirs (was: every path ever indexed from stayed, and `store info` and `list` never
    showed them again)."""
    import context_tools
    from indexer.fleet import batch
    from indexer.git import read as gitread
    from indexer.store.commit import REPO_PATHS

    first = RepoBuilder(tmp_path / "first")
    first.commit(FIRST)
    subprocess.run(["git", "clone", "-q", str(first.path), str(tmp_path / "clone")], check=True)
    lone = RepoBuilder(tmp_path / "lone")
    lone_oid = lone.commit({"x.py": "def lonely():\n    return 3\n"})
    home = str(tmp_path / "store")
    store = api.open_store(home)
    api.index(str(first.path), "main", store=store)
    batch.run(store, [batch.JobSpec(str(tmp_path / "clone"), "main", pin=False),
                      batch.JobSpec(str(lone.path), "main", pin=False)], workers=1)
    ids = {name: gitread.repo_identity(gitread.open_repo(str(tmp_path / name))) for name in ("first", "clone", "lone")}

    def paths() -> dict[str, str]:
        return {bytes(k).decode(): bytes(v).decode() for k, v in store.kv(REPO_PATHS).items()}

    assert set(paths()) == set(ids.values())

    dry = collect(store, dry_run=True)
    assert len(paths()) == 3
    out = collect(store)
    assert paths() == {
        ids["first"]: os.path.realpath(first.path), ids["clone"]: os.path.realpath(tmp_path / "clone")}
    assert [s.oid for s in out.snapshots] == [lone_oid] and out.paths == dry.paths == 1
    listed = context_tools.Client(store=home).call("store.list")
    row, = listed.data.snapshots
    assert sorted(r.path for r in row.repos) == sorted([os.path.realpath(first.path),
                                                        os.path.realpath(tmp_path / "clone")])
    assert collect(store).paths == 0
    store.close()
