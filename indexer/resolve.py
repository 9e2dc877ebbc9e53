"""Import resolution at snapshot assembly: every ImportSpec of the blob facts becomes
edges to files of the tree, or one UnresolvedImport marked "external" (outside the
tree) or "unresolved" (should be in the tree, is not).

A pure function of the file table, the blob facts and the bytes of configuration files
(go.mod, tsconfig.json, package.json, Cargo.toml). Each language family's rules live
in its own module; this one dispatches by import kind and sorts the results.
"""

from __future__ import annotations

from typing import Callable, Mapping, Protocol

from indexer.errors import RennetError
from indexer.model import BlobFacts, Edge, FileEntry, ImportSpec, UnresolvedImport
from indexer.resolve_c import CResolver
from indexer.resolve_go import GoResolver
from indexer.resolve_java import JavaResolver
from indexer.resolve_js import JsResolver
from indexer.resolve_python import PythonResolver
from indexer.resolve_rust import RustResolver
from indexer.resolve_scripting import BashResolver, CSharpResolver, PhpResolver, RubyResolver
from indexer.resolve_tree import UNRESOLVED, Outcome, TreePaths

REGULAR_MODES = (0o100644, 0o100755, 0o100664)


class Resolver(Protocol):
    def resolve(self, importer: str, imp: ImportSpec) -> Outcome: ...


Factory = Callable[[TreePaths, Mapping[str, BlobFacts], Callable[[str], bytes]], Resolver]

FACTORIES: dict[str, Factory] = {
    "python": lambda t, f, r: PythonResolver(t),
    "js": lambda t, f, r: JsResolver(t, r),
    "go": lambda t, f, r: GoResolver(t, r),
    "rust": lambda t, f, r: RustResolver(t, r),
    "java": lambda t, f, r: JavaResolver(t, f),
    "c": lambda t, f, r: CResolver(t),
    "ruby": lambda t, f, r: RubyResolver(t),
    "php": lambda t, f, r: PhpResolver(t),
    "csharp": lambda t, f, r: CSharpResolver(t, f),
    "bash": lambda t, f, r: BashResolver(t),
}

FAMILY = {
    "python": "python",
    "js": "js",
    "go": "go",
    "rust_mod": "rust",
    "rust_use": "rust",
    "java": "java",
    "c_include": "c",
    "c_system_include": "c",
    "ruby_require": "ruby",
    "php_require": "php",
    "php_use": "php",
    "csharp_using": "csharp",
    "bash_source": "bash",
}


def tree_of(files: list[FileEntry]) -> TreePaths:
    """The paths an import can land on: regular files (not symlinks, not submodules)."""
    return TreePaths(f.path for f in files if f.mode in REGULAR_MODES)


def forgiving(read: Callable[[str], bytes]) -> Callable[[str], bytes]:
    """A configuration file that cannot be read counts as empty: resolution degrades, never crashes."""

    def safe(path: str) -> bytes:
        try:
            return read(path)
        except (OSError, KeyError, ValueError, RennetError):
            return b""

    return safe


def resolve_imports(
    files: list[FileEntry],
    facts: Mapping[str, BlobFacts],
    read: Callable[[str], bytes],
) -> tuple[list[Edge], list[UnresolvedImport]]:
    """Resolve every import of every parsed file. Edges and unresolved imports come back
    sorted and free of duplicates; an import of the importing file itself is dropped."""
    tree = tree_of(files)
    read = forgiving(read)
    resolvers: dict[str, Resolver] = {}
    edges: set[Edge] = set()
    unresolved: set[UnresolvedImport] = set()
    for path in sorted(facts):
        if path not in tree:
            continue
        for imp in facts[path].imports:
            family = FAMILY.get(imp.kind)
            if family is None:
                unresolved.add(UnresolvedImport(path, imp.spec, imp.kind, imp.line, UNRESOLVED))
                continue
            if family not in resolvers:
                resolvers[family] = FACTORIES[family](tree, facts, read)
            outcome = resolvers[family].resolve(path, imp)
            if isinstance(outcome, str):
                unresolved.add(UnresolvedImport(path, imp.spec, imp.kind, imp.line, outcome))
                continue
            for target in outcome:
                if target != path:
                    edges.add(Edge(path, target, imp.kind, imp.line, imp.spec))
    return (
        sorted(edges, key=lambda e: (e.source, e.target, e.line, e.kind, e.spec)),
        sorted(unresolved, key=lambda u: (u.path, u.line, u.kind, u.spec, u.status)),
    )
