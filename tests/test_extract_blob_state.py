"""`extract_blob` leaves the process as it found it: the cyclic garbage collector, which it turns
off while it works, is on again after it (off if it was off), when it succeeds and when a bug of
ours makes it give `extract_error` (the blob's lines still counted)."""

from __future__ import annotations

import gc

import pytest

import indexer.extract.blob as blob
from indexer.extract.blob import extract_blob

SOURCE = b"def f():\n    return 1\n"


@pytest.fixture
def collector():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_as_it_was_after_an_extraction(collector):
    gc.enable()
    assert extract_blob(SOURCE, "m.py", "python").symbols
    assert gc.isenabled()
    gc.disable()
    assert extract_blob(SOURCE, "m.py", "python").symbols
    assert not gc.isenabled()


def test_a_bug_in_extraction_is_that_reason_with_lines_and_the_collector_back_on(collector, monkeypatch):
    def broken(language, root, data):
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(blob, "extract_tree", broken)
    gc.enable()
    facts = extract_blob(SOURCE, "m.py", "python")
    assert (facts.skipped, facts.lines, facts.symbols, facts.language) == ("extract_error", 2, [], "python")
    assert gc.isenabled()
