"""The benchmark's measuring tools (cheap; the benchmark itself never runs in the suite)."""

from __future__ import annotations

import sys

import lmdb

from benchmarks import measure
from benchmarks.run import ratios, store_bytes, verdicts


def test_measure_reports_exit_code_wall_and_peak_memory():
    code = "import time; b = bytearray(80 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.5); print('ok')"
    m = measure.run([sys.executable, "-c", code])
    assert m.returncode == 0 and m.stdout.strip() == "ok"
    assert m.wall >= 0.5
    assert m.max_rss >= 80 * 1024 * 1024
    assert m.peak_pss >= 60 * 1024 * 1024  # sampled while it slept
    failed = measure.run([sys.executable, "-c", "import sys; sys.exit(3)"], sample=False)
    assert failed.returncode == 3


def test_store_bytes_counts_pages_in_use_not_the_map_size(tmp_path):
    env = lmdb.open(str(tmp_path / "lmdb"), map_size=1 << 34, max_dbs=4, subdir=True)
    db = env.open_db(b"facts")
    with env.begin(write=True, db=db) as txn:
        for i in range(2000):
            txn.put(f"k{i:05d}".encode(), b"v" * 500)
    env.close()
    sizes = store_bytes(tmp_path)
    assert 1_000_000 <= sizes["used"] <= 3_000_000  # ~1 MB of values, nowhere near the 16 GiB map
    assert sizes["file"] >= sizes["used"]


def test_targets_pass_and_fail_on_the_numbers():
    r = {"label": "synthetic 10,000", "size": 10_000, "indexed_files": 10_000,
         "ctags": {"wall": 2.0}, "cold": {"wall": 5.0, "peak_pss": 2 << 30, "max_rss": 1 << 30},
         "reindex": [{"wall": 0.4}], "queries": {"symbol": {"p50_ms": 0.5}, "references": {"p50_ms": 6.0}},
         "fresh_symbol": {"median_ms": 250.0},
         "store": {"first": {"used": 1000}, "added": [50]}}
    r["ratios"] = ratios(r)
    got = {v["target"]: v["pass"] for v in verdicts([r])}
    assert got == {"cold_vs_ctags": False, "reindex_vs_cold": True, "symbol_p50_ms": True,
                   "references_p50_ms": False, "fresh_symbol_ms": True, "added_vs_first": True,
                   "peak_mib_10k": False}
