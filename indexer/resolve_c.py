"""C/C++ `#include` -> header files of the tree.

`"x.h"` is looked up beside the including file first, then under the tree's include
directories (every directory named `include`), then anywhere the path ends in the
spec. `<x.h>` skips the first step; not found, it is a system header (external)."""

from __future__ import annotations

import posixpath

from indexer.model import ImportSpec
from indexer.resolve_tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, nearest, normalize, parent


class CResolver:
    def __init__(self, tree: TreePaths) -> None:
        self.tree = tree
        self.include_dirs = sorted(d for d in tree.dirs if posixpath.basename(d) == "include")

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip().strip('"<>').strip()
        if not spec:
            return UNRESOLVED
        system = imp.kind == "c_system_include"
        if not system:
            beside = normalize(join(parent(importer), spec))
            if beside is not None and beside in self.tree:
                return (beside,)
        clean = normalize(spec)
        if clean:
            hits = [join(d, clean) for d in self.include_dirs if join(d, clean) in self.tree]
            if not hits:
                hits = self.tree.ending_with(clean)
            if hits:
                return (nearest(importer, hits),)
        return EXTERNAL if system else UNRESOLVED
