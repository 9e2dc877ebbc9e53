"""File rank: PageRank over the definition/reference graph (graph.py) and its stored arcs
(arcs.py)."""

import os
import sys

_SIZES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
# The address space numpy's import maps (its libraries and OpenBLAS's buffer), with a margin.
NUMPY_ROOM = 96 << 20


def hold_blas_pool() -> None:
    """Keep numpy's bundled OpenBLAS to the calling thread, for a process of our own.

    The rank's numpy work is elementwise, summed in a fixed order and never handed to BLAS
    (graph.py), yet OpenBLAS starts a thread a core as numpy is imported: start-up work every
    index pays on the cores the extraction workers need. Only the `rennet` script (and the
    benchmark's stand-in for it) calls this, before numpy is imported: a Python caller's own
    numpy keeps the pool it would have had. A size the host chose stands.
    """
    if "numpy" not in sys.modules and not any(name in os.environ for name in _SIZES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def load_numpy(doing: str = "numpy's import, for the rank") -> None:
    """Import numpy (for the rank, or `doing` whatever else needs it) once the address space it
    maps is there. Under a `ulimit -v`
    too small for it, the OpenBLAS numpy loads ends the process when its buffer cannot be
    mapped (`exit(1)` after a line of its own, out of Python's reach): the room is asked for
    first, and its lack is `out_of_memory`, as a library the loader could not map is."""
    if "numpy" in sys.modules:
        return
    from indexer.contract.memory_limit import memory_fault, room_for

    room_for(NUMPY_ROOM, doing)
    try:
        import numpy  # noqa: F401
    except ImportError as exc:
        if (short := memory_fault(exc, doing)) is not None:
            raise short from None
        raise
