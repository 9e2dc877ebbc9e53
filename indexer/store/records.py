"""How the Repo Map's records are keyed and encoded in the store.

Light on purpose (msgspec and the store only): a reader that only loads snapshots imports
this, never the extraction machinery.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from functools import cached_property
from itertools import chain
from operator import attrgetter
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple, TypeVar

import msgspec

from indexer.contract.encode import encode_msgpack
from indexer.contract.errors import SnapshotLeft
from indexer.contract.read_back import read_back
from indexer.lang.registry import name_language
from indexer.model import (
    LIST_BLOCK,
    NOT_USES,
    Base,
    BlobFacts,
    Dependency,
    Edge,
    EntryPoint,
    FileEntry,
    ImportSpec,
    Occurrence,
    Package,
    SnapshotRecord,
    UnresolvedImport,
)
from indexer.rank.weights import definitions_of
from indexer.store import name_runs
from indexer.store.database import Store, corrupt, pack, pack_pieces, unpack
from indexer.store.symbol_lines import symbols_json
from indexer.store.versions import facts_version, snapshot_version


class SnapshotHead(msgspec.Struct):
    """The part of a stored snapshot record a query needs first: identity, the file table,
    fan-in and rank. Decoding only this skips the edges, imports and manifests a lookup never
    reads. The file table is kept by column, each list aligned with `paths` (sorted): lists
    of strings and numbers decode in half the time of as many FileEntry records, and a lookup
    by path or blob reads two columns without making a record of every file (`entry`, `files`
    make them). Its methods serve LazyHead too, which answers as it does."""

    oid: str
    tree: str
    extractor_version: str
    paths: list[str]
    blobs: list[str]
    modes: list[int]
    sizes: list[int]
    lines: list[int]
    languages: list[str]
    marks: list[str]
    mark_rules: list[str]
    skipped: list[str]
    targets: list[str]
    fan_in: list[int]
    rank: list[float]
    fingerprint: str = ""
    indexed_at: str = ""
    symbols: int = 0
    edges: int = 0  # resolved import edges
    blob_facts: int = 0  # distinct blob facts (facts keys) its files need: SnapshotRecord.blob_facts
    tree_rules: str = ""  # the tree rules its names were checked under: SnapshotRecord.tree_rules
    parse_errors: tuple[str, ...] = ()  # SnapshotRecord.parse_errors

    def entry(self: SnapshotHead | LazyHead, i: int) -> FileEntry:
        return FileEntry(self.paths[i], self.blobs[i], self.modes[i], self.sizes[i], self.lines[i],
                         self.languages[i], self.marks[i], self.mark_rules[i], self.skipped[i], self.targets[i])

    def files(self: SnapshotHead | LazyHead) -> list[FileEntry]:
        """The file table as records, made anew on each call."""
        return [FileEntry(*row) for row in zip(self.paths, self.blobs, self.modes, self.sizes, self.lines,
                                               self.languages, self.marks, self.mark_rules, self.skipped,
                                               self.targets)]

    def fan_in_map(self: SnapshotHead | LazyHead) -> dict[str, int]:
        return dict(zip(self.paths, self.fan_in))

    def rank_map(self: SnapshotHead | LazyHead) -> dict[str, float]:
        return dict(zip(self.paths, self.rank))


def missing_in(head: SnapshotHead | LazyHead) -> int:
    """How many of a snapshot's blobs the object database lacked when it was indexed (listed as
    skipped, `missing_object`): a partial snapshot's count, 0 for a complete one."""
    return sum(1 for why in head.skipped if why == "missing_object")


class SnapshotTail(msgspec.Struct):
    """The rest of a stored snapshot record: its graph and what its manifests declare."""

    edges: list[Edge]
    unresolved: list[UnresolvedImport]
    packages: list[Package]
    dependencies: list[Dependency]
    entry_points: list[EntryPoint]


