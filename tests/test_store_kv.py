"""A table lent to another module (`Store.kv`): items by prefix, in key order or reversed, on a
real store, with prefixes ending in 0xFF bytes (whose next key is found past them) and none."""

from __future__ import annotations

import pytest

from indexer.store.database import Store

KEYS = [b"", b"a", b"a\x00", b"a\xfe", b"a\xff", b"a\xff\xff", b"a\xff\xffz", b"ab", b"b", b"b\x00", b"\xff", b"\xff\xff"]


@pytest.fixture
def table(tmp_path):
    with Store.open(tmp_path / "store") as store:
        kv = store.kv("test")
        kv.put_many((key, b"v" + key) for key in KEYS if key)  # LMDB takes no empty key
        yield kv


@pytest.mark.parametrize("prefix", [b"", b"a", b"a\xff", b"a\xff\xff", b"ab", b"b", b"\xff", b"c", b"a\xfe"])
def test_items_by_prefix_in_key_order_and_reversed(table, prefix):
    wanted = sorted(key for key in KEYS if key and key.startswith(prefix))
    assert list(table.items(prefix)) == [(key, b"v" + key) for key in wanted]
    assert list(table.items(prefix, reverse=True)) == [(key, b"v" + key) for key in reversed(wanted)]


def test_a_deleted_key_is_gone_from_both_orders(table):
    table.delete_many([b"a\xff", b"b"])
    table.delete(b"\xff")
    assert [key for key, _ in table.items(b"a\xff")] == [b"a\xff\xff", b"a\xff\xffz"]
    assert [key for key, _ in table.items(b"", reverse=True)][:2] == [b"\xff\xff", b"b\x00"]
    assert table.get(b"b") is None and table.get(b"ab") == b"vab"
