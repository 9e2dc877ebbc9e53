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


def test_a_table_opened_while_another_thread_writes_waits_without_holding_the_process(tmp_path):
    """A server's thread opening a named table (a call's first receipt opens the ledger's) while
    another thread of it holds a write transaction: that writer finishes, and the table opens
    after it. Was: lmdb's `open_db` waited for the writer holding the GIL, which the writer
    needed to commit; every thread of the server stood still for good. Run in a process of its
    own, so that the old code's deadlock fails the test rather than holding the suite."""
    import subprocess
    import sys
    import textwrap

    from tests.test_context_world import ROOT

    script = textwrap.dedent(f"""
        import threading, time
        from pathlib import Path
        from indexer.store.database import Store

        store = Store.open(Path({str(tmp_path / "home")!r}))
        writing = threading.Event()
        done = []

        def writer():
            with store.env.begin(write=True, db=store.meta) as txn:
                writing.set()
                time.sleep(0.3)  # wakes needing the GIL, to commit
                txn.put(b"k", b"v", db=store.meta)
            done.append("written")

        def opener():
            writing.wait()
            store.kv("opened_while_written").put_many([(b"a", b"1")])
            done.append("opened")

        threads = [threading.Thread(target=writer), threading.Thread(target=opener)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(sorted(done))
    """)
    try:
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError("the process stood still: a table's opening held the GIL while it waited") from None
    assert out.returncode == 0 and out.stdout.split("\n")[0] == "['opened', 'written']", out.stderr
