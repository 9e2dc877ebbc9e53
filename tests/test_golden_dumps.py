"""Indexing the fixture repositories gives the same canonical dump bytes as recorded in
tests/golden/dumps.json: a move or a refactor that changes no version changes no answer."""

from __future__ import annotations

import json

from tests.golden.dumps import GOLDEN, digests


def test_fixture_dumps_equal_the_recorded_ones(tmp_path):
    recorded = json.loads(GOLDEN.read_text())
    now = digests(tmp_path)
    assert {name: sorted(c) for name, c in now.items()} == {name: sorted(c) for name, c in recorded.items()}
    changed = {(name, oid) for name, commits in recorded.items() for oid, digest in commits.items()
               if now[name][oid] != digest}
    assert not changed
