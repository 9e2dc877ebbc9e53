"""The `blob_bytes` limit: how many bytes of blobs extraction reads for one snapshot.

Git stores a blob of a million lines, or thousands of blobs that differ by a line each, in a
few kilobytes of deltas, and parsing is paid by the byte. The blobs still to parse are
counted from their headers before any is read (`extract`), and every distinct blob of the
tree once its facts are all at hand (`assemble`), so a re-index gets a cold index's verdict.
"""

from __future__ import annotations

from indexer.contract.errors import TooLarge
from indexer.contract.limits import limits
from indexer.git.read import READ_CAP


def read_bytes(size: int) -> int:
    """What reading a blob of `size` bytes for its facts counts against the limit: its size, or
    nothing for one over `READ_CAP`, which is never read."""
    return size if size <= READ_CAP else 0


def check_read_bytes(total: int, *, partial: bool) -> None:
    """`too_large` when the blobs read for a snapshot hold over the `blob_bytes` limit: `total`
    counts every distinct blob of the tree, or (`partial`) those still to parse."""
    cap = limits()
    if total > cap.blob_bytes:
        what = "the blobs this snapshot would parse hold" if partial else "the files of this snapshot hold"
        raise TooLarge(f"{what} {total:,} bytes together, over the {cap.blob_bytes:,} a snapshot reads "
                       f"({cap.raise_hint('blob_bytes')}); not indexed")
