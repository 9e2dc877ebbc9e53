"""The store's name index (name -> blobs defining or using it), read with the rows of blobs
whose facts are still being written: each blob once, whether or not its write committed."""

from __future__ import annotations

from indexer.extract import extract_blob
from indexer.records import PendingNames, facts_key, name_index, put_stored_many, stored_facts
from indexer.store import Store

WRITTEN = b"def alpha():\n    return beta()\n"
PENDING = b"class alpha:\n    pass\n\n\ndef gamma():\n    return beta() + delta\n"


def _stored(oid: str, data: bytes):
    return stored_facts(facts_key(oid, "python", "t"), extract_blob(data, "m.py", "python"))


def _listed(index, name: str) -> tuple[list[bytes], list[bytes]]:
    return list(index.defining(name)), list(index.using(name))


def test_pending_rows_are_listed_beside_the_stored_ones_once_each(tmp_path):
    a, b = "a" * 40, "b" * 40
    raw_a, raw_b = bytes.fromhex(a), bytes.fromhex(b)
    with Store.open(tmp_path / "store") as store:
        with store.env.begin(write=True) as txn:
            put_stored_many(txn, store, [_stored(a, WRITTEN)])
        pending = PendingNames()
        # b's write has not committed; a's has (a batch listed in memory and in the store)
        pending.add([_stored(a, WRITTEN), _stored(b, PENDING)])
        with name_index(store) as stored_only:
            assert _listed(stored_only, "alpha") == ([raw_a], [raw_a])  # every name with a site: `using`
            assert _listed(stored_only, "gamma") == ([], [])
        with name_index(store, pending) as both:
            assert _listed(both, "alpha") == ([raw_a, raw_b], [raw_a, raw_b])
            assert _listed(both, "beta") == ([], [raw_a, raw_b])
            assert _listed(both, "gamma") == ([raw_b], [raw_b])
            assert _listed(both, "delta") == ([], [raw_b])
            assert _listed(both, "nowhere") == ([], [])