class PriorRecord:
    """What a re-index reads of an earlier snapshot: its commit and tree, file table and import
    resolution. The import resolution (the record's tail) is unpacked on a thread from the
    start, as zlib lets go of the interpreter lock (so it runs beside the plan's tree walk),
    and decoded when first read."""

    def __init__(self, oid: str, tree: str, files: list[FileEntry], packed_tail: bytes = b"",
                 tail: SnapshotTail | None = None, tree_rules: str = "") -> None:
        self.oid = oid
        self.tree = tree
        self.files = files
        self.tree_rules = tree_rules  # what its tree's names were checked under (SnapshotRecord.tree_rules)
        if tail is not None:
            self._tail = tail
            return
        from indexer.contract.memory_limit import Beside

        # in a thread of its own (a future could be left unset short of memory: `Beside`)
        self._unpacked = Beside(lambda: unpack(packed_tail), "rennet-unpack",
                                "the earlier snapshot's import resolution was not unpacked")

    @cached_property
    def _tail(self) -> SnapshotTail:
        return decode_tail(self._unpacked.outcome())

    def decode(self) -> None:
        """Decode the import resolution now (a re-index does, while its workers parse) rather
        than when first read."""
        self._tail  # noqa: B018

    @property
    def edges(self) -> list[Edge]:
        return self._tail.edges

    @property
    def unresolved(self) -> list[UnresolvedImport]:
        return self._tail.unresolved

    def __reduce__(self):
        # to another process (a batch worker) decoded: a thread's result does not cross
        return PriorRecord, (self.oid, self.tree, self.files, b"", self._tail, self.tree_rules)


# The head's columns: the fields that hold one value per file.
HEAD_COLUMNS = ("paths", "blobs", "modes", "sizes", "lines", "languages", "marks", "mark_rules", "skipped",
                "targets", "fan_in", "rank")

# The same stored head with its columns left as their msgpack bytes: decoding it only steps
# over them, a small part of what decoding every column costs.
_HeadColumns = msgspec.defstruct("_HeadColumns", [
    (f.name, msgspec.Raw if f.name in HEAD_COLUMNS else f.type,
     *(() if f.required else (f.default,)))
    for f in msgspec.structs.fields(SnapshotHead)])
_decode_columns = read_back(msgspec.msgpack.Decoder(_HeadColumns).decode)
_COLUMN_DECODERS = {f.name: read_back(msgspec.msgpack.Decoder(f.type).decode)
                    for f in msgspec.structs.fields(SnapshotHead) if f.name in HEAD_COLUMNS}
# The fields decoded with the head, named once: msgspec works them out afresh on each asking,
# leaving a cycle of its own behind each time.
_PLAIN_FIELDS = tuple(f.name for f in msgspec.structs.fields(SnapshotHead) if f.name not in HEAD_COLUMNS)


class LazyHead:
    """A stored head whose columns are decoded one by one when first read: a one-off lookup
    (a fresh `rennet context symbol`, a no-op `rennet index`) reads three of the twelve.
    Answers as a SnapshotHead does. `home`: the store it was read from, named when the
    columns do not agree (`store_corrupt`)."""

    def __init__(self, raw: bytes, home: str | os.PathLike[str]) -> None:
        self._columns = columns = _decode_columns(raw)
        self._home = home
        for name in _PLAIN_FIELDS:
            setattr(self, name, getattr(columns, name))
        # Every column holds one item a file: a lookup by position reads several of them. The
        # counts their heads declare are compared here; decoding a column checks its items.
        _check_columns(self.oid, [_items_declared(getattr(columns, name)) for name in HEAD_COLUMNS], home)

    def __getattr__(self, name: str):  # reached only for a column not decoded yet
        decode = _COLUMN_DECODERS.get(name)
        if decode is None:
            raise AttributeError(name)
        value = decode(getattr(self._columns, name))
        if name == "blobs":  # checked once, as it is decoded: a lookup keys facts and reads blobs by them
            _check_blob_column(value, self.oid, self._home)
        setattr(self, name, value)
        return value

    entry = SnapshotHead.entry
    files = SnapshotHead.files
    fan_in_map = SnapshotHead.fan_in_map
    rank_map = SnapshotHead.rank_map


def _items_declared(raw: msgspec.Raw) -> int | None:
    """How many items the msgpack array `raw` says it holds (its head), None when it is no array."""
    head = bytes(memoryview(raw)[:5])
    if head and 0x90 <= head[0] <= 0x9F:
        return head[0] & 0x0F
    width = ARRAY_HEAD_BYTES.get(head[0]) if head else None
    return int.from_bytes(head[1:width], "big") if width is not None and len(head) >= width else None


def _check_columns(oid: str, counts: list[int | None], home: str | os.PathLike[str]) -> None:
    """`store_corrupt` unless a stored head's columns (`HEAD_COLUMNS`, counted) are lists of as
    many items as it has paths."""
    if any(n is None or n != counts[0] for n in counts):
        shown = ", ".join(f"{name} {'?' if n is None else n}" for name, n in zip(HEAD_COLUMNS, counts))
        raise corrupt(home, f"the file table of snapshot {oid[:12]} has columns of unequal length: {shown}")


