"""composer.json: name, version, `require` and `require-dev`, and `bin`."""

from __future__ import annotations

import posixpath

from indexer.manifests.base import Collector, ManifestError, json_manifest, text_dependencies

TABLES = (("require", "runtime"), ("require-dev", "dev"))


def _scope(name: str, scope: str) -> str:
    # `"php": ">=8.1"` constrains the interpreter, as go.mod's `go` line does; `ext-*` and
    # `lib-*` platform packages are still what the code needs at run time
    return "toolchain" if name.lower() in ("php", "php-64bit", "composer-runtime-api", "composer-plugin-api") else scope


def read_composer_json(c: Collector, data: bytes) -> None:
    doc = json_manifest(c, data, "composer.json")
    text_dependencies(c, doc, TABLES, _scope)
    binaries = doc.get("bin")
    if isinstance(binaries, str):
        binaries = [binaries]
    if binaries is not None and not isinstance(binaries, list):
        raise ManifestError(f"bin is a {type(binaries).__name__}, neither a path nor a list")
    for target in binaries or ():
        if not isinstance(target, str):
            raise ManifestError(f"bin: an entry is a {type(target).__name__}, not a path")
        c.declare(posixpath.basename(target), "composer_bin", target)
