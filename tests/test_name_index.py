"""The store's name index (name -> blobs defining or using it), read with the rows of blobs
whose facts are still being written: each blob once, whether or not its write committed; and
its defined names kept as sorted runs for near-name searches."""

from __future__ import annotations

import msgspec

from indexer.extract.blob import extract_blob
from indexer.store.database import Store
from indexer.store.records import PendingNames, facts_key, name_index, put_stored_many, stored_facts

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


def test_the_names_runs_list_every_defined_name_once_sorted_each_twice_the_next(tmp_path):
    """Each write's new names make a run, merged with the newer runs less than twice its size:
    every key of `defs` in exactly one run, each run sorted as Python sorts names."""
    from indexer.store import name_runs

    sizes = [40, 3, 3, 1, 30, 2, 200, 1, 1, 5]
    odd = ["Straße", "İstanbul", "ñandú", "x\ny"]  # kept as keys, outside the runs' text
    made = 0
    with Store.open(tmp_path / "store") as store:
        for k, size in enumerate(sizes):
            names = [f"name_{made + i:04d}" if i % 3 else f"Name_{made + i:04d}" for i in range(size)]
            names += [odd[k]] if k < len(odd) else []
            made += size
            code = "".join(f"def {n}():\n    pass\n" for n in names if "\n" not in n)
            facts = extract_blob(code.encode(), "m.py", "python")
            if "x\ny" in names:  # no source defines such a name; the index keys it all the same
                facts.symbols.append(msgspec.structs.replace(facts.symbols[0], name="x\ny"))
            again = _stored(f"{k:040x}", b"def name_0001():\n    pass\n")  # already defined: no new name
            with store.env.begin(write=True) as txn:
                put_stored_many(txn, store, [stored_facts(facts_key(f"{k + 100:040x}", "python", "t"), facts), again])
        runs = name_runs.load(store)
        with store.env.begin(db=store.defs) as txn:
            keys = [bytes(k) for k in txn.cursor().iternext_nodup(keys=True, values=False)]
    listed = [name.encode() for run in runs for name in run.plain()] + [k for run in runs for k in run.others]
    assert sorted(listed) == keys  # each key once
    for run in runs:
        assert run.plain() == sorted(run.plain()) and all(n.isascii() for n in run.plain())
        assert [name_runs.name_of(k) for k in run.others] == sorted(name_runs.name_of(k) for k in run.others)
        assert run.size == len(run.plain()) + len(run.others)
    assert all(older.size >= 2 * newer.size for older, newer in zip(runs, runs[1:]))
    assert len(runs) > 1


def test_a_write_s_names_beyond_ascii_count_toward_its_run_s_size(tmp_path):
    """A new run's size is all its names, the plain ones and the others: half of them not ASCII
    is still a run as large as its count, merged into an older run less than twice its size."""
    from indexer.store import name_runs

    with Store.open(tmp_path / "store") as store:
        with store.env.begin(write=True) as txn:
            name_runs.add(txn, store, [f"plain{i:02d}".encode() for i in range(10)])
        with store.env.begin(write=True) as txn:
            name_runs.add(txn, store, [b"b0", b"b1", b"b2", "ß0".encode(), "ß1".encode(), "ß2".encode()])
        runs = name_runs.load(store)
    assert [run.size for run in runs] == [16]
    assert runs[0].plain() == sorted([f"plain{i:02d}" for i in range(10)] + ["b0", "b1", "b2"])
    assert [name_runs.name_of(k) for k in runs[0].others] == ["ß0", "ß1", "ß2"]
