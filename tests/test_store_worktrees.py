"""The working-tree snapshots a checkout keeps (indexer/store/worktrees.py): the newest `keep`
are kept, listed newest first; an older one loses its record, its rank arcs and its link,
and nothing of the others is touched."""

from __future__ import annotations

import msgspec
import pytest

from indexer.store.commit import PackedSnapshot, Pin, commit_snapshot
from indexer.store.database import Store
from indexer.store.records import repo_key, snapshot_key
from indexer.store.worktrees import LIST_PREFIX, remember

VERSION = "test"
REPO = "0123456789abcdef"


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "store") as s:
        yield s


def tree(i: int) -> str:
    return f"{i:040x}"


def held(store: Store, oid: str) -> tuple[bool, bool, bool]:
    """(record, rank arcs, link) of the snapshot of `oid`: which the store holds."""
    key = snapshot_key(oid, VERSION)
    with store.env.begin() as txn:
        return (txn.get(key, db=store.snapshots) is not None, txn.get(key, db=store.rank) is not None,
                txn.get(repo_key(REPO, oid), db=store.repos) is not None)


def listed(store: Store) -> list[str]:
    with store.env.begin(db=store.repos) as txn:
        return msgspec.msgpack.decode(txn.get(LIST_PREFIX + REPO.encode()))


def test_the_newest_are_kept_and_an_older_one_loses_record_arcs_and_link(store):
    for i in range(5):
        commit_snapshot(store, PackedSnapshot(tree(i), VERSION, b"record", b"arcs", "now"), Pin(REPO, None))
        assert remember(store, REPO, tree(i), VERSION, keep=3) == ([tree(i - 3)] if i >= 3 else [])
    assert listed(store) == [tree(4), tree(3), tree(2)]
    assert [held(store, tree(i)) for i in range(5)] == [(False, False, False)] * 2 + [(True, True, True)] * 3
    # a tree seen again moves to the front, once: nothing is dropped for it
    assert remember(store, REPO, tree(2), VERSION, keep=3) == []
    assert listed(store) == [tree(2), tree(4), tree(3)]
    assert all(held(store, tree(i)) == (True, True, True) for i in (2, 3, 4))


def test_a_checkout_keeps_its_newest_eight_as_docs_worktree_md_states(store):
    """The shipped bound: the ninth working-tree snapshot drops the first."""
    for i in range(9):
        commit_snapshot(store, PackedSnapshot(tree(i), VERSION, b"record", b"arcs", "now"), Pin(REPO, None))
        assert remember(store, REPO, tree(i), VERSION) == ([tree(0)] if i == 8 else [])
    assert listed(store) == [tree(i) for i in range(8, 0, -1)]