def checked_head(head: SnapshotHead, home: str | os.PathLike[str]) -> SnapshotHead:
    """A decoded stored head, its columns checked as LazyHead checks them, and its blobs."""
    _check_columns(head.oid, [len(getattr(head, name)) for name in HEAD_COLUMNS], home)
    return _check_blobs(head, home)


_HEX_DIGITS = b"0123456789abcdef"


def _check_blobs(head: SnapshotHead, home: str | os.PathLike[str]) -> SnapshotHead:
    """`head`, when every blob its file table names is an OID; else `store_corrupt`."""
    _check_blob_column(head.blobs, head.oid, home)
    return head


def _check_blob_column(blobs: list[str], oid: str, home: str | os.PathLike[str]) -> None:
    """`store_corrupt` unless each of `blobs` is an OID, or "" (a submodule's: its commit is its
    target): a blob that is no OID would be asked of the repository's object database, or key
    facts the store never wrote. Checked by the whole column's bytes at once, in C (a regular
    expression over them costs several times the column's decoding)."""
    if not set(map(len, blobs)) <= {0, 40} or "".join(blobs).encode().translate(None, _HEX_DIGITS):
        raise corrupt(home, f"the file table of snapshot {oid[:12]} names a blob that is no OID")


encode = encode_msgpack
# Decoders of what the store holds: damage, a string that is not UTF-8 included, is a DecodeError.
decode_head = read_back(msgspec.msgpack.Decoder(SnapshotHead).decode)
decode_core = read_back(msgspec.msgpack.Decoder(BlobFacts).decode)  # symbols left in `symbols_json`, for assembly


class ImportFacts(msgspec.Struct):
    """What a blob's stored core facts say of its imports, the fields keeping BlobFacts' names:
    a walk over many importers reads these, the symbols and counts skipped, never built."""

    imports: list[ImportSpec] = msgspec.field(default_factory=list)
    dunder_all: list[str] | None = None
    exported_as: list[tuple[str, str]] = msgspec.field(default_factory=list)
    es_module: bool = False
    bases: list[Base] = msgspec.field(default_factory=list)  # the classes' declared bases


decode_imports = read_back(msgspec.msgpack.Decoder(ImportFacts).decode)


class UseFacts(msgspec.Struct):
    """What a blob's stored core facts count of its names' uses (BlobFacts.uses) alone."""

    uses: dict[str, int] = msgspec.field(default_factory=dict)


decode_uses = read_back(msgspec.msgpack.Decoder(UseFacts).decode)

decode_record = msgspec.msgpack.Decoder(SnapshotRecord).decode  # a whole record as one msgpack (bundles)
decode_tail = read_back(msgspec.msgpack.Decoder(SnapshotTail).decode)
decode_occurrences = read_back(msgspec.msgpack.Decoder(list[Occurrence]).decode)

NO_FACTS = ("submodule", "symlink", "binary", "missing")  # file entries whose blob facts are never read
# ("missing": a blob the object database lacks, as in a partial clone; never stored)


def facts_key(blob: str, language: str, version: str) -> bytes:
    """The key of a blob's facts, in a snapshot of version `version`: the blob, what its name
    says its language is, and the facts version of that language (indexer.store.versions)."""
    return f"{blob}|{language}|{facts_version(version, language)}".encode()


def is_facts_key(key: bytes, version: str) -> bool:
    """Is `key` the key of some blob's facts in a snapshot of version `version`?"""
    blob, _, rest = key.partition(b"|")
    language, _, written = rest.partition(b"|")
    try:
        return len(blob) == 40 and written.decode() == facts_version(version, language.decode())
    except UnicodeDecodeError:
        return False


def facts_key_parts(key: bytes) -> tuple[str, str, str]:
    """(blob OID, language, extractor version) of a `facts_key`."""
    blob, language, version = key.decode(errors="replace").rsplit("|", 2)
    return blob, language, version


def entry_facts_key(f: FileEntry, version: str) -> bytes:
    """The key a snapshot's file has its facts under: its blob, and what its name says of its
    language (languages.name_language; where that leaves the language to the content, the
    facts hold the detected one)."""
    return path_facts_key(f.path, f.blob, version)


def path_facts_key(path: str, blob: str, version: str) -> bytes:
    """`entry_facts_key` of the file at `path` holding `blob`."""
    return facts_key(blob, name_language(path), version)


NAME_KEY_MAX = 500  # LMDB keys are bounded: the name index keeps a name's first 500 bytes


def name_key(name: str) -> bytes:
    """A name as the name index keys it (longer names share the key of their first bytes)."""
    return name.encode()[:NAME_KEY_MAX]


