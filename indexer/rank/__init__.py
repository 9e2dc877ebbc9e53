"""File rank: PageRank over the definition/reference graph (graph.py) and its stored arcs
(arcs.py)."""

import os
import sys

_SIZES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


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
