"""What the MCP SDK and the event loop log of a fault of memory, as one line of ours.

Under a `ulimit -v` the server may meet a MemoryError where no reply can be made: a
connection's read on the event loop (asyncio logs `Fatal read error on socket transport` and
its traceback), or a request the SDK's own code was handling (`modern request handler
raised`). Such a record is `rennet: out_of_memory: ...` on one line, each distinct line once;
every other record is written as it was (Python's last-resort handler: its message, then its
traceback).
"""

from __future__ import annotations

import logging
import sys

from indexer.contract.memory_limit import memory_fault

# The loggers whose records of a fault of memory would otherwise be tracebacks on stderr.
LOGGERS = ("asyncio", "mcp")


class MemoryLines(logging.StreamHandler):
    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setLevel(logging.WARNING)
        self._said: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        fault = memory_fault(exc, "serving a request") if exc is not None else None
        if fault is None:
            super().emit(record)
            return
        line = f"rennet: {fault.code}: {fault.message}"
        if line in self._said:
            return
        self._said.add(line)
        try:
            print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr gone: nothing left to tell
            pass


def one_line_for_memory() -> None:
    """From now on a fault of memory the SDK or the event loop logs is one line."""
    handler = MemoryLines()
    for name in LOGGERS:
        logging.getLogger(name).addHandler(handler)
