"""Blast radius from the base snapshot: fan-in read at the base-side path, not_assessed
for added files, paths the base does not carry, and an absent index; zero only when
checked."""

from __future__ import annotations

import msgspec
import pytest

from corpora.gitbuild import RepoBuilder
from delta import build_delta_packet
from indexer.api import open_store
from indexer.contract.result import Unknown


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("blast")
    b = RepoBuilder(root / "repo")
    base = b.commit({
        "pkg/__init__.py": "",
        "pkg/core.py": "def core():\n    return 1\n",
        "pkg/a.py": "from pkg.core import core\n\ndef a():\n    return core()\n",
        "pkg/b.py": "from pkg import core\n\ndef b():\n    return core.core()\n",
        "pkg/old_name.py": "def helper():\n    return 2\n",
        "pkg/c.py": "from pkg.old_name import helper\n",
        "pkg/leaf.py": "def leaf():\n    return 3\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\0\0" + bytes(range(256)) * 4,
    })
    head = b.commit({
        "pkg/core.py": "def core():\n    return 10\n",
        "pkg/old_name.py": None, "pkg/new_name.py": "def helper():\n    return 2\n\n\ndef more():\n    pass\n",
        "pkg/leaf.py": "def leaf():\n    return 30\n",
        "pkg/fresh.py": "def fresh():\n    pass\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\0\1" + bytes(range(256)) * 4,
    })
    return root, base, head


def packet_in(root, home: str, base: str, head: str, **options):
    """The packet of base..head built with the store at root/home, not written."""
    store = open_store(root / home)
    try:
        return build_delta_packet(root / "repo", base, head, store=store, write=False, **options).packet
    finally:
        store.close()


def test_fan_in_is_read_from_the_base_snapshot(repo):
    root, base, head = repo
    p = packet_in(root, "home", base, head)
    files = {f.path: f for f in p.files}
    assert files["pkg/core.py"].fan_in == 2
    assert files["pkg/new_name.py"].status == "renamed"
    assert files["pkg/new_name.py"].fan_in == 1  # asked at pkg/old_name.py, where c.py imports it
    assert files["pkg/leaf.py"].fan_in == 0  # checked: nothing depends on it
    fresh = files["pkg/fresh.py"].fan_in
    assert isinstance(fresh, Unknown) and fresh.unknown == "not_assessed" and "added" in fresh.reason
    logo = files["logo.png"].fan_in
    assert isinstance(logo, Unknown) and logo.unknown == "not_assessed"
    assert p.blast.snapshot_oid == base and p.blast.fingerprint


def test_absent_index_is_not_assessed_never_zero(repo):
    root, base, head = repo
    p = packet_in(root, "empty-home", base, head, index=False)
    assert msgspec.to_builtins(p.blast)["unknown"] == "not_assessed"
    assert "not_indexed" in p.blast.reason
    for f in p.files:
        assert isinstance(f.fan_in, Unknown) and f.fan_in.unknown == "not_assessed", f.path
    assert p.elements.items == [] and isinstance(p.elements.unknown, Unknown)


def test_index_false_reads_an_existing_snapshot(repo):
    root, base, head = repo
    store = open_store(root / "home2")
    try:
        build_delta_packet(root / "repo", base, head, store=store, write=False)  # indexes base and head
        p = build_delta_packet(root / "repo", base, head, store=store, index=False, write=False).packet
    finally:
        store.close()
    assert {f.path: f.fan_in for f in p.files}["pkg/core.py"] == 2


def test_an_index_that_fails_is_an_absent_index_not_a_failed_packet(repo, monkeypatch):
    # a failure indexing the base (here an OSError from the store) leaves fan-in and elements
    # not assessed, saying why; the packet itself is built
    import indexer.api

    def failing(*args, **kwargs):
        raise OSError("the store's disk is gone")

    monkeypatch.setattr(indexer.api, "snapshot", failing)
    root, base, head = repo
    p = packet_in(root, "failing-home", base, head)
    assert p.blast.unknown == "not_assessed" and "OSError" in p.blast.reason and "failed" in p.blast.reason
    assert all(isinstance(f.fan_in, Unknown) and f.fan_in.unknown == "not_assessed" for f in p.files)
    assert p.elements.items == [] and p.elements.unknown.unknown == "not_assessed"
