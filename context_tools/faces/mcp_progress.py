"""Progress notifications of a tool call that indexes, for an MCP client that asked for them
(`_meta.progressToken`).

An index of a large repository outlasts the request timeout many clients keep (the SDKs'
default is a minute), and several reset that timeout on each progress notification. A call
that indexes (`repo_index`, `delta_packet` and `dossier_build` on the way, any call of a
`--worktree` server) tells its start, its blobs parsed of the whole, then the assembly. MCP wants the
value to grow with each notification, over the whole call: a call that indexes two revs (a
packet's base and head) counts on from the first run's end.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from indexer.api import Progress
from indexer.contract.errors import Cancelled

# The least time between two notifications of one stage: a parse told every few blobs would
# flood the client's pipe with lines nobody reads.
MIN_GAP_SECONDS = 0.25

# The longest `progressToken` a call may send: the token comes back on each notification, and
# the SDKs use a request's id (an integer or a short string).
MAX_TOKEN_CHARS = 1024

Send = Callable[[float, float, str], None]
# The longest one notification may wait to be taken: over HTTP a client that never reads its
# stream fills it, and the call's index would wait on it holding one of the server's call slots
SEND_SECONDS = 5.0


class CallProgress:
    """One call's progress, told through `send(progress, total, message)` (None: the client asked
    for none); a send that fails (the client gone, or not reading) ends the call's
    notifications, never the index. Once `stop` is set (the client cancelled the call), the next
    point that reports raises `Cancelled`, which ends the index there."""

    def __init__(self, send: Send | None, clock: Callable[[], float] = time.monotonic,
                 stop: threading.Event | None = None) -> None:
        self._send: Send | None = send
        self._stop = stop
        self._clock = clock
        self._base = 0.0  # what the call's earlier index runs counted
        self._last = -1.0
        self._stage = ""
        self._when = 0.0

    @contextmanager
    def run(self) -> Iterator[Progress]:
        """One index run: blobs parsed count one each, the assembly one more."""
        base = self._base
        whole = [1.0]  # this run's units: its blobs to parse and the assembly

        def update(stage: str, done: int, total: int) -> None:
            if stage == "parse":
                whole[0] = total + 1.0
                self._tell(stage, base + done, base + whole[0], f"parsing: {done} of {total} blobs", done >= total)
            else:  # the assembly: every blob is parsed by now
                self._tell(stage, base + whole[0] - 0.5, base + whole[0], "assembling the snapshot", True)

        # at once: planning a large tree takes a while before the first blob is parsed
        self._tell("plan", base + 0.25, base + whole[0], "reading the tree", True)
        try:
            yield update
        finally:
            self._base = base + whole[0]  # a later run of the call counts on from here, failed or not
        self._tell("indexed", self._base, self._base, "indexed", True)

    def waiting(self, seconds: float) -> None:
        """The call waits for another indexer of the store (`seconds` so far): told below where
        the next run starts, growing with the wait."""
        value = self._base + 0.25 * (seconds + 1) / (seconds + 31)
        self._tell("wait", value, self._base + 1.0,
                   f"waiting for another index of this store to finish ({seconds:.0f} s)", True)

    def _tell(self, stage: str, value: float, total: float, message: str, last_of_stage: bool) -> None:
        if self._stop is not None and self._stop.is_set():
            raise Cancelled("the client cancelled this call; what was stored before stays whole")
        now = self._clock()
        if value <= self._last:
            return
        if stage == self._stage and not last_of_stage and now - self._when < MIN_GAP_SECONDS:
            return
        self._last, self._stage, self._when = value, stage, now
        if self._send is None:
            return
        try:
            self._send(value, total, message)
        except Exception:
            # a client gone mid-call, or one not reading what it asked for (its send timed out):
            # nothing more is sent to it, and the index goes on, its answer dropped later if so
            self._send = None
