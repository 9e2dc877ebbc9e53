"""The LMDB store: blob facts shared by every snapshot, snapshot records, and named tables.

Layout under the home folder (`--store DIR`, `$RENNET_HOME`, or `~/.rennet`):

    lmdb/          the LMDB environment (named sub-databases, below)
    write.lock     held by the one indexer writing at a time
    spill/ ...     plain folders that other parts of the tool write for humans and agents

Sub-databases:

    meta        schema version
    facts       (blob OID, language, extractor version) -> compressed core blob facts
                (occurrences summarized as per-name use counts: what assembly reads)
    occurrences same key -> the blob's occurrence list (read by reference queries only)
    defs        symbol name -> 20-byte blob OID (dupsort): which blobs define a name
    occ         identifier -> 20-byte blob OID (dupsort): which blobs mention a name
    names       run number -> the names of `defs` added by one write, as sorted text
                (indexer/store/name_runs.py): what a near-name search reads instead of every key
    snapshots   (commit OID, extractor version) -> compressed snapshot record
    rank        same key -> the snapshot's rank arcs (indexer/rank/arcs.py), written with its
                record: what the next re-index updates instead of computing them all again
    repos       (repository identity, commit OID) -> snapshot key, indexed_at
    kv:<name>   tables lent to other modules (ledger, dossiers, workspaces)

Environment faults are named for what they are (`fault`): a full disk is `store_full`, a
read-only file system or a permission `store_error`, and only damaged data `store_corrupt`.
A store whose folder cannot be written is opened read-only, without LMDB's lock file, so
reads still work; reader slots left by killed processes are cleared at every open.

Facts and their name-index rows (and runs of `names`) are written in one transaction, so a
name never points at facts that are not there, and `names` lists every key of `defs`. A
snapshot record is written last, in one transaction: until then no reader can see the
snapshot.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import zlib
from pathlib import Path
from typing import Iterable, Iterator, overload

import lmdb

from indexer.contract.errors import OutOfMemory, RennetError, SchemaMismatch, StoreError, StoreFull, StoreLocked
from indexer.contract.local_paths import utf8_folder

# The store's layout: its tables and the shapes of their keys; a store of another layout is
# refused (SchemaMismatch names the fix). What each version changed:
# 1: the first layout
# 2: the `names` table
# (The versions inside facts and snapshot keys are not the layout: indexer/store/versions.py.)
SCHEMA_VERSION = b"2"
MAP_SIZE = 1 << 38  # address space only; the file grows with what is written
NEARLY_FULL = 1 << 20  # free bytes under which an I/O error of a write is taken for a full device
MAX_READERS = 256  # reader slots of a new store's lock file (a store keeps the count it was made with)
_COMPRESSED = b"z"
_PLAIN = b"p"
_COMPRESS_OVER = 256  # bytes: a value no longer is stored as it is
_LEVEL = 1  # zlib's fastest: values are compressed on every index


def default_home() -> Path:
    env = os.environ.get("RENNET_HOME")
    return Path(env).expanduser() if env else Path.home() / ".rennet"


def checked_home(home: str | os.PathLike[str] | None) -> str:
    """The real path of the store home `home` names (None: the default), refused (BadInput)
    when it is not UTF-8 text: the store's path is shown in replies and spill paths."""
    path = Path(home).expanduser() if home is not None else default_home()
    return utf8_folder(os.path.realpath(path), "the store's folder", "give --store (or $RENNET_HOME) a UTF-8 path")


def pack(data: bytes, compress: bool = True) -> bytes:
    if compress and len(data) > _COMPRESS_OVER:
        return _COMPRESSED + zlib.compress(data, _LEVEL)
    return _PLAIN + data


def pack_pieces(pieces: Iterable[bytes]) -> bytes:
    """`pack` of the pieces' concatenation, compressed as they come, never joined: zlib's
    stream gives the bytes of one `zlib.compress` however its input is cut."""
    held: list[bytes] = []
    size = 0
    rest = iter(pieces)
    for piece in rest:
        held.append(piece)
        size += len(piece)
        if size > _COMPRESS_OVER:
            break
    else:
        return pack(b"".join(held))
    compressor = zlib.compressobj(_LEVEL)
    out = [_COMPRESSED, *map(compressor.compress, held)]
    out.extend(map(compressor.compress, rest))
    out.append(compressor.flush())
    return b"".join(out)


@overload
def unpack(data: bytes) -> bytes: ...
@overload
def unpack(data: memoryview) -> bytes | memoryview: ...  # a read in place stays in place when plain
def unpack(data: bytes | memoryview) -> bytes | memoryview:
    return zlib.decompress(data[1:]) if data[:1] == _COMPRESSED else data[1:]


