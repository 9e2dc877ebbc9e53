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
    sizes: list[int] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.fstat(fd).st_ino))
        sizes.append(os.fstat(fd).st_size)
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
    assert sizes[0] == 4  # every byte written out of the buffer before the sync, none after it


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


def test_a_link_named_as_out_into_the_store_is_replaced_not_written_through(tmp_path):
    """`--out` is renamed over, never written through, so a link named as the file itself is
    no path into the store: the link is replaced by the new file and the store's file it
    pointed at is kept as it was (only links in the folders of the path lead into the store)."""
    home = tmp_path / "store"
    (home / "lmdb").mkdir(parents=True)
    data = home / "lmdb" / "data.mdb"
    data.write_bytes(b"snapshots\n")
    out = tmp_path / "dump.jsonl"
    out.symlink_to(data)
    assert write_out(out, [b"a\n"], store=home) == 1
    assert not out.is_symlink() and out.read_bytes() == b"a\n" and data.read_bytes() == b"snapshots\n"


def test_a_store_named_through_a_link_still_refuses_its_entries(tmp_path):
    """The store's folder may be named through a link (`--store ~/link`): its entries are
    refused by where they are, as they are when the link is in `--out`'s path."""
    home = tmp_path / "store"
    (home / "lmdb").mkdir(parents=True)
    (tmp_path / "home-link").symlink_to(home)
    with pytest.raises(BadInput, match="inside the store"):
        outside_store(home / "lmdb" / "data.mdb", tmp_path / "home-link")
    with pytest.raises(BadInput, match="inside the store"):
        write_out(home / "write.lock", [b"x"], store=tmp_path / "home-link")
    assert not (home / "write.lock").exists()


def test_paths_that_cannot_be_looked_at_are_bad_input_on_one_line(tmp_path):
    """A loop of links in `--out`'s folders, a regular file where a folder should be, a device
    that takes no byte: each is `bad_input` naming the path, never another exception."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "file").write_bytes(b"")
    for out in (tmp_path / "loop" / "dump.jsonl", tmp_path / "file" / "dump.jsonl", "/dev/full"):
        with pytest.raises(BadInput) as raised:
            write_out(out, [b"a\n"], store=tmp_path / "store")
        assert raised.value.message.startswith(f"cannot write {out}") and "\n" not in raised.value.message


def test_a_folder_that_is_not_there_is_named_in_the_refusal(tmp_path):
    """`--out missing/dump.jsonl` says which part of the path to fix: the folder (was: the
    write's own words, "No such file or directory", of the file)."""
    (tmp_path / "file").write_bytes(b"")
    for folder, what in ((tmp_path / "missing", "does not exist"), (tmp_path / "file", "is not a folder")):
        with pytest.raises(BadInput) as raised:
            write_out(folder / "dump.jsonl", [b"a\n"])
        assert f"its folder {folder} {what}" in raised.value.message, raised.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("fault", ["open", "EINVAL", "ENOTSUP", "EBADF"])
def test_a_folder_that_cannot_be_synced_leaves_the_file_written(tmp_path, monkeypatch, fault):
    """A folder that cannot be opened for reading (write and search rights alone: root is not
    refused so, hence the fault made at the system call) or a filesystem that syncs no folder
    leaves the rename to the filesystem: the file is whole either way, and written."""
    import errno

    out = tmp_path / "dump.jsonl"
    real_open, real_fsync = os.open, os.fsync

    def folder_open(path, flags, *args):
        if fault == "open" and flags & os.O_DIRECTORY:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args)

    def fsync(fd):
        if fault != "open" and os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(getattr(errno, fault), os.strerror(getattr(errno, fault)))
        return real_fsync(fd)

    monkeypatch.setattr(os, "open", folder_open)
    monkeypatch.setattr(os, "fsync", fsync)
    assert write_out(out, [b"a\n"]) == 1
    assert out.read_bytes() == b"a\n"


def test_a_folder_sync_that_fails_otherwise_is_bad_input(tmp_path, monkeypatch):
    """A folder's sync that fails for another reason (an I/O error) is told: the rename may not
    be on disk, so the write is not reported done."""
    import errno

    real_fsync = os.fsync

    def fsync(fd):
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.EIO, "Input/output error")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(BadInput, match="Input/output error"):
        write_out(tmp_path / "dump.jsonl", [b"a\n"])
