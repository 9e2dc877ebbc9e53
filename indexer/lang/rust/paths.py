"""The module path a Rust file has in its crate, as code names it (`demo::net::pool` for
src/transport/pool.rs when src/lib.rs declares `#[path = "transport/tcp.rs"] mod net;` and
tcp.rs `mod pool;`), for `Definition.module`.

Asked only of .rs files: the nearest Cargo.toml above the file is found by looking up one
path per folder (no pass over the tree's paths), parsed once per answer, and the crate roots
it places (library, binaries) are walked down by their `mod` declarations (resolve_rust.
ModuleTree.path_to), reading the imports of the module files on the way only. A file no
declaration reaches (outside any crate, or declared inside a macro) has no crate path: the
caller shows its path-based name."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Iterable

from indexer.contract.decode import Undecodable, decode_toml
from indexer.lang.rust.resolve import TARGET_DIRS, ModuleTree, auto_target, target_roots
from indexer.resolve.tree import join, parent

if TYPE_CHECKING:
    from indexer.model import ImportSpec
    from indexer.store.snapshot import Snapshot


def snapshot_modules(snap: Snapshot) -> ModuleTree:
    """The Rust module tree of a snapshot, its files' `mod` declarations read as walked. It is
    handed functions of the snapshot alone: a method of the object keeping the tree would make
    a cycle holding the snapshot until the cyclic collector's next full pass."""
    return ModuleTree(partial(_holds, snap), partial(_imports_in, snap))


def _holds(snap: Snapshot, path: str) -> bool:
    return snap.file(path) is not None


def _imports_in(snap: Snapshot, path: str) -> Iterable[ImportSpec]:
    facts = snap.import_facts(path)
    return facts.imports if facts is not None else ()


class RustModulePaths:
    """Crate module paths of one snapshot's Rust files, each manifest and file worked out once."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.tree = snapshot_modules(snap)
        self._docs: dict[str, dict | None] = {}
        self._found: dict[str, tuple[str, str] | None] = {}  # a file's (crate path, crate root)

    def _exists(self, path: str) -> bool:
        return self.snap.file(path) is not None

    def of(self, path: str) -> str | None:
        """`crate::module::path` of the file, None when no crate's declarations reach it."""
        found = self._crate_of(path)
        return found[0] if found is not None else None

    def root_of(self, path: str) -> str | None:
        """The root file of the crate the file is a module of (src/lib.rs for src/net.rs),
        None when no crate's declarations reach it."""
        found = self._crate_of(path)
        return found[1] if found is not None else None

    def _crate_of(self, path: str) -> tuple[str, str] | None:
        if path not in self._found:
            self._found[path] = self._work_out(path)
        return self._found[path]

    def _work_out(self, path: str) -> tuple[str, str] | None:
        directory = self._manifest_dir(path)
        if directory is None:
            return None
        doc = self._docs[directory]
        if doc is None:  # _manifest_dir gives only folders with a manifest
            return None
        for name, root in self._roots(doc, directory, path):
            if root == path:
                return name, root
            chain = self.tree.path_to(root, path)
            if chain is not None:
                return "::".join([name, *chain]), root
        return None

    def _manifest_dir(self, path: str) -> str | None:
        d = parent(path)
        while True:
            if d not in self._docs:
                manifest = join(d, "Cargo.toml")
                self._docs[d] = _parsed(self.snap.blob_bytes(manifest)) if self._exists(manifest) else None
            if self._docs[d] is not None:
                return d
            if not d:
                return None
            d = parent(d)

    def _roots(self, doc: dict, directory: str, path: str) -> list[tuple[str, str]]:
        """(crate name, root) of the crates the file may be in: the binary its own folder is
        (src/bin/x/..., tests/x/...), the manifest's library and binaries, src/main.rs."""
        rel = path[len(directory) + 1:] if directory else path
        parts = rel.split("/")
        own = []
        folder = 2 if parts[:2] == ["src", "bin"] else 1 if parts[0] in TARGET_DIRS else 0
        if folder and len(parts) > folder:
            stem = parts[folder]
            for candidate in (f"{'/'.join(parts[:folder])}/{stem}", f"{'/'.join(parts[:folder])}/{stem}/main.rs"):
                name = auto_target(doc, candidate)
                if name and self._exists(join(directory, candidate)):
                    own.append((name, join(directory, candidate)))
        named = target_roots(doc, directory, self._exists)
        main = join(directory, "src/main.rs")
        if self._exists(main) and main not in {r for _, r in named}:
            named.append((auto_target(doc, "src/main.rs") or "", main))
        return [(n, r) for n, r in own + named if n]


def _parsed(data: bytes) -> dict:
    """A manifest's table; an unreadable one is empty (it still marks a crate's folder)."""
    try:
        return decode_toml(data.decode("utf-8", "replace"))
    except Undecodable:
        return {}