_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


def _errno_of(exc: BaseException) -> int | None:
    """The errno of an OSError, or of an LMDB error (whose message ends in its strerror)."""
    if isinstance(exc, OSError):
        return exc.errno
    if isinstance(exc, lmdb.Error):
        text = str(exc)
        for code in _FULL + _READ_ONLY + (errno.EIO,):
            if text.endswith(os.strerror(code)):
                return code
    return None


def map_size() -> int:
    """The store's map: MAP_SIZE, or half this process's address-space limit (`ulimit -v`)
    when that is lower. LMDB reserves its whole map when it opens, so under such a limit the
    store failed to open at all (ENOMEM); the other half is left to the rest of the process.
    A map smaller than the store's file is taken as the file's size by LMDB."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft == resource.RLIM_INFINITY:
        return MAP_SIZE
    return min(MAP_SIZE, max(soft // 2 // (1 << 20), 1) << 20)  # whole MiB, as LMDB rounds to pages


def _at_size_limit(home: str | os.PathLike[str]) -> bool:
    """Has the store's file reached this process's file size limit (`ulimit -f`)?"""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if soft == resource.RLIM_INFINITY:
        return False
    try:
        return os.stat(Path(home) / "lmdb" / "data.mdb").st_size + NEARLY_FULL >= soft
    except OSError:
        return False


def fault(exc: BaseException, home: str | os.PathLike[str]) -> RennetError | None:
    """The typed error an environment fault of the store at `home` truly is, or None when `exc`
    is not one: no space is `store_full`, a read-only file system or a permission is
    `store_error`, as are a map or reader table that is full. None of these damaged any data."""
    code = _errno_of(exc)
    if code == errno.EIO and _at_size_limit(home):
        code = errno.EFBIG  # a write cut short by the file size limit, which LMDB reports as EIO
    elif code == errno.EIO and _nearly_full(home):
        code = errno.ENOSPC  # LMDB reports a write cut short by a full device as EIO
    if isinstance(exc, OSError) and code not in _FULL and not _under(exc.filename, home):
        return None  # a file elsewhere (a repository, an --out path): not the store's fault
    if code in _FULL:
        why, fix = ("its file may grow no further (this process's file size limit, `ulimit -f`)", "raise the limit") \
            if code == errno.EFBIG else ("no space is left on the device holding it", "free space")
        return StoreFull(f"store at {home} cannot be written: {why}; nothing stored was lost "
                         f"(the write that did not fit was not committed): {fix} and retry")
    if code == errno.EROFS or isinstance(exc, lmdb.ReadonlyError):
        return StoreError(f"store at {home} is read-only (its file system or folder cannot be written); "
                          f"reads work, this command needs a writable store")
    if code in _READ_ONLY:
        return StoreError(f"store at {home} cannot be written ({os.strerror(code)}); check the permissions "
                          f"of {home} and the files in it")
    if isinstance(exc, lmdb.MapFullError):
        if map_size() < MAP_SIZE:
            return StoreFull(f"store at {home} cannot be written: it fills the map this process's address-space "
                             f"limit allows ({map_size()} bytes, half of `ulimit -v`); nothing stored was lost: "
                             f"raise the limit and retry")
        return StoreError(f"store at {home} reached its map size ({MAP_SIZE} bytes); move it aside and re-index")
    if isinstance(exc, lmdb.MemoryError) and map_size() < MAP_SIZE:
        return _no_room_for_map(home)
    if isinstance(exc, lmdb.ReadersFullError):
        return StoreError(f"store at {home} has no free reader slot (more than its readers read at once); "
                          f"retry when some finish")
    if code == errno.EIO:
        return StoreError(f"store at {home} met an I/O error of its device ({exc}); check the device and retry")
    return None


# Beside its map, what LMDB's open takes (its lock file's map, its buffers) and a command needs
# right after it: a limit that leaves no more than this beside the map is too small, not busy.
_MAP_SLACK = 16 << 20


def _no_room_for_map(home: str | os.PathLike[str]) -> RennetError:
    """`out_of_memory` when the map LMDB could not make (the larger of the store's map and its
    file) and `_MAP_SLACK` have no room under this process's address-space limit now: the
    limit, not the store. With room for both now, the room was taken only for a moment, or
    LMDB asked for more than that: `store_error`, never `store_corrupt` (a header that names
    pages past the file's end is refused before, `_refuse_truncated`; one LMDB cannot read, by
    LMDB before it maps)."""
    from indexer.contract.memory_limit import address_space_limit, has_room, mapped_bytes

    limit = address_space_limit()
    try:
        wanted = max(map_size(), os.stat(Path(home) / "lmdb" / "data.mdb").st_size)
    except OSError:
        wanted = map_size()
    if limit is None or has_room(wanted + _MAP_SLACK):
        return StoreError(f"store at {home} could not be mapped ({wanted >> 20} MiB) within this process's "
                          "address-space limit (`ulimit -v`); nothing stored was lost: retry, or raise the limit")
    held = mapped_bytes()
    beside = f" beside the {held >> 20} MiB this process maps already" if held is not None else ""
    what = "half the limit" if wanted == map_size() else "the store's size"
    return OutOfMemory(f"this process's address-space limit (`ulimit -v` is {limit >> 20} MiB) leaves no room for "
                       f"the map of the store at {home} ({wanted >> 20} MiB, {what}){beside}; nothing is wrong "
                       "with the store and nothing stored was lost: raise the limit and retry")


def corrupt(home: str | os.PathLike[str], what: str) -> StoreError:
    """The error of a stored record that does not read back as what was written (`what` says
    which, and how): damaged data, `store_corrupt`, as LMDB's own damage is told."""
    return StoreError(f"store at {home} is corrupt ({what}); move it aside and re-index", code="store_corrupt")


