"""Which Rust `use` declarations re-export a name to whom: what a path reaching the file of a
`use` through it sees. Rust passes a name a `use` brings in on by the `use`'s visibility
(`ImportSpec.visibility`): a `pub use` to every crate; `pub(crate)`, `pub(super)` and
`pub(in path)` within the crate (all read as the whole crate: they never reach another one);
a private `use` to its own module and the modules inside it (`use super::X` of a child, `use
crate::X` of a crate root's private import).

A path is inside the crate when it starts at `crate`, `self` or `super`, or (2018) at a
child module the file declares; any other path names another crate. A module is inside
another when its file is in that one's folder (a mod.rs, lib.rs or main.rs owns its folder,
a/foo.rs the folder a/foo/): the layout `mod` declarations give without `#[path]`."""

from __future__ import annotations

import posixpath
from typing import Any, Callable

from indexer.resolve_tree import parent

_DIR_OWNERS = ("mod.rs", "lib.rs", "main.rs")


def wider(a: str | None, b: str) -> str:
    """The wider of two visibilities: `pub`, then any restricted one, then private ("")."""
    if a is None:
        return b
    return max(a, b, key=lambda v: (v == "pub", bool(v)))


def module_folder(path: str) -> str:
    """The folder of the module file's children (and of every module inside it)."""
    return parent(path) if posixpath.basename(path) in _DIR_OWNERS else path[: -len(".rs")]


def inside(path: str, module_file: str) -> bool:
    """Is the file `path` a module inside the module of `module_file` (or that module itself)?"""
    folder = module_folder(module_file)
    return path == module_file or not folder or path.startswith(folder + "/")


def head_of(spec: str, names: tuple[str, ...] = ()) -> str:
    """The first segment of a `use` path: `crate` of `crate::{a, b}`, of `{crate::a}`."""
    text = spec or (names[0] if names else "")
    return text.lstrip("{").split("::", 1)[0].strip()


def in_crate(head: str, viewer: str, declares: Callable[[str], frozenset[str]]) -> bool:
    """Does a path of the file `viewer` starting at `head` stay in its crate? A query's path
    (viewer "") does when it starts at `crate`."""
    return head in ("crate", "self", "super") or head in declares(viewer)


def sees(visibility: str, module_file: str, viewer: str, head: str,
         declares: Callable[[str], frozenset[str]]) -> bool:
    """Does a path of the file `viewer` starting at `head`, reaching the file `module_file`,
    see what a `use` of visibility `visibility` there brings in? A query's path has the viewer
    "" (inside no module), or the crate root itself when it is `crate::Name` (every module of
    the crate is inside the root)."""
    if visibility == "pub":
        return True
    if not in_crate(head, viewer, declares):
        return False
    return bool(visibility) or inside(viewer, module_file)


class Declarations:
    """The outermost modules each Rust file declares (`mod b;`, `mod a { ... }` with file
    modules inside), from its import facts, read once per file: what a bare 2018 path starts at."""

    def __init__(self, snap: Any) -> None:
        self.snap = snap
        self._found: dict[str, frozenset[str]] = {}

    def __call__(self, path: str) -> frozenset[str]:
        found = self._found.get(path)
        if found is None:
            facts = self.snap.import_facts(path) if path.endswith(".rs") else None
            found = self._found[path] = frozenset(
                imp.spec.partition("::")[0] for imp in (facts.imports if facts else ()) if imp.kind == "rust_mod")
        return found


class Gate:
    """The files a definition's re-exports reach through a Rust `use` (`symbols._relays`), each
    with the widest visibility of the uses offering it there: which importers of such a file
    see it through the file (`passes`). Files offering it otherwise pass it to every importer."""

    def __init__(self, snap: Any) -> None:
        self.declares = Declarations(snap)
        self.visibility: dict[str, str] = {}

    def offer(self, path: str, spec: Any) -> None:
        if spec.kind == "rust_use":
            self.visibility[path] = wider(self.visibility.get(path), spec.visibility)

    def passes(self, edge: Any) -> bool:
        """Does the importer of the edge see what the file it imports re-exports?"""
        visibility = self.visibility.get(edge.target)
        return visibility is None or sees(visibility, edge.target, edge.source, head_of(edge.spec), self.declares)
