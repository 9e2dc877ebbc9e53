"""Delta packets: what a lens drafter is told about a change (see `delta.packet`).

`build_delta_packet(repo, base, head, ...) -> DeltaBuild` is the Python API. This
module stays light (the registry pack imports the package); the builder loads on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import os

    from delta.packet import DeltaBuild, DeltaPacket, PacketFile, PacketHunk  # noqa: F401  (exported lazily below)


def build_delta_packet(repo: str | os.PathLike[str], base: str, head: str, **options: Any) -> DeltaBuild:
    from delta.packet import build_delta_packet as _build

    return _build(repo, base, head, **options)


def __getattr__(name: str) -> type:
    if name in ("DeltaPacket", "DeltaBuild", "PacketFile", "PacketHunk"):
        from delta import packet

        return getattr(packet, name)
    raise AttributeError(name)


__all__ = ["DeltaBuild", "DeltaPacket", "build_delta_packet"]
