"""The host a benchmark runs on (its machine line) and the trees it reads (a corpus checked out
at a rev), for every benchmark module."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path

import pygit2

ROOT = Path(__file__).resolve().parent.parent
GIB = 1024 * 1024 * 1024


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        mem = int(Path("/proc/meminfo").read_text().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    return {"nproc": os.cpu_count(), "cpu": cpu, "loadavg_at_start": " ".join(load), "memory_gib": round(mem / GIB, 1),
            "python": platform.python_version(), "platform": platform.platform(),
            "ctags": ctags_version(), "rennet_commit": head.stdout.strip()}


def ctags_version() -> str:
    exe = shutil.which("ctags")
    if not exe:
        return ""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0].split(",")[0] if out else ""


def checkout(repo_path: Path, rev: str, dest: Path) -> Path:
    """Write the tree at `rev` to `dest` (regular and executable files; links and gitlinks are not followed)."""
    marker = dest / ".rennet-bench-oid"
    repo = pygit2.Repository(str(repo_path))
    oid = str(repo.revparse_single(rev).peel(pygit2.Commit).id)
    if marker.exists() and marker.read_text() == oid:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)

    def walk(tree: pygit2.Tree, prefix: Path) -> None:
        prefix.mkdir(exist_ok=True)
        for e in tree:
            if e.filemode == pygit2.GIT_FILEMODE_TREE:
                walk(repo[e.id], prefix / e.name)
            elif e.filemode in (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE):
                (prefix / e.name).write_bytes(repo[e.id].data)
    walk(repo.revparse_single(rev).peel(pygit2.Tree), dest / "tree")
    marker.write_text(oid)
    return dest
