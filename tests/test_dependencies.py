"""Every module the project imports from outside itself is pinned in pyproject.toml.

A module reached only through another package's requirements (an SDK's own dependencies)
moves when that package's range allows it; one the project imports directly must be pinned
itself, or a fresh install may give it a version never tested.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWN = {"indexer", "delta", "context_tools", "corpora", "benchmarks", "tests"}
TYPING_ONLY = {"_typeshed"}  # read by the type checker, never imported at run time

# folder -> the optional dependencies (extras) it may import besides the main ones
FOLDERS = {"indexer": ("dask",), "delta": (), "context_tools": (), "corpora": (),
           "benchmarks": ("dask", "bench", "test"), "tests": ("test",)}
DATA = ROOT / "corpora" / "polyglot"  # the fixture repositories' sources: files indexed, not run


def _name(requirement: str) -> tuple[str, bool]:
    """(normalized distribution name, pinned to one version) of a requirement string."""
    m = re.match(r"\s*([A-Za-z0-9._-]+)\s*(==\s*[^,;\s]+)?\s*$", requirement)
    assert m, f"a requirement of an unexpected form: {requirement!r}"
    return re.sub(r"[-_.]+", "-", m.group(1)).lower(), m.group(2) is not None


def _imported(folder: Path) -> set[str]:
    """Top-level modules imported anywhere in the folder's Python files (in functions too)."""
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        if path.is_relative_to(DATA):
            continue
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.partition(".")[0])
    return found


def test_every_module_imported_from_outside_is_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    main = dict(map(_name, project["dependencies"]))
    extras = {extra: dict(map(_name, reqs)) for extra, reqs in project["optional-dependencies"].items()}
    assert all(main.values()) and all(all(e.values()) for e in extras.values()), "every requirement is =="
    providers = packages_distributions()
    unpinned = []
    for folder, allowed in FOLDERS.items():
        declared = set(main).union(*(extras[e] for e in allowed))
        for module in sorted(_imported(ROOT / folder) - OWN - TYPING_ONLY - set(sys.stdlib_module_names)):
            # an extra not installed here (jedi) is known by its module's name
            dists = {re.sub(r"[-_.]+", "-", d).lower() for d in providers.get(module, [module])}
            if not dists & declared:
                unpinned.append(f"{folder}: {module} ({', '.join(sorted(dists)) or 'not installed'})")
    assert not unpinned, unpinned
