"""What a client may have in flight on an MCP face: requests handed to the server and not yet
answered, counted and weighed by the bytes they came in.

The SDK's server starts a task for every request it reads, and a task holds its arguments until
its answer is sent. A client that sends without reading its answers (or faster than calls are
answered) would otherwise make the server hold every request it ever sent. On stdio the reader
stops reading once the bound is met and goes on as answers go out; over HTTP a request past it
is answered 503 before its body is read.
"""

from __future__ import annotations

from typing import Hashable

MAX_REQUESTS = 64  # calls run 8 at a time (`mcp.CONCURRENT_CALLS`): the rest wait their turn
MAX_BYTES = 64 * 1024 * 1024  # sixteen requests at the 4 MiB a message may hold


class InFlight:
    """Requests taken and not answered: how many and their bytes, by request id (a client may
    reuse an id, so each id holds the sizes of every request taken under it)."""

    def __init__(self, requests: int = MAX_REQUESTS, max_bytes: int = MAX_BYTES) -> None:
        self.requests = requests
        self.max_bytes = max_bytes
        self.count = 0
        self.bytes = 0
        self._sizes: dict[Hashable, list[int]] = {}

    def fits(self, size: int) -> bool:
        """May one more request of `size` bytes be taken? One always may when none is in flight,
        whatever its size (a message is bounded where it is read)."""
        return self.count == 0 or (self.count < self.requests and self.bytes + size <= self.max_bytes)

    def take(self, key: Hashable, size: int) -> None:
        self._sizes.setdefault(key, []).append(size)
        self.count += 1
        self.bytes += size

    def grow(self, key: Hashable, size: int) -> None:
        """The newest request taken under `key` grew by `size` bytes (a body read in chunks)."""
        self._sizes[key][-1] += size
        self.bytes += size

    def over(self) -> bool:
        """Past the bound: more bytes in flight than it allows, held by more than one request."""
        return self.count > 1 and self.bytes > self.max_bytes

    def done(self, key: Hashable) -> None:
        """The request `key` names was answered, or cancelled (no answer follows); the oldest
        taken under that id is released. An id none was taken under releases nothing."""
        sizes = self._sizes.get(key)
        if not sizes:
            return
        size = sizes.pop(0)
        if not sizes:
            del self._sizes[key]
        self.count -= 1
        self.bytes -= size
