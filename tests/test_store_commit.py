"""The one snapshot-commit transaction and the one pin (indexer/store/commit.py), which every
writer goes through: a record with its rank arcs, the facts it brings, the repository's link
and the rev's pin land together or not at all, and a stored record is never overwritten."""

from __future__ import annotations

import msgspec
import pytest

from indexer.model import BlobFacts
from indexer.store.commit import PackedSnapshot, Pin, commit_facts, commit_snapshot, pin_snapshot
from indexer.store.database import Store
from indexer.store.records import facts_key, pin_key, repo_key, snapshot_key, stored_facts

OID = "a" * 40
VERSION = "test"


class Refused(Exception):
    pass


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "store") as s:
        yield s


def snapshot(record: bytes, indexed_at: str = "2026-01-01T00:00:00Z", arcs: bytes | None = b"arcs") -> PackedSnapshot:
    return PackedSnapshot(OID, VERSION, record, arcs, indexed_at)


def facts(blob: str) -> list:
    return [stored_facts(facts_key(blob, "python", VERSION), BlobFacts(language="python", lines=1))]


def get(store: Store, key: bytes, db) -> bytes | None:
    with store.env.begin(db=db) as txn:
        raw = txn.get(key)
        return bytes(raw) if raw is not None else None


def linked_at(store: Store, repo_id: str) -> str | None:
    raw = get(store, repo_key(repo_id, OID), store.repos)
    return msgspec.msgpack.decode(raw)["indexed_at"] if raw is not None else None


def test_a_commit_writes_record_arcs_facts_link_and_pin_together(store):
    done = commit_snapshot(store, snapshot(b"record"), Pin("repo", "main"), facts("1" * 40))
    assert (done.snapshot_new, done.facts_new) == (True, 1)
    assert get(store, snapshot_key(OID, VERSION), store.snapshots) == b"record"
    assert get(store, snapshot_key(OID, VERSION), store.rank) is not None
    assert get(store, facts_key("1" * 40, "python", VERSION), store.facts) is not None
    assert get(store, pin_key("repo", "main"), store.repos) == OID.encode()
    assert linked_at(store, "repo") == "2026-01-01T00:00:00Z"


def test_a_stored_record_is_kept_and_an_objection_aborts_everything(store):
    commit_snapshot(store, snapshot(b"first"), Pin("repo", "main"))
    seen = []
    again = commit_snapshot(store, snapshot(b"second"), Pin("repo", "v1"), facts("2" * 40), existing=seen.append)
    assert (again.snapshot_new, again.facts_new) == (False, 1)
    assert seen == [b"first"] and get(store, snapshot_key(OID, VERSION), store.snapshots) == b"first"
    assert get(store, pin_key("repo", "v1"), store.repos) == OID.encode()

    def refuse(stored: bytes) -> None:
        raise Refused(stored)

    with pytest.raises(Refused):
        commit_snapshot(store, snapshot(b"third"), Pin("other", "main"), facts("3" * 40), existing=refuse)
    assert get(store, facts_key("3" * 40, "python", VERSION), store.facts) is None
    assert get(store, pin_key("other", "main"), store.repos) is None and linked_at(store, "other") is None


def test_a_new_snapshot_relinks_a_pin_keeps_the_link_and_no_rev_pins_nothing(store):
    with store.env.begin(write=True) as txn:  # a link made before this record existed
        txn.put(repo_key("repo", OID), msgspec.msgpack.encode({"indexed_at": "early"}), db=store.repos)
    commit_snapshot(store, snapshot(b"record", indexed_at="late"), Pin("repo", None))
    assert linked_at(store, "repo") == "late"  # the new snapshot says when it was indexed
    assert pin_snapshot(store, Pin("repo", "v2"), OID, VERSION, "later still")
    assert linked_at(store, "repo") == "late"
    assert get(store, pin_key("repo", "v2"), store.repos) == OID.encode()
    assert pin_snapshot(store, Pin("fork", None), OID, VERSION, "now")
    assert linked_at(store, "fork") == "now"
    with store.env.begin(db=store.repos) as txn:
        forks = [bytes(k) for k, _ in txn.cursor() if b"fork" in bytes(k)]
    assert forks == [repo_key("fork", OID)]  # a link, and no pin without a rev


@pytest.mark.parametrize("part", ["core", "occurrences"])
def test_a_given_fact_differing_from_the_stored_one_in_either_part_is_handed_to_differs(store, part):
    """A facts key the store holds is compared by both its stored parts: the core and the
    occurrence list each decide alone, and neither is overwritten."""
    blob = "4" * 40
    [stored] = facts(blob)
    commit_snapshot(store, snapshot(b"record"), facts=[stored])
    other = stored._replace(**({"packed_core": stored.packed_core + b"x"} if part == "core"
                               else {"packed_occurrences": stored.packed_occurrences + b"x"}))
    seen: list[bytes] = []
    done = commit_snapshot(store, snapshot(b"record"), facts=[other], differs=seen.append)
    assert seen == [other.key] and done.facts_new == 0
    assert get(store, other.key, store.facts) == stored.packed_core
    assert (get(store, other.key, store.occurrences) or b"") == stored.packed_occurrences
    unchanged: list[bytes] = []
    commit_snapshot(store, snapshot(b"record"), facts=[stored], differs=unchanged.append)
    assert unchanged == []


