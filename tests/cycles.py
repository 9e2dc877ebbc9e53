"""What of Rennet's own only a cyclic collection would free. A call that leaves what it built in
reference cycles keeps it until the collector's oldest generation is scanned, which a resident
server waiting for its next call rarely reaches; each call runs with the collector paused
(indexer/pipeline/collector.py, `collector_paused`), so a test pauses it too and looks here.

Only what is Rennet's is judged: objects of classes and functions defined in its packages,
frames of its code, containers of facts, and the repository it opened. The interpreter's and
the libraries' own one-off garbage is not this suite's to judge."""

from __future__ import annotations

import gc
import types

import pygit2

from indexer.model import BlobFacts
from indexer.store.facts_table import FactsSummary
from indexer.store.records import StoredFacts

OWN = ("indexer", "delta", "context_tools")
FACTS = (BlobFacts, FactsSummary, StoredFacts)


def _own_module(name: object) -> bool:
    return isinstance(name, str) and name.partition(".")[0] in OWN


def _facts(o: object) -> bool:
    return issubclass(type(o), FACTS)


def _ours(o: object) -> bool:
    """Is `o` Rennet's: an object of its classes, a function or frame of its code, the
    repository a call opened, or a container holding facts? Asked of its type, never of the
    object: a weak proxy whose object is gone raises on any other question."""
    kind = type(o)
    if _own_module(kind.__module__) or issubclass(kind, pygit2.Repository):
        return True
    if kind in (types.FunctionType, types.MethodType):
        return _own_module(getattr(o, "__module__", None))
    if kind is types.FrameType:
        return _own_module(o.f_globals.get("__name__"))
    if issubclass(kind, dict):
        return any(_facts(v) for v in o.values())
    if issubclass(kind, (list, tuple, set, frozenset)):
        return any(_facts(v) for v in o)
    return False


def _described(o: object) -> str:
    kind = type(o)
    name = getattr(o, "__qualname__", "") if isinstance(o, (types.FunctionType, types.MethodType)) else ""
    return f"{kind.__module__}.{kind.__qualname__} {name}".rstrip()


def left_in_cycles() -> list[str]:
    """Rennet's objects that only a cyclic collection would free, by type."""
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return sorted(_described(o) for o in gc.garbage if _ours(o))
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
        gc.collect()  # what was saved, in its cycles again, is freed, never found by the next look
