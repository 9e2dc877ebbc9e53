"""`--out` files (indexer/store/outfile.py) on real folders: a file written whole or not at all,
an empty answer an empty file, and the store's own folder refused as any of its entries is."""

from __future__ import annotations

import os

import pytest

from indexer.contract.errors import BadInput
from indexer.store.outfile import outside_store, write_out


def test_no_chunks_make_an_empty_file_in_place_of_the_old_one(tmp_path):
    out = tmp_path / "dump.jsonl"
    out.write_bytes(b"old answer\n")
    assert write_out(out, iter(())) == 0
    assert out.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["dump.jsonl"]
    assert write_out(out, [b"a\n", b"", b"b\n"]) == 3
    assert out.read_bytes() == b"a\nb\n" and sorted(p.name for p in tmp_path.iterdir()) == ["dump.jsonl"]


def test_a_write_that_fails_keeps_the_old_file_and_leaves_no_partial(tmp_path):
    out = tmp_path / "dump.jsonl"
    out.write_bytes(b"old answer\n")

    def chunks():
        yield b"new"
        raise OSError(28, "No space left on device")

    with pytest.raises(BadInput) as raised:
        write_out(out, chunks())
    assert "No space left on device" in raised.value.message
    assert out.read_bytes() == b"old answer\n" and sorted(p.name for p in tmp_path.iterdir()) == ["dump.jsonl"]


def test_the_file_is_synced_before_its_rename_and_the_folder_after(tmp_path, monkeypatch):
    """A crash after the rename must find the new file whole under its name: its bytes reach
    the disk (fsync) before the rename, and the rename does (the folder's fsync) before the
    write is reported done. The calls are watched at the edge of the world, each passed on to
    the real system call; what each synced is told by its inode."""
    out = tmp_path / "dump.jsonl"
    out.write_bytes(b"old answer\n")
    events: list[tuple[str, int | str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.fstat(fd).st_ino))
        return real_fsync(fd)

    def replace(src, dst, **kwargs):
        events.append(("rename", os.stat(src).st_ino))
        return real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    assert write_out(out, [b"a\n", b"b\n"]) == 2
    monkeypatch.undo()
    new, folder = out.stat().st_ino, tmp_path.stat().st_ino
    assert out.read_bytes() == b"a\nb\n"
    assert events == [("fsync", new), ("rename", new), ("fsync", folder)], events


def test_a_target_written_in_place_is_not_synced(tmp_path, monkeypatch):
    """A target that is no regular file (a pipe, a device) is written in place: no fsync, which
    a pipe refuses (EINVAL)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    try:
        assert write_out(fifo, [b"a\n"]) == 1
        assert os.read(reader, 10) == b"a\n" and synced == []
    finally:
        os.close(reader)


@pytest.mark.parametrize("where", [".", "lmdb", "lmdb/data.mdb", "write.lock", "untrusted/a/lmdb"])
def test_the_store_s_folder_and_its_entries_are_refused(tmp_path, where):
    home = tmp_path / "store"
    (home / "lmdb").mkdir(parents=True)
    with pytest.raises(BadInput) as raised:
        outside_store(home / where, home)
    assert "inside the store" in raised.value.message
    outside_store(home / "spill.json", home)  # the rest of its folder may be written
    outside_store(tmp_path / "store.json", home)
