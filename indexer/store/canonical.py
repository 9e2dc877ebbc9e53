"""The canonical serialization of a snapshot: JSON Lines, one record per line, and its fingerprint.

The same repository at the same OID always yields the same bytes: records come in a fixed
type order, each sorted, keys in a fixed order, floats in a fixed format. The fingerprint is
the sha256 of the extractor version line followed by these bytes.

Symbols are most of the lines, so a blob's symbols are stored as JSON lines already, each
opening with a tab (`symbols_json`): a file's symbol lines are then one replace of that byte by
the file's `"type":"symbol","path":...,` prefix. A tab is JSON whitespace that the compact
encoding never writes (inside a string it is escaped), and a one-byte replace runs at memory
speed where a longer pattern's search takes several times as long.
"""

from __future__ import annotations

import hashlib
from typing import Callable, Iterator, Mapping, Sequence, TypeVar

import msgspec

from indexer.contract.encode import encode_json
from indexer.model import LIST_BLOCK, BlobFacts, Edge, SnapshotRecord
from indexer.resolve.hierarchy import inherits_by_file
from indexer.store.facts_table import summaries_of
from indexer.store.symbol_lines import symbol_lines, symbols_json

_encode = encode_json  # compact, UTF-8, keys in struct / insertion order: one fixed form


class _FileLine(msgspec.Struct, tag_field="type", tag="file", omit_defaults=True):
    path: str
    blob: str
    mode: str
    size: int
    lines: int
    language: str
    mark: str | None
    mark_rule: str | None
    skipped: str | None
    target: str | None
    symbols: int
    occurrences: int
    occurrences_capped: bool
    fan_in: int
    rank: str
    symbols_capped: bool = False  # only on a file whose symbol list was cut: other lines keep their bytes
    parse_errors: int = 0  # only on a file whose parse had errors (BlobFacts.parse_error_total), as above


class _EdgeLine(msgspec.Struct, tag_field="type", tag="edge", rename={"source": "from", "target": "to"}):
    source: str
    target: str | None
    kind: str
    line: int
    spec: str
    status: str


class _InheritsLine(_EdgeLine, tag="edge", rename={"source": "from", "target": "to", "cls": "class"}):
    """A class's declared base (indexer/resolve/hierarchy.py): an edge line whose `class` is the
    class's qualified name and `base` the base's qualified name in `to` when resolved."""

    cls: str
    base: str | None


class _PackageLine(msgspec.Struct, tag_field="type", tag="package"):
    name: str
    version: str
    ecosystem: str
    manifest: str


class _DependencyLine(msgspec.Struct, tag_field="type", tag="dependency"):
    name: str
    spec: str
    scope: str
    ecosystem: str
    manifest: str
    package: str | None


class _EntryPointLine(msgspec.Struct, tag_field="type", tag="entry_point"):
    name: str
    kind: str
    path: str | None
    target: str | None
    manifest: str | None


_BLOCK = 4096  # records per piece: bounded pieces reuse the allocator's memory instead of new pages


def _lines_of(items: list[msgspec.Struct]) -> bytes:
    """One line per item, in the list's order."""
    if not items:
        return b""
    return b"\n".join(_encode(item) for item in items) + b"\n"


