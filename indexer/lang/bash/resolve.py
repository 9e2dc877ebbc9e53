"""Shell `source` and `.` -> files of the tree."""

from __future__ import annotations

import re
from typing import Callable, Mapping

from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, normalize, parent

SHELL_VAR = re.compile(r"^(?:\$\{?\w+\}?|\$\(dirname [^)]*\)|\$\(cd [^)]*\))/")


class BashResolver:
    """`source x.sh` / `. "$DIR/x.sh"`: a leading directory variable is taken as the
    script's own directory (the `DIR=$(dirname "$0")` idiom); then the tree root."""

    def __init__(self, tree: TreePaths) -> None:
        self.tree = tree

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = SHELL_VAR.sub("", imp.spec.strip().strip("'\""))
        if not spec or "$" in spec:
            return UNRESOLVED
        if spec.startswith("/"):
            return EXTERNAL  # an absolute path on the machine (/etc/profile)
        for base in (parent(importer), ""):
            cand = normalize(join(base, spec))
            if cand is not None and cand in self.tree:
                return (cand,)
        return UNRESOLVED


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> BashResolver:
    return BashResolver(tree)
