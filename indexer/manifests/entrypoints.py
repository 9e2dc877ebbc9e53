"""Entry points of a snapshot: what a user runs.

From manifests: console / GUI scripts (pyproject, setup.cfg, setup.py, poetry) resolved
to the file of their module, package.json `bin` and `main`, Cargo `[[bin]]` targets,
composer.json `bin`.
From the tree's layout: Cargo's automatic bins (src/main.rs, src/bin/*.rs,
src/bin/*/main.rs). From blob facts: Go `package main` files with `func main` (named
after their folder, or after the file for a `//go:build ignore` program), Python
`__main__.py` files and `if __name__ == "__main__":` blocks. A declared entry point
whose file is not in the tree is kept with an empty `path`.
"""

from __future__ import annotations

import posixpath
from typing import Callable, Mapping

from indexer.lang.javascript.resolve import JsResolver
from indexer.lang.python.resolve import PythonModules
from indexer.manifests.base import Manifest, ManifestSet
from indexer.manifests.read import parse_manifests
from indexer.model import BlobFacts, EntryPoint, FileEntry
from indexer.resolve.imports import forgiving, tree_of
from indexer.resolve.tree import TreePaths, join, normalize, parent
from indexer.store.facts_table import summaries_of


def _python_target(modules: PythonModules, manifest_dir: str, target: str) -> str:
    """`pkg.cli:main [extra]` -> the file of pkg.cli, looked up beside the manifest first."""
    module = target.split("[", 1)[0].split(":", 1)[0].strip()
    dotted = [s for s in module.split(".") if s]
    if not dotted:
        return ""
    for base in (manifest_dir, join(manifest_dir, "src")):
        hit = modules.module_file(base, dotted)
        if hit:
            return hit
    found = modules.find(dotted)
    return found[1] if found else ""


def _declared(m: Manifest, tree: TreePaths, modules: PythonModules, js: JsResolver) -> list[EntryPoint]:
    here = parent(m.path)
    out = []
    for d in m.declared:
        if d.kind in ("console_script", "gui_script"):
            path = _python_target(modules, here, d.target)
        elif d.kind in ("npm_bin", "npm_main"):
            stem = normalize(join(here, d.target))
            path = (js.probe(stem) or "") if stem is not None else ""
        else:  # rust_bin, composer_bin: a path relative to the manifest
            stem = normalize(join(here, d.target))
            path = stem if stem is not None and stem in tree else ""
        out.append(EntryPoint(d.name, d.kind, path, d.target, m.path))
    return out


def _bin_subdirs(tree: TreePaths) -> dict[str, list[str]]:
    """Each folder named `bin`, to its subfolders, sorted: one walk over the tree's folders for
    all crates, where a walk for each crate with a src/bin was a square in the crates."""
    out: dict[str, list[str]] = {}
    for d in tree.dirs:
        up = parent(d)
        if up.rpartition("/")[2] == "bin":
            out.setdefault(up, []).append(d)
    for subs in out.values():
        subs.sort()
    return out


def _cargo_auto_bins(m: Manifest, tree: TreePaths, declared_paths: set[str],
                     bin_subdirs: Callable[[], dict[str, list[str]]]) -> list[EntryPoint]:
    if m.ecosystem != "cargo" or m.package is None:
        return []
    crate = parent(m.path)
    out = []
    main = join(crate, "src/main.rs")
    if main in tree and main not in declared_paths:
        out.append(EntryPoint(m.package.name, "rust_bin", main, "", m.path))
    bin_dir = join(crate, "src/bin")
    for path in tree.files_in(bin_dir):
        if path.endswith(".rs") and path not in declared_paths:
            out.append(EntryPoint(posixpath.basename(path)[: -len(".rs")], "rust_bin", path, "", m.path))
    # most crates have no src/bin: the folders are walked only once one has
    for sub in bin_subdirs().get(bin_dir, ()) if tree.is_dir(bin_dir) else ():
        path = join(sub, "main.rs")
        if path in tree and path not in declared_paths:
            out.append(EntryPoint(posixpath.basename(sub), "rust_bin", path, "", m.path))
    return out


def _from_sources(files: list[FileEntry], facts: Mapping[str, BlobFacts],
                  tree: TreePaths | None = None) -> list[EntryPoint]:
    """The files' entry points, of those in `tree` when given."""
    out = []
    summaries = summaries_of(facts)  # every file's markers; symbols decoded for Go `package main` only
    for f in files:
        if tree is not None and f.path not in tree:
            continue
        bf = summaries.get(f.path)
        if (bf is None or not (bf.main_block or bf.package_name == "main")) and not f.path.endswith("__main__.py"):
            continue  # most files: neither marker, nor the name (asked first without splitting the path)
        name = f.path.rpartition("/")[2]  # no posixpath.basename call
        if name == "__main__.py":
            out.append(EntryPoint(posixpath.basename(parent(f.path)) or "__main__", "python_main_file", f.path, "", ""))
        if bf is None:
            continue
        if bf.main_block and name != "__main__.py":  # a __main__.py is already the entry point
            out.append(EntryPoint(name.rsplit(".", 1)[0], "python_main_block", f.path, "", ""))
        if bf.package_name == "main" and f.path.endswith(".go") and not f.path.endswith("_test.go") and any(
            s.name == "main" and not s.container and s.kind in ("function", "func") for s in bf.symbol_list()
        ):
            # a `//go:build ignore` program is run by its file (`go run gen.go`), not its folder
            name = name[:-3] if bf.build_ignored else posixpath.basename(parent(f.path)) or "main"
            out.append(EntryPoint(name, "go_main", f.path, "", ""))
    return out


def find_entry_points(
    files: list[FileEntry],
    facts: Mapping[str, BlobFacts],
    read: Callable[[str], bytes],
    tree: TreePaths | None = None,
    found: ManifestSet | None = None,
) -> list[EntryPoint]:
    """Entry points declared by manifests and found in sources. `tree` and `found` (the tree's
    paths and parsed manifests) save building them again when the caller has them."""
    read = forgiving(read)
    tree = tree if tree is not None else tree_of(files)
    found = found if found is not None else parse_manifests(files, read)
    modules = PythonModules(tree)
    js = JsResolver(tree, read)
    out: list[EntryPoint] = []
    subdirs: list[dict[str, list[str]]] = []  # `_bin_subdirs`, made when a crate first asks

    def bin_subdirs() -> dict[str, list[str]]:
        if not subdirs:
            subdirs.append(_bin_subdirs(tree))
        return subdirs[0]

    for m in found.manifests:
        declared = _declared(m, tree, modules, js)
        out.extend(declared)
        out.extend(_cargo_auto_bins(m, tree, {e.path for e in declared if e.kind == "rust_bin"}, bin_subdirs))
    out.extend(_from_sources(files, facts, tree))
    return sorted(set(out), key=lambda e: (e.path, e.kind, e.name, e.target, e.manifest))
