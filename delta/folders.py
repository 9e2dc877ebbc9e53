"""Where packets are written, and the rule that sweeps them.

Default folder: `<store home>/delta/<merge-base[:12]>..<head[:12]>/` holding
`packet.json` and `noise-offer.json`; a packet built otherwise than by default (narrowed to
some paths, against a previous patchset, without elements, with a dossier, under other
caps) has a folder of its own, `..<head[:12]>+<digest of how>`, so it never replaces
another packet of the range. Sweep rule: after a packet is written there, only
the KEEP most recently written range folders under `<home>/delta/` stay; older ones are
removed whole. A folder given with `--out` is the caller's and is never swept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Sequence

KEEP = 64


def default_folder(home: Path, merge_base_oid: str, head_oid: str, how: Sequence[str] = ()) -> Path:
    """The range's folder; a packet built otherwise (`how`: a line for each way it differs
    from the default build) a folder of its own, as a reviewer who asked for one packet of the
    range still reads it at its path after another was built."""
    name = f"{merge_base_oid[:12]}..{head_oid[:12]}"
    if how:
        name += "+" + hashlib.sha256("\0".join(sorted(set(how))).encode()).hexdigest()[:12]
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
