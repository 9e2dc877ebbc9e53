"""package.json: name, version, the four dependency tables, `bin` and `main`."""

from __future__ import annotations

from indexer.manifests.base import Collector, ManifestError, json_manifest, text_dependencies

TABLES = (
    ("dependencies", "runtime"),
    ("devDependencies", "dev"),
    ("peerDependencies", "peer"),
    ("optionalDependencies", "optional"),
)


def read_package_json(c: Collector, data: bytes) -> None:
    doc = json_manifest(c, data, "package.json")
    text_dependencies(c, doc, TABLES)
    binaries = doc.get("bin")
    if isinstance(binaries, str):
        # a single bin is named after the package (without its scope)
        name = doc.get("name")
        name = name if isinstance(name, str) else ""
        c.declare(name.rsplit("/", 1)[-1], "npm_bin", binaries)
    elif isinstance(binaries, dict):
        for name, target in sorted(binaries.items()):
            if not isinstance(target, str):
                raise ManifestError(f"bin: the target of {name} is a {type(target).__name__}, not a path")
            c.declare(name, "npm_bin", target)
    elif binaries is not None:
        raise ManifestError(f"bin is a {type(binaries).__name__}, neither a path nor an object")
    main = doc.get("main")
    if isinstance(main, str):
        c.declare(c.package_name or "main", "npm_main", main)
    elif main is not None:
        raise ManifestError(f"main is a {type(main).__name__}, not a path")
    workspaces = doc.get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    if isinstance(workspaces, list):
        c.m.members = [w for w in workspaces if isinstance(w, str)]
