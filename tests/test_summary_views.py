"""A blob's facts summary (indexer/store/facts_table.py, `decode_summary`) is decoded in place
from the store's pages, and holds no view of them: a `Raw` field decoded from a memoryview is
one, and pages a read has let go of may be written again. Once, an interrupted batch's store
then counted 3,621,646,811 imports for a snapshot of a few hundred files: a summary kept past
its read counted another record's bytes."""

from __future__ import annotations

import msgspec

from indexer.model import BlobFacts, ImportSpec
from indexer.store.database import pack, unpack
from indexer.store.facts_table import decode_summary


def test_a_summary_counts_its_imports_after_its_bytes_are_written_over():
    facts = BlobFacts(language="python", lines=20, imports=[ImportSpec(kind="python_import", spec=f"m{i}", line=i + 1)
                                                  for i in range(20)])
    page = bytearray(pack(msgspec.msgpack.encode(facts), compress=False))
    summary = decode_summary(unpack(memoryview(page)))  # as the store reads it, in place
    assert summary.import_total == 20
    page[:] = b"\xdd" * len(page)  # the store's page, reused by a later write
    assert summary.import_total == 20