def _file_lines(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> Iterator[bytes]:
    """`{"type":"file",...}` per file, encoded a block of files per call: the tagged struct's
    boundary `},{"type":"file",` holds an unescaped quote after a brace, so it is only ever a
    boundary. (At 100,000 files every step per file counts: modes are formatted once each.) A
    bundle's files, decoded from its bytes a block per read, are read a smaller block at a time;
    its fan-in and rank, looked up in the files' order, decode each block of theirs once."""
    fan_in, rank = record.fan_in.get, record.rank.get
    files = record.files
    summary = summaries_of(facts).get
    modes: dict[int, str] = {}
    size = _BLOCK if isinstance(files, list) else LIST_BLOCK
    for start in range(0, len(files), size):
        block = []
        for f in files[start:start + size]:
            path = f.path
            mode = modes.get(f.mode)
            if mode is None:
                mode = modes[f.mode] = f"{f.mode:06o}"
            b = summary(path)
            block.append(_FileLine(
                path, f.blob, mode, f.size, f.lines, f.language, f.mark or None, f.mark_rule or None,
                f.skipped or None, f.target or None,
                b.symbol_total if b is not None else 0,
                (b.occurrence_count or len(b.occurrences)) if b is not None else 0,
                b.occurrences_capped if b is not None else False,
                fan_in(path, 0), f"{rank(path, 0.0):.9f}",
                b.symbols_capped if b is not None else False,
                b.parse_error_total if b is not None else 0))
        yield _encode(block)[1:-1].replace(b'},{"type":"file",', b'}\n{"type":"file",') + b"\n"


def chunks(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> Iterator[bytes]:
    """The serialization in pieces: one may hold many lines, or a part of one (a piece ending
    in a newline ends a line)."""
    yield from _file_lines(record, facts)
    summary = summaries_of(facts).get
    for f in record.files:
        blob_facts = summary(f.path)
        if blob_facts and (blob_facts.symbols_json or blob_facts.symbols):
            yield symbol_lines(f.path, blob_facts.symbols_json or symbols_json(blob_facts.symbols))
    yield from _rest_section(record, facts)


_EDGE_BOUNDARY = b'},{"from":'


def _resolved_lines(edges: Sequence[Edge]) -> Iterator[bytes]:
    """`{"type":"edge","from":...,"to":...,"kind":...,"line":...,"spec":...,"status":"resolved"}`
    per edge, in the record's order: the Edge fields in declared order, encoded a block per
    call. Like a symbol line's, the boundary replaced holds quotes, so it is only ever one."""
    head = b'{"type":"edge","from":'
    for start in range(0, len(edges), LIST_BLOCK):
        body = _encode(edges[start:start + LIST_BLOCK])
        yield head + body[len(b'[{"from":'):-2].replace(_EDGE_BOUNDARY, b',"status":"resolved"}\n' + head) \
            + b',"status":"resolved"}\n'


def _rest_section(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> Iterator[bytes]:
    """Edges (resolved ones in the record's order, then unresolved imports in theirs, then the
    classes' `inherits` edges),
    packages, dependencies and entry points: the lines after the symbols."""
    yield from _resolved_lines(record.edges)
    unresolved = record.unresolved
    for start in range(0, len(unresolved), LIST_BLOCK):
        yield _lines_of([_EdgeLine(u.path, None, u.kind, u.line, u.spec, u.status)
                         for u in unresolved[start:start + LIST_BLOCK]])
    for found in inherits_by_file(record, facts):  # a file's at a time: a map may hold many bases
        yield _lines_of([_InheritsLine(i.source, i.target or None, "inherits", i.line, i.spec, i.status, i.cls,
                                       i.base or None) for i in found])
    for packages in _in_order(record.packages, lambda p: (p.manifest, p.name)):
        yield _lines_of([_PackageLine(p.name, p.version, p.ecosystem, p.manifest) for p in packages])
    for dependencies in _in_order(record.dependencies, lambda d: (d.manifest, d.scope, d.name, d.spec)):
        yield _lines_of([_DependencyLine(d.name, d.spec, d.scope, d.ecosystem, d.manifest, d.package or None)
                         for d in dependencies])
    for entry_points in _in_order(record.entry_points, lambda e: (e.kind, e.name, e.path, e.target)):
        yield _lines_of([_EntryPointLine(ep.name, ep.kind, ep.path or None, ep.target or None, ep.manifest or None)
                         for ep in entry_points])


T = TypeVar("T")


def _in_order(items: Sequence[T], key: Callable[[T], tuple[str, ...]]) -> Iterator[list[T]]:
    """`sorted(items, key=key)`, a block at a time. A list is sorted at once; another sequence
    (a bundle's, decoded from its bytes on each read: indexer/fleet/carried_list.py) is
    ordered by each item's key as one bytes that sorts as the tuple does, and its items read in
    that order a block at a time, so that only their keys are held, never all of them decoded."""
    if isinstance(items, list):
        yield sorted(items, key=key)
        return
    keys = [_sortable(key(item)) for item in items]
    order = sorted(range(len(keys)), key=keys.__getitem__)  # stable, as `sorted` of the items is
    del keys
    for start in range(0, len(order), LIST_BLOCK):
        yield [items[i] for i in order[start:start + LIST_BLOCK]]


def _sortable(fields: tuple[str, ...]) -> bytes:
    """Bytes that compare as the tuple of strings does: UTF-8 keeps the order of code points,
    and each string ends in a zero byte, one inside it escaped as zero and 0xFF (a byte UTF-8
    never holds), so that a string sorts before any it is a prefix of."""
    return b"".join(f.encode("utf-8", "surrogatepass").replace(b"\x00", b"\x00\xff") + b"\x00" for f in fields)


def lines(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> Iterator[bytes]:
    """One record per item, each ending in a newline."""
    held: list[bytes] = []
    for chunk in chunks(record, facts):
        held.append(chunk)
        if chunk.endswith(b"\n"):
            yield from b"".join(held).splitlines(keepends=True)
            held.clear()


def fingerprint(record: SnapshotRecord, facts: Mapping[str, BlobFacts]) -> str:
    """The sha256 of the extractor version line and the serialization, hashed as it is made,
    chunk by chunk: joining the chunks into larger pieces copies every byte once more, and
    handing them to a hashing thread costs more in switches of the interpreter lock than the
    hashing itself."""
    digest = hashlib.sha256(f"rennet-snapshot extractor={record.extractor_version}\n".encode())
    update = digest.update
    for chunk in chunks(record, facts):
        update(chunk)
    return digest.hexdigest()
