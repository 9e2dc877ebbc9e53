"""Writing a file the user named with `--out`: whole or not at all.

A regular file (or a new one) is written beside its target, as a new file that is never
opened through a link, synced to disk and renamed over it (the folder synced after), so a
reader never sees half of it, a failed write leaves the old one as it was, and a crash after
the rename leaves the new one whole. A target
that exists and is not a regular file (`/dev/stdout`, a named pipe, `/dev/null`) is
written in place: renaming over it would replace the device or pipe with a plain file.
Any failure, a full disk included, is `bad_input` naming the path and the reason (a folder of
the path that is not there, the folder). A path
among the store's own files is refused before anything is read or written: the new file would
be renamed over one (its LMDB data file), and every snapshot in it lost.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Iterable

from indexer.contract.errors import BadInput

# What a store keeps at the top of its folder whose replacement loses or endangers what it holds:
# its LMDB folder, the lock writers take, the stores of unsigned bundles. The rest of the folder
# (spill files, Delta packets) and the folder around it (a home a user chose) may be written.
STORE_ENTRIES = frozenset({"lmdb", "write.lock", "untrusted"})


def outside_store(out: str | os.PathLike[str], home: str | os.PathLike[str]) -> None:
    """`bad_input` when `out` is the store's folder `home` or one of its `STORE_ENTRIES` or
    anything under them, through links in any folder of either path (the file itself is
    renamed over, never written through)."""
    target = Path(out)
    try:
        where = target.parent.resolve() / target.name
        store = Path(home).resolve()
    except (OSError, RuntimeError) as exc:  # a loop of links
        raise BadInput(f"cannot write {out}: {exc}") from None
    if where == store or (store in where.parents and where.relative_to(store).parts[0] in STORE_ENTRIES):
        raise BadInput(f"cannot write {out}: it is inside the store at {home}, whose files it would replace; "
                       "write it elsewhere")


def folder_there(out: str | os.PathLike[str]) -> None:
    """`bad_input` naming the folder `out` is to be written in when it is not there, or is no
    folder: told before a command reads or indexes anything, and in words that say which
    part of the path to fix (the write's own error says only that no such file exists)."""
    folder = Path(out).parent
    try:
        if folder.is_dir():
            return
        what = "is not a folder; name a file in one" if folder.exists() else "does not exist; create it first"
    except OSError:  # a folder that cannot be looked at: the write says why
        return
    raise BadInput(f"cannot write {out}: its folder {folder} {what}")


def write_out(out: str | os.PathLike[str], chunks: Iterable[bytes], store: str | os.PathLike[str] | None = None) -> int:
    """Write `chunks` to `out`, never over the files of the store at `store`; the number of chunks written."""
    target = Path(out)
    if store is not None:
        outside_store(out, store)
    folder_there(out)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise BadInput(f"cannot write {out}: {exc.strerror}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise BadInput(f"cannot write {out}: Is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        try:
            with open(target, "wb") as fh:
                return _write(fh, chunks)
        except OSError as exc:
            raise BadInput(f"cannot write {out}: {exc.strerror}") from None
    tmp = target.with_name(target.name + ".partial")
    try:
        with open(_create(tmp), "wb") as fh:
            count = _write(fh, chunks)
            os.fsync(fh.fileno())  # its bytes on disk before its name is: a crash leaves the old file or the new
        tmp.replace(target)
        _sync_folder(target.parent)
        return count
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise BadInput(f"cannot write {out}: {exc.strerror}") from None


def _create(tmp: Path) -> int:
    """A file descriptor of a new file at `tmp`. Whatever is there already (a killed writer's
    file, or a link someone planted in a folder others may write) is removed, never opened:
    writing through a link would overwrite the file it points to."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(tmp, flags, 0o666)
    except FileExistsError:
        os.unlink(tmp)
        return os.open(tmp, flags, 0o666)


def _sync_folder(folder: Path) -> None:
    """The rename into `folder` on disk, so the answer reported written survives a crash. A
    folder that cannot be opened for reading (write and search rights alone) or a filesystem
    that syncs no folder (EINVAL) leaves it to the filesystem: the file is whole either way."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _write(fh, chunks: Iterable[bytes]) -> int:
    count = 0
    for chunk in chunks:
        fh.write(chunk)
        count += 1
    fh.flush()  # a full disk shows here, not after the success is reported
    return count
