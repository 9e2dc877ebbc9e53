"""Snapshot bundles: one snapshot and the blob facts it needs, in a file another store can load.

Layout (format 2; docs/fleet.md "Bundles"):

    b"RENNET-BUNDLE\\n"                       magic
    <header>\\n                               one line of JSON, keys sorted, no spaces
    <body>                                   zlib-compressed msgpack `Body`, `body_bytes` long
    [b"RENNET-SIG hmac-sha256 <hex>\\n"]      optional signature trailer (indexer/fleet/signing.py)

The header names the format version, the snapshot (oid, fingerprint, extractor version,
file count), where it came from (rev, repository name, remote URL), the body's size before
and after compression, and `digest`: the sha256 of the header line written with `digest`
empty, followed by the compressed body. The digest catches damage; it proves nothing of
where a bundle came from, since anyone can compute it.

Provenance is proved one of two ways before anything is written: the signature trailer, an
HMAC-SHA256 over every byte before it with a key the importer holds; or, with the
repository at hand, the snapshot made again from it (`indexer.build.derive`), every blob's
facts and the fingerprint equal to the bundle's. A bundle proved neither way is refused
(`untrusted_bundle`) unless the user says `--trust-unsigned`; it is then loaded into a store
of its own under `<home>/untrusted/`, never into the shared store, so no indexing run there
reuses its facts.

Reading is bounded: the file, the header line (size, and a flat object of known fields), the
inflated body (by the size the header declares, a ratio to the compressed size, an allowance
a file and a hard cap, inflated as a stream) and every list decoded from it (its length read
before its items are made) each have a limit, and a bundle past one is `bad_bundle`. The
blobs' facts are kept as the bytes they came in and decoded a blob at a time
(indexer/fleet/carried_facts.py), each held to a decoded weight read from its heads first
(indexer/fleet/facts_weight.py): what a bundle holds chooses no more than a small multiple of
its inflated size.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import AbstractSet, Annotated, Callable, Iterator, Sequence

import msgspec

from indexer.contract.encode import encode_msgpack
from indexer.contract.errors import BadInput, RennetError
from indexer.contract.limits import limits
from indexer.contract.msgpack_length import length
from indexer.fleet import facts_weight, signing
from indexer.fleet.carried_facts import CarriedFacts, content, fingerprint_table
from indexer.fleet.carried_list import CarriedList, CarriedMap
from indexer.fleet.msgpack_heads import bin_content, shape
from indexer.git.tree_names import TREE_RULES
from indexer.model import (
    Dependency,
    Edge,
    EntryPoint,
    FileEntry,
    Package,
    SnapshotRecord,
    UnresolvedImport,
    edge_order,
    unresolved_order,
)
from indexer.pipeline.extract import MISSING, MISSING_OBJECT
from indexer.store.facts_table import FactsTable
from indexer.store.records import NO_FACTS, StoredFacts

MAGIC = b"RENNET-BUNDLE\n"
FORMAT = 2  # 2: raw_bytes in the header, the optional signature trailer
MAX_HEADER_BYTES = 16 << 10
MAX_BUNDLE_BYTES = 1 << 30  # the file, compressed
MAX_RAW_BYTES = 512 << 20  # the body, inflated, whatever its file count
RAW_BASE = 16 << 20  # the body may inflate to this much, and RAW_PER_FILE more a file of its record
RAW_PER_FILE = 32 << 10
LIST_BASE = 1 << 16  # a record's other lists (edges, unresolved imports, manifests' packages,
LIST_PER_FILE = 64  # dependencies, entry points) each hold at most this many, and so many more a file
# Any list of one blob's facts: above the extractor's own caps (SYMBOL_CAP, OCCURRENCE_CAP), so
# that honest facts always pass and a list a bundle inflates past any blob's is refused.
MAX_FACTS_LIST = 1 << 17
MAX_RATIO = 100  # inflated / compressed; honest bundles come to a few times
TRANSPORT_LEVEL = 1  # zlib level of a batch worker's bundle: sent once, read at once, never kept
MIN_RATIO_ALLOWANCE = 1 << 20  # a small body may inflate to this much whatever its ratio

Count = Annotated[int, msgspec.Meta(ge=0)]


class Header(msgspec.Struct, forbid_unknown_fields=True):
    format: int
    oid: str
    fingerprint: str
    extractor_version: str
    rev: str
    repo_name: str
    remote_url: str | None
    files: Count
    facts: Count
    body_bytes: Count
    raw_bytes: Count
    created_at: str
    digest: str


class _Format(msgspec.Struct):
    format: int | str | None = None


_decode_header = msgspec.json.Decoder(Header).decode
_decode_format = msgspec.json.Decoder(_Format).decode


class BadBundle(RennetError):
    code = "bad_bundle"


class UntrustedBundle(RennetError):
    code = "untrusted_bundle"


class ExtractorMismatch(RennetError):
    code = "extractor_mismatch"


class FingerprintConflict(RennetError):
    code = "fingerprint_conflict"


class LackingFacts(BadBundle):
    """A partial bundle leaves out facts the store does not hold (its maker believed wrongly
    that they were imported): refused as any bad bundle, but a batch driver may ask again."""


class FactsEntry(msgspec.Struct, array_like=True):
    key: bytes  # facts key: "<blob>|<language>|<extractor version>"
    facts: bytes  # msgpack of the complete BlobFacts (occurrences included); the store's split
    # form and its name-index rows are derived from it on import, never carried


class Body(msgspec.Struct, array_like=True):
    record: bytes  # msgpack SnapshotRecord
    facts: list[FactsEntry]


_encode = encode_msgpack
_decode_body = msgspec.msgpack.Decoder(Body).decode


class _BodyShape(msgspec.Struct, array_like=True):
    """A body read without making its facts: the record's bytes and the facts list, views of
    the inflated body."""

    record: msgspec.Raw
    facts: msgspec.Raw


class _EntryShape(msgspec.Struct, array_like=True):
    key: bytes
    facts: msgspec.Raw  # `FactsEntry.facts` over the inflated body, its msgpack bin head included


def _bin_content(raw: msgspec.Raw, what: str) -> memoryview:
    """The content of the msgpack bin `raw`, a view, not a copy: a bundle's record and facts
    are kept in the inflated body they came in (alive as long as a view of it is), never held
    twice."""
    found = bin_content(raw)
    if found is None:
        raise BadBundle(f"bundle body does not decode ({what} is not bytes)")
    return found


_RecordShape, _RECORD_LISTS = shape("_RecordShape", SnapshotRecord)

# The record's lists kept as their bytes (indexer/fleet/carried_list.py): read in order, a block
# at a time, by the checks, the fingerprint and the stored form alike. Each with the fewest bytes
# one of its items takes: every field of theirs is required, but a file's mark, mark rule, reason
# skipped and target, which it may leave out.
_ListDecoder = (msgspec.msgpack.Decoder[list[FileEntry]] | msgspec.msgpack.Decoder[list[Edge]]
                | msgspec.msgpack.Decoder[list[UnresolvedImport]] | msgspec.msgpack.Decoder[list[Package]]
                | msgspec.msgpack.Decoder[list[Dependency]] | msgspec.msgpack.Decoder[list[EntryPoint]])
_CARRIED: dict[str, tuple[_ListDecoder, int]] = {
    "files": (msgspec.msgpack.Decoder(list[FileEntry]),
              len(_encode({f.encode_name: f.type() for f in msgspec.structs.fields(FileEntry) if f.required}))),
    "edges": (msgspec.msgpack.Decoder(list[Edge]), len(_encode(Edge("", "", "", 0, "")))),
    "unresolved": (msgspec.msgpack.Decoder(list[UnresolvedImport]), len(_encode(UnresolvedImport("", "", "", 0, "")))),
    "packages": (msgspec.msgpack.Decoder(list[Package]), len(_encode(Package("", "", "", "")))),
    "dependencies": (msgspec.msgpack.Decoder(list[Dependency]), len(_encode(Dependency("", "", "", "", "", "")))),
    "entry_points": (msgspec.msgpack.Decoder(list[EntryPoint]), len(_encode(EntryPoint("", "", "", "", "")))),
}
# The record's maps of paths, fan-in and rank, kept as their bytes too: read in their keys'
# order, the files' (which the checks hold them to), a block at a time.
_CARRIED_MAPS: dict[str, msgspec.msgpack.Decoder[dict[str, int]] | msgspec.msgpack.Decoder[dict[str, float]]] = {
    "fan_in": msgspec.msgpack.Decoder(dict[str, int]), "rank": msgspec.msgpack.Decoder(dict[str, float])}
_RecordCarrying = msgspec.defstruct("_RecordCarrying", [
    (f.name, msgspec.Raw if f.name in _CARRIED or f.name in _CARRIED_MAPS else f.type,
     *(() if f.required else (f.default,)))
    for f in msgspec.structs.fields(SnapshotRecord)])
_decode_record_carrying = msgspec.msgpack.Decoder(_RecordCarrying).decode


def _carried_record(raw: memoryview) -> SnapshotRecord:
    """The record of `raw` (a view of the inflated body), its lists carried: kept as their
    bytes, decoded as read (`check` reads each item once)."""
    found = _decode_record_carrying(raw)
    fields = msgspec.structs.asdict(found)
    for name, (decoder, smallest) in _CARRIED.items():
        fields[name] = CarriedList(fields[name], decoder, smallest)
    for name, map_decoder in _CARRIED_MAPS.items():
        fields[name] = CarriedMap(fields[name], map_decoder)
    return SnapshotRecord(**fields)


_decode_body_shape = msgspec.msgpack.Decoder(_BodyShape).decode
_decode_entries = msgspec.msgpack.Decoder(list[_EntryShape]).decode
_decode_record_shape = msgspec.msgpack.Decoder(_RecordShape).decode
_facts_lists = attrgetter(*facts_weight.FACTS_CONTAINERS)


def _count(raw: msgspec.Raw, what: str, cap: int) -> int:
    """`length(raw)`; `bad_bundle` past `cap`."""
    n = length(raw)
    if n > cap:
        raise BadBundle(f"bundle's {what} holds {n} entries, over the cap of {cap}")
    return n


# The record's lists and maps held to the file count; any other is held to LIST_BASE + LIST_PER_FILE a file.
_PER_FILE = {"files": "file list", "fan_in": "fan-in map", "rank": "rank map"}


def _check_record_counts(shape: msgspec.Struct, files: int) -> None:
    cap = LIST_BASE + LIST_PER_FILE * files
    for name in _RECORD_LISTS:
        if name not in _PER_FILE:
            _count(getattr(shape, name), f"record's {name} list", cap)
        elif _count(getattr(shape, name), _PER_FILE[name], files) != files and name == "files":
            raise BadBundle("bundle counts disagree with its content (files)")


def _check_facts(key: bytes, raw: memoryview) -> None:
    """One blob's facts, checked by decoding them (then let go) once what they would come to
    passes: each list's length held to MAX_FACTS_LIST and their weight decoded
    (`facts_weight.weigh`) to its MAX_WEIGHT before any item is made (facts too few bytes to
    pass either cannot: each item takes a byte at least). Symbols travel decoded (`make` writes
    them so): a stored form's `symbols_json`, whose lines would be decoded uncounted, is
    refused, as is a count of symbols or occurrences other than the list's."""
    from indexer.store.records import decode_core

    blob = key[:12].decode(errors="replace")
    if len(raw) > _WEIGH_PAST:
        heads = facts_weight.decode_shape(raw)
        if max(map(length, _facts_lists(heads))) > MAX_FACTS_LIST:
            for name in facts_weight.FACTS_CONTAINERS:
                _count(getattr(heads, name), f"facts of blob {blob}: {name}", MAX_FACTS_LIST)
        weight = facts_weight.weigh(heads, len(raw))
        if weight > facts_weight.MAX_WEIGHT:
            raise BadBundle(f"bundle's facts of blob {blob} would come to {weight} bytes decoded, over the cap of "
                            f"{facts_weight.MAX_WEIGHT}")
    facts = decode_core(raw)
    if facts.symbols_json:
        raise BadBundle(f"bundle's facts of blob {blob} carry symbols in stored form")
    # The counts a blob's facts state are read where they are summed (the `symbols` cap, the
    # fingerprint's file lines), but the store keeps the counts of the lists carried: a count
    # the bundle states must be those lists' (or left out), else it could pass the cap.
    if facts.symbol_count not in (0, len(facts.symbols)) or (
            facts.occurrences and facts.occurrence_count not in (0, len(facts.occurrences))):
        raise BadBundle(f"bundle's facts of blob {blob} state {facts.symbol_count} symbols and "
                        f"{facts.occurrence_count} occurrences, and carry {len(facts.symbols)} and "
                        f"{len(facts.occurrences)}")


