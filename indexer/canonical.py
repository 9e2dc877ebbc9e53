"""The canonical serialization of a snapshot: JSON Lines, one record per line, and its fingerprint.

The same repository at the same OID always yields the same bytes: records come in a fixed
type order, each sorted, keys in a fixed order, floats in a fixed format. The fingerprint is
the sha256 of the extractor version line followed by these bytes.
"""

from __future__ import annotations

import hashlib
from typing import Iterator, Mapping

import msgspec

from .model import BlobFacts, SnapshotRecord


_encode = msgspec.json.Encoder().encode  # compact, UTF-8, keys in insertion order: one fixed form


def _line(obj: dict) -> bytes:
    return _encode(obj) + b"\n"


def records(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> Iterator[dict]:
    for f in record.files:
        blob_facts = facts.get(f.path)
        yield {
            "type": "file", "path": f.path, "blob": f.blob, "mode": f"{f.mode:06o}", "size": f.size,
            "lines": f.lines, "language": f.language, "mark": f.mark or None, "mark_rule": f.mark_rule or None,
            "skipped": f.skipped or None, "target": f.target or None,
            "symbols": len(blob_facts.symbols) if blob_facts else 0,
            "occurrences": (blob_facts.occurrence_count or len(blob_facts.occurrences)) if blob_facts else 0,
            "occurrences_capped": blob_facts.occurrences_capped if blob_facts else False,
            "fan_in": record.fan_in.get(f.path, 0), "rank": f"{record.rank.get(f.path, 0.0):.9f}",
        }
    for f in record.files:
        blob_facts = facts.get(f.path)
        if not blob_facts:
            continue
        for s in blob_facts.symbols:
            yield {
                "type": "symbol", "path": f.path, "name": s.name, "kind": s.kind, "container": s.container or None,
                "qualified": s.qualified, "line": s.line, "end_line": s.end_line,
                "start_byte": s.start_byte, "end_byte": s.end_byte, "signature": s.signature,
            }
    edges = [{"type": "edge", "from": e.source, "to": e.target, "kind": e.kind, "line": e.line,
              "spec": e.spec, "status": "resolved"} for e in record.edges]
    edges += [{"type": "edge", "from": u.path, "to": None, "kind": u.kind, "line": u.line,
               "spec": u.spec, "status": u.status} for u in record.unresolved]
    edges.sort(key=lambda e: (e["from"], e["line"], e["spec"], e["to"] or "", e["kind"]))
    yield from edges
    for p in sorted(record.packages, key=lambda p: (p.manifest, p.name)):
        yield {"type": "package", "name": p.name, "version": p.version, "ecosystem": p.ecosystem,
               "manifest": p.manifest}
    for d in sorted(record.dependencies, key=lambda d: (d.manifest, d.scope, d.name, d.spec)):
        yield {"type": "dependency", "name": d.name, "spec": d.spec, "scope": d.scope, "ecosystem": d.ecosystem,
               "manifest": d.manifest, "package": d.package or None}
    for ep in sorted(record.entry_points, key=lambda e: (e.kind, e.name, e.path, e.target)):
        yield {"type": "entry_point", "name": ep.name, "kind": ep.kind, "path": ep.path or None,
               "target": ep.target or None, "manifest": ep.manifest or None}


def lines(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> Iterator[bytes]:
    for obj in records(record, facts):
        yield _line(obj)


def fingerprint(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> str:
    digest = hashlib.sha256(f"rennet-snapshot extractor={record.extractor_version}\n".encode())
    for chunk in lines(record, facts):
        digest.update(chunk)
    return digest.hexdigest()
