"""The cyclic garbage collector, paused while indexing makes objects that are never garbage.

Kept apart from the stages so that a caller can pause it before importing them: importing
the build (pygit2, the store, the pipeline) makes tens of thousands of module, class and
function objects that live as long as the process, and the collector's young passes over
them cost a tenth of that import.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Indexing makes many small acyclic records (tree entries, decoded facts, the earlier and
    the new snapshot record): the cyclic collector's repeated passes over them would cost a
    good share of a re-index. Survivors then go to the oldest generation unscanned, rather
    than into one first young collection over all of them. An index, successful or failed,
    leaves nothing it built in reference cycles (tests/test_index_cycles.py): held only there,
    it would stay until that generation's rare full pass, which an idle server never reaches;
    reference counting frees it as the call ends."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()
