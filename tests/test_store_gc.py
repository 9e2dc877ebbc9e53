"""`rennet store info|list|gc`: what the store holds, and dropping what nothing holds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.store.database import Store
from indexer.store.gc import collect
from indexer.store.inventory import info, inventory

ROOT = Path(__file__).resolve().parent.parent
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
        return subprocess.run([sys.executable, "-m", "context_tools.faces.cli", *args, "--store", home], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=120)

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


def test_store_list_names_a_repository_by_its_path_where_a_receipt_says_it(repinned):
    store, repo, other, _first = repinned
    home = str(store.home)
    store.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cli = [sys.executable, "-m", "context_tools.faces.cli"]
    subprocess.run([*cli, "context", "overview", "--repo", other, "--store", home], env=env, cwd=ROOT,
                   capture_output=True, timeout=120, check=True)
    rows = json.loads(subprocess.run([*cli, "store", "list", "--json", "--store", home], env=env, cwd=ROOT,
                                     capture_output=True, text=True, timeout=120).stdout)["data"]["snapshots"]
    paths = [r["repos"][0]["path"] for r in rows]
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
    import pygit2

    from indexer.git.worktree import read_worktree

    store, repo, _other, first = repinned
    checkout = pygit2.Repository(repo)
    checkout.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    trees = []
    for n in range(3):
        (Path(repo) / "app" / "util.py").write_text(f"def edited_{n}():\n    return {n}\n")
        trees.append(api.worktree_snapshot(checkout, read_worktree(checkout), store=store).oid)
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
