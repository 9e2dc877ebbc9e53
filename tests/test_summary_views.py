"""A blob's facts summary (indexer/store/facts_table.py, `decode_summary`) is decoded in place
from the store's pages, and holds no view of them: a `Raw` field decoded from a memoryview is
one, and pages a read has let go of may be written again. Once, an interrupted batch's store
then counted 3,621,646,811 imports for a snapshot of a few hundred files: a summary kept past
its read counted another record's bytes."""

from __future__ import annotations

import msgspec

from indexer.model import BlobFacts, ImportSpec
from indexer.store import resident
from indexer.store.database import Store, pack, unpack
from indexer.store.facts_table import decode_summary, load_summaries


def _facts(imports: int) -> BlobFacts:
    return BlobFacts(language="python", lines=imports, imports=[
        ImportSpec(kind="python_import", spec=f"m{i}", line=i + 1) for i in range(imports)])


def test_a_summary_counts_its_imports_after_its_bytes_are_written_over():
    page = bytearray(pack(msgspec.msgpack.encode(_facts(20)), compress=False))
    summary = decode_summary(unpack(memoryview(page)))  # as the store reads it, in place
    assert summary.import_total == 20
    page[:] = b"\xdd" * len(page)  # the store's page, reused by a later write
    assert summary.import_total == 20


def test_summaries_loaded_from_the_store_hold_after_its_pages_are_written_again(tmp_path):
    """The same in a real store: the summaries are loaded as an index loads them (from the
    store, and through the host's resident cache), then the key is written again until LMDB
    reuses the pages the read had."""
    store = Store.open(tmp_path / "store")
    key = b"0" * 40 + b"|python|t"
    packed = pack(msgspec.msgpack.encode(_facts(20)), compress=False)
    with store.env.begin(write=True, db=store.facts) as txn:
        txn.put(key, packed)
    loaded = load_summaries(store, {"a.py": key})["a.py"]
    kept = resident.KeptSummaries().load(store, {"a.py": key})["a.py"]
    with store.env.begin(db=store.facts, buffers=True) as txn:
        page = txn.get(key)  # a view of the page the reads had, watched past its transaction
    assert bytes(page) == packed and loaded.import_total == kept.import_total == 20
    for _ in range(4):  # pages a write frees are reused once no reader is older than it
        with store.env.begin(write=True, db=store.facts) as txn:
            txn.put(key, b"\xdd" * len(packed))
    assert bytes(page) != packed  # the pages were written again
    assert loaded.import_total == kept.import_total == 20
    assert bytes(loaded.import_specs) == bytes(kept.import_specs) == msgspec.msgpack.encode(_facts(20).imports)
    store.close()
