"""A record's list kept as the msgpack it came in (indexer/fleet/carried_list.py): read as the
list it encodes, refused with msgspec's own errors whatever its bytes, and stored as the very
bytes the list itself would be (indexer/store/records.py `pack_tail`)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.fleet.carried_list import CarriedList
from indexer.model import Edge, UnresolvedImport
from indexer.store.database import pack, pack_pieces
from tests.test_bundle_bounds import python_files, record_of

_enc = msgspec.msgpack.encode
_EDGES = msgspec.msgpack.Decoder(list[Edge])
_UNRESOLVED = msgspec.msgpack.Decoder(list[UnresolvedImport])

_text = st.text(max_size=6)
_edges = st.lists(st.builds(Edge, _text, _text, _text, st.integers(0, 1 << 40), _text), max_size=40)


def _carried(items: list) -> CarriedList:
    return CarriedList(msgspec.Raw(_enc(items)), _EDGES if not items or isinstance(items[0], Edge) else _UNRESOLVED, 1)


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
    record.edges, record.unresolved = _carried(edges), _carried(unresolved)
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
