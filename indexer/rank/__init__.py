"""File rank: PageRank over the definition/reference graph (graph.py) and its stored arcs
(arcs.py).

The rank's numpy work is elementwise, summed in a fixed order and never handed to BLAS
(graph.py). numpy's bundled OpenBLAS would still start a thread pool of one thread per core
as numpy is imported: start-up work every index pays on the main side, on the cores the
extraction workers need. Every numpy import of the indexer comes after this package's, so
here the pool is kept to the calling thread, unless the host has chosen a size or imported
numpy already.
"""

import os
import sys

if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
