"""File rank: PageRank over the definition/reference graph (graph.py) and its stored arcs
(arcs.py).

The rank's numpy work is elementwise, summed in a fixed order and never handed to BLAS
(graph.py). numpy's bundled OpenBLAS would still start a thread pool of one thread per core
as numpy is imported: start-up work every index pays on the main side, on the cores the
extraction workers need. Every numpy import of the indexer comes after this package's, so
here the pool is kept to the calling thread, unless the host has chosen a size (any variable
OpenBLAS reads for one) or imported numpy already.
"""

import os
import sys

_SIZES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")

if "numpy" not in sys.modules and not any(name in os.environ for name in _SIZES):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
