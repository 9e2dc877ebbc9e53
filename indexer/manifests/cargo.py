"""Cargo.toml: `[package]`, dependency tables (also per target `[target.X.*]`),
`[workspace] members`, and `[[bin]]` targets."""

from __future__ import annotations

from indexer.manifests.base import Collector, ManifestError, table_or_none, toml_manifest

TABLES = (("dependencies", "runtime"), ("dev-dependencies", "dev"), ("build-dependencies", "build"))


def lib_crate(doc: dict) -> tuple[str, str] | None:
    """(the name code calls the manifest's library crate by, its root file relative to the
    manifest's folder): `[lib] name`, else `[package] name` with hyphens made underscores as
    rustc makes them (`my-crate` is `my_crate`); `[lib] path`, else src/lib.rs. None for a
    manifest naming no package (a virtual workspace). Lenient, as resolution reads any
    manifest: a key of the wrong type counts as absent."""
    pkg, lib = (table if isinstance(table := doc.get(key), dict) else {} for key in ("package", "lib"))
    name = lib.get("name") if isinstance(lib.get("name"), str) else pkg.get("name")
    if not pkg or not isinstance(name, str):
        return None
    root = lib.get("path")
    return name.replace("-", "_"), root if isinstance(root, str) else "src/lib.rs"


def bin_targets(doc: dict) -> list[tuple[str, str]]:
    """(name as written, root file relative to the manifest's folder or "" when `path` is
    not given) of each `[[bin]]` target of the manifest. Lenient, as `lib_crate`."""
    bins = doc.get("bin")
    return [(b["name"], b["path"] if isinstance(b.get("path"), str) else "")
            for b in (bins if isinstance(bins, list) else ()) if isinstance(b, dict) and isinstance(b.get("name"), str)]


def _deps(c: Collector, table: dict | None, scope: str) -> None:
    for name, value in sorted((table or {}).items()):
        if isinstance(value, str):
            c.dependency(name, value, scope)
        elif not isinstance(value, dict):
            raise ManifestError(f"dependency {name} is a {type(value).__name__}, neither a version nor a table")
        else:
            spec = value.get("version", "")
            if value.get("workspace") is True:
                spec = "workspace"
            real = value.get("package")
            c.dependency(real if isinstance(real, str) else name, spec if isinstance(spec, str) else "", "optional" if value.get("optional") else scope)


def read_cargo_toml(c: Collector, data: bytes) -> None:
    doc = toml_manifest(data)
    pkg = table_or_none(doc, "package")
    if pkg is not None:
        version = pkg.get("version", "")
        c.package(pkg.get("name"), "" if isinstance(version, dict) else version)  # `{workspace = true}` is not literal
    for table, scope in TABLES:
        _deps(c, table_or_none(doc, table), scope)
    targets = doc.get("target")
    if isinstance(targets, dict):
        for _, sub in sorted(targets.items()):
            if isinstance(sub, dict):
                for table, scope in TABLES:
                    _deps(c, table_or_none(sub, table), scope)
    workspace = doc.get("workspace")
    if isinstance(workspace, dict) and isinstance(workspace.get("members"), list):
        c.m.members = [m for m in workspace["members"] if isinstance(m, str)]
    bins = doc.get("bin")
    if isinstance(bins, list):
        for b in bins:
            if isinstance(b, dict) and isinstance(b.get("name"), str):
                path = b.get("path")
                c.declare(b["name"], "rust_bin", path if isinstance(path, str) else f"src/bin/{b['name']}.rs")
