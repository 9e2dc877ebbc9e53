"""Snapshot bundles: one snapshot and the blob facts it needs, in a file another store can load.

Layout (format 1):

    b"RENNET-BUNDLE\\n"                       magic
    <header>\\n                               one line of JSON, keys sorted, no spaces
    <body>                                   zlib-compressed msgpack `Body`

The header names the format version, the snapshot (oid, fingerprint, extractor version,
file count), where it came from (rev, repository name, remote URL) and `digest`: the
sha256 of the header line written with `digest` empty, followed by the compressed body.
So every byte of the file is covered, and a header whose bytes differ from their
canonical form is refused too.

Import checks everything before writing anything: magic, header, digest, decompression,
the body's schema, that header and record agree, that every file's facts are present,
that the name-index rows are exactly those the facts imply, and finally the fingerprint
RECOMPUTED from the record and the facts. Then one LMDB transaction writes facts, name
rows and the snapshot record (and, with a repository, its pin).
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from indexer.contract.errors import BadInput, MissingObjects, RennetError
from indexer.store.records import NO_FACTS

MAGIC = b"RENNET-BUNDLE\n"
FORMAT = 1
_HEADER_FIELDS = {"format": int, "oid": str, "fingerprint": str, "extractor_version": str, "rev": str,
                  "repo_name": str, "remote_url": (str, type(None)), "files": int, "facts": int,
                  "body_bytes": int, "created_at": str, "digest": str}


class BadBundle(RennetError):
    code = "bad_bundle"


class ExtractorMismatch(RennetError):
    code = "extractor_mismatch"


class FingerprintConflict(RennetError):
    code = "fingerprint_conflict"


class FactsEntry(msgspec.Struct, array_like=True):
    key: bytes  # facts key: "<blob>|<language>|<extractor version>"
    facts: bytes  # msgpack of the complete BlobFacts (occurrences included); the store's split
    # form and its name-index rows are derived from it on import, never carried


class Body(msgspec.Struct, array_like=True):
    record: bytes  # msgpack SnapshotRecord
    facts: list[FactsEntry]


_encode = msgspec.msgpack.Encoder().encode
_decode_body = msgspec.msgpack.Decoder(Body).decode


def _header_line(header: dict) -> bytes:
    return json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _digest(header: dict, body: bytes) -> str:
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


def export(snap, out: str | os.PathLike[str]) -> ExportReport:
    """Write the bundle of a loaded snapshot (indexer.store.snapshot.Snapshot) to `out`, atomically."""
    from indexer.store.records import entry_facts_key, full_facts

    store = snap.store
    record = snap.record
    version = record.extractor_version
    keys = sorted({entry_facts_key(f, version) for f in record.files if f.language not in NO_FACTS})
    entries: list[FactsEntry] = []
    with store.env.begin() as txn:
        for key in keys:
            facts = full_facts(txn, store, key)
            if facts is None:
                raise RennetError(f"facts {key.decode()} of snapshot {record.oid[:12]} are missing from the store; "
                                  f"re-index the rev", code="store_error")
            entries.append(FactsEntry(key, _encode(facts)))
    body = zlib.compress(_encode(Body(_encode(record), entries)), 6)
    repo = snap.repo
    header = {
        "format": FORMAT, "oid": record.oid, "fingerprint": record.fingerprint, "extractor_version": version,
        "rev": snap.rev, "repo_name": os.path.basename(snap.repo_path.rstrip("/")),
        "remote_url": _remote_url(repo), "files": len(record.files), "facts": len(entries),
        "body_bytes": len(body), "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "digest": "",
    }
    header["digest"] = _digest(header, body)
    from indexer.store.outfile import write_out

    target = Path(out)
    head = MAGIC + _header_line(header) + b"\n"
    write_out(target, (head, body))
    size = len(head) + len(body)
    return ExportReport(str(target), record.oid, record.fingerprint, version, len(record.files), len(entries),
                        size, header["digest"])


def _remote_url(repo) -> str | None:
    from indexer.fleet.workspace import _remote_url as remote

    return remote(repo)


# --- reading and verifying ------------------------------------------------------------------

@dataclass
class Verified:
    """A bundle that passed every check, decoded and ready to write."""

    header: dict
    record: object  # SnapshotRecord
    record_bytes: bytes
    facts: dict[bytes, object]  # facts key -> complete BlobFacts


def read(path: str | os.PathLike[str]) -> Verified:
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise BadInput(f"no bundle at {path}") from None
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror}") from None
    return verify(data)


def verify(data: bytes) -> Verified:
    """Every check short of the store; raises BadBundle naming the first one that fails."""
    from indexer.build import extractor_version
    from indexer.store.canonical import fingerprint
    from indexer.store.records import decode_facts as _decode_facts
    from indexer.store.records import decode_record as _decode_record
    from indexer.store.records import entry_facts_key, is_facts_key

    if not data.startswith(MAGIC):
        raise BadBundle("not a rennet bundle (bad magic)")
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        raise BadBundle("bundle header is truncated")
    raw_header = data[len(MAGIC):end]
    try:
        header = json.loads(raw_header)
    except (ValueError, UnicodeDecodeError):
        raise BadBundle("bundle header is not JSON") from None
    if not isinstance(header, dict):
        raise BadBundle("bundle header is not an object")
    if header.get("format") != FORMAT:
        raise BadBundle(f"bundle format {header.get('format')!r} is not supported (this rennet reads format {FORMAT})")
    for name, kind in _HEADER_FIELDS.items():
        if name not in header or not isinstance(header[name], kind) or isinstance(header[name], bool):
            raise BadBundle(f"bundle header field {name!r} is missing or mistyped")
    if set(header) != set(_HEADER_FIELDS):
        raise BadBundle("bundle header has unknown fields")
    if _header_line(header) != raw_header:
        raise BadBundle("bundle header bytes are not canonical (edited?)")
    body = data[end + 1:]
    if len(body) != header["body_bytes"]:
        raise BadBundle(f"bundle body is {len(body)} bytes, the header says {header['body_bytes']} (truncated?)")
    if _digest(header, body) != header["digest"]:
        raise BadBundle("bundle digest does not match its content (corrupted or tampered)")
    current = extractor_version()
    if header["extractor_version"] != current:
        # before the body: another extractor's records and facts need not even decode here
        raise ExtractorMismatch(f"bundle was made by extractor {header['extractor_version']}, this rennet runs "
                                f"{current}; re-export it with this version or index the repository here")
    try:
        decoded = _decode_body(zlib.decompress(body))
        record = _decode_record(decoded.record)
        facts_by_key = {bytes(e.key): e for e in decoded.facts}
        decoded_facts = {k: _decode_facts(e.facts) for k, e in facts_by_key.items()}
    except (zlib.error, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise BadBundle(f"bundle body does not decode ({type(exc).__name__})") from None
    if (record.oid, record.fingerprint, record.extractor_version) != (
            header["oid"], header["fingerprint"], header["extractor_version"]):
        raise BadBundle("bundle header and snapshot record disagree")
    if len(record.files) != header["files"] or len(facts_by_key) != header["facts"] or \
            len(facts_by_key) != len(decoded.facts):
        raise BadBundle("bundle counts disagree with its content")
    version = record.extractor_version
    by_path = {}
    for f in record.files:
        if f.language in NO_FACTS:
            continue
        key = entry_facts_key(f, version)
        if key not in decoded_facts:
            raise BadBundle(f"bundle lacks the facts of {f.path}")
        by_path[f.path] = decoded_facts[key]
    for key, _entry in facts_by_key.items():
        if not is_facts_key(key, version):
            raise BadBundle("bundle holds a facts key of another shape")
    if fingerprint(record, by_path) != record.fingerprint:
        raise BadBundle("fingerprint recomputed from the bundle's record and facts does not match")
    return Verified(header, record, decoded.record, decoded_facts)


# --- import ----------------------------------------------------------------------------------

@dataclass
class ImportReport:
    oid: str
    fingerprint: str
    extractor_version: str
    rev: str
    files: int
    facts_total: int
    facts_new: int
    snapshot_new: bool
    pinned_repo: str | None  # display path of the repository the snapshot was pinned for
    pinned_rev: str | None


def import_bundle(store, path: str | os.PathLike[str], repo_path: str | None = None,
                  rev: str | None = None) -> ImportReport:
    """Verify the bundle at `path` and load it into `store` in one transaction; with
    `repo_path`, pin it as `rev` (default: the rev it was exported as) of that repository."""
    import pygit2

    from indexer.git import read as gitread
    from indexer.store.commit import PackedSnapshot, Pin, commit_snapshot
    from indexer.store.database import WriteLock
    from indexer.store.records import pack_record, stored_facts, unpack_record

    bundle = read(path)  # of this extractor version, or refused
    record = bundle.record
    version = record.extractor_version
    pin_rev = rev or bundle.header["rev"]
    repo_id = display = None
    if repo_path is not None:
        repo = gitread.open_repo(repo_path)
        try:
            repo[record.oid].peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            raise MissingObjects(f"commit {record.oid[:12]} is not in {gitread.repo_display_path(repo)}; "
                                 f"fetch it first (the tools read file content from Git)") from None
        repo_id = gitread.repo_identity(repo)
        display = gitread.repo_display_path(repo)

    def existing(packed: bytes) -> None:
        stored = unpack_record(packed).record()
        if stored.fingerprint != record.fingerprint:
            raise FingerprintConflict(
                f"the store holds snapshot {record.oid[:12]} with fingerprint {stored.fingerprint[:16]}, "
                f"the bundle {record.fingerprint[:16]}; nothing imported")

    with WriteLock(store.home):
        # one transaction: the facts the store lacks, the record unless held, the pin
        committed = commit_snapshot(
            store, PackedSnapshot(record.oid, version, pack_record(record), None, record.indexed_at),
            Pin(repo_id, pin_rev) if repo_id is not None else None,
            facts=[stored_facts(key, facts) for key, facts in sorted(bundle.facts.items())], existing=existing)
    snapshot_new, facts_new = committed.snapshot_new, committed.facts_new
    return ImportReport(oid=record.oid, fingerprint=record.fingerprint, extractor_version=version,
                        rev=bundle.header["rev"], files=len(record.files), facts_total=len(bundle.facts),
                        facts_new=facts_new, snapshot_new=snapshot_new, pinned_repo=display,
                        pinned_rev=pin_rev if repo_id is not None else None)
