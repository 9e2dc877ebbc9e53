"""An estimate of the memory an object holds, for the byte budget of the answer cache.

Deep and bounded: containers larger than SAMPLE are weighed by an evenly spread sample of
their items, scaled to their length, so weighing a snapshot with a hundred thousand files
costs a few thousand object visits, not a walk of the whole heap. What a cached value only
points at and shares with every other (the store, a Git repository, a module, a class) is
not counted. An estimate, good to tens of percent: enough to keep a cache under its budget.
"""

from __future__ import annotations

import sys
import types
from typing import TypeVar

from msgspec import Raw

T = TypeVar("T")

SAMPLE = 64
MAX_DEPTH = 8
_ATOMS = (str, bytes, bytearray, int, float, bool, complex, type(None), memoryview)
RAW_OVERHEAD = 48  # a Raw's own object: a header and a pointer into the buffer it slices
_SHARED_MODULES = ("lmdb", "pygit2", "indexer.store.database", "threading", "networkx.classes.reportviews")


def _shared(obj: object) -> bool:
    if isinstance(obj, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return True
    return type(obj).__module__.startswith(_SHARED_MODULES)


def _sample(items: list[T]) -> tuple[list[T], float]:
    n = len(items)
    if n <= SAMPLE:
        return items, 1.0
    step = n / SAMPLE
    return [items[int(i * step)] for i in range(SAMPLE)], n / SAMPLE


def approx_bytes(obj: object) -> int:
    return int(_weigh(obj, 0, set()))


# A function of its own, not a closure: one calling itself through its own cell is a
# reference cycle, left (with the ids it saw) to the cyclic collector after every call.
def _weigh(o: object, depth: int, seen: set[int]) -> float:
    if id(o) in seen or _shared(o):
        return 0
    seen.add(id(o))
    if isinstance(o, Raw):
        # msgspec's Raw answers sys.getsizeof with an address, not a size: a snapshot's lazily
        # decoded columns would weigh petabytes and be dropped after every call. What a Raw
        # holds is its slice of the decoded message (the columns of one head share it).
        return RAW_OVERHEAD + len(o)
    try:
        size: float = sys.getsizeof(o)
    except TypeError:
        size = 64
    if isinstance(o, _ATOMS) or depth >= MAX_DEPTH:
        return size
    if isinstance(o, dict):
        pairs, scale = _sample(list(o.items()))  # one atomic copy: another thread may be filling it
        return size + scale * sum(_weigh(k, depth + 1, seen) + _weigh(v, depth + 1, seen) for k, v in pairs)
    if isinstance(o, (list, tuple, set, frozenset)):
        items, scale = _sample(list(o))
        return size + scale * sum(_weigh(i, depth + 1, seen) for i in items)
    fields = getattr(type(o), "__struct_fields__", None)  # msgspec Structs have no __dict__
    if fields is not None:
        return size + sum(_weigh(getattr(o, f, None), depth + 1, seen) for f in fields)
    slots = getattr(type(o), "__slots__", ())
    for name in (slots,) if isinstance(slots, str) else slots:
        size += _weigh(getattr(o, name, None), depth + 1, seen)
    state = getattr(o, "__dict__", None)
    if isinstance(state, dict):
        size += _weigh(state, depth + 1, seen)
    return size