def name_keys(names: Iterable[str]) -> list[bytes]:
    """The name index's keys (`name_key`) of `names`, sorted; the empty name has none. Each key
    is made inline, not by a call: this runs over every name of every blob indexed."""
    keys = {name.encode()[:NAME_KEY_MAX] for name in names}
    keys.discard(b"")
    return sorted(keys)


def name_blobs(cursor, name: str) -> Iterator[bytes]:
    """The raw blob OIDs the name index lists under `name`, read with a cursor of its `defs`
    or `occ` table (consumed before the cursor moves again)."""
    key = name_key(name)
    return cursor.iternext_dup(keys=False) if key and cursor.set_key(key) else iter(())


def snapshot_key(oid: str, version: str) -> bytes:
    return f"{oid}|{version}".encode()


def repo_key(repo_id: str, oid: str) -> bytes:
    return f"{repo_id}|{oid}".encode()


def pin_key(repo_id: str, rev: str) -> bytes:
    return f"pin|{repo_id}|{rev}".encode()


# LMDB takes keys of at most 511 bytes; a pin's key is `pin|`, a 16-character identity, `|` and the rev.
PIN_REV_BYTES = 511 - len("pin||") - 16


def pinnable(rev: str) -> bool:
    """Whether `rev` fits a pin's key (PIN_REV_BYTES)."""
    return len(rev.encode("utf-8", "surrogateescape")) <= PIN_REV_BYTES


PIN_PREFIX = b"pin|"  # every `pin_key` starts with it; no `repo_key` does (an identity is hex)


_OID = re.compile(r"[0-9a-f]{40}")
_OID_START = re.compile(r"[0-9a-f]{4,40}")


def is_oid(text: str) -> bool:
    """Is `text` an object's OID (a commit, tree or blob) as the store writes them: 40 lowercase
    hex digits?"""
    return _OID.fullmatch(text) is not None


def is_oid_start(text: str) -> bool:
    """Is `text` an OID or its start as git takes one, 4 lowercase hex digits at least?"""
    return _OID_START.fullmatch(text) is not None


def pinned_in(value: bytes, key: bytes, home: str | os.PathLike[str]) -> str:
    """The commit OID the rev pin `key` holds (its stored `value`); `store_corrupt` when the
    value is no OID: a pin that reads as something else would hold no snapshot, and a `store gc`
    would drop the one it held."""
    oid = value.decode("ascii", "replace")
    if not is_oid(oid):
        raise corrupt(home, f"the pin of rev {pin_parts(key)[1]!r} holds no commit OID")
    return oid


class _Stamp(msgspec.Struct):
    """A `repo_key` row's value: when its snapshot was indexed."""

    indexed_at: str = ""


_decode_stamp = read_back(msgspec.msgpack.Decoder(_Stamp).decode)


def indexed_at_in(value: bytes, oid: str, home: str | os.PathLike[str]) -> str:
    """When the snapshot of `oid` was indexed, as its `repo_key` row's stored `value` says;
    `store_corrupt` when the value does not decode."""
    try:
        return _decode_stamp(value).indexed_at
    except msgspec.DecodeError:
        raise corrupt(home, f"the indexing stamp of {oid[:12]} does not decode") from None


def pin_parts(key: bytes) -> tuple[str, str]:
    """(repository identity, rev) of a `pin_key` (a rev may hold '|'; an identity never does)."""
    _, repo_id, rev = key.decode(errors="replace").split("|", 2)
    return repo_id, rev


def repo_key_parts(key: bytes) -> tuple[str, str]:
    """(repository identity, OID) of a `repo_key`."""
    repo_id, _, oid = key.decode(errors="replace").partition("|")
    return repo_id, oid


def snapshot_key_parts(key: bytes) -> tuple[str, str]:
    """(OID, extractor version) of a `snapshot_key`."""
    oid, _, version = key.decode(errors="replace").partition("|")
    return oid, version


def decode_facts(raw: bytes | memoryview) -> BlobFacts:
    """Stored core facts as readers want them: symbols decoded."""
    facts = decode_core(raw)
    if facts.symbols_json:
        facts.symbols = facts.symbol_list()
        facts.symbols_json = b""
    return facts


def split_facts(facts: BlobFacts) -> tuple[BlobFacts, list[Occurrence]]:
    """The stored form: a light core that assembly reads (occurrences summarized as per-name
    use counts, symbols as their canonical JSON with what rank needs of them) and the
    occurrence list that only reference queries need."""
    core, _ = _split(facts)
    return core, facts.occurrences