# Facts of at most this many bytes need no counting: no list of them can pass MAX_FACTS_LIST,
# nor can they come to more than facts_weight.MAX_WEIGHT decoded.
_WEIGH_PAST = min(MAX_FACTS_LIST, facts_weight.MAX_WEIGHT // facts_weight.WORST_PER_BYTE)


def _header_line(header: dict) -> bytes:
    return json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _digest(header: dict, body: bytes | memoryview) -> str:
    blank = dict(header, digest="")
    h = hashlib.sha256(_header_line(blank))
    h.update(b"\n")
    h.update(body)
    return "sha256:" + h.hexdigest()


# --- export --------------------------------------------------------------------------------

@dataclass
class ExportReport:
    path: str
    oid: str
    fingerprint: str
    extractor_version: str
    files: int
    facts: int
    bytes: int
    digest: str
    signed: bool = False
    missing_objects: int = 0  # blobs the snapshot lists as missing (`missing_object`): a partial one


def make(snap, key: bytes | None = None, held: AbstractSet[bytes] = frozenset(),
         level: int = 6, keys: AbstractSet[bytes] | None = None) -> tuple[list[bytes], dict]:
    """The bundle of a loaded snapshot (indexer.store.snapshot.Snapshot) as the byte pieces of
    its file, and its header; signed with `key` when one is given. Facts whose key is in `held`
    are left out: a partial bundle, for an importer whose store holds them (a batch driver
    names what its store holds; `check` with that store fills them in). `keys`: the snapshot's
    `facts_keys`, when the caller has them already."""
    from indexer.store.database import corrupt
    from indexer.store.records import full_facts

    store = snap.store
    record = snap.record
    version = record.extractor_version
    wanted = sorted((facts_keys(record) if keys is None else keys) - held)
    entries: list[FactsEntry] = []
    with store.env.begin() as txn:
        for key_ in wanted:
            facts = full_facts(txn, store, key_)
            if facts is None:  # the snapshot was written with them: they were lost, or its file table was damaged
                raise corrupt(store.home, f"the blob facts {key_.decode(errors='replace')} snapshot "
                                          f"{record.oid[:12]} reads are not in it")
            entries.append(FactsEntry(key_, _encode(facts)))
    raw = _encode(Body(_encode(record), entries))
    body = zlib.compress(raw, level)
    repo = snap.repo
    header = {
        "format": FORMAT, "oid": record.oid, "fingerprint": record.fingerprint, "extractor_version": version,
        "rev": snap.rev, "repo_name": os.path.basename(snap.repo_path.rstrip("/")),
        "remote_url": _remote_url(repo), "files": len(record.files), "facts": len(entries),
        "body_bytes": len(body), "raw_bytes": len(raw),
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "digest": "",
    }
    header["digest"] = _digest(header, body)
    head = MAGIC + _header_line(header) + b"\n"
    return ([head, body] if key is None else [head, body, signing.trailer(head + body, key)]), header


def facts_keys(record: SnapshotRecord) -> frozenset[bytes]:
    """The keys of every blob fact a snapshot's files use: all a whole bundle of it carries."""
    from indexer.store.records import entry_facts_key

    version = record.extractor_version
    return frozenset(entry_facts_key(f, version) for f in record.files if f.language not in NO_FACTS)


def export(snap, out: str | os.PathLike[str], key: bytes | None = None,
           store: str | os.PathLike[str] | None = None) -> ExportReport:
    """Write the bundle of a loaded snapshot to `out`, atomically, with every blob fact it
    needs; signed with `key` when one is given; never inside the store's folder `store`."""
    from indexer.store.outfile import write_out

    chunks, header = make(snap, key)
    target = Path(out)
    write_out(target, chunks, store=store)
    size = sum(len(c) for c in chunks)
    return ExportReport(str(target), header["oid"], header["fingerprint"], header["extractor_version"],
                        header["files"], header["facts"], size, header["digest"], signed=key is not None,
                        missing_objects=_missing(snap.record))


def _missing(record: SnapshotRecord) -> int:
    return sum(1 for f in record.files if f.skipped == MISSING_OBJECT)


def _missing_blobs(record: SnapshotRecord) -> frozenset[tuple[str, str]]:
    return frozenset((f.path, f.blob) for f in record.files if f.skipped == MISSING_OBJECT)


def completes(stored: SnapshotRecord, record: SnapshotRecord) -> bool:
    """Whether `record` is the same commit's snapshot built with more of its blobs at hand than
    `stored`: every blob it lacks the stored one lacks too, and the stored one lacks more."""
    return _missing_blobs(record) < _missing_blobs(stored)


def _remote_url(repo) -> str | None:
    from indexer.fleet.workspace import _remote_url as remote

    return remote(repo)


# --- reading and verifying ------------------------------------------------------------------

@dataclass
class Verified:
    """A bundle that passed every check of its own content, decoded and ready to write."""

    header: Header
    record: SnapshotRecord
    record_bytes: memoryview  # a view of the inflated body
    facts: CarriedFacts  # facts key -> complete BlobFacts, decoded on each ask
    held: list[bytes] = field(default_factory=list)  # keys of a partial bundle's facts left to the store


def read(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the bundle file at `path`, refused past MAX_BUNDLE_BYTES before reading,
    and refused at its first bytes when they are not a bundle's (a device or a stream has no
    size to refuse it by: `/dev/zero` was read to the cap, a gibibyte held, before its magic
    was looked at). Once its header is read, no more than the body it declares and a signature
    trailer are: a byte past them is `bad_bundle` (was: a stream or a file carrying more was
    read to the cap, held twice over, before anything looked at it). A header that does not
    parse ends the reading, to be refused where the bundle is checked."""
    if not os.fspath(path):
        raise BadInput("no bundle named: the path is empty")
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_BUNDLE_BYTES:
                raise BadBundle(f"bundle is {size} bytes, over the cap of {MAX_BUNDLE_BYTES}")
            head = fh.read(len(MAGIC))
            if head != MAGIC:
                raise BadBundle("not a rennet bundle (bad magic)")
            head += fh.readline(MAX_HEADER_BYTES + 1)
            try:
                header, start = parse_header(head)
            except BadBundle:
                return head
            declared = header.body_bytes + signing.TRAILER_BYTES
            room = min(declared, MAX_BUNDLE_BYTES - start) + 1
            rest = fh.read(room)
            if len(rest) == room:
                if declared >= MAX_BUNDLE_BYTES - start:
                    raise BadBundle(f"bundle is over the cap of {MAX_BUNDLE_BYTES} bytes")
                raise BadBundle(f"bundle holds more than the {header.body_bytes} bytes of body its header declares "
                                "and a signature trailer; nothing imported")
            return head + rest
    except FileNotFoundError:
        raise BadInput(f"no bundle at {path}") from None
    except IsADirectoryError:
        raise BadInput(f"{path} is a folder, not a bundle") from None
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror}") from None


def parse_header(data: bytes) -> tuple[Header, int]:
    """The header of the bundle bytes `data` and where its body starts; `bad_bundle` for a
    header over MAX_HEADER_BYTES, of another format or shape, or not in canonical form."""
    if not data.startswith(MAGIC):
        raise BadBundle("not a rennet bundle (bad magic)")
    end = data.find(b"\n", len(MAGIC), len(MAGIC) + MAX_HEADER_BYTES + 1)
    if end < 0:
        raise BadBundle(f"bundle header is truncated or over {MAX_HEADER_BYTES} bytes")
    raw_header = data[len(MAGIC):end]
    # msgspec says a string that is not UTF-8 with a UnicodeDecodeError, not a DecodeError: both
    # are a bundle that does not decode, here and in the body
    try:
        found = _decode_format(raw_header).format
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError):
        raise BadBundle("bundle header is not a JSON object") from None
    if found != FORMAT:
        raise BadBundle(f"bundle format {found!r} is not supported (this rennet reads format {FORMAT})")
    try:
        header = _decode_header(raw_header)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError) as exc:
        raise BadBundle(f"bundle header does not have the fields of format {FORMAT} ({_first_line(exc)})") from None
    if _header_line(msgspec.structs.asdict(header)) != raw_header:
        raise BadBundle("bundle header bytes are not canonical (edited?)")
    return header, end + 1


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def check_counts(header: Header) -> None:
    """The counts the header declares, held to their caps before anything is inflated; the body
    must then hold just as many."""
    cap = limits()  # files of the record, as of any snapshot; its facts are at most one a file
    if header.files > cap.files:
        raise BadBundle(f"bundle declares {header.files:,} files, over the {cap.files:,} a snapshot holds "
                        f"({cap.raise_hint('files')})")
    if header.facts > header.files:
        raise BadBundle(f"bundle declares {header.facts} blob facts for {header.files} files: at most one a file")


def raw_allowance(header: Header) -> int:
    """The most bytes a body of this header may inflate to: the ratio allowed to its compressed
    size, the allowance of its file count and the hard cap, whichever is least."""
    return min(MAX_RAW_BYTES, max(header.body_bytes * MAX_RATIO, MIN_RATIO_ALLOWANCE),
               RAW_BASE + RAW_PER_FILE * header.files)


def raw_limit(header: Header) -> int:
    """The most bytes the body may inflate to: what the header declares, if that is within
    `raw_allowance`."""
    allowed = raw_allowance(header)
    if header.raw_bytes > allowed:
        raise BadBundle(f"bundle body claims to inflate to {header.raw_bytes} bytes from {header.body_bytes}, "
                        f"over the {allowed} allowed")
    return header.raw_bytes


def inflate(body: bytes | memoryview, limit: int) -> bytearray:
    """`body` inflated as a stream into a buffer of `limit` bytes, refused as soon as it would
    pass it: a bomb costs `limit`, no more. Input goes in small slices and output comes out in
    bounded pieces, so nothing is held twice."""
    inflater = zlib.decompressobj()
    out = bytearray(limit)
    filled = at = 0
    view = memoryview(body)
    try:
        for at in range(0, len(body), _IN_SLICE):
            pending: bytes | memoryview = view[at:at + _IN_SLICE]
            while pending:
                piece = inflater.decompress(pending, min(_OUT_PIECE, limit + 1 - filled))
                if filled + len(piece) > limit:
                    raise BadBundle(f"bundle body inflates past the {limit} bytes its header declares")
                out[filled:filled + len(piece)] = piece
                filled += len(piece)
                pending = inflater.unconsumed_tail
            if inflater.eof:
                break
    except zlib.error:
        raise BadBundle("bundle body does not decompress (zlib error)") from None
    if not inflater.eof or inflater.unused_data or at + _IN_SLICE < len(body):
        raise BadBundle("bundle body's compressed stream is cut short or followed by other bytes")
    if filled != limit:
        raise BadBundle(f"bundle body inflates to {filled} bytes, its header declares {limit}")
    return out


_IN_SLICE = 1 << 16
_OUT_PIECE = 1 << 22


def check(data: bytes, store=None, pending: CarriedFacts | None = None) -> Verified:
    """Every check of the bundle bytes `data` (without a signature trailer) short of provenance;
    raises BadBundle naming the first one that fails. With `store`, the bundle may be partial:
    a fact its body leaves out must be one `store` holds (and so verified when it was written),
    or one `pending` holds (carried by a bundle verified before it, to be written in the same
    transaction), and the fingerprint is recomputed from those and the body's."""
    from indexer.build import extractor_version
    from indexer.store.canonical import fingerprint
    from indexer.store.records import entry_facts_key, is_facts_key, is_oid

    header, start = parse_header(data)
    body = memoryview(data)[start:]  # not a copy: the bundle's bytes are held while it is checked
    if len(body) != header.body_bytes:
        raise BadBundle(f"bundle body is {len(body)} bytes, the header says {header.body_bytes} (truncated?)")
    if _digest(msgspec.structs.asdict(header), body) != header.digest:
        raise BadBundle("bundle digest does not match its content (corrupted or tampered)")
    current = extractor_version()
    if header.extractor_version != current:
        # before the body: another extractor's records and facts need not even decode here
        raise ExtractorMismatch(f"bundle was made by extractor {header.extractor_version}, this rennet runs "
                                f"{current}; re-export it with this version or index the repository here")
    check_counts(header)
    raw = inflate(body, raw_limit(header))
    # Decoded in stages, each container's length read from its msgpack head and held to its cap
    # before its items are made: what a bundle makes us hold is bounded by counts, not only by
    # bytes (a byte of msgpack can become tens of bytes of objects).
    try:
        body_shape = _decode_body_shape(raw)
        if _count(body_shape.facts, "facts list", header.facts) != header.facts:
            raise BadBundle("bundle counts disagree with its content (facts)")
        record_bytes = _bin_content(body_shape.record, "the record")
        _check_record_counts(_decode_record_shape(record_bytes), header.files)
        # each blob's facts the msgpack bin they came in, the small object msgspec made over the
        # inflated body (a view of it would take over three times as much, and a bundle of many
        # tiny files holds one a file)
        facts_raw: dict[bytes, msgspec.Raw] = {}
        for e in _decode_entries(body_shape.facts):
            _bin_content(e.facts, "a facts entry")
            facts_raw[e.key] = e.facts
        del body_shape, raw
        record = _carried_record(record_bytes)
        check_order(record)  # every file, edge and unresolved import read once: one that does not decode is refused
        for name in ("packages", "dependencies", "entry_points"):
            for _ in getattr(record, name):  # so is every other carried item
                pass
    except (msgspec.DecodeError, msgspec.ValidationError, zlib.error, RecursionError, UnicodeDecodeError) as exc:
        raise BadBundle(f"bundle body does not decode ({type(exc).__name__})") from None
    if (record.oid, record.fingerprint, record.extractor_version) != (
            header.oid, header.fingerprint, header.extractor_version):
        raise BadBundle("bundle header and snapshot record disagree")
    if len(record.files) != header.files or len(facts_raw) != header.facts:
        raise BadBundle("bundle counts disagree with its content")
    # Git's names for objects, as the store writes them: its name index, a facts key's blob
    # and a later read of a file's content from the repository take them as such
    if not (is_oid(record.oid) and is_oid(record.tree)):
        raise BadBundle("bundle's snapshot names its commit or tree by no object id")
    version = record.extractor_version
    keys: dict[str, bytes] = {}  # path -> facts key, of every file with facts
    lacking: dict[str, bytes] = {}  # those the body leaves to the store
    for f in record.files:
        # a partial snapshot's missing blob (`missing_object`) has no facts, and only such a one
        # is listed so: a bundle cannot pass off a file as missing to leave its facts out, nor
        # list facts-less content under another name
        if not is_oid(f.blob) and (f.blob, f.language) != ("", "submodule"):  # a gitlink names no blob
            raise BadBundle(f"bundle lists {f.path} with blob {f.blob[:48]!r}, no object id")
        if (f.language == MISSING) != (f.skipped == MISSING_OBJECT) or (
                f.language == MISSING and (f.size != 0 or f.lines != -1)):
            raise BadBundle(f"bundle lists {f.path} as missing inconsistently")
        if f.language in NO_FACTS:
            continue
        key = keys[f.path] = entry_facts_key(f, version)
        if key not in facts_raw:
            if store is None:
                raise BadBundle(f"bundle lacks the facts of {f.path}")
            lacking[f.path] = key
    if not facts_raw.keys() <= set(keys.values()):
        raise BadBundle("bundle holds facts no file of its snapshot uses")
    for key in facts_raw:
        if not is_facts_key(key, version):
            raise BadBundle("bundle holds a facts key of another shape")
    # Each blob's facts are decoded once here to be checked, then let go: they stay the bytes
    # they came in, decoded again a blob at a time where the fingerprint and the write read them.
    try:
        for key, raw_facts in facts_raw.items():
            _check_facts(key, content(raw_facts))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError) as exc:
        raise BadBundle(f"bundle body does not decode ({type(exc).__name__})") from None
    carried = CarriedFacts(facts_raw)
    if not lacking:
        recomputed = fingerprint(record, _within_symbols(fingerprint_table(keys, [carried])))
    else:
        recomputed = _fingerprint_over(store, record, keys, lacking, carried, pending or CarriedFacts())
    if recomputed != record.fingerprint:
        raise BadBundle("fingerprint recomputed from the bundle's record and facts does not match")
    return Verified(header, record, record_bytes, carried, sorted(set(lacking.values())))