def test_facts_alone_put_only_what_the_store_lacks_and_hand_differing_ones_to_differs(store):
    """A batch of a bundle's import (`commit_facts`): the facts the store lacks go in, and only
    their keys are told as put; one the store holds in other bytes is handed to `differs` and
    not overwritten; no record goes in; a raise in `differs` keeps none of the batch."""
    [held], [new], [more] = facts("5" * 40), facts("6" * 40), facts("7" * 40)
    assert commit_facts(store, [held]) == [held.key]
    other = held._replace(packed_core=held.packed_core + b"x")
    seen: list[bytes] = []
    assert commit_facts(store, [other, new], differs=seen.append) == [new.key]
    assert seen == [other.key] and get(store, held.key, store.facts) == held.packed_core
    assert get(store, new.key, store.facts) == new.packed_core
    assert get(store, snapshot_key(OID, VERSION), store.snapshots) is None

    def refuse(key: bytes) -> None:
        raise Refused(key)

    with pytest.raises(Refused):
        commit_facts(store, [more, other], differs=refuse)
    assert get(store, more.key, store.facts) is None


def test_a_record_without_arcs_replacing_a_partial_one_leaves_none_of_its_arcs(store):
    """A bundle's record carries no rank arcs: the partial record's it replaces are not this
    one's, and are dropped with it (was: kept under the same key, and read by the next
    re-index as the complete record's)."""
    commit_snapshot(store, snapshot(b"partial", arcs=b"partial arcs"))
    assert get(store, snapshot_key(OID, VERSION), store.rank) is not None
    done = commit_snapshot(store, snapshot(b"complete", arcs=None), replace=True)
    assert done.snapshot_new
    assert get(store, snapshot_key(OID, VERSION), store.snapshots) == b"complete"
    assert get(store, snapshot_key(OID, VERSION), store.rank) is None
    commit_snapshot(store, snapshot(b"again", arcs=None))  # a record kept: nothing of it changes
    assert get(store, snapshot_key(OID, VERSION), store.snapshots) == b"complete"


def test_a_record_kept_keeps_its_link_s_time_of_indexing(store):
    """Committing a snapshot the store holds already pins the rev and keeps the link's time of
    indexing: the snapshot was indexed then, not now."""
    commit_snapshot(store, snapshot(b"record", indexed_at="early"), Pin("repo", "main"))
    done = commit_snapshot(store, snapshot(b"record", indexed_at="late"), Pin("repo", "v3"))
    assert not done.snapshot_new
    assert linked_at(store, "repo") == "early"
    assert get(store, pin_key("repo", "v3"), store.repos) == OID.encode()


def test_a_rev_of_the_longest_pinnable_length_is_pinned_and_one_byte_more_refused(store):
    """A pin's key is `pin|`, the 16-character identity, `|` and the rev: LMDB takes 511 bytes,
    so a rev of PIN_REV_BYTES is pinned and one byte longer is `bad_input` before any write."""
    from indexer.contract.errors import BadInput
    from indexer.store.records import PIN_REV_BYTES

    repo_id = "0123456789abcdef"
    longest = "r" * PIN_REV_BYTES
    commit_snapshot(store, snapshot(b"record"), Pin(repo_id, longest))
    assert len(pin_key(repo_id, longest)) == 511
    assert get(store, pin_key(repo_id, longest), store.repos) == OID.encode()
    with pytest.raises(BadInput):
        Pin(repo_id, longest + "r")
    # the bound is in bytes: a rev of two-byte characters is pinned up to half as many
    wide = "\u00e9" * (PIN_REV_BYTES // 2)
    commit_snapshot(store, snapshot(b"record"), Pin(repo_id, wide))
    assert get(store, pin_key(repo_id, wide), store.repos) == OID.encode()
    with pytest.raises(BadInput):
        Pin(repo_id, wide + "\u00e9")


def test_a_pin_of_a_snapshot_the_store_does_not_hold_writes_nothing(store):
    """`pin_snapshot` checks the record in the transaction that pins: one a gc dropped since the
    caller found it (or of another extractor version) is not pinned, nor linked, nor its path kept."""
    from indexer.store.commit import REPO_PATHS

    assert not pin_snapshot(store, Pin("repo", "main", "/src/repo"), OID, VERSION, "now")
    commit_snapshot(store, snapshot(b"record"))
    assert not pin_snapshot(store, Pin("repo", "main", "/src/repo"), OID, "other", "now")
    assert get(store, pin_key("repo", "main"), store.repos) is None and linked_at(store, "repo") is None
    assert dict(store.kv(REPO_PATHS).items()) == {}
