"""A record's list or map kept as the msgpack it came in (indexer/fleet/carried_list.py): read
as the list or map it encodes, refused with msgspec's own errors whatever its bytes, and stored
as the very bytes the list or map itself would be (indexer/store/records.py `pack_tail`,
`_head_pieces`)."""

from __future__ import annotations

from unittest.mock import patch

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.fleet import carried_list
from indexer.fleet.carried_list import CarriedList, CarriedMap
from indexer.model import Dependency, Edge, EntryPoint, FileEntry, Package, UnresolvedImport
from indexer.store.database import pack, pack_pieces
from indexer.store.records import map_head
from tests.examples import examples
from tests.test_bundle_bounds import python_files, record_of

_enc = msgspec.msgpack.encode
_EDGES = msgspec.msgpack.Decoder(list[Edge])
_UNRESOLVED = msgspec.msgpack.Decoder(list[UnresolvedImport])

_text = st.text(max_size=6)
_edges = st.lists(st.builds(Edge, _text, _text, _text, st.integers(0, 1 << 40), _text), max_size=40)


def _carried(items: list, kind: type = Edge) -> CarriedList:
    return CarriedList(msgspec.Raw(_enc(items)), msgspec.msgpack.Decoder(list[kind]), 1)


_FAN_IN = msgspec.msgpack.Decoder(dict[str, int])


def _carried_map(entries: dict, kind: type = int) -> CarriedMap:
    return CarriedMap(msgspec.Raw(_enc(entries)), msgspec.msgpack.Decoder(dict[str, kind]))


@settings(max_examples=examples(150), deadline=None)
@given(items=_edges, start=st.integers(-50, 50), stop=st.integers(-50, 50), step=st.sampled_from([1, 2, -1]))
def test_a_carried_list_reads_as_the_list_it_encodes(items, start, stop, step):
    carried = _carried(items)
    assert len(carried) == len(items) and list(carried) == items
    assert carried == items and items == carried and not carried != items
    assert carried[start:stop:step] == items[start:stop:step]
    if items:
        assert carried[start % len(items)] == items[start % len(items)] and carried[-1] == items[-1]
        assert carried != items[:-1]  # a list one shorter, or one longer, however many it holds
    assert carried != [*items, Edge("a.py", "b.py", "python", 1, "")]
    with pytest.raises(IndexError):
        carried[len(items)]


@settings(max_examples=examples(200), deadline=None)
@given(raw=st.binary(max_size=200) | _edges.map(_enc).map(lambda b: b[:-1]))
def test_any_bytes_are_a_carried_list_or_msgspecs_error(raw):
    """What `check` turns into `bad_bundle`: a value that is not an array of edges is refused
    as it is carried or as its items are first read, with msgspec's errors only."""
    try:
        list(CarriedList(msgspec.Raw(raw), _EDGES, 1))
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass


# Strings that share prefixes: keys a lookup's bisection must tell apart.
_key = st.text(alphabet="ab\x00\U0001f600", max_size=4)  # one draw a string, not one a character


@settings(max_examples=examples(200), deadline=None)
@given(keys=st.lists(_key, unique=True, max_size=40), asked=st.lists(_key, max_size=20),
       block=st.sampled_from([1, 3, 1024]))
def test_a_carried_map_reads_as_the_map_it_encodes(keys, asked, block):
    """A map whose keys increase (as a record's fan-in and rank must: the checks hold their
    keys to the files' order) reads as the dict it encodes, a block at a time: each key looked
    up in order, in reverse or not at all, and one it lacks, whichever block it falls in."""
    entries = {key: i for i, key in enumerate(sorted(keys))}
    with patch.object(carried_list, "LIST_BLOCK", block):
        carried = _carried_map(entries)
        assert len(carried) == len(entries) and list(carried) == list(entries)
        assert carried == entries and entries == carried and not carried != entries
        for key in [*entries, *asked, *reversed(entries), *asked]:
            assert carried.get(key) == entries.get(key) and carried.get(key, -1) == entries.get(key, -1)
            assert (key in carried) == (key in entries)
            if key not in entries:
                with pytest.raises(KeyError):
                    carried[key]
        if entries:
            first = next(iter(entries))
            assert carried != {**entries, first: -1} and carried != dict(list(entries.items())[1:])
            assert carried != {**entries, "\U0001f600" * 5: 0} and carried != list(entries)


@settings(max_examples=examples(200), deadline=None)
@given(raw=st.binary(max_size=200)
       | st.tuples(st.dictionaries(_key, st.integers(-1 << 63, (1 << 64) - 1) | st.floats() | st.none() | _key,
                                   max_size=20).map(_enc), st.booleans()).map(lambda cut: cut[0][:-1 if cut[1] else None])
       | st.lists(st.tuples(_key, st.integers(0, 9)), max_size=20).map(
           lambda pairs: map_head(len(pairs)) + b"".join(_enc(k) + _enc(v) for k, v in pairs)))