def check_order(record: SnapshotRecord) -> None:
    """`bad_bundle` unless the record keeps the orders a store's readers rely on: its files by
    path, its edges and unresolved imports as resolution writes them (model.SnapshotRecord),
    each strictly increasing, so without repeats. Lookups bisect these lists (a file by path, a
    reindex's lines of a file), and the fingerprint, which sorts, cannot tell a shuffled list.
    The fan-in and rank maps name files' paths in the files' order, each at most once: so
    they are read a block at a time in step with the files (indexer/fleet/carried_list.py
    `CarriedMap`), and a path no file has, which nothing would read, is refused too."""
    from itertools import tee
    from operator import lt

    def increasing(items: Sequence, key) -> bool:
        # each item's key made as it is compared, never all of them at once; the items read once
        keys, following = tee(map(key, items))
        next(following, None)
        return all(map(lt, keys, following))

    _files_in_order(record)
    if not increasing(record.edges, edge_order):
        raise BadBundle("bundle's import edges are not sorted, or list an edge twice")
    if not increasing(record.unresolved, unresolved_order):
        raise BadBundle("bundle's unresolved imports are not sorted, or list one twice")


def _files_in_order(record: SnapshotRecord) -> None:
    """The files strictly increasing by path, and the keys of the fan-in and rank maps each a
    part of their paths in order: walked together, the files and each map read once."""
    fan_in, rank = iter(record.fan_in), iter(record.rank)
    fan_in_at, rank_at = next(fan_in, None), next(rank, None)
    fan_in_seen = rank_seen = 0
    last = None
    for path in map(attrgetter("path"), record.files):
        if last is not None and not last < path:
            raise BadBundle("bundle's file list is not sorted by path, or lists a path twice")
        last = path
        if path == fan_in_at:
            fan_in_at, fan_in_seen = next(fan_in, None), fan_in_seen + 1
        if path == rank_at:
            rank_at, rank_seen = next(rank, None), rank_seen + 1
    # a key left over was not met in the files' order (one they lack, or out of order); a
    # map read whole but counted short repeated a key
    for name, at, seen, entries in (("fan-in", fan_in_at, fan_in_seen, record.fan_in),
                                    ("rank", rank_at, rank_seen, record.rank)):
        if at is not None or seen != len(entries):
            raise BadBundle(f"bundle's {name} map names a path its file list lacks, or names paths out of "
                            f"the files' order or twice")


