"""Container lengths and bin contents read from msgpack heads: what a bundle reader counts before
it decodes. A bundle is outside input, so each is held, on any value, to what msgspec itself
decodes: the length a head reads is the number of items the value holds, and a bin's content is
found only in a value that is one bin and nothing else."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.contract.msgpack_length import length
from indexer.fleet.msgpack_heads import bin_content, containers, shape
from indexer.model import BlobFacts, SnapshotRecord
from tests.examples import examples

_enc = msgspec.msgpack.encode

# Each head's bounds, one below, at and one above: fix (0..15), 16-bit (16..65535), 32-bit.
SIZES = [0, 1, 14, 15, 16, 17, 255, 256, 65534, 65535, 65536, 65537]
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(1 << 63), max_value=(1 << 64) - 1),
                   st.floats(allow_nan=False), st.text(max_size=40), st.binary(max_size=300))


@pytest.mark.parametrize("n", SIZES)
def test_an_array_or_a_map_reads_as_the_count_of_its_items_at_each_heads_bounds(n):
    items = list(range(n))
    assert length(_enc(items)) == n
    assert length(_enc(dict.fromkeys(items, 0))) == n
    assert length(memoryview(_enc(items))) == n and length(msgspec.Raw(_enc(items))) == n


@pytest.mark.parametrize("n", [0, 1, 0xFF, 0x100, 0xFFFF, 0x10000, 0x01020304, 0xFFFFFF, 0x1000000, 0xFFFFFFFF])
def test_a_head_alone_reads_as_the_count_it_declares_every_byte_of_it(n):
    """Only the head is read, its every byte big-endian: a bundle's count is refused for what
    it says before any item is looked for."""
    for kind in (b"\xdd", b"\xdf"):
        assert length(kind + n.to_bytes(4, "big")) == n
    if n <= 0xFFFF:
        for kind in (b"\xdc", b"\xde"):
            assert length(kind + n.to_bytes(2, "big")) == n


@settings(max_examples=examples(30))
@given(st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=20) | st.dictionaries(st.text(max_size=5), inner,
                                                                                       max_size=20), max_leaves=12))
def test_any_value_reads_as_the_items_it_holds_or_zero(value):
    expected = len(value) if isinstance(value, (list, dict)) else 0
    assert length(_enc(value)) == expected


def test_nothing_at_all_holds_nothing():
    """An empty value (msgspec's `Raw()`) holds no items, as nil does."""
    assert length(b"") == 0 and length(msgspec.Raw()) == 0 and length(b"\xc0") == 0


@pytest.mark.parametrize("n", [0, 1, 254, 255, 256, 257, 65534, 65535, 65536, 65537])
def test_a_bins_content_is_the_bytes_it_holds_at_each_heads_bounds(n):
    data = bytes(i % 251 for i in range(n))
    raw = _enc(data)
    found = bin_content(raw)
    assert found is not None and bytes(found) == data
    assert bin_content(raw + b"\x00") is None  # a byte past what the head says
    assert bin_content(raw[:-1]) is None  # cut short


@given(LEAVES.filter(lambda v: not isinstance(v, bytes)) | st.lists(st.binary(max_size=3), max_size=3))
def test_a_value_that_is_not_one_bin_has_no_bin_content(value):
    """A string is not bytes, however alike their heads: msgpack's str heads (0xa0.., 0xd9..)
    have no bin content, nor has any other value."""
    assert bin_content(_enc(value)) is None


@given(st.binary(max_size=600), st.binary(min_size=1, max_size=4))
def test_a_bin_followed_by_anything_is_not_one_bin(data, tail):
    assert bin_content(_enc(data) + tail) is None


def test_nothing_at_all_is_no_bin():
    assert bin_content(b"") is None


class _Kinds(msgspec.Struct):
    a_list: list[int]
    a_map: dict[str, int]
    a_sequence: Sequence[str]
    a_mapping: Mapping[str, int]
    a_tuple_of_any_length: tuple[str, ...]
    a_list_or_none: list[str] | None
    a_map_or_none: typing.Optional[dict[str, int]]  # noqa: UP045 - typing.Union, the other spelling of "or None"
    a_pair: tuple[str, int]
    a_number: int
    a_string: str
    text_or_none: str | None
    renamed: list[int] = msgspec.field(name="r", default_factory=list)


def test_the_containers_are_the_fields_whose_value_chooses_its_length_optional_or_not():
    assert containers(_Kinds) == ("a_list", "a_map", "a_sequence", "a_mapping", "a_tuple_of_any_length",
                                  "a_list_or_none", "a_map_or_none", "r")


def test_a_record_and_a_blobs_facts_are_counted_in_every_list_and_map_they_hold():
    """`__all__` may be absent (None) and is still a list a bundle chooses the length of."""
    assert containers(SnapshotRecord) == ("files", "edges", "unresolved", "packages", "dependencies", "entry_points",
                                          "fan_in", "rank", "parse_errors")
    assert containers(BlobFacts) == ("symbols", "occurrences", "imports", "dunder_all", "bases", "exported_as",
                                     "parse_errors", "uses", "local_names", "definitions")


def test_a_shape_reads_each_container_as_its_bytes_and_an_absent_one_as_nil():
    cls, names = shape("_KindsShape", _Kinds)
    raw = msgspec.msgpack.encode({"a_list": [1, 2, 3], "a_number": 5, "r": []})
    found = msgspec.msgpack.decode(raw, type=cls)
    assert names == containers(_Kinds)
    assert length(found.a_list) == 3 and length(found.r) == 0 and bytes(found.a_map) == b"\xc0"
