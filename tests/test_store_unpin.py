"""`rennet store unpin`: letting go of a repository's rev pins so `store gc` may drop what they held."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpora.gitbuild import RepoBuilder
from indexer import api
from indexer.contract.errors import NotFound
from indexer.git import read as gitread
from indexer.store.database import Store
from indexer.store.gc import collect
from indexer.store.inventory import inventory
from indexer.store.unpin import repo_ids_at, unpin
from tests.cli_runs import run_cli
from tests.test_store_gc import _dump


@pytest.fixture
def tagged(tmp_path):
    """A repository indexed at tag v1, then at main one commit later, and by the first commit's
    OID (as a batch's range pins it); a second repository indexed at v1 of its own."""
    repo = RepoBuilder(tmp_path / "repo")
    first = repo.commit({"a.py": "def first():\n    return 1\n"}, message="first")
    repo.tag("v1", first)
    second = repo.commit({"a.py": "def second():\n    return 2\n"}, message="second")
    other = RepoBuilder(tmp_path / "other")
    other_first = other.commit({"b.py": "def lonely():\n    return 3\n"}, message="other")
    other.tag("v1", other_first)
    store = api.open_store(tmp_path / "store")
    for path, rev in ((repo.path, "v1"), (repo.path, "main"), (repo.path, first), (other.path, "v1")):
        api.index(str(path), rev, store=store)
    yield store, str(repo.path), str(other.path), first, second, other_first
    store.close()


def _held(store: Store) -> dict[str, list[str]]:
    with store.env.begin() as txn:
        return {s.oid: sorted(h.describe() for h in s.held_by) for s in inventory(store, txn).snapshots}


def test_unpinning_a_tag_and_an_oid_lets_gc_drop_that_snapshot_alone(tagged):
    store, repo, other, first, second, other_first = tagged
    done = unpin(store, repo_ids_at(store, repo), ["v1"], every=False)
    assert [(r, o) for r, o in done.revs] == [("v1", first)]
    assert collect(store, dry_run=True).snapshots == []  # the OID pin still holds the first commit
    unpin(store, repo_ids_at(store, repo), [first], every=False)
    plan = collect(store)
    assert [s.oid for s in plan.snapshots] == [first]
    held = _held(store)
    assert set(held) == {second, other_first}
    # the other repository's pin of a rev of the same name is its own, and stays
    assert any(h.startswith("rev v1 of ") for h in held[other_first])
    assert api.snapshot(other, "v1", store=store, index_if_absent=False).oid == other_first


def test_a_rev_not_pinned_among_those_named_lets_go_of_nothing(tagged):
    store, repo, *_ = tagged
    before = _dump(store)
    with pytest.raises(NotFound) as err:
        unpin(store, repo_ids_at(store, repo), ["v1", "v2"], every=False)
    assert "v2" in str(err.value) and "main" in str(err.value)  # it names what is pinned
    assert _dump(store) == before


def test_all_lets_go_of_every_pin_and_the_working_tree_list_of_a_folder_since_deleted(tagged, tmp_path):
    import pygit2

    from indexer.git.worktree import read_worktree

    store, repo, other, first, second, other_first = tagged
    checkout = pygit2.Repository(repo)
    checkout.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    (Path(repo) / "a.py").write_text("def edited():\n    return 5\n")
    tree = api.worktree_snapshot(checkout, read_worktree(checkout), store=store).oid
    ids = repo_ids_at(store, repo)
    shutil.rmtree(repo)
    assert repo_ids_at(store, repo) == ids  # found by the folder it was indexed from

    before = _dump(store)
    dry = unpin(store, ids, [], every=True, dry_run=True)
    # a working-tree snapshot is pinned under WORKTREE too, besides the list
    assert sorted(r for r, _ in dry.revs) == sorted(["v1", "main", first, "WORKTREE"]) and dry.worktree_snapshots == 1
    assert _dump(store) == before

    unpin(store, ids, [], every=True)
    plan = collect(store)
    assert sorted(s.oid for s in plan.snapshots) == sorted([first, second, tree])
    assert set(_held(store)) == {other_first}


def test_store_unpin_on_the_cli(tagged):
    store, repo, other, first, second, other_first = tagged
    home = str(store.home)
    store.close()

    def rennet(*args):
        return run_cli(*args, "--store", home, timeout=120)

    both = rennet("store", "unpin", repo, "v1", "--all")
    assert both.returncode == 1 and both.stderr.startswith("rennet: bad_input: ") and len(both.stderr.splitlines()) == 1
    neither = rennet("store", "unpin", repo)
    assert neither.returncode == 1 and "bad_input" in neither.stderr
    typo = rennet("store", "unpin", repo, "v9", "--json")
    assert typo.returncode == 1 and json.loads(typo.stdout)["error"]["code"] == "not_found"
    nowhere = rennet("store", "unpin", str(Path(home).parent / "nowhere"), "--all")
    assert nowhere.returncode == 1 and "not_found" in nowhere.stderr
    done = rennet("store", "unpin", repo, "main", "v1", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["data"]
    assert sorted((u["rev"], u["oid"]) for u in data["unpinned"]) == sorted([("main", second), ("v1", first)])
    assert data["repo_ids"] == [gitread.repo_identity(gitread.open_repo(repo))]
    text = rennet("store", "unpin", repo, first)
    assert text.returncode == 0 and f"unpinned rev {first} ({first[:12]})" in text.stdout
    gc = json.loads(rennet("store", "gc", "--json").stdout)["data"]
    assert sorted(k.split("|")[0] for k in gc["dropped"]) == sorted([first, second])


class _Counted(str):
    """A rev that counts the comparisons made with it."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_unpinning_many_revs_compares_each_pin_with_about_one_rev(tagged):
    """A range's commits unpinned by name (`rennet store unpin REPO $(git rev-list A..B)`): each
    pin is looked up among the revs named (was: compared with every one of them, the square of
    a range's length: 20,000 revs took 2.2 s of CPU, about 50 s at the 90,000 OIDs `rennet call`
    takes)."""
    from indexer.store.records import pin_key

    store, repo, _, first, *_ = tagged
    (repo_id,) = repo_ids_at(store, repo)
    counts = []
    for n in (500, 1000):
        revs = [f"range-{n}-{i:05d}" for i in range(n)]
        with store.env.begin(write=True) as txn:
            for rev in revs:
                txn.put(pin_key(repo_id, rev), first.encode(), db=store.repos)
        _Counted.compared = 0
        done = unpin(store, [repo_id], [_Counted(r) for r in revs], every=False)
        assert len(done.revs) == n
        counts.append(_Counted.compared)
    assert counts[1] <= 4 * 1000 and counts[1] < 2.5 * max(counts[0], 1), counts
