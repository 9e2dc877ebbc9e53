"""How many items a msgpack array or map holds, read from its head before any item is made:
what a reader counts of stored or carried values it need not decode (a store's summaries, a
bundle's containers). Imports msgspec alone."""

from __future__ import annotations

import msgspec


def length(raw: msgspec.Raw | bytes | memoryview) -> int:
    """The length of the msgpack array or map `raw`, read from its head; 0 for nil or any other
    value (the typed decode after refuses what is not a container)."""
    view = memoryview(raw)
    kind = view[0] if view else 0xC0
    if 0x80 <= kind <= 0x9F:
        return kind & 0x0F
    if kind == 0xDC or kind == 0xDE:
        return int.from_bytes(view[1:3], "big")
    if kind == 0xDD or kind == 0xDF:
        return int.from_bytes(view[1:5], "big")
    return 0