def _split(facts: BlobFacts) -> tuple[BlobFacts, set[str]]:
    """The core, and every name the blob has occurrences of (one pass over them for both)."""

    uses: dict[str, int] = {}
    others: set[str] = set()  # named at a site that is no use (model.NOT_USES)
    local: set[str] = set()  # named at a local site
    count = len(facts.occurrences)
    if facts.plain_sites and not facts.occurrences:  # summed where they were found (tokens.plain_uses)
        uses, count = facts.uses, facts.occurrence_count
    for o in facts.occurrences:
        if o.role in NOT_USES:
            others.add(o.name)
            if o.role == "local":
                local.add(o.name)
        else:
            uses[o.name] = uses.get(o.name, 0) + 1
    core = msgspec.structs.replace(
        facts, symbols=[], occurrences=[], uses=dict(sorted(uses.items())), occurrence_count=count,
        local_names=sorted(local.difference(uses)),
        symbols_json=symbols_json(facts.symbols) if facts.symbols else b"", symbol_count=len(facts.symbols),
        definitions=definitions_of(facts.symbols, facts.language))
    return core, others.union(uses)


class StoredFacts(NamedTuple):
    """One blob's facts ready for the store, made where they were extracted: a worker does the
    encoding and compression, the writer only puts bytes (and decodes the core for assembly)."""

    key: bytes
    packed_core: bytes
    packed_occurrences: bytes  # b"": none stored (plain_sites)
    defs: list[bytes]  # names it defines, for the name index
    names: list[bytes]  # names it has occurrences of


def stored_facts(key: bytes, facts: BlobFacts) -> StoredFacts:
    core, names = _split(facts)
    # The core stays uncompressed: every snapshot assembly reads all of them, and inflating
    # costs more than reading the larger pages.
    # Plain-tokenizer sites are not stored: a reader makes them again from the blob.
    return StoredFacts(key, pack(encode(core), compress=False),
                       b"" if facts.plain_sites else pack(encode(facts.occurrences)),
                       name_keys(s.name for s in facts.symbols), name_keys(names))


def _raw_blob(key: bytes) -> bytes:
    """The raw blob OID a facts key starts with: what the name index lists."""
    return bytes.fromhex(key[:40].decode())


class PendingNames:
    """The name-index rows of parsed blobs whose facts may not be in the store yet, so that
    reading the name index need not wait for the writer (see `name_index`)."""

    def __init__(self) -> None:
        self.defs: dict[bytes, list[bytes]] = {}
        self.uses: dict[bytes, list[bytes]] = {}

    def add(self, items: list[StoredFacts]) -> None:
        for x in items:
            raw = _raw_blob(x.key)
            for n in x.defs:
                self.defs.setdefault(n, []).append(raw)
            for n in x.names:
                self.uses.setdefault(n, []).append(raw)


def put_stored_many(txn, store: Store, items: Iterable[StoredFacts]) -> int:
    """Write blobs' facts and the name-index rows they imply, inside the caller's transaction
    (one cursor per table for all of them: measured faster than one sorted run of all rows),
    and the defined names new to the index as a run of `names` (indexer/store/name_runs.py);
    how many. Each is put as it comes: a caller may make them one at a time, never holding all."""
    facts, occurrences = txn.cursor(db=store.facts), txn.cursor(db=store.occurrences)
    defs, names = txn.cursor(db=store.defs), txn.cursor(db=store.occ)
    seen: set[bytes] = set()
    new: list[bytes] = []  # defined names the index lacked before any of these was put
    count = 0
    for x in items:
        count += 1
        for n in x.defs:
            if n not in seen:
                seen.add(n)
                if not defs.set_key(n):
                    new.append(n)
        facts.put(x.key, x.packed_core)
        if x.packed_occurrences:
            occurrences.put(x.key, x.packed_occurrences)
        raw = _raw_blob(x.key)
        if x.defs:
            defs.putmulti([(n, raw) for n in x.defs], dupdata=True)
        if x.names:
            names.putmulti([(n, raw) for n in x.names], dupdata=True)
        del x  # put: let go before the next is made (a bundle's are made as they are read)
    name_runs.add(txn, store, new)
    return count


def full_facts(txn, store: Store, key: bytes) -> BlobFacts | None:
    """A blob's complete facts, occurrences included, as `extract_blob` produced them; plain
    tokenizer sites as the indexer's `extract_blob(sites=False)` did: summed, the reader makes
    them from the blob (Snapshot.facts)."""
    raw = txn.get(key, db=store.facts)
    if raw is None:
        return None
    core = decode_facts(unpack(bytes(raw)))
    if core.plain_sites:
        return core
    occ = txn.get(key, db=store.occurrences)
    occurrences = decode_occurrences(unpack(bytes(occ))) if occ is not None else []
    return msgspec.structs.replace(core, occurrences=occurrences, uses={}, occurrence_count=0)


