"""Where dossiers live: one record per (review target, patchset) in the store's `dossiers`
table, and the full payloads (comment threads, the tracker's raw answer, links) as plain
files under `<store home>/projects/<repo id>/dossiers/`, for depth on demand.

A review target is the repository identity with the base ref and head ref as given; a
patchset is base OID..head OID, retrieved under given access settings (which GitHub
repositories gh may read; each tracker's URL and token variable). Sweep rule: a review target keeps its newest
`KEEP_PATCHSETS` dossiers (by build time); older records and their payload folders are
removed when a new one is saved. Payload files are written (atomically) before the record,
so a record never names a file that is not there; a crash between the two leaves only
files that the next run overwrites.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import msgspec

from delta.dossier.items import Comment, Fact
from indexer.contract.encode import encode_json
from indexer.contract.read_back import read_back_json

if TYPE_CHECKING:
    from indexer.store.database import Store

TABLE = "dossiers"
KEEP_PATCHSETS = 10


class Linked(msgspec.Struct):
    """A ticket an item links to, fetched one hop for depth on demand; `fact` when it failed."""

    id: str
    tracker: str
    fetched_at: str = ""
    fact: Fact | None = None
    title: str = ""
    state: str = ""
    body: str = ""
    url: str = ""
    comments: list[Comment] = msgspec.field(default_factory=list)
    raw: Any = None


class Payload(msgspec.Struct):
    """Everything fetched for one item: its whole thread, its links, the tracker's raw answer."""

    id: str
    tracker: str
    fetched_at: str
    comments: list[Comment]
    links: list[str]
    raw: Any
    linked: list[Linked] = msgspec.field(default_factory=list)


_decode_payload = read_back_json(msgspec.json.Decoder(Payload).decode)  # a payload file under the store's home


def record_key(repo_id: str, base_ref: str, head_ref: str, base_oid: str, head_oid: str, access: str = "") -> bytes:
    """The record of one patchset of a review target, retrieved under `access`: what the user's
    credentials were allowed to read, and from which trackers. A dossier is served again only
    under the same, so one built with a private repository allowed is not handed to a run that
    does not allow it, nor one a tracker answered served as another tracker's."""
    digest = hashlib.sha256(access.encode()).hexdigest()[:16]
    return "\x00".join((repo_id, _keyed(base_ref), _keyed(head_ref), f"{base_oid}..{head_oid}@{digest}")).encode()


# A rev as the record key spells it: LMDB takes keys of at most 511 bytes, so a long rev (a
# `HEAD~0~0...` any client may send) is its digest, after a byte no rev that resolves begins with.
REF_KEY_BYTES = 160


def _keyed(ref: str) -> str:
    raw = ref.encode("utf-8", "surrogateescape")
    return ref if len(raw) <= REF_KEY_BYTES else "\x01" + hashlib.sha256(raw).hexdigest()


def payload_dir(repo_id: str, key: bytes, head_oid: str) -> str:
    """Folder of one dossier's payloads, relative to the store home."""
    digest = hashlib.sha256(key).hexdigest()[:16]
    return f"projects/{repo_id}/dossiers/{head_oid[:12]}-{digest}"


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def write_payload(home: Path, folder: str, payload: Payload) -> str:
    """Write one payload file atomically; return its path relative to the store home."""
    rel = f"{folder}/{_safe(payload.tracker)}-{_safe(payload.id)}.json"
    target = home / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + f".{os.getpid()}.partial")
    tmp.write_bytes(encode_json(payload))
    os.replace(tmp, target)
    return rel


def read_payload(home: Path, rel: str) -> Payload:
    return _decode_payload((home / rel).read_bytes())


def load_record(store: Store, key: bytes) -> bytes | None:
    return store.kv(TABLE).get(key)


def save_record(store: Store, key: bytes, data: bytes) -> None:
    store.kv(TABLE).put(key, data)


def target_prefix(key: bytes) -> bytes:
    """The review-target part of a record key (everything before the patchset)."""
    return key.rsplit(b"\x00", 1)[0] + b"\x00"


class _Stamp(msgspec.Struct):
    built_at: str
    payload_dir: str


_decode_stamp = read_back_json(msgspec.json.Decoder(_Stamp).decode)


def _payload_folder(home: Path, folder: str) -> Path | None:
    """The folder a record names when it has the shape `payload_dir` gives, else None: a damaged
    record may name any path (`projects/../..`), and sweeping removes the folder it names."""
    parts = PurePosixPath(folder).parts
    if len(parts) != 4 or parts[0] != "projects" or parts[2] != "dossiers" or {".", ".."} & set(parts):
        return None
    return home.joinpath(*parts)


def sweep(store: Store, key: bytes, keep: int | None = None) -> list[bytes]:
    """Drop all but the newest `keep` (default KEEP_PATCHSETS) dossiers of the review target of `key`
    (never `key` itself); return the keys removed."""
    keep = KEEP_PATCHSETS if keep is None else keep
    table = store.kv(TABLE)
    stamps = []
    for k, value in table.items(target_prefix(key)):
        try:
            stamp = _decode_stamp(value)
        except msgspec.DecodeError:
            stamp = _Stamp("", "")
        stamps.append((stamp.built_at, k, stamp.payload_dir))
    stamps.sort(reverse=True)
    removed = []
    for _, k, folder in stamps[keep:]:
        if k == key:
            continue
        table.delete(k)
        if (path := _payload_folder(Path(store.home), folder)) is not None:
            shutil.rmtree(path, ignore_errors=True)
        removed.append(k)
    return removed
