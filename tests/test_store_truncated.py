"""A store's data file cut short of the pages its newest meta page names is `store_corrupt`
when opened, before LMDB maps it (a page read past the file's end would kill the process
with SIGBUS): the newest of the two meta pages decides, whichever of the two slots holds it."""

from __future__ import annotations

import os
from pathlib import Path

import lmdb
import pytest

from indexer.contract.errors import StoreError
from indexer.store.database import Store, _meta

PROBE = 1 << 16


def metas(data) -> list[tuple[int, int, int]]:
    """(page size, last page, transaction id) of the file's two meta pages, in slot order."""
    head = data.read_bytes()[:PROBE]
    first = _meta(head, 0)
    assert first is not None
    second = _meta(head, first[0])
    assert second is not None
    return [first, second]


def _new_store(tmp_path) -> tuple[Path, Path]:
    """A store made and closed, and its data file."""
    home = tmp_path / "store"
    with Store.open(home):
        pass
    return home, home / "lmdb" / "data.mdb"


@pytest.mark.parametrize("slot", [0, 1])
def test_a_file_cut_short_of_the_newer_meta_page_is_refused_in_either_slot(tmp_path, slot):
    home, data = _new_store(tmp_path)
    env = lmdb.open(str(home / "lmdb"), map_size=1 << 30, subdir=True, max_dbs=32)
    try:
        # small writes until the next one lands in `slot` (LMDB writes the meta page of slot
        # txnid & 1), then a large one there: the other slot names far fewer pages
        n = 0
        while (max(m[2] for m in metas(data)) + 1) & 1 != slot:
            with env.begin(write=True) as txn:
                txn.put(b"small%d" % n, b"1")
            n += 1
        with env.begin(write=True) as txn:
            for i in range(2000):
                txn.put(b"k%06d" % i, os.urandom(512))
    finally:
        env.close()
    found = metas(data)
    newer, older = found[slot], found[1 - slot]
    assert newer[2] > older[2] and newer[1] > older[1] + 100
    os.truncate(data, (older[1] + 1) * older[0])  # enough for the older meta page, far short of the newer
    with pytest.raises(StoreError) as raised:
        Store.open(home)
    assert raised.value.code == "store_corrupt" and "truncated" in raised.value.message
    assert data.stat().st_size == (older[1] + 1) * older[0]  # kept as it was found


def test_the_newer_meta_page_counts_past_the_first_pages_of_the_file(tmp_path):
    """A store past 65,384 pages (256 MiB of 4 KiB pages): the second meta page is read however
    far the first one's last page lies, and a file long enough for the older one only is
    refused. The file is sparse: its two meta pages say so, as LMDB writes them."""
    import struct

    home, data = _new_store(tmp_path)
    raw = bytearray(data.read_bytes())
    size = metas(data)[0][0]
    for offset, last_page, txn_id in ((0, 70_000, 5), (size, 90_000, 6)):
        struct.pack_into("=QQ", raw, offset + 136, last_page, txn_id)
    data.write_bytes(bytes(raw))
    os.truncate(data, 70_001 * size)  # all the older meta page names; short of the newer's
    with pytest.raises(StoreError) as raised:
        Store.open(home)
    assert raised.value.code == "store_corrupt" and f"its last page ends at {90_001 * size}" in raised.value.message


def test_a_file_of_one_page_is_refused_whatever_its_meta_page_names(tmp_path):
    """A file shorter than LMDB's two meta pages is cut short whatever the one left says (here:
    that the first page is the last)."""
    import struct

    home, data = _new_store(tmp_path)
    raw = bytearray(data.read_bytes())
    size = metas(data)[0][0]
    struct.pack_into("=QQ", raw, 136, 0, 9)
    data.write_bytes(bytes(raw[:size]))
    with pytest.raises(StoreError) as raised:
        Store.open(home)
    assert raised.value.code == "store_corrupt" and "truncated" in raised.value.message