def _fingerprint_over(store, record: SnapshotRecord, keys: dict[str, bytes], lacking: dict[str, bytes],
                      carried: CarriedFacts, pending: CarriedFacts) -> str:
    """The fingerprint of a partial bundle's snapshot: the body's facts where it carries them
    (or a bundle before it in the same import, `pending`), the store's where it leaves them out
    (read as assembly reads them: summaries, and the full core only of files that ask for it);
    `bad_bundle` when the store lacks one of those too. The carried ones are decoded as read."""
    from indexer.store.canonical import fingerprint
    from indexer.store.database import unpack
    from indexer.store.facts_table import FactsSummary, decode_summary
    from indexer.store.records import core_reader

    stored: dict[bytes, FactsSummary] = {}
    with store.env.begin(db=store.facts, buffers=True) as txn:
        for path, key in lacking.items():
            if key in pending or key in stored:
                continue
            raw = txn.get(key)
            if raw is None:
                raise LackingFacts(f"bundle lacks the facts of {path}, and this store does not hold them "
                                   f"either; nothing imported")
            stored[key] = decode_summary(unpack(raw))
    with core_reader(store) as read_core:
        return fingerprint(record, _within_symbols(fingerprint_table(keys, [carried, pending], stored, read_core)))


def _within_symbols(table: FactsTable) -> FactsTable:
    """`table`, once its files define no more symbols together than a snapshot holds: a
    bundle may name one blob's facts at every path, and the fingerprint reads each path's."""
    cap = limits()
    symbols = sum(s.symbol_total for s in table.summaries.values())
    if symbols > cap.symbols:
        raise BadBundle(f"bundle's files define {symbols:,} symbols together, over the {cap.symbols:,} a "
                        f"snapshot holds ({cap.raise_hint('symbols')}); nothing imported")
    return table


