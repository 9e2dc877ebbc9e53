"""Packages, declared dependencies and declared entry points, read from the manifests
of a snapshot's tree: pyproject.toml, setup.cfg, setup.py (literal values only, never
executed), package.json, go.mod, Cargo.toml, pom.xml and composer.json.

A manifest that does not parse never stops the snapshot: it contributes nothing and
is listed in `ManifestSet.problems` as `Skipped(path, "bad_manifest")`. Manifests in
vendored trees (node_modules/, vendor/ ...) and files skipped at extraction are not read.

Scopes of a Dependency: runtime, dev, optional, build, test, peer (npm), indirect
(go.mod `// indirect`), toolchain (go.mod `go` / `toolchain` lines, composer.json `php`), provided and
system (Maven), as each ecosystem declares them.
"""

from __future__ import annotations

import re
from typing import Callable

import msgspec

from indexer.contract.decode import decode_json, decode_toml
from indexer.model import Dependency, Package, Skipped

BAD_MANIFEST = "bad_manifest"


class ManifestError(ValueError):
    """A manifest that cannot be read as its format; the message says why."""


class Declared(msgspec.Struct, frozen=True):
    """An entry point as a manifest declares it, before it is resolved to a file."""

    name: str
    kind: str  # console_script gui_script npm_bin npm_main rust_bin composer_bin
    target: str  # "pkg.cli:main", "./bin/x.js", "src/bin/tool.rs"


class Manifest(msgspec.Struct):
    """What one manifest file declares."""

    path: str
    ecosystem: str
    package: Package | None = None
    dependencies: list[Dependency] = msgspec.field(default_factory=list)
    declared: list[Declared] = msgspec.field(default_factory=list)
    members: list[str] = msgspec.field(default_factory=list)  # workspace members as written (Cargo, npm)


class ManifestSet(msgspec.Struct):
    manifests: list[Manifest]
    problems: list[Skipped]

    @property
    def packages(self) -> list[Package]:
        return sorted((m.package for m in self.manifests if m.package), key=lambda p: (p.manifest, p.name))

    @property
    def dependencies(self) -> list[Dependency]:
        deps = {d for m in self.manifests for d in m.dependencies}
        return sorted(deps, key=lambda d: (d.manifest, d.scope, d.name, d.spec))


def table_or_none(doc: dict, key: str) -> dict | None:
    """`doc[key]` when it is a table, None when absent; anything else makes the manifest bad."""
    value = doc.get(key)
    if value is not None and not isinstance(value, dict):
        raise ManifestError(f"{key} is a {type(value).__name__}, not a table")
    return value


def json_manifest(c: "Collector", data: bytes, what: str) -> dict:
    """A JSON manifest's top object (package.json, composer.json), with its package declared."""
    doc = decode_json(data.decode("utf-8"))
    if not isinstance(doc, dict):
        raise ManifestError(f"{what} is not an object")
    c.package(doc.get("name"), doc.get("version", ""))
    return doc


def toml_manifest(data: bytes) -> dict:
    """A TOML manifest's table (Cargo.toml, pyproject.toml)."""
    return decode_toml(data)


def text_dependencies(c: "Collector", doc: dict, tables: tuple[tuple[str, str], ...],
                      scope_of: Callable[[str, str], str] = lambda name, scope: scope) -> None:
    """Dependency tables mapping a name to a text spec (`"left-pad": "^1.0"`); a spec of
    another type makes the manifest bad."""
    for table, scope in tables:
        for name, spec in sorted((table_or_none(doc, table) or {}).items()):
            if not isinstance(spec, str):
                raise ManifestError(f"{table}: the spec of {name} is a {type(spec).__name__}, not text")
            c.dependency(name, spec, scope_of(name, scope))


class Collector:
    """Builds one Manifest: the package, then dependencies attributed to it."""

    def __init__(self, path: str, ecosystem: str) -> None:
        self.m = Manifest(path, ecosystem)
        self.package_name = ""

    def package(self, name: object, version: object = "") -> None:
        """A name or version that is there but not text makes the manifest bad, as it does
        for the ecosystem's own tools; an absent name (None) declares no package."""
        if name is not None and not isinstance(name, str):
            raise ManifestError(f"the package name is a {type(name).__name__}, not text")
        if version is not None and not isinstance(version, str):
            raise ManifestError(f"the package version is a {type(version).__name__}, not text")
        if name and name.strip():
            self.package_name = name.strip()
            self.m.package = Package(self.package_name, (version or "").strip(), self.m.ecosystem, self.m.path)

    def dependency(self, name: str, spec: str, scope: str) -> None:
        if name:
            self.m.dependencies.append(Dependency(name, spec.strip(), scope, self.m.ecosystem, self.m.path, self.package_name))

    def declare(self, name: str, kind: str, target: str) -> None:
        if name and target:
            self.m.declared.append(Declared(name.strip(), kind, target.strip()))


REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$", re.DOTALL)


def split_requirement(text: str) -> tuple[str, str]:
    """PEP 508 `name[extras] spec; markers` -> (name, "spec; markers" as written)."""
    m = REQUIREMENT.match(text)
    if not m:
        return "", ""
    return m.group(1), m.group(3).strip()