def test_any_bytes_are_a_carried_map_or_msgspecs_error(raw):
    """What `check` turns into `bad_bundle`: a value that is not a map of paths to integers is
    refused as it is carried or as its keys are first read, with msgspec's errors only (keys
    repeated or out of order are the checks' to refuse: tests/test_bundle_bounds.py)."""
    with patch.object(carried_list, "LIST_BLOCK", 4):
        try:
            carried = CarriedMap(msgspec.Raw(raw), _FAN_IN)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        try:
            assert len(list(carried)) <= len(carried)
            carried.get("a")
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass


def test_the_files_paths_looked_up_in_order_decode_each_block_of_a_map_twice_at_most():
    """docs/security.md: the fingerprint and the stored head ask for every file's fan-in and
    rank in the files' order, and a map may lack most of them: each block is decoded once for
    its first key and once looked in, however many of the paths asked fall in it."""
    entries = {f"p{i:05d}": i for i in range(0, 4 * 1024, 2)}  # two blocks; every other path absent
    reads = []

    class Counting:
        def decode(self, data: bytes) -> dict[str, int]:
            reads.append(len(data))
            return _FAN_IN.decode(data)

    carried = CarriedMap(msgspec.Raw(_enc(entries)), Counting())
    for i in range(4 * 1024 + 8):
        assert carried.get(f"p{i:05d}") == entries.get(f"p{i:05d}")
    assert len(reads) == 2 * 2


def test_a_map_too_few_bytes_for_its_count_is_refused_before_its_bounds_are_read():
    raw = map_head(1 << 16) + b"\xa0" * (1 << 16)
    with pytest.raises(msgspec.ValidationError, match="map of 65536 entries in 65536 bytes"):
        CarriedMap(msgspec.Raw(raw), _FAN_IN)
    with pytest.raises(msgspec.ValidationError, match="Expected `map`"):
        CarriedMap(msgspec.Raw(_enc([1, 2])), _FAN_IN)


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
        with pytest.raises(msgspec.ValidationError, match="array of 65536 items in 65536 bytes"):
            CarriedList(msgspec.Raw(raw), _EDGES, smallest)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(raw), (peak, len(raw))
    assert smallest == 29 and len(CarriedList(msgspec.Raw(_enc([Edge("", "", "", 0, "")])), _EDGES, smallest)) == 1


# Strings that share prefixes and hold zero bytes and characters past the Basic Multilingual
# Plane: where an order of bytes could part from the order of strings.
_name = st.text(alphabet="ab\x00\x01\xff\u0100\U0001f600", max_size=3)


@settings(max_examples=examples(150), deadline=None)
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


@settings(max_examples=examples(150), deadline=None)
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


@settings(max_examples=examples(150), deadline=None)
@given(files=_files, data=st.data(), block=st.sampled_from([1, 3, 1024]))
def test_carried_fan_in_and_rank_maps_fingerprint_and_pack_as_the_maps(files, data, block):
    """Fan-in and rank name some of the files, in their order: carried, each is read a block
    at a time as the file lines and the stored head's columns ask for every file's, to the
    same lines and bytes."""
    from indexer.model import BlobFacts
    from indexer.store.canonical import fingerprint
    from indexer.store.records import pack_record

    files = sorted({f.path: f for f in files}.values(), key=lambda f: f.path)
    record = record_of(files)
    record.fan_in = {f.path: data.draw(st.integers(0, 1 << 20)) for f in files if data.draw(st.booleans())}
    record.rank = {f.path: data.draw(st.floats(0, 1)) for f in files if data.draw(st.booleans())}
    facts = {f.path: BlobFacts("python", 1) for f in files[::2]}
    listed, packed = fingerprint(record, facts), pack_record(record)
    with patch.object(carried_list, "LIST_BLOCK", block):
        record.files = _carried(files, FileEntry)
        record.fan_in, record.rank = _carried_map(dict(record.fan_in)), _carried_map(dict(record.rank), float)
        assert fingerprint(record, facts) == listed and pack_record(record) == packed


@pytest.mark.parametrize("n", [0, 15, 16, 1025, (1 << 16) + 1])
def test_a_carried_file_table_packs_across_every_array_head(n):
    """Its fan-in and rank maps carried too, across every map head and many blocks."""
    from indexer.model import BlobFacts
    from indexer.store.canonical import fingerprint
    from indexer.store.records import pack_record

    files = python_files(n)
    record = record_of(files)
    record.fan_in = {f.path: i % 5 for i, f in enumerate(files) if i % 7}
    record.rank = {f.path: i / 7 for i, f in enumerate(files[::3])}
    facts = {f.path: BlobFacts("python", 1) for f in files}
    listed, packed = fingerprint(record, facts), pack_record(record)
    record.files = _carried(files, FileEntry)
    record.fan_in, record.rank = _carried_map(dict(record.fan_in)), _carried_map(dict(record.rank), float)
    assert pack_record(record) == packed and fingerprint(record, facts) == listed
