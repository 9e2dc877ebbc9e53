"""Which Rust `use` declarations re-export a name to whom: what a path reaching the file of a
`use` through it sees. Rust passes a name a `use` brings in on by the `use`'s visibility
(`ImportSpec.visibility`): a `pub use` to every crate; `pub(crate)`, `pub(super)` and
`pub(in path)` within the crate (all read as the whole crate: they never reach another one);
a private `use` to its own module and the modules inside it (`use super::X` of a child, `use
crate::X` of a crate root's private import).

A path is inside the crate when it starts at `crate`, `self` or `super`, or is a bare one
that names none of the tree's crates (`CrateView.in_crate`). A module is inside
another when its file is in that one's folder (a mod.rs, lib.rs or main.rs owns its folder,
as does any crate root the caller knows of: a `[[bin]] path` file, tests/x.rs; a/foo.rs the
folder a/foo/): the layout `mod` declarations give without `#[path]`."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Callable

from indexer.resolve.tree import parent

if TYPE_CHECKING:
    from indexer.model import Edge, ImportSpec

_DIR_OWNERS = ("mod.rs", "lib.rs", "main.rs")


def wider(a: str | None, b: str) -> str:
    """The wider of two visibilities: `pub`, then any restricted one, then private ("")."""
    if a is None:
        return b
    return max(a, b, key=lambda v: (v == "pub", bool(v)))


def module_folder(path: str) -> str:
    """The folder of the module file's children (and of every module inside it)."""
    return parent(path) if posixpath.basename(path) in _DIR_OWNERS else path[: -len(".rs")]


def inside(path: str, module_file: str, folder_of: Callable[[str], str] = module_folder) -> bool:
    """Is the file `path` a module inside the module of `module_file` (or that module itself)?
    `folder_of` gives a module file's children's folder."""
    folder = folder_of(module_file)
    return path == module_file or not folder or path.startswith(folder + "/")


def head_of(spec: str, names: tuple[str, ...] = ()) -> str:
    """The first segment of a `use` path: `crate` of `crate::{a, b}`, of `{crate::a}`; `demo`
    of `::demo::X` (a leading `::` names a crate from 2018, the crate root's item in 2015, as
    the bare path does: resolve_rust reads both alike)."""
    text = spec or (names[0] if names else "")
    return text.lstrip("{").strip().removeprefix("::").split("::", 1)[0].strip()


class CrateView:
    """Whether a `use` path stays in the crate of the file writing it (`in_crate`), given what
    tells a name of one of the tree's crates (`names_crate`, asked once per name), and whether
    a module sees a private `use` of another (`sees`), given the folder of a module file's
    children (`folder_of`: a crate root owns its folder whatever its name, which only the
    caller's manifests tell)."""

    def __init__(self, names_crate: Callable[[str], bool], folder_of: Callable[[str], str] = module_folder) -> None:
        self.names_crate = names_crate
        self.folder_of = folder_of
        self._crates: dict[str, bool] = {}

    def in_crate(self, head: str, viewer: str) -> bool:
        """Does a path of the file `viewer` starting at `head` stay in its crate? One starting
        at `crate`, `self` or `super` does; a bare one reaching a file of the tree does unless
        it names one of the tree's crates (resolution takes a crate's name first; otherwise it
        is a child module from 2018, a path from the crate root in 2015). A query's path
        (viewer "") does only when it starts at `crate`."""
        if head in ("crate", "self", "super"):
            return True
        if not viewer:
            return False
        found = self._crates.get(head)
        if found is None:
            found = self._crates[head] = self.names_crate(head)
        return not found

    def sees(self, visibility: str, module_file: str, viewer: str, head: str) -> bool:
        """Does a path of the file `viewer` starting at `head`, reaching the file `module_file`,
        see what a `use` of visibility `visibility` there brings in? A query's path has the
        viewer "" (inside no module), or the crate root itself when it is `crate::Name` (every
        module of the crate is inside the root)."""
        if visibility == "pub":
            return True
        if not self.in_crate(head, viewer):
            return False
        return bool(visibility) or inside(viewer, module_file, self.folder_of)


class Gate:
    """The files a definition's re-exports reach through a Rust `use` (`symbols._relays`), each
    with the widest visibility of the uses offering it there: which importers of such a file
    see it through the file (`passes`). Files offering it otherwise pass it to every importer."""

    def __init__(self, view: CrateView) -> None:
        self.view = view
        self.visibility: dict[str, str] = {}

    def offer(self, path: str, spec: ImportSpec) -> None:
        if spec.kind == "rust_use":
            self.visibility[path] = wider(self.visibility.get(path), spec.visibility)

    def passes(self, edge: Edge) -> bool:
        """Does the importer of the edge see what the file it imports re-exports?"""
        visibility = self.visibility.get(edge.target)
        return visibility is None or self.view.sees(visibility, edge.target, edge.source, head_of(edge.spec))