def rederive(bundle: Verified, repo) -> None:
    """Hold the bundle against its repository: the snapshot made again from the commit's blobs
    must have the bundle's record (all but its time of indexing and count of blob facts) and
    every blob the bundle's facts, in the very form the store would keep them. Refuses
    (`bad_bundle`) on any difference."""
    from indexer.build import derive
    from indexer.store.records import stored_facts

    # the blobs the bundle lists as missing are made again as missing: a partial snapshot is
    # held against the same partial snapshot, whether or not this repository has them
    missing = frozenset(f.blob for f in bundle.record.files if f.skipped == MISSING_OBJECT)
    record, facts = derive(repo, bundle.record.oid, missing)
    for key in sorted(bundle.facts):
        ours = facts.get(key)
        if ours is None or stored_facts(key, ours) != stored_facts(key, bundle.facts[key]):
            raise BadBundle(f"bundle's facts of blob {key[:12].decode()} differ from the ones its blob gives; "
                            f"nothing imported")
    if record.fingerprint != bundle.record.fingerprint:
        raise BadBundle("bundle's snapshot differs from the one its commit gives (fingerprint); nothing imported")
    # what the fingerprint leaves out is stored too, and read: the tree a later index diffs
    # from, the symbol count. The bundle's own are the time of indexing and `blob_facts`, a
    # count of what its store parsed or reused (for a partial snapshot, how it was built), and
    # the tree rules its store checked under (the import records its own: `import_data`).
    if msgspec.structs.replace(record, indexed_at=bundle.record.indexed_at, blob_facts=bundle.record.blob_facts,
                               tree_rules=bundle.record.tree_rules) != bundle.record:
        raise BadBundle("bundle's snapshot record differs from the one its commit gives (its tree or symbol "
                        "count); nothing imported")


