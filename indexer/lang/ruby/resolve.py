"""Ruby `require`, `require_relative` and `autoload` -> files of the tree."""

from __future__ import annotations

from typing import Callable, Mapping

from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, common_prefix_len, join, normalize, parent


class RubyResolver:
    """Paths beside the file ("./x": `require_relative`, or built from `__dir__`) resolve
    there; `require` and `autoload` names on the load path: the lib/ folders nearest the
    importer first, then spec/ and test/ folders (what RSpec and `rake test` add), then the
    root. Never the importer's own folder: Ruby's load path does not hold it, so a
    lib/rack/handler/thin.rb requiring "thin" means the gem, not itself."""

    def __init__(self, tree: TreePaths) -> None:
        self.tree = tree
        self.lib_dirs = sorted(d for d in tree.dirs if d == "lib" or d.endswith("/lib"))
        self.test_dirs = sorted(d for d in tree.dirs if d.rpartition("/")[2] in ("spec", "test"))
        self._load_paths: dict[str, list[str]] = {}

    def load_path(self, importer: str) -> list[str]:
        here = parent(importer)
        if here not in self._load_paths:
            def by_nearness(dirs: list[str]) -> list[str]:
                # nearest first; among equally near ones the shallowest (the repository's own lib/)
                return sorted(dirs, key=lambda d: (-common_prefix_len(importer, d + "/-"), d.count("/"), d))
            self._load_paths[here] = [*by_nearness(self.lib_dirs), *by_nearness(self.test_dirs), ""]
        return self._load_paths[here]

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip()
        if not spec or "#{" in spec:
            return UNRESOLVED  # empty or interpolated: a path only known when it runs
        # Ruby's require adds `.rb` to any other name: a file named exactly as written (a
        # script without an extension, `x.rake`) is never what it loads
        names = [spec] if spec.endswith(".rb") else [spec + ".rb"]
        beside = spec.startswith(("./", "../"))
        for base in [parent(importer), ""] if beside else self.load_path(importer):
            for name in names:
                cand = normalize(join(base, name))
                if cand is not None and cand in self.tree and cand != importer:
                    return (cand,)
        return UNRESOLVED if beside else EXTERNAL


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> RubyResolver:
    return RubyResolver(tree)