def load_facts(store: Store, keys: Mapping[str, bytes], symbols: bool = True) -> dict[str, BlobFacts]:
    """path -> core facts (occurrences summarized) for the given path -> facts key. With
    `symbols` False the symbols stay encoded (`symbols_json`), as assembly wants."""
    return load_cores(store, keys, decode_facts if symbols else decode_core)


T = TypeVar("T")


def load_cores(store: Store, keys: Mapping[str, bytes],
               decode: Callable[[bytes | memoryview], T]) -> dict[str, T]:
    """path -> `decode` of the stored core facts, for the given path -> facts key, each blob
    decoded once; paths whose facts the store lacks are left out."""
    decoded: dict[bytes, T] = {}
    # In key order the B-tree's pages are visited in turn, not at random.
    with store.env.begin(db=store.facts, buffers=True) as txn:  # decoded in place, never copied out
        for key in sorted(set(keys.values())):
            raw = txn.get(key)
            if raw is not None:
                decoded[key] = decode(unpack(raw))
    return {path: decoded[key] for path, key in keys.items() if key in decoded}


@contextmanager
def core_reader(store: Store) -> Iterator[Callable[[bytes], BlobFacts | None]]:
    """facts key -> that blob's core facts, symbols still encoded (as `load_facts(symbols=False)`
    gives them), None if not stored; all read in one transaction, open while the caller asks."""
    with store.env.begin(db=store.facts, buffers=True) as txn:
        def read(key: bytes) -> BlobFacts | None:
            raw = txn.get(key)
            return decode_core(unpack(raw)) if raw is not None else None
        yield read


# A stored snapshot record is its head and its tail: the head (identity, file table, fan-in,
# rank) uncompressed, read and decoded when a snapshot is opened; the tail (edges, manifests,
# entry points) compressed, read from the store only when first asked for.

def head_of(record: SnapshotRecord) -> SnapshotHead:
    files = record.files
    fan_in, rank = record.fan_in, record.rank
    paths = [f.path for f in files]
    return SnapshotHead(record.oid, record.tree, record.extractor_version, paths, [f.blob for f in files],
                        [f.mode for f in files], [f.size for f in files], [f.lines for f in files],
                        [f.language for f in files], [f.mark for f in files], [f.mark_rule for f in files],
                        [f.skipped for f in files], [f.target for f in files],
                        [fan_in.get(p, 0) for p in paths], [rank.get(p, 0.0) for p in paths],
                        record.fingerprint, record.indexed_at, record.symbols, len(record.edges),
                        record.blob_facts, record.tree_rules, record.parse_errors)


def pack_record(record: SnapshotRecord, head: SnapshotHead | None = None, tail: bytes | None = None) -> bytes:
    """The stored form of a record (`head`: `head_of(record)`, `tail`: `pack_tail(record)`, when
    the caller has them). A file table held as another kind of sequence (a bundle's, decoded a
    block at a time: indexer/fleet/carried_list.py) is made into its columns and encoded a
    block of files at a time, to the same bytes, never decoded whole."""
    tail = tail if tail is not None else pack_tail(record)
    if head is not None or isinstance(record.files, list):
        packed = pack(encode(head if head is not None else head_of(record)), compress=False)
        return len(packed).to_bytes(4, "big") + packed + tail
    pieces = [pack(b"", compress=False), *_head_pieces(record)]  # the plain mark, then the head's bytes
    return b"".join([sum(map(len, pieces)).to_bytes(4, "big"), *pieces, tail])


_HEAD_FIELDS = tuple((f.name, f.encode_name) for f in msgspec.structs.fields(SnapshotHead))
# The head's columns, one item a file (fan-in and rank by its path), as head_of makes them.
_COLUMNS: dict[str, Callable[[FileEntry], object]] = {
    "paths": attrgetter("path"), "blobs": attrgetter("blob"), "modes": attrgetter("mode"),
    "sizes": attrgetter("size"), "lines": attrgetter("lines"), "languages": attrgetter("language"),
    "marks": attrgetter("mark"), "mark_rules": attrgetter("mark_rule"), "skipped": attrgetter("skipped"),
    "targets": attrgetter("target"),
}