def quarantine_home(home: str | os.PathLike[str], header: Header) -> Path:
    """The store of its own that an unverified bundle is loaded into (`--trust-unsigned`)."""
    return Path(home) / "untrusted" / header.digest.removeprefix("sha256:")[:16]


# --- import ----------------------------------------------------------------------------------

class ImportReport(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What an import did; `pinned_*` and `store` are absent where they do not apply."""

    oid: str
    fingerprint: str
    extractor_version: str
    rev: str
    files: int
    facts_total: int
    facts_new: int
    snapshot_new: bool
    pinned_repo: str | None = None  # display path of the repository the snapshot was pinned for
    pinned_rev: str | None = None
    missing_objects: int  # blobs the snapshot lists as missing (`missing_object`): a partial one
    provenance: str = ""  # "signed" (HMAC checked), "rederived" (made again from the repository),
    #                       "untrusted" (--trust-unsigned: loaded into a store of its own); set once known
    store: str | None = None  # that store's folder, for an untrusted bundle
    # why no rev was pinned though a repository was given: the bundle's rev, the default when the
    # user names none, does not name the bundle's commit there
    note: str | None = None


def import_bundle(store, path: str | os.PathLike[str], repo_path: str | None = None,
                  rev: str | None = None, *, key: bytes | None = None,
                  trust_unsigned: bool = False, compare_held: bool = True) -> ImportReport:
    """Verify the bundle at `path` and load it into `store`, its snapshot visible only once
    whole (`_load_many`); with
    `repo_path`, pin it as `rev` of that repository (default: the rev it was exported as, only
    where that rev names the bundle's commit there; else linked with no rev pinned, and the
    report's `note` says so).

    Provenance first: with `key`, the signature must hold; else with `repo_path`, the snapshot
    made again from the repository must equal the bundle's; else, only with `trust_unsigned`,
    the bundle goes to a store of its own (`quarantine_home`), never to `store`.

    Facts the store holds are never overwritten; with `compare_held` a bundle whose facts differ
    from them is refused whole. A writer of this very code and version (a batch's own worker,
    signed with the run's key) passes False: its facts of a key are this code's, and only the
    facts the store lacks are then made ready to write."""
    return import_data(store, read(path), repo_path, rev, key=key, trust_unsigned=trust_unsigned,
                       compare_held=compare_held)


def import_data(store, data: bytes, repo_path: str | None = None, rev: str | None = None, *,
                key: bytes | None = None, trust_unsigned: bool = False, compare_held: bool = True,
                partial: bool = False) -> ImportReport:
    """`import_bundle` of bundle bytes already in memory (at most MAX_BUNDLE_BYTES). With
    `partial` (a signed bundle only: a batch worker's, made for this store), the bundle may
    leave out facts `store` holds; they must still be there when the snapshot is committed."""

    from indexer.git import read as gitread
    from indexer.store.database import Store

    if len(data) > MAX_BUNDLE_BYTES:
        raise BadBundle(f"bundle is {len(data)} bytes, over the cap of {MAX_BUNDLE_BYTES}")
    unsigned, mac = signing.split(data)
    if key is not None:
        try:
            signing.verify(data, key)
        except signing.BadSignature as exc:
            raise BadBundle(f"bundle {exc.message}; nothing imported") from None
    bundle = check(unsigned, store if partial and key is not None else None)  # this extractor's, or refused
    record = bundle.record
    repo = repo_id = display = None
    if repo_path is not None:
        repo = gitread.open_repo(repo_path)
        gitread.require_commit(repo, record.oid)
        repo_id = gitread.repo_identity(repo)
        display = gitread.repo_display_path(repo)
    if key is not None:
        provenance = "signed"
    elif repo is not None:
        rederive(bundle, repo)
        provenance = "rederived"
        bundle.record.tree_rules = TREE_RULES  # its trees were walked here, under this code's rules
    elif trust_unsigned:
        provenance = "untrusted"
        bundle.record.tree_rules = ""  # its word that its trees were checked is the bundle's alone
    else:
        how = "signed, but no key was given to check it" if mac is not None else "not signed"
        raise UntrustedBundle(f"bundle is {how}, and its repository is not at hand: give the signing key "
                              f"(--sign-key-env/--sign-key-file), the repository (--repo) to make it again "
                              f"from, or --trust-unsigned to load it into a store of its own")
    note = None
    if repo is not None and rev is None:
        rev, note = _header_rev(repo, bundle)
    if provenance == "untrusted":
        home = quarantine_home(store.home, bundle.header)
        with Store.open(home) as apart:
            report = _load(apart, bundle, None, None, rev, compare_held)
        report.store = str(home)
    else:
        report = _load(store, bundle, repo_id, display, rev, compare_held)
    report.provenance = provenance
    report.note = note
    return report


def _header_rev(repo, bundle: Verified) -> tuple[str | None, str | None]:
    """The rev to pin when the user names none: the bundle's own only where it names the
    bundle's commit in `repo`, since what a rev name points at is the repository's to say, not
    the bundle's. Else None (the snapshot is linked, no rev pinned) and a note saying why."""
    from indexer.git import read as gitread
    from indexer.store.records import pinnable

    name, oid = bundle.header.rev, bundle.record.oid
    if not pinnable(name):
        return None, (f"the bundle's rev {name[:40]!r}... is longer than a rev that can be pinned: linked without "
                      f"a rev pinned (name one with --rev)")
    try:
        found = gitread.resolve_rev(repo, name)
    except RennetError:
        found = None
    if found == oid:
        return name, None
    where = f"names {found[:12]}" if found is not None else "does not resolve"
    return None, (f"the bundle's rev {name!r} {where} in this repository, not the bundle's commit {oid[:12]}: "
                  f"linked without a rev pinned (name one with --rev)")


def _load(store, bundle: Verified, repo_id: str | None, display: str | None, rev: str | None,
          compare_held: bool = True) -> ImportReport:
    """Write a verified bundle (`_load_many`). Facts already stored under a key are never
    overwritten: should the bundle's differ from them, nothing is written."""
    from indexer.store.database import WriteLock

    with WriteLock(store.home):
        return _load_many(store, [_Loading(bundle, repo_id, display, rev)], compare_held)[0]


@dataclass
class _Loading:
    """A verified bundle and where to pin it."""

    bundle: Verified
    repo_id: str | None
    display: str | None
    rev: str | None  # None: the repository is linked to the snapshot, no rev pinned
    replace: bool = False  # it takes the place of a stored partial snapshot of its commit
    # The caller could not look at the commit's objects (a URL it does not read): the bundle takes
    # the place of a stored partial snapshot only where it `completes` it.
    unchecked: bool = False


def _load_many(store, loads: Sequence[_Loading], compare_held: bool = True) -> list[ImportReport]:
    """Write verified bundles, in order (a later one may need facts an earlier one carries).
    The caller holds the write lock, so what is read here stays until the end.

    First everything that could refuse one is read and checked, writing nothing: a stored
    snapshot of another fingerprint, facts left out that neither the store nor an earlier bundle
    holds, and (with `compare_held`) facts the store holds with other bytes. Then the facts the
    store lacks go in, IMPORT_BLOBS or IMPORT_BYTES a transaction (`commit_facts`), so a receipt
    or any other writer waits for one such transaction, never for the whole import. The records
    go last, all in one transaction: until it commits no reader sees any of the snapshots. An
    import killed before it leaves facts no snapshot holds, each the facts of its blob (the
    bundle was verified), which a second import reuses and `store gc` drops, as a killed index's."""
    from indexer.store.commit import PackedSnapshot, Pin, SnapshotWrite, commit_facts, commit_snapshots
    from indexer.store.records import pack_record, snapshot_key, unpack_record

    def existing_for(record: SnapshotRecord, replace: bool):
        def existing(packed: bytes) -> None:
            stored = unpack_record(packed, store.home).record()
            if replace and _missing(stored):
                return  # a partial snapshot gives way (`commit_snapshot`'s `replace`)
            if stored.fingerprint != record.fingerprint:
                raise FingerprintConflict(
                    f"the store holds snapshot {record.oid[:12]} with fingerprint {stored.fingerprint[:16]}, "
                    f"the bundle {record.fingerprint[:16]}; nothing imported")
        return existing

    def differs(key: bytes) -> None:
        raise BadBundle(f"bundle's facts of blob {key[:12].decode()} differ from the ones this store holds; "
                        f"nothing imported")

    def lacking(key: bytes) -> None:
        raise LackingFacts(f"bundle lacks the facts of blob {key[:12].decode()}, which this store no longer "
                           f"holds; nothing imported")

    writes, wanted_of = [], []
    with store.env.begin(db=store.facts) as txn:
        for at, load in enumerate(loads):
            record = load.bundle.record
            replace = load.replace
            stored = txn.get(snapshot_key(record.oid, record.extractor_version), db=store.snapshots)
            if load.unchecked and not replace:
                replace = stored is not None and completes(unpack_record(bytes(stored), store.home).record(), record)
            existing = existing_for(record, replace)
            if stored is not None:
                existing(bytes(stored))
            for key in load.bundle.held:
                if txn.get(key) is None and not any(key in earlier.bundle.facts for earlier in loads[:at]):
                    lacking(key)
            wanted = [key for key in sorted(load.bundle.facts) if txn.get(key) is None]
            if compare_held:
                _compare_held(txn, store, load.bundle.facts, differs)
            wanted_of.append(wanted)
            writes.append(SnapshotWrite(
                PackedSnapshot(record.oid, record.extractor_version, pack_record(record), None, record.indexed_at),
                Pin(load.repo_id, load.rev, load.display) if load.repo_id is not None else None,
                existing=existing, replace=replace, held=load.bundle.held,
                lacking=lacking))
    new = [0] * len(loads)
    pending = ((at, key) for at, wanted in enumerate(wanted_of) for key in wanted)
    while (first := next(pending, None)) is not None:
        made: list[tuple[int, bytes]] = []
        put = set(commit_facts(store, _batch(loads, chain([first], pending), made),
                               differs if compare_held else None))
        for at, key in made:
            if key in put:  # a key two bundles carry counts for the first
                new[at] += 1
                put.discard(key)
        # LMDB's lock goes to whichever writer takes it first, and this process, running, would
        # take it back before a writer its commit woke could: a pause lets that writer in.
        time.sleep(HAND_OVER)
    committed = commit_snapshots(store, writes)
    reports = []
    for load, done, facts_new in zip(loads, committed, new):
        bundle, record = load.bundle, load.bundle.record
        pin_rev = load.rev
        reports.append(ImportReport(
            oid=record.oid, fingerprint=record.fingerprint, extractor_version=record.extractor_version,
            rev=bundle.header.rev, files=len(record.files), facts_total=len(bundle.facts) + len(bundle.held),
            facts_new=facts_new, snapshot_new=done.snapshot_new, pinned_repo=load.display,
            pinned_rev=pin_rev if load.repo_id is not None else None, missing_objects=_missing(record)))
    return reports


# Blob facts an import puts in one transaction, and at most about so many bytes of them in
# stored form (a blob past it alone): each made in the transaction as it is put (made ahead, a
# batch's stored forms held many times the bundle's bytes), so a writer waiting behind one (a
# call's receipt) waits for a few hundred blobs' encoding, less than an index's own batches of
# facts hold the store; enough that the commits' syncs add little to the import.
IMPORT_BLOBS = 256
IMPORT_BYTES = 2 << 20
HAND_OVER = 0.001  # seconds an import pauses between two batches


def _batch(loads: Sequence[_Loading], keys: Iterator[tuple[int, bytes]],
           made: list[tuple[int, bytes]]) -> Iterator[StoredFacts]:
    """The stored forms of the next facts of `keys` (each a load's position and a key of its
    facts), noted in `made`, up to IMPORT_BLOBS of them or IMPORT_BYTES and the blob that
    passes it: made as the transaction puts them, one blob decoded at a time and let go once
    put, never a batch's held at once. The rest of `keys` is left for the next batch."""
    from indexer.store.records import stored_facts

    size = 0
    for at, key in keys:
        x = stored_facts(key, loads[at].bundle.facts[key])
        made.append((at, key))
        size += len(x.packed_core) + len(x.packed_occurrences)
        yield x
        del x
        if len(made) >= IMPORT_BLOBS or size >= IMPORT_BYTES:
            return


def _compare_held(txn, store, carried: CarriedFacts, differs: Callable[[bytes], None]) -> None:
    """`differs` of the first of `carried`'s facts the store holds in other bytes, each made in
    stored form as it is compared and let go."""
    from indexer.store.records import stored_facts

    for key in sorted(carried):
        present = txn.get(key)
        if present is None:
            continue
        made = stored_facts(key, carried[key])
        if bytes(present) != made.packed_core or bytes(
                txn.get(key, db=store.occurrences) or b"") != made.packed_occurrences:
            differs(key)
        del made


def import_signed(store, bundles: Sequence[tuple[bytes, str | None, str | None]],
                  key: bytes, replace: AbstractSet[int] = frozenset(),
                  unchecked: AbstractSet[int] = frozenset()) -> list[ImportReport | RennetError]:
    """Bundles a batch's workers signed with the run's `key`, each (bytes, repository path to
    link it to or None, rev to pin there or None), verified as `import_data(..., key=key, compare_held=False,
    partial=True)` verifies one, and imported together (`_load_many`): their facts in
    bounded transactions, their records in one, so a killed importer leaves all or none of
    the snapshots. Each may leave out facts the store holds
    or that a bundle before it carries. A bundle that fails a check gets its error and the
    others go in without it (one that needed its facts fails `LackingFacts` in turn); should
    the commit refuse one (a conflict with the store), each is committed alone instead, so
    only that one fails. `replace`: the positions of the bundles whose commit's stored snapshot
    the caller found partial with missing blobs now at hand (`build.complete_enough`): each
    takes its place, as a local batch's rebuild does. `unchecked`: the positions of the bundles
    whose commit the caller could not look at (a URL it does not read): each takes the place of
    a stored partial snapshot only where it `completes` it."""
    from indexer.store.database import WriteLock

    results: list[ImportReport | RennetError | None] = [None] * len(bundles)
    pending = CarriedFacts()
    ready: list[tuple[int, _Loading]] = []
    for i, (data, repo_path, rev) in enumerate(bundles):
        try:
            if len(data) > MAX_BUNDLE_BYTES:
                raise BadBundle(f"bundle is {len(data)} bytes, over the cap of {MAX_BUNDLE_BYTES}")
            try:
                unsigned = signing.verify(data, key)
            except signing.BadSignature as exc:
                raise BadBundle(f"bundle {exc.message}; nothing imported") from None
            bundle = check(unsigned, store, pending)
            repo_id, display = _pin_target(repo_path, bundle.record.oid)
        except RennetError as exc:
            results[i] = exc
            continue
        pending.add(bundle.facts)
        ready.append((i, _Loading(bundle, repo_id, display, rev, i in replace, i in unchecked)))
    with WriteLock(store.home):
        try:
            for (i, _), report in zip(ready, _load_many(store, [load for _, load in ready], False)):
                results[i] = report
        except RennetError:
            for i, load in ready:
                try:
                    results[i] = _load_many(store, [load], False)[0]
                except RennetError as exc:
                    results[i] = exc
    done = [r for r in results if r is not None]
    for one in done:
        if isinstance(one, ImportReport):
            one.provenance = "signed"
    return done


def _pin_target(repo_path: str | None, oid: str) -> tuple[str | None, str | None]:
    """(identity, display path) of the repository a snapshot is pinned in; the commit must be
    in it."""

    from indexer.git import read as gitread

    if repo_path is None:
        return None, None
    repo = gitread.open_repo(repo_path)
    gitread.require_commit(repo, oid)
    return gitread.repo_identity(repo), gitread.repo_display_path(repo)
