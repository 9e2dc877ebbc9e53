"""Where packets are written, and the rule that sweeps them.

Default folder: `<store home>/delta/<merge-base[:12]>..<head[:12]>/` holding
`packet.json` and `noise-offer.json`; a packet narrowed to some paths has a folder of its own,
`..<head[:12]>+<digest of the paths>`, so it never replaces the whole range's packet. Sweep rule: after a packet is written there, only
the KEEP most recently written range folders under `<home>/delta/` stay; older ones are
removed whole. A folder given with `--out` is the caller's and is never swept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

KEEP = 64


def default_folder(home: Path, merge_base_oid: str, head_oid: str, paths: list[str] | None = None) -> Path:
    """The range's folder; `paths` (the normalized paths a packet was narrowed to) a folder of
    their own, as a reviewer who narrows a packet still reads the whole one at its path."""
    name = f"{merge_base_oid[:12]}..{head_oid[:12]}"
    if paths:
        name += "+" + hashlib.sha256("\0".join(sorted(set(paths))).encode()).hexdigest()[:12]
    return home / "delta" / name


def sweep(home: Path, keep: int = KEEP) -> list[Path]:
    """Remove all but the `keep` newest range folders under `<home>/delta`; returns the removed."""
    root = home / "delta"
    try:
        folders = [p for p in root.iterdir() if p.is_dir() and ".." in p.name]
    except FileNotFoundError:
        return []
    folders.sort(key=lambda p: (_mtime(p), p.name), reverse=True)
    removed = []
    for old in folders[keep:]:
        shutil.rmtree(old, ignore_errors=True)
        removed.append(old)
    return removed


def _mtime(folder: Path) -> float:
    try:
        return os.stat(folder / "packet.json").st_mtime
    except OSError:
        return 0.0