def _head_pieces(record: SnapshotRecord) -> Iterator[bytes]:
    """`encode(head_of(record))` in pieces: the struct is a map of its fields in order, each
    column an array head and its items' encodings, made from one block of files at a time (the
    columns' encoded bytes are held until written, a block of files decoded at once)."""
    files, fan_in, rank = record.files, record.fan_in, record.rank
    columns: dict[str, list[bytes]] = {name: [] for name in (*_COLUMNS, "fan_in", "rank")}
    for start in range(0, len(files), LIST_BLOCK):
        block = files[start:start + LIST_BLOCK]
        for name, column in _COLUMNS.items():
            columns[name].append(_items_of(encode(list(map(column, block)))))
        columns["fan_in"].append(_items_of(encode([fan_in.get(f.path, 0) for f in block])))
        columns["rank"].append(_items_of(encode([rank.get(f.path, 0.0) for f in block])))
    # every other field as head_of gives it: the head of a record with no files
    rest = head_of(msgspec.structs.replace(record, files=[]))
    yield map_head(len(_HEAD_FIELDS))
    for name, encoded in _HEAD_FIELDS:
        yield encode(encoded)
        if name in columns:
            yield array_head(len(files))
            yield from columns.pop(name)
        else:
            yield encode(getattr(rest, name))


def pack_tail(record: SnapshotRecord) -> bytes:
    """The stored form of the record's tail: edges, unresolved imports, manifests' packages and
    dependencies, entry points. A list held as another kind of sequence (a bundle's, decoded a
    block at a time: indexer/fleet/carried_list.py) is encoded and compressed a block at a
    time, to the same bytes, never decoded whole."""
    edges, unresolved, packages, dependencies, entry_points = (
        record.edges, record.unresolved, record.packages, record.dependencies, record.entry_points)
    if (isinstance(edges, list) and isinstance(unresolved, list) and isinstance(packages, list)
            and isinstance(dependencies, list) and isinstance(entry_points, list)):
        return pack(encode(SnapshotTail(edges, unresolved, packages, dependencies, entry_points)))
    return pack_pieces(_tail_pieces(record))


_TAIL_FIELDS = tuple(f.encode_name for f in msgspec.structs.fields(SnapshotTail))  # as SnapshotRecord names them


def _container_head(n: int, fixed: int, wide: int) -> bytes:
    """The msgpack head of a container of `n` items, as msgspec writes it: the fixed form's
    byte below 16, else the 16-bit form's (`wide`) or the 32-bit form's, the byte after it."""
    if n < 16:
        return bytes((fixed | n,))
    if n < 1 << 16:
        return bytes((wide,)) + n.to_bytes(2, "big")
    return bytes((wide + 1,)) + n.to_bytes(4, "big")


def array_head(n: int) -> bytes:
    """The msgpack head of an array of `n` items, as msgspec writes it."""
    return _container_head(n, 0x90, 0xDC)


ARRAY_HEAD_BYTES = {0xDC: 3, 0xDD: 5}  # bytes of an array 16's and 32's head; a fixarray's is its one byte


def map_head(n: int) -> bytes:
    """The msgpack head of a map of `n` pairs, as msgspec writes it."""
    return _container_head(n, 0x80, 0xDE)


def _tail_pieces(record: SnapshotRecord) -> Iterator[bytes]:
    """`encode(SnapshotTail(...))` of the record's lists, in pieces: the struct is a map of its
    fields in order, a list an array head and its items' encodings one after another."""
    yield map_head(len(_TAIL_FIELDS))
    for name in _TAIL_FIELDS:
        yield encode(name)
        items = getattr(record, name)
        if isinstance(items, list):
            yield encode(items)
            continue
        yield array_head(len(items))
        for start in range(0, len(items), LIST_BLOCK):
            yield _items_of(encode(list(items[start:start + LIST_BLOCK])))  # one block decoded at a time


def _items_of(array: bytes) -> bytes:
    """The encoded items of the msgpack array `array`, its head (`array_head`) left out."""
    return array[ARRAY_HEAD_BYTES.get(array[0], 1):]


