"""What one blob's facts come to once decoded, bounded from their msgpack heads before any
of them is made.

A bundle's facts are decoded a blob at a time (indexer/fleet/carried_facts.py), so what an
import holds of them at once is the bytes they came in and one blob decoded. `weigh` bounds
the latter: each container's length, read from its head, times the most one of its items can
come to (a slot, its own object and one object a field, derived from the model's types, so a
field the model gains is weighed too), and five bytes a byte of the blob for the characters of
its strings (a string holding one character past the Basic Multilingual Plane is four bytes a
character, and decoding it holds its narrower form too while it widens). A container inside an
item (an import's names) is counted from its own head."""

from __future__ import annotations

import msgspec
from msgspec import inspect

from indexer.contract.msgpack_length import length
from indexer.fleet.msgpack_heads import containers, shape
from indexer.model import BlobFacts

# Object sizes in CPython on a 64-bit machine, headers only, rounded up (a string's characters
# are weighed by the blob's bytes).
_SLOT = 8  # a pointer in a list or tuple
_STR = 80  # a compact string's header, UCS-4 at most, and its terminator
_INT = 36  # an int of up to 64 bits
_FLOAT = 24
_BYTES = 40
_OBJECT = 32  # a struct's or a list's header, with the collector's
_TUPLE = 56
_LIST = 72
_DICT_ENTRY = 72  # an entry, its index slot and the room a table keeps free
# Bytes a byte of a string's UTF-8 comes to at most while it is decoded: four of characters (one
# character past the Basic Multilingual Plane widens the whole string to four bytes a character),
# and one of the narrower form CPython's decoder holds while it widens.
_CHARS = 5

# A byte of msgpack becomes at most this many bytes of objects, whatever field holds it: the
# costliest is a one-character string outside Latin-1 (3 bytes, 76 decoded and a slot), above a
# map entry of such a key and a small int (4 bytes, about 120). A blob this many times smaller
# than MAX_WEIGHT needs no weighing.
WORST_PER_BYTE = 32
MAX_WEIGHT = 112 << 20  # above an honest blob's at the extractor's caps (tests/test_bundle_memory.py)


def _weight(t: inspect.Type) -> int:
    """The most one value of type `t` comes to decoded, its strings' characters and the items
    of a container it holds apart."""
    if isinstance(t, inspect.StrType):
        return _STR
    if isinstance(t, inspect.IntType):
        return _INT
    if isinstance(t, inspect.FloatType):
        return _FLOAT
    if isinstance(t, (inspect.BoolType, inspect.NoneType)):
        return 0
    if isinstance(t, inspect.BytesType):
        return _BYTES
    if isinstance(t, inspect.UnionType):
        return max(map(_weight, t.types))
    if isinstance(t, inspect.TupleType):
        return _TUPLE + sum(_SLOT + _weight(x) for x in t.item_types)
    if isinstance(t, (inspect.ListType, inspect.VarTupleType)):
        return _LIST  # its items: `_item`, counted from its head
    if isinstance(t, inspect.DictType):
        return _LIST
    if isinstance(t, inspect.StructType):
        return _OBJECT + sum(_SLOT + _weight(f.type) for f in t.fields)
    raise TypeError(f"no weight for {t!r}: give facts_weight one")


def _container(t: inspect.Type) -> inspect.ListType | inspect.VarTupleType | inspect.DictType:
    """The container of a field `containers` names (`list[str] | None`: the list)."""
    kinds = t.types if isinstance(t, inspect.UnionType) else (t,)
    for k in kinds:
        if isinstance(k, (inspect.ListType, inspect.VarTupleType, inspect.DictType)):
            return k
    raise TypeError(f"{t!r} holds no container")


def _item(t: inspect.ListType | inspect.VarTupleType | inspect.DictType) -> int:
    """The most one item of the container `t` comes to, its slot included."""
    if isinstance(t, inspect.DictType):
        return _DICT_ENTRY + _weight(t.key_type) + _weight(t.value_type)
    return _SLOT + _weight(t.item_type)


class _Field(msgspec.Struct, frozen=True):
    """A container field of BlobFacts: what one of its items weighs, and for items that hold
    containers of their own (an import's names), how to read those heads and what their
    items weigh."""

    name: str
    item: int
    inner: msgspec.msgpack.Decoder | None = None  # decodes the list into its items' shapes
    inner_fields: tuple[str, ...] = ()
    inner_items: tuple[int, ...] = ()


def _fields() -> tuple[_Field, ...]:
    info = inspect.type_info(BlobFacts)
    assert isinstance(info, inspect.StructType)
    by_name = {f.encode_name: f for f in info.fields}
    found = []
    for name in containers(BlobFacts):
        kind = _container(by_name[name].type)
        field = _Field(name, _item(kind))
        item = kind.item_type if isinstance(kind, (inspect.ListType, inspect.VarTupleType)) else None
        if isinstance(item, inspect.StructType) and containers(item.cls):
            item_shape, names = shape(f"_{item.cls.__name__}Shape", item.cls)
            inner = {f.encode_name: f for f in item.fields}
            field = _Field(name, field.item, msgspec.msgpack.Decoder(list[item_shape]), names,  # type: ignore[valid-type]
                           tuple(_item(_container(inner[n].type)) for n in names))
        found.append(field)
    return tuple(found)


FactsShape, FACTS_CONTAINERS = shape("FactsShape", BlobFacts)
decode_shape = msgspec.msgpack.Decoder(FactsShape).decode
_FIELDS = _fields()
_OWN = _weight(inspect.type_info(BlobFacts))


def weigh(facts: msgspec.Struct, size: int) -> int:
    """At most what decoding a blob's facts of `size` bytes makes, from `facts`, their
    `decode_shape` (every list's length held to its cap before: an inner container's heads
    are read by decoding its list's items' shapes, which that cap bounds)."""
    total = _OWN + _CHARS * size
    for f in _FIELDS:
        raw = getattr(facts, f.name)
        n = length(raw)
        total += n * f.item
        if f.inner is not None and n:
            for one in f.inner.decode(raw):
                total += sum(length(getattr(one, name)) * w for name, w in zip(f.inner_fields, f.inner_items))
    return total
