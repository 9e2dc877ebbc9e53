"""What of Rennet's own only a cyclic collection would free. A call that leaves what it built in
reference cycles keeps it until the collector's oldest generation is scanned, which a resident
server waiting for its next call rarely reaches; each call runs with the collector paused
(indexer/pipeline/collector.py, `collector_paused`), so a test pauses it too and looks here.

Only what is Rennet's is judged: objects of classes and functions defined in its packages,
frames of its code, containers of facts, and the repository it opened. The interpreter's and
the libraries' own one-off garbage is not this suite's to judge."""

from __future__ import annotations

import gc
import threading
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


def _collect() -> None:
    """A full collection run by this thread. `gc.collect()` does nothing while another thread's
    collection is under way (one whose finalizers let the GIL go, on any other thread of the
    process: xdist's channel, a pool's handler, one an earlier test left): a look then
    collected nothing, and what was garbage before it (a test's own `RepoBuilder` repository,
    in pygit2's cycle) was found by the next. It waits for that collection to end, then
    collects."""
    me = threading.get_ident()
    ran = threading.Event()
    ended = threading.Event()

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and threading.get_ident() == me and info["generation"] == 2:
            ran.set()
        elif phase == "stop":
            ended.set()

    gc.callbacks.append(watch)
    try:
        while True:
            ended.clear()
            gc.collect()
            if ran.is_set():
                return
            ended.wait()
    finally:
        gc.callbacks.remove(watch)


def left_in_cycles() -> list[str]:
    """Rennet's objects that only a cyclic collection would free, by type."""
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        _collect()
        return sorted(_described(o) for o in gc.garbage if _ours(o))
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
        _collect()  # what was saved, in its cycles again, is freed, never found by the next look