class StoredRecord(NamedTuple):
    head: bytes  # msgpack of SnapshotHead
    packed_tail: Callable[[], bytes]  # reads the packed tail
    home: str | os.PathLike[str]  # the store it was read from: named when it does not read back

    def tail(self) -> SnapshotTail:
        return decode_tail(unpack(self.packed_tail()))

    def lazy_head(self) -> LazyHead:
        return LazyHead(self.head, self.home)

    def full_head(self) -> SnapshotHead:
        """The head decoded whole, its columns and blobs checked (`checked_head`)."""
        return checked_head(decode_head(self.head), self.home)

    def record(self, head: SnapshotHead | LazyHead | None = None, fan_in: dict[str, int] | None = None,
               rank: dict[str, float] | None = None, files: list[FileEntry] | None = None,
               tail: SnapshotTail | None = None) -> SnapshotRecord:
        """The whole record; `head`, `fan_in`, `rank`, `files` and `tail` when the caller has them
        already."""
        h = head if head is not None else self.full_head()
        t = tail if tail is not None else self.tail()
        return SnapshotRecord(h.oid, h.tree, h.extractor_version, files if files is not None else h.files(),
                              t.edges, t.unresolved, t.packages, t.dependencies, t.entry_points,
                              fan_in if fan_in is not None else h.fan_in_map(),
                              rank if rank is not None else h.rank_map(), h.fingerprint, h.indexed_at, h.symbols,
                              h.blob_facts, h.tree_rules, h.parse_errors)

    def prior(self) -> PriorRecord:
        head = self.lazy_head()  # the file table's columns, blobs checked; fan-in and rank stay undecoded
        return PriorRecord(head.oid, head.tree, head.files(), self.packed_tail(), tree_rules=head.tree_rules)


def _head_size(value) -> int:
    return int.from_bytes(value[:4], "big")


def unpack_record(value: bytes, home: str | os.PathLike[str]) -> StoredRecord:
    """A record as the store at `home` holds it."""
    size = _head_size(value)
    tail = bytes(value[4 + size:])
    return StoredRecord(bytes(unpack(value[4:4 + size])), lambda: tail, home)


def load_stored_record(store: Store, oid: str, version: str | None = None) -> StoredRecord | None:
    """The stored snapshot of `oid` at `version` (by default the one this code writes)."""
    key = snapshot_key(oid, version or snapshot_version())
    with store.env.begin(db=store.snapshots, buffers=True) as txn:
        raw = txn.get(key)
        if raw is None:
            return None
        size = _head_size(raw)
        head = bytes(unpack(raw[4:4 + size]))

    def packed_tail() -> bytes:
        # A record is dropped only by `store gc`, and replaced only when a partial snapshot gives
        # way to the complete one: either may happen between the head's read and the tail's.
        with store.env.begin(db=store.snapshots, buffers=True) as txn:
            raw = txn.get(key)
            if raw is None or _head_size(raw) != size or unpack(raw[4:4 + size]) != head:
                raise SnapshotLeft(f"the snapshot of {oid[:12]} left the store while this call read it (a `store gc` "
                                   f"dropped it once its rev was indexed at another commit, or a complete snapshot "
                                   f"replaced it); nothing is damaged: ask again, and the call reads what the rev "
                                   f"names now")
            return bytes(raw[4 + size:])

    return StoredRecord(head, packed_tail, store.home)


def load_record(store: Store, oid: str, version: str | None = None) -> SnapshotRecord | None:
    stored = load_stored_record(store, oid, version)
    return stored.record() if stored is not None else None


def put_rank_arcs(txn, store: Store, oid: str, version: str, packed_arcs: bytes) -> None:
    """Inside the transaction that writes the snapshot's record: `rank_arcs.pack` bytes."""
    txn.put(snapshot_key(oid, version), pack(packed_arcs), db=store.rank)


class NameIndex(NamedTuple):
    """The store's name index: name -> raw blob OIDs (of every blob whose name-index key it
    shares: `records.name_key`)."""

    defining: Callable[[str], Iterator[bytes]]  # consumed (or dropped) before the next call
    using: Callable[[str], Iterator[bytes]]


@contextmanager
def name_index(store: Store, pending: PendingNames | None = None) -> Iterator[NameIndex]:
    """The name index inside one read transaction, for as long as the caller needs it; with
    `pending`, the rows of blobs still being written are listed too (once each, whether or
    not their write has committed)."""
    with store.env.begin() as txn:
        def dups(db, more: dict[bytes, list[bytes]]) -> Callable[[str], Iterator[bytes]]:
            cursor = txn.cursor(db=db)

            def blobs(name: str) -> Iterator[bytes]:
                key = name_key(name)
                extra = more.get(key)
                if not extra:
                    return name_blobs(cursor, name)
                unstored = [raw for raw in extra if not cursor.set_key_dup(key, raw)]
                return chain(name_blobs(cursor, name), unstored)
            return blobs

        yield NameIndex(dups(store.defs, pending.defs if pending else {}),
                        dups(store.occ, pending.uses if pending else {}))

