"""A record's list kept as the msgpack it came in (indexer/fleet/carried_list.py): read as the
list it encodes, refused with msgspec's own errors whatever its bytes, and stored as the very
bytes the list itself would be (indexer/store/records.py `pack_tail`)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.fleet.carried_list import CarriedList
from indexer.model import Dependency, Edge, EntryPoint, FileEntry, Package, UnresolvedImport
from indexer.store.database import pack, pack_pieces
from tests.test_bundle_bounds import python_files, record_of

_enc = msgspec.msgpack.encode
_EDGES = msgspec.msgpack.Decoder(list[Edge])
_UNRESOLVED = msgspec.msgpack.Decoder(list[UnresolvedImport])

_text = st.text(max_size=6)
_edges = st.lists(st.builds(Edge, _text, _text, _text, st.integers(0, 1 << 40), _text), max_size=40)


def _carried(items: list, kind: type = Edge) -> CarriedList:
    return CarriedList(msgspec.Raw(_enc(items)), msgspec.msgpack.Decoder(list[kind]), 1)


@settings(max_examples=150, deadline=None)
@given(items=_edges, start=st.integers(-50, 50), stop=st.integers(-50, 50), step=st.sampled_from([1, 2, -1]))
def test_a_carried_list_reads_as_the_list_it_encodes(items, start, stop, step):
    carried = _carried(items)
    assert len(carried) == len(items) and list(carried) == items
    assert carried == items and items == carried and not carried != items
    assert carried[start:stop:step] == items[start:stop:step]
    if items:
        assert carried[start % len(items)] == items[start % len(items)] and carried[-1] == items[-1]
    with pytest.raises(IndexError):
        carried[len(items)]


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=200) | _edges.map(_enc).map(lambda b: b[:-1]))
def test_any_bytes_are_a_carried_list_or_msgspecs_error(raw):
    """What `check` turns into `bad_bundle`: a value that is not an array of edges is refused
    as it is carried or as its items are first read, with msgspec's errors only."""
    try:
        list(CarriedList(msgspec.Raw(raw), _EDGES, 1))
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass


@pytest.mark.parametrize("n", [0, 1, 15, 16, 1025, (1 << 16) + 1])
def test_a_tail_of_carried_lists_packs_to_the_bytes_of_the_lists(n):
    """Encoded and compressed a block at a time, across every msgpack array head (fix, 16,
    32 bits), to the bytes `pack_tail` makes of the decoded lists."""
    from indexer.store.records import pack_record

    edges = [Edge(f"s{i:06d}", f"t{i}", "python", i, "") for i in range(n)]
    unresolved = [UnresolvedImport(f"p{i:06d}", "m", "python", i, "external") for i in range(n // 2)]
    record = record_of(python_files(3), edges)
    record.unresolved = unresolved
    listed = pack_record(record)
    record.edges, record.unresolved = _carried(edges), _carried(unresolved, UnresolvedImport)
    assert pack_record(record) == listed


@pytest.mark.parametrize("sizes", [[], [10], [200, 56], [257], [1, 1000, 3, 70_000]])
def test_pieces_pack_to_the_bytes_of_their_join(sizes):
    pieces = [bytes([i % 251]) * n for i, n in enumerate(sizes)]
    assert pack_pieces(iter(pieces)) == pack(b"".join(pieces))


def test_an_array_too_few_bytes_for_its_count_is_refused_before_its_bounds_are_read():
    """An item of an edge takes 29 bytes at least (every field is required); an array of one-byte
    items would have held a 64-byte object a byte while its bounds were read."""
    import tracemalloc

    smallest = len(_enc(Edge("", "", "", 0, "")))
    raw = _enc([None] * (1 << 16))
    tracemalloc.start()
    try:
        with pytest.raises(msgspec.ValidationError, match="65536 items in 65536 bytes"):
            CarriedList(msgspec.Raw(raw), _EDGES, smallest)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(raw), (peak, len(raw))
    assert smallest == 29 and len(CarriedList(msgspec.Raw(_enc([Edge("", "", "", 0, "")])), _EDGES, smallest)) == 1


# Strings that share prefixes and hold zero bytes and characters past the Basic Multilingual
# Plane: where an order of bytes could part from the order of strings.
_name = st.lists(st.sampled_from(["a", "b", "\x00", "\x01", "\xff", "\u0100", "\U0001f600"]), max_size=3).map("".join)


@settings(max_examples=150, deadline=None)
@given(packages=st.lists(st.builds(Package, _name, _name, _name, _name), max_size=12),
       dependencies=st.lists(st.builds(Dependency, _name, _name, _name, _name, _name, _name), max_size=12),
       entry_points=st.lists(st.builds(EntryPoint, _name, _name, _name, _name, _name), max_size=12))
def test_carried_manifest_lists_fingerprint_and_pack_as_the_lists(packages, dependencies, entry_points):
    """The fingerprint sorts packages, dependencies and entry points; carried, they are ordered
    by their keys as bytes: the same lines, ties kept in the record's order."""
    from indexer.model import BlobFacts
    from indexer.store.canonical import fingerprint
    from indexer.store.records import pack_record

    files = python_files(2)
    record = record_of(files)
    record.packages, record.dependencies, record.entry_points = packages, dependencies, entry_points
    facts = {f.path: BlobFacts("python", 1) for f in files}
    listed, packed = fingerprint(record, facts), pack_record(record)
    record.packages, record.dependencies, record.entry_points = (
        _carried(packages, Package), _carried(dependencies, Dependency), _carried(entry_points, EntryPoint))
    assert fingerprint(record, facts) == listed and pack_record(record) == packed


_files = st.lists(st.builds(FileEntry, _name, _name, st.integers(0, 1 << 20), st.integers(0, 1 << 40),
                            st.integers(-1, 1 << 20), _name, _name, _name, _name, _name), max_size=40)


@settings(max_examples=150, deadline=None)
@given(files=_files, fan_in=st.dictionaries(_name, st.integers(0, 1 << 20), max_size=8),
       rank=st.dictionaries(_name, st.floats(0, 1), max_size=8))
def test_a_carried_file_table_fingerprints_and_packs_as_the_list(files, fan_in, rank):
    """The stored head keeps the file table by column, fan-in and rank by each file's path: a
    carried table makes them a block of files at a time, to the bytes `head_of` makes; and the
    file lines fingerprint the same."""
    from indexer.model import BlobFacts
    from indexer.store.canonical import fingerprint
    from indexer.store.records import pack_record

    files = sorted({f.path: f for f in files}.values(), key=lambda f: f.path)
    record = record_of(files)
    record.fan_in, record.rank = fan_in, rank
    facts = {f.path: BlobFacts("python", 1) for f in files[::2]}
    listed, packed = fingerprint(record, facts), pack_record(record)
    record.files = _carried(files, FileEntry)
    assert fingerprint(record, facts) == listed and pack_record(record) == packed


@pytest.mark.parametrize("n", [0, 15, 16, 1025, (1 << 16) + 1])
def test_a_carried_file_table_packs_across_every_array_head(n):
    from indexer.store.records import pack_record

    files = python_files(n)
    record = record_of(files)
    record.rank = {f.path: i / 7 for i, f in enumerate(files[::3])}
    listed = pack_record(record)
    record.files = _carried(files, FileEntry)
    assert pack_record(record) == listed