def _nearly_full(home: str | os.PathLike[str]) -> bool:
    try:
        st = os.statvfs(home)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < NEARLY_FULL


def _under(name: object, home: str | os.PathLike[str]) -> bool:
    if not isinstance(name, (str, os.PathLike)):
        return False
    path, root = os.path.realpath(name), os.path.realpath(home)
    return path == root or path.startswith(root + os.sep)


class KV:
    """A named table lent to another module. Every put is its own transaction."""

    def __init__(self, env: lmdb.Environment, db) -> None:
        self._env = env
        self._db = db

    @property
    def db(self):
        """The table's handle, for a write transaction of the caller's own that writes it too."""
        return self._db

    def get(self, key: bytes) -> bytes | None:
        with self._env.begin(db=self._db) as txn:
            value = txn.get(key)
            return bytes(value) if value is not None else None

    def put(self, key: bytes, value: bytes) -> None:
        with self._env.begin(db=self._db, write=True) as txn:
            txn.put(key, value)

    def put_many(self, items: Iterable[tuple[bytes, bytes]]) -> None:
        with self._env.begin(db=self._db, write=True) as txn:
            for key, value in items:
                txn.put(key, value)

    def delete(self, key: bytes) -> None:
        with self._env.begin(db=self._db, write=True) as txn:
            txn.delete(key)

    def delete_many(self, keys: Iterable[bytes]) -> None:
        with self._env.begin(db=self._db, write=True) as txn:
            for key in keys:
                txn.delete(key)

    def items(self, prefix: bytes = b"", reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        """Items whose key starts with `prefix`, in key order (or reversed), from one read snapshot."""
        with self._env.begin(db=self._db) as txn:
            cursor = txn.cursor()
            if reverse:
                upper = _prefix_upper(prefix)
                positioned = (cursor.prev() if cursor.set_range(upper) else cursor.last()) if upper else cursor.last()
                while positioned:
                    key = cursor.key()
                    if not key.startswith(prefix):
                        return
                    yield bytes(key), bytes(cursor.value())
                    positioned = cursor.prev()
            else:
                if not cursor.set_range(prefix):
                    return
                for key, value in cursor:
                    if not key.startswith(prefix):
                        return
                    yield bytes(key), bytes(value)


def _prefix_upper(prefix: bytes) -> bytes:
    """The smallest key greater than every key starting with `prefix` (b"" if none)."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return b""
    return stripped[:-1] + bytes([stripped[-1] + 1])


class Store:
    def __init__(self, home: Path, env: lmdb.Environment, readonly: bool = False) -> None:
        self.home = home
        self.env = env
        self.readonly = readonly  # opened read-only: its folder cannot be written
        self.meta = env.open_db(b"meta")
        self.facts = env.open_db(b"facts")
        self.occurrences = env.open_db(b"occurrences")
        self.defs = env.open_db(b"defs", dupsort=True)
        self.occ = env.open_db(b"occ", dupsort=True)
        self.names = env.open_db(b"names")
        self.snapshots = env.open_db(b"snapshots")
        self.rank = env.open_db(b"rank")
        self.repos = env.open_db(b"repos")
        self._kv: dict[str, KV] = {}
        self._openers = 1

    @classmethod
    def open(cls, home: str | os.PathLike[str] | None = None, durable: bool = True) -> "Store":
        """The store at `home`. LMDB allows one environment per file per process, so a home
        already open here is shared, and closed when its last opener closes it (with the
        `durable` of its first opener). `durable` False skips the flush to disk at each commit:
        for a cache that may be lost whole (a batch worker's store in its scratch folder); a
        killed process still loses nothing committed, a crash of the machine may."""
        home_path = Path(home).expanduser() if home is not None else default_home()
        key = checked_home(home_path)
        shared = _OPEN.get(key)
        if shared is not None:
            shared._openers += 1
            return shared
        store = cls._open_new(home_path, durable)
        _OPEN[key] = store
        return store

    @classmethod
    def _open_new(cls, home_path: Path, durable: bool = True) -> "Store":
        try:
            home_path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create store folder {home_path}: {exc.strerror}") from None
        db_path = home_path / "lmdb"
        _refuse_truncated(home_path, db_path / "data.mdb")
        readonly = _read_only(db_path)
        # A reader takes a slot in the lock file so that a writer never reuses the pages it
        # reads; without a lock file we may write, read-only readers go without one, which
        # is safe only where no one else can write either (file modes, a read-only mount).
        lock = not readonly or os.access(db_path / "lock.mdb", os.W_OK)
        try:
            env = lmdb.open(str(db_path), map_size=map_size(), max_dbs=32, subdir=True, readahead=False,
                            max_readers=MAX_READERS, readonly=readonly, lock=lock, sync=durable,
                            metasync=durable)
            if lock:
                env.reader_check()  # slots of readers killed before they let go
        except (OSError, lmdb.Error) as exc:
            if readonly and not (db_path / "data.mdb").exists():
                raise StoreError(f"no store at {home_path}, and its folder is read-only") from None
            typed = fault(exc, home_path)
            if typed is not None:
                raise typed from None
            if isinstance(exc, OSError):
                raise StoreError(f"store at {home_path} cannot be opened ({exc.strerror}); check the permissions "
                                 f"of {home_path} and the files in it") from None
            raise StoreError(f"store at {home_path} is unreadable or corrupt ({exc}); move it aside and re-index",
                             code="store_corrupt") from None
        try:
            store = cls(home_path, env, readonly)
            store._check_schema()
        except lmdb.Error as exc:
            env.close()
            typed = fault(exc, home_path)
            if typed is not None:
                raise typed from None
            raise StoreError(f"store at {home_path} is corrupt ({exc}); move it aside and re-index",
                             code="store_corrupt") from None
        except (SchemaMismatch, StoreError):
            env.close()
            raise
        return store

    def _check_schema(self) -> None:
        with self.env.begin(db=self.meta) as txn:
            found = txn.get(b"schema")
        if found is None and self.readonly:
            raise StoreError(f"store at {self.home} was never written, and its folder is read-only")
        if found is None:
            with self.env.begin(db=self.meta, write=True) as txn:
                stored = txn.get(b"schema")
                if stored is None:
                    txn.put(b"schema", SCHEMA_VERSION)
                    return
                found = stored
        if bytes(found) == b"1":
            self._upgrade_from_1()
        elif bytes(found) != SCHEMA_VERSION:
            raise SchemaMismatch(
                f"store at {self.home} has schema version {bytes(found).decode(errors='replace')}, this rennet "
                f"needs {SCHEMA_VERSION.decode()}; point --store at a new folder or move {self.home} aside and re-index")

    def _upgrade_from_1(self) -> None:
        """Schema 1 differs from 2 only by the runs of names, which are made from the name
        index's keys here, once, in one transaction (a second opener finds it done)."""
        from indexer.store.name_runs import add

        with self.env.begin(write=True) as txn:
            stored = txn.get(b"schema", db=self.meta)
            if stored is not None and bytes(stored) == b"1":
                add(txn, self, list(txn.cursor(db=self.defs).iternext_nodup(keys=True, values=False)))
                txn.put(b"schema", SCHEMA_VERSION, db=self.meta)

    def kv(self, name: str) -> KV:
        table = self._kv.get(name)
        if table is None:
            # LMDB opens a named table in a transaction no other may overlap in this process:
            # threads of one server open them one at a time.
            with _OPEN_DB:
                table = self._kv.get(name)
                if table is None:
                    table = self._kv[name] = KV(self.env, self._opened(f"kv:{name}".encode()))
        return table

    def _opened(self, name: bytes):
        """The handle of table `name`, made if absent. In a write transaction begun here: lmdb's
        `begin` lets go of the GIL while it waits for another thread's write transaction, but
        `open_db`'s own transaction waits holding it, and that writer, which needs the GIL to
        finish, never did: the whole process stood still."""
        if self.readonly:  # no write transaction to begin; nor does this process write
            return self.env.open_db(name)
        with self.env.begin(write=True) as txn:
            return self.env.open_db(name, txn=txn)

    def kv_in(self, txn, name: str):
        """The handle of table `kv:name` for reading inside `txn` (a write transaction of
        this thread included, where `kv` would wait on itself), or None when it does not exist:
        opening it never creates it."""
        table = self._kv.get(name)
        if table is not None:
            return table._db
        if txn.get(f"kv:{name}".encode()) is None:
            return None
        return self.env.open_db(f"kv:{name}".encode(), txn=txn, create=False)

    def close(self) -> None:
        self._openers -= 1
        if self._openers > 0:
            return
        _OPEN.pop(os.path.realpath(self.home), None)
        self.env.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read_only(db_path: Path) -> bool:
    """Whether the LMDB folder exists but this process cannot write it (a read-only file system,
    or permissions): such a store is opened for reading only."""
    if not db_path.is_dir():
        return False
    files = [db_path] + [f for f in (db_path / "data.mdb", db_path / "lock.mdb") if f.exists()]
    return not all(os.access(f, os.W_OK) for f in files)


def _refuse_truncated(home: Path, data_file: Path) -> None:
    """Refuse a data file shorter than its own meta pages say (a copy cut short, a full disk
    during a copy): LMDB maps the file and would die of SIGBUS reading a page past its end,
    with no word to the user. The meta page with the newest transaction names the last page
    in use; the file must reach its end."""
    try:
        with open(data_file, "rb") as fh:
            head = fh.read(_META_PROBE)
            size = os.fstat(fh.fileno()).st_size
    except OSError:
        return  # a new store, or one LMDB itself will refuse with its reason
    metas = []
    psize = _meta(head, 0)
    if psize is not None:
        metas.append(psize)
        second = _meta(head, psize[0]) if psize[0] <= len(head) - _META_END else None
        if second is not None:
            metas.append(second)
    if not metas:
        return  # not LMDB's meta at all: LMDB says so itself (MDB_INVALID)
    page_size, last_page, _ = max(metas, key=lambda m: m[2])
    needed = (last_page + 1) * page_size
    if size < needed or size < 2 * page_size:
        raise StoreError(f"store at {home} is truncated ({data_file.name} has {size} bytes, its last page ends "
                         f"at {needed}); move it aside and re-index", code="store_corrupt")


# LMDB's meta page (lmdb.h, MDB_meta after a 16-byte page header): magic, version, address,
# map size, two MDB_db of 48 bytes (the first one's pad holds the page size), last page, txn id.
_META_MAGIC = 0xBEEFC0DE
_META_END = 16 + 24 + 96 + 16
_META_PROBE = 1 << 16


def _meta(head: bytes, offset: int) -> tuple[int, int, int] | None:
    """(page size, last page, transaction id) of the meta page at `offset`, or None."""
    import struct

    if len(head) < offset + _META_END:
        return None
    magic, _version = struct.unpack_from("=II", head, offset + 16)
    if magic != _META_MAGIC:
        return None
    page_size = struct.unpack_from("=I", head, offset + 40)[0]
    last_page, txn_id = struct.unpack_from("=QQ", head, offset + 136)
    if page_size < 512 or page_size & (page_size - 1):
        return None
    return page_size, last_page, txn_id


def _holder(fd: int) -> str:
    """Who holds the write lock open at `fd`, as its file names it: "pid N", or "another process"
    when it names none (a holder that has not written its pid yet, or could not, a file that
    does not read, or one holding anything but a pid)."""
    try:
        text = os.read(fd, 32).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return "another process"
    return f"pid {text}" if text.isdecimal() else "another process"


_OPEN: dict[str, Store] = {}  # real path of a home -> its open store in this process
_OPEN_DB = threading.Lock()


class WriteLock:
    """The one indexer that may write snapshots at a time; a second gets `store_locked` at once."""

    def __init__(self, home: Path) -> None:
        self.path = home / "write.lock"
        self._fd: int | None = None

    @property
    def fd(self) -> int | None:
        return self._fd

    def __enter__(self) -> "WriteLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise fault(exc, self.path.parent) or StoreError(
                f"cannot take the write lock {self.path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise StoreLocked(f"store {self.path.parent} is being written by {holder}; retry when it finishes") from None
        try:  # the pid only names the holder to another writer; a full disk is told by the write itself
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        except OSError:
            pass
        self._fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
            except OSError:
                pass
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
