"""Reading a tree's manifests: which files are manifests, and each read by its ecosystem's reader."""

from __future__ import annotations

import posixpath
from typing import Callable

from indexer.contract.errors import TooLarge
from indexer.contract.limits import limits
from indexer.manifests import cargo, go, js, maven, php, python
from indexer.manifests.base import BAD_MANIFEST, Collector, Manifest, ManifestError, ManifestSet
from indexer.model import Dependency, FileEntry, Package, Skipped


def _parsers() -> dict[str, Callable[[Collector, bytes], None]]:
    return {
        "pyproject.toml": python.read_pyproject,
        "setup.cfg": python.read_setup_cfg,
        "setup.py": python.read_setup_py,
        "package.json": js.read_package_json,
        "go.mod": go.read_go_mod,
        "Cargo.toml": cargo.read_cargo_toml,
        "pom.xml": maven.read_pom,
        "composer.json": php.read_composer_json,
    }


ECOSYSTEM = {
    "pyproject.toml": "pypi",
    "setup.cfg": "pypi",
    "setup.py": "pypi",
    "package.json": "npm",
    "go.mod": "go",
    "Cargo.toml": "cargo",
    "pom.xml": "maven",
    "composer.json": "composer",
}


def is_manifest(f: FileEntry) -> bool:
    return f.path.rpartition("/")[2] in ECOSYSTEM and not f.skipped and f.mark != "vendored" and (
        "node_modules/" not in f.path
    )


def parse_manifests(files: list[FileEntry], read: Callable[[str], bytes]) -> ManifestSet:
    parsers = _parsers()
    manifests: list[Manifest] = []
    problems: list[Skipped] = []
    # a manifest's name first, with no call per file: few files have one
    named = [f for f in sorted((f for f in files if f.path.rpartition("/")[2] in ECOSYSTEM), key=lambda f: f.path)
             if is_manifest(f)]
    # Git stores a file once however many folders hold it, so one manifest at every folder
    # would be parsed and its declarations kept once a folder: past either limit, `too_large`.
    cap = limits()
    size = sum(f.size for f in named)
    if size > cap.manifest_bytes:
        raise TooLarge(f"the {len(named):,} manifests of this tree hold {size:,} bytes together, over the "
                       f"{cap.manifest_bytes:,} read of them ({cap.raise_hint('manifest_bytes')}); not read")
    items = 0
    for f in named:
        name = posixpath.basename(f.path)
        collector = Collector(f.path, ECOSYSTEM[name])
        try:
            parsers[name](collector, read(f.path))
        except (ManifestError, ValueError, TypeError, KeyError, AttributeError, SyntaxError, RecursionError, OSError):
            problems.append(Skipped(f.path, BAD_MANIFEST))
            continue
        m = collector.m
        items += len(m.dependencies) + len(m.declared) + len(m.members)
        if items > cap.manifest_items:
            raise TooLarge(f"the manifests of this tree declare over {cap.manifest_items:,} dependencies, entry "
                           f"points and workspace members together ({cap.raise_hint('manifest_items')}); "
                           f"not read further")
        manifests.append(m)
    return ManifestSet(manifests, problems)


def read_manifests(files: list[FileEntry], read: Callable[[str], bytes]) -> tuple[list[Package], list[Dependency]]:
    """Packages and dependencies of the tree, sorted. Problems: `parse_manifests(...).problems`."""
    found = parse_manifests(files, read)
    return found.packages, found.dependencies
