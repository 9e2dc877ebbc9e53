"""composer.json: name, version, `require` and `require-dev`, and `bin`."""

from __future__ import annotations

import json
import posixpath

from indexer.manifests import Collector, ManifestError, table_or_none

TABLES = (("require", "runtime"), ("require-dev", "dev"))


def _scope(name: str, scope: str) -> str:
    # `"php": ">=8.1"` constrains the interpreter, as go.mod's `go` line does; `ext-*` and
    # `lib-*` platform packages are still what the code needs at run time
    return "toolchain" if name.lower() in ("php", "php-64bit", "composer-runtime-api", "composer-plugin-api") else scope


def read_composer_json(c: Collector, data: bytes) -> None:
    doc = json.loads(data.decode("utf-8"))
    if not isinstance(doc, dict):
        raise ManifestError("composer.json is not an object")
    c.package(doc.get("name"), doc.get("version", ""))
    for table, scope in TABLES:
        for name, spec in sorted((table_or_none(doc, table) or {}).items()):
            if not isinstance(spec, str):
                raise ManifestError(f"{table}: the constraint of {name} is a {type(spec).__name__}, not text")
            c.dependency(name, spec, _scope(name, scope))
    binaries = doc.get("bin")
    if isinstance(binaries, str):
        binaries = [binaries]
    if binaries is not None and not isinstance(binaries, list):
        raise ManifestError(f"bin is a {type(binaries).__name__}, neither a path nor a list")
    for target in binaries or ():
        if not isinstance(target, str):
            raise ManifestError(f"bin: an entry is a {type(target).__name__}, not a path")
        c.declare(posixpath.basename(target), "composer_bin", target)
