"""Rust `mod` declarations and `use` paths -> module files of the tree.

A module is a file plus the directory its child modules live in: a crate root
(lib.rs, main.rs, src/bin/x.rs, tests/x.rs, ...) and a mod.rs keep children beside
themselves; any other a/foo.rs keeps them in a/foo/. `use` paths walk from the crate
root (`crate::`), the current module (`self::`), its parents (`super::`) or a crate of
the tree's own workspace, and resolve to the deepest module file that exists.
"""

from __future__ import annotations

import posixpath
import tomllib
from typing import Callable

from indexer.model import ImportSpec
from indexer.resolve_tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, parent

DIR_OWNERS = ("mod.rs", "lib.rs", "main.rs")
TARGET_DIRS = ("tests", "examples", "benches")


def split_use(spec: str) -> tuple[list[str], tuple[str, ...]]:
    """`crate::a::{b, c as d}` -> (["crate", "a"], ("b", "c")); `a::b as c` -> (["a", "b"], ())."""
    spec = spec.strip().rstrip(";")
    names: tuple[str, ...] = ()
    if "{" in spec:
        head, _, group = spec.partition("{")
        depth, item, items = 0, "", []
        for ch in group:
            if ch in "{}":
                depth += 1 if ch == "{" else -1
                if depth < 0:
                    break
                continue
            if ch == "," and depth == 0:
                items.append(item)
                item = ""
            elif depth == 0:
                item += ch
        items.append(item)
        names = tuple(
            n for n in (i.split(" as ")[0].strip().split("::")[0] for i in items) if n and n not in ("self", "*")
        )
        spec = head
    spec = spec.split(" as ")[0]
    return [s.strip() for s in spec.split("::") if s.strip() and s.strip() != "*"], names


class RustResolver:
    def __init__(self, tree: TreePaths, read: Callable[[str], bytes]) -> None:
        self.tree = tree
        self.manifests = {parent(p) for p in tree.by_name.get("Cargo.toml", [])}
        self.crates: dict[str, str] = {}  # crate name (underscored) -> its lib root file
        for path in tree.by_name.get("Cargo.toml", []):
            try:
                data = tomllib.loads(read(path).decode("utf-8", "replace"))
            except (tomllib.TOMLDecodeError, OSError):
                continue
            pkg = data.get("package")
            name = pkg.get("name") if isinstance(pkg, dict) else None
            lib = data.get("lib") if isinstance(data.get("lib"), dict) else {}
            root = join(parent(path), lib.get("path") if isinstance(lib.get("path"), str) else "src/lib.rs")
            if isinstance(name, str) and root in tree:
                self.crates.setdefault(name.replace("-", "_"), root)

    # -- crate and module structure ------------------------------------------------------
    def crate_root(self, path: str) -> str | None:
        d = parent(path)
        while True:
            if d in self.manifests:
                return self._root_in(d, path)
            if not d:
                break
            d = parent(d)
        d = parent(path)
        while True:  # no Cargo.toml: the nearest lib.rs / main.rs above
            hit = self.tree.first_existing((join(d, "lib.rs"), join(d, "main.rs")))
            if hit:
                return hit
            if not d:
                return None
            d = parent(d)

    def _root_in(self, crate_dir: str, path: str) -> str | None:
        rel = path[len(crate_dir) + 1 :] if crate_dir else path
        parts = rel.split("/")
        if rel == "build.rs":
            return path
        if parts[:2] == ["src", "bin"] and len(parts) >= 3:
            own = join(crate_dir, "src/bin", parts[2])
            return own if len(parts) == 3 else self.tree.first_existing((join(own, "main.rs"),))
        if parts[0] in TARGET_DIRS and len(parts) >= 2:
            own = join(crate_dir, parts[0], parts[1])
            return own if len(parts) == 2 else self.tree.first_existing((join(own, "main.rs"),))
        if rel == "src/main.rs":
            return path
        return self.tree.first_existing((join(crate_dir, "src/lib.rs"), join(crate_dir, "src/main.rs")))

    def module_dir(self, path: str) -> str:
        if posixpath.basename(path) in DIR_OWNERS or self.crate_root(path) == path:
            return parent(path)
        return path[: -len(".rs")]

    def child(self, directory: str, name: str) -> str | None:
        return self.tree.first_existing((join(directory, name + ".rs"), join(directory, name, "mod.rs")))

    def parent_module(self, directory: str, root: str) -> tuple[str, str] | None:
        up = parent(directory)
        if directory == parent(root) or not directory:
            return None
        if up == parent(root):
            return root, up
        hit = self.tree.first_existing((up + ".rs", join(up, "mod.rs")))
        return (hit, up) if hit else None

    # -- resolution ----------------------------------------------------------------------
    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        if imp.kind == "rust_mod":
            name = imp.spec.strip().rstrip(";").split()[-1] if imp.spec.strip() else ""
            hit = name and self.child(self.module_dir(importer), name)
            return (hit,) if hit else UNRESOLVED
        segments, grouped = split_use(imp.spec)
        names = imp.names or grouped
        if not segments:
            # `use {a::b, c}`: each item is a path of its own
            outcomes = [self._use(importer, split_use(n)[0], ()) for n in names]
            files = tuple(dict.fromkeys(t for o in outcomes if not isinstance(o, str) for t in o))
            if files:
                return files
            return UNRESOLVED if UNRESOLVED in outcomes or not outcomes else EXTERNAL
        return self._use(importer, segments, names)

    def _use(self, importer: str, segments: list[str], names: tuple[str, ...]) -> Outcome:
        if not segments:
            return UNRESOLVED
        start = self._start(importer, segments)
        if start is None:
            return UNRESOLVED if segments[0] in ("crate", "self", "super") else EXTERNAL
        file, directory = self._walk(*start[0], start[1])
        if not names:
            return (file,)
        # `use m::{a::b, C, self}`: each item goes as deep as modules exist below m
        return tuple(dict.fromkeys(self._walk(file, directory, n.split("::"))[0] for n in names))

    def _walk(self, file: str, directory: str, segments: list[str]) -> tuple[str, str]:
        for seg in segments:
            seg = seg.strip()
            hit = self.child(directory, seg) if seg not in ("self", "*", "") else None
            if not hit:
                break
            file, directory = hit, join(directory, seg)
        return file, directory

    def _start(self, importer: str, segments: list[str]) -> tuple[tuple[str, str], list[str]] | None:
        head, rest = segments[0], segments[1:]
        root = self.crate_root(importer)
        if head == "crate":
            return ((root, parent(root)), rest) if root else None
        if head in ("self", "super"):
            if root is None:
                return None
            current = (importer, self.module_dir(importer))
            if head == "super":
                while True:
                    up = self.parent_module(current[1], root)
                    if up is None:
                        return None
                    current = up
                    if not rest or rest[0] != "super":
                        break
                    rest = rest[1:]
            return current, rest
        if head in self.crates:
            lib = self.crates[head]
            return (lib, parent(lib)), rest
        # 2018 paths may start with a child module of the current module
        directory = self.module_dir(importer)
        hit = self.child(directory, head)
        if hit:
            return (hit, join(directory, head)), rest
        return None
