"""Typed records of the Repo Map.

Leaf records hold strings and numbers only, so they can never be part of a reference cycle:
they are built with `gc=False`, untracked by the cyclic collector, which then never walks the
hundreds of thousands of symbols, occurrences, files and edges a large snapshot holds.

Blob facts are a pure function of (blob bytes, language, extractor version);
a snapshot is the Repo Map at one commit OID, assembled from the blob facts of
its tree. Structs encode field by field in declaration order, which keeps the
canonical serialization deterministic.
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter
from typing import Iterable, Iterator, Mapping, Sequence, TypeVar

import msgspec
from msgspec import Struct, field

from indexer.contract.read_back import read_back_json

# --- blob facts: what one blob's bytes prove -------------------------------------------

class Symbol(Struct, frozen=True, gc=False, omit_defaults=True):
    name: str
    kind: str  # class function method interface struct enum trait type module constant variable field macro namespace ...
    container: str  # dotted qualified container inside the file, "" at top level ("Flask" for Flask.route)
    line: int  # 1-based line of the name (past decorators and annotations; the byte span covers them)
    end_line: int  # 1-based, inclusive
    start_byte: int
    end_byte: int
    signature: str  # the definition's first line, stripped, at most 200 characters
    # C and C++: the preprocessor conditions the definition is written under, outermost first,
    # joined by ` && ` (`defined(_WIN32)`, `!defined(X)` in an `#else`; docs/languages.md); ""
    # when none, and then left out of the stored and dumped record
    condition: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.container}.{self.name}" if self.container else self.name


decode_symbols = read_back_json(msgspec.json.Decoder(Symbol).decode_lines)  # `canonical.symbols_json`'s lines, as stored


class Occurrence(Struct, frozen=True, array_like=True, gc=False):
    """One identifier site. `role` is "definition", "call", "reference", "module" (a segment of
    an import's module path: `django` and `db` in `from django.db import models`, a Java
    package, a C# or PHP namespace, a Rust use path), "local" (a binding local to a function or
    block scope, a parameter or a local variable, or a use the scoping rules resolve to one:
    indexer/lang/local_scopes.py) or "identifier" (any other identifier; every site of the plain
    tokenizer)."""

    name: str
    line: int  # 1-based line of the name (past decorators and annotations; the byte span covers them)
    col: int  # 0-based byte column
    role: str


# Roles of sites that do not use a name some other file defines: the definition itself, a
# module path, which names a package or module (the import edge stands for it), not a symbol,
# and a local binding or a use of one.
NOT_USES = frozenset({"definition", "module", "local"})


class ImportSpec(Struct, frozen=True, gc=False, omit_defaults=True):
    """An import as written in the source; resolution to files happens at snapshot assembly.
    `names` are what the imported module calls them; `aliases` and `exports`, when not empty,
    line up with `names` ("" where a name is not renamed, not exported); an import of a module
    itself under another name (`import a.b as c`, Rust `use a::b as c`) has no names and one
    alias. A Rust group item is a use tree (`b::{c,x}`): its alias lists the aliases of the
    paths it names, joined by "," (`b::{c as d, x}` -> "d,"; see lang/rust/imports.py), which
    resolve_rust.use_bindings reads, not `local`."""

    kind: str  # python js go rust_mod rust_use rust_extern java c_include ... (each language's imports.py)
    spec: str  # "os.path", "./util", "github.com/x/y/pkg", "crate::a::b", "com.x.Y", "foo.h"
    line: int
    level: int = 0  # leading dots of a Python relative import; Rust: inline `mod { }` blocks around it
    names: tuple[str, ...] = ()  # names imported (`from a import b, c` -> ("b", "c"))
    aliases: tuple[str, ...] = ()  # the `as` names: `from a import b as c` -> ("c",); () when none is renamed
    # JS/TS: the names the file exports them under (`export { a as b } from` -> ("b",); an
    # imported binding a later `export { x }` names); () when none is exported
    exports: tuple[str, ...] = ()
    # Rust `use` and `extern crate`: its visibility as written, compact ("pub", "pub(crate)", "pub(super)",
    # "pub(in crate::a)"); "" for a private one (and `pub(self)`), which re-exports nothing
    # outside its module (context_tools.rust_reexports)
    visibility: str = ""

    def local(self, i: int) -> str:
        """The name the importing file gives `names[i]`: its alias, else the name itself (a
        Rust use tree's names: resolve_rust.use_bindings)."""
        alias = self.aliases[i] if self.aliases else ""
        return alias or self.names[i]


class Base(Struct, frozen=True, array_like=True, omit_defaults=True, gc=False):
    """A base a class-like definition declares, as written (indexer/resolve/hierarchy.py
    resolves it): `class App(web.Base)` -> Base("App", "web.Base", 1)."""

    cls: str  # the class's qualified name inside its file (container and name, dotted)
    # the base as written, without generic arguments: dotted (`web.Base`), or with its
    # language's own separator (Ruby and C++ `a::B`, PHP `\A\B`); Ruby's `< self` is the class
    # around, named from the top (`::A::Switch`)
    base: str
    line: int  # 1-based line of the base
    # how it is declared, where the order of a class's ancestors depends on it: Ruby "include",
    # "extend", "prepend" (a superclass: ""); PHP "use" (a trait); "" for any other base
    relation: str = ""
    # the scopes the class's declaration stands in, dotted, innermost first and the top ("")
    # last, where they are not those its qualified name shows (`a.b.C`: `a.b`, `a`, ""): Ruby's
    # lexical nesting around a class written with its scope (`class Foo::Bar` in `module A`:
    # ("A", ""), as `A::Foo` encloses no code there); () for those of its qualified name. The
    # outermost are left out past 4,096 characters (declared_bases.NESTING_CHARS)
    nesting: tuple[str, ...] = ()


class ParseError(Struct, frozen=True, array_like=True, omit_defaults=True, gc=False):
    """A region where the parse failed (tree-sitter's error recovery): an outermost ERROR node,
    or a missing node, a token the parser assumed where the source has none. What is defined in
    it, or after it, may be missing from the facts or misread (`BlobFacts.parse_errors`)."""

    line: int  # 1-based first line
    end_line: int  # 1-based, inclusive
    missing: str = ""  # a missing node's kind, the token assumed (`)`, `}`, `identifier`); "" for an ERROR


class BlobFacts(Struct, omit_defaults=True):  # stored: a field at its default costs no bytes
    language: str
    lines: int
    symbols: list[Symbol] = field(default_factory=list)
    occurrences: list[Occurrence] = field(default_factory=list)
    imports: list[ImportSpec] = field(default_factory=list)
    main_block: bool = False  # Python `if __name__ == "__main__":`
    # Python: the names of the module's `__all__` as its literal top-level statements spell
    # it out (indexer/lang/python/dunder_all.py); None when it has none or it is not read
    dunder_all: list[str] | None = None
    # the bases each class-like definition declares, in declaration order (`Base`)
    bases: list[Base] = field(default_factory=list)
    # JS/TS: the file's own top-level names it exports under another name, (local, exported) in
    # document order: `export default class Bar` -> ("Bar", "default"), `export { a as b }` ->
    # ("a", "b"); imported bindings it exports are in their import's `exports` (lang/javascript/imports.py)
    exported_as: list[tuple[str, str]] = field(default_factory=list)
    # JS/TS: the file exports by ES syntax (javascript.imports.es_module): a `require` of it binds its
    # module object, not its default
    es_module: bool = False
    package_name: str = ""  # Go package clause, Java/C# package or namespace declaration
    build_ignored: bool = False  # Go: a `//go:build ignore` constraint keeps it out of every build
    generated: str = ""  # rule that marked the content generated ("header:DO NOT EDIT"), "" if none
    # A parse with errors (a file mid-edit): the first regions where it failed
    # (grammars.PARSE_ERROR_REGIONS) and how many there are; the symbols and sites were read from
    # tree-sitter's recovery, so some in or after them may be missing or misread. Empty and 0
    # for a clean parse, and for a file not parsed (`skipped` says why)
    parse_errors: list[ParseError] = field(default_factory=list)
    parse_error_total: int = 0
    skipped: str = ""  # why the blob was not parsed: binary too_large lfs_pointer undecodable minified; "" if parsed
    occurrences_capped: bool = False  # the occurrence list reached its cap and may be incomplete
    # definitions nested too deep, past the per-file cap, or past what a file's facts may repeat
    # of names (and the bases past that) were not recorded (extract/tags.py)
    symbols_capped: bool = False
    # The sites are the plain tokenizer's (indexer/extract/tokens.py), a function of the bytes: stored
    # as what they sum to (`uses`, `occurrence_count`), made again from the blob when read.
    plain_sites: bool = False
    # Filled when the facts are stored: assembly reads these, never the full occurrence list.
    uses: dict[str, int] = field(default_factory=dict)  # name -> sites that are uses (not model.NOT_USES)
    # names whose sites are local bindings and their uses alone, no use of the name (sorted): a
    # file's names are its symbols', its uses' and these (context.novelty)
    local_names: list[str] = field(default_factory=list)
    occurrence_count: int = 0
    size: int = 0  # blob bytes, so a snapshot never asks Git for sizes it has seen
    # Filled when the facts are stored, so assembly never decodes a Symbol of an unchanged
    # blob: the symbols as the canonical serialization writes them (JSON lines; `symbols`
    # stays empty until a reader decodes it), their count, and what rank needs of them.
    symbols_json: bytes = b""
    symbol_count: int = 0
    definitions: dict[str, float] = field(default_factory=dict)  # name -> definition weight (graph.py)

    def symbol_list(self) -> list[Symbol]:
        """The symbols, decoded from `symbols_json` when these facts were loaded for assembly."""
        if self.symbols or not self.symbols_json:
            return self.symbols
        return decode_symbols(self.symbols_json)

    @property
    def symbol_total(self) -> int:
        """How many symbols, whether they are decoded or still in `symbols_json`."""
        return self.symbol_count or len(self.symbols)

    @property
    def import_total(self) -> int:
        return len(self.imports)


# --- snapshot: the Repo Map at one commit ----------------------------------------------

# The file table's entries that hold no text of a language: their `language` names what they are.
NOT_TEXT = frozenset({"binary", "symlink", "submodule"})


class FileEntry(Struct, frozen=True, gc=False):
    path: str
    blob: str  # hex OID ("" for a submodule; its commit is in `target`)
    mode: int  # git file mode: 0o100644, 0o100755, 0o120000, 0o160000
    size: int
    lines: int  # -1 when not a text file
    language: str  # "binary", "symlink", "submodule" or a language name / guess
    mark: str = ""  # "generated" | "vendored" | ""
    mark_rule: str = ""  # the rule that set the mark
    skipped: str = ""  # reason the file was not parsed (or, for a manifest, not understood), "" if parsed
    target: str = ""  # symlink target path or submodule commit


def earlier_rows(files: list[FileEntry], earlier: list[FileEntry]) -> Iterator[tuple[FileEntry, FileEntry | None]]:
    """Each file with the earlier table's row of the same path (None where it has none). An
    earlier table of the same paths lists them in the same order: rows are matched by
    position, and by path only where they are not."""
    by_path: dict[str, FileEntry] | None = None
    for f, before in zip(files, earlier) if len(files) == len(earlier) else zip(files, repeat(None)):
        if before is None or before.path != f.path:
            if by_path is None:
                by_path = {e.path: e for e in earlier}
            before = by_path.get(f.path)
        yield f, before


class Edge(Struct, frozen=True, gc=False, rename={"source": "from", "target": "to"}):
    """A resolved import: `source` imports `target` (both paths of the tree). Encoded with the
    keys of its canonical line (`from`, `to`), so canonical.py need not rename them."""

    source: str
    target: str
    kind: str  # python js go rust_mod rust_use java c_include ...
    line: int
    spec: str


def import_key(x: ImportSpec | Edge) -> tuple[int, str, str]:
    """What an import and the edges resolving it share, and no other import of the file: its
    line, kind and text. `Snapshot.edges_of_import` and `specs_of_edge` pair them by it."""
    return x.line, x.kind, x.spec


ImportOrEdge = TypeVar("ImportOrEdge", ImportSpec, Edge)


def by_import(items: Iterable[ImportOrEdge]) -> dict[tuple[int, str, str], list[ImportOrEdge]]:
    """A file's imports or edges grouped by `import_key`, each group in the given order."""
    grouped: dict[tuple[int, str, str], list[ImportOrEdge]] = {}
    for x in items:
        grouped.setdefault(import_key(x), []).append(x)
    return grouped


class UnresolvedImport(Struct, frozen=True, gc=False):
    path: str
    spec: str
    kind: str
    line: int
    # "external" (a package outside the tree) | "unresolved" (should be in the tree, is not); or a mark
    # beside the import's edges, resolve.tree.CAVEATS: "targets_capped" | "visibility_capped"
    status: str


# The orders a snapshot keeps its edges and unresolved imports in: resolution writes them so, a
# re-index bisects them by file, and an imported bundle's are held to them.
edge_order = attrgetter("source", "target", "line", "kind", "spec")
unresolved_order = attrgetter("path", "line", "kind", "spec", "status")


class Package(Struct, frozen=True, gc=False):
    name: str
    version: str
    ecosystem: str  # pypi npm go cargo maven
    manifest: str  # path of the manifest that declares it


class Dependency(Struct, frozen=True, gc=False):
    name: str
    spec: str  # version constraint as written, "" if none
    scope: str  # runtime dev optional build test peer indirect toolchain provided system import
    ecosystem: str
    manifest: str
    package: str  # name of the declaring package, "" if the manifest names none


class EntryPoint(Struct, frozen=True, gc=False):
    name: str
    kind: str  # console_script gui_script npm_bin npm_main composer_bin go_main rust_bin python_main_file ...
    path: str  # file in the tree it resolves to, "" if it resolves to none
    target: str  # as declared ("pkg.cli:main", "./bin/x.js"), "" when the file itself is the declaration
    manifest: str  # declaring manifest, "" when found in source


class Skipped(Struct, frozen=True, gc=False):
    path: str
    reason: str  # binary too_large lfs_pointer undecodable minified submodule symlink bad_manifest


# Items of a record's list (its files, edges, unresolved imports, packages, dependencies, entry
# points) read at once where it may be a bundle's, decoded from its bytes a block per read
# (indexer/fleet/carried_list.py): the fingerprint, the stored form and the carried list read
# the same blocks, so each is decoded once.
LIST_BLOCK = 1024


class SnapshotRecord(Struct):
    """Everything a snapshot holds beyond its blob facts. Symbols and occurrences stay in the
    content-addressed blob facts and are joined through `files[].blob`."""

    oid: str
    tree: str
    extractor_version: str
    files: Sequence[FileEntry]  # sorted by path, no repeats
    edges: Sequence[Edge]  # sorted by (source, target, line, kind, spec), no repeats (as resolution returns them)
    unresolved: Sequence[UnresolvedImport]  # sorted by (path, line, kind, spec, status), no repeats
    packages: Sequence[Package]
    dependencies: Sequence[Dependency]
    entry_points: Sequence[EntryPoint]
    fan_in: Mapping[str, int]  # path -> number of distinct other files importing it (every indexed file present)
    rank: Mapping[str, float]  # path -> PageRank over the definition/reference graph, rounded
    fingerprint: str = ""  # sha256 of the canonical serialization
    indexed_at: str = ""  # UTC ISO-8601; not part of the fingerprint
    symbols: int = 0  # symbols across the files (their count is in each file's canonical line)
    # Distinct blob facts (facts keys) the files need, submodules and symlinks having none: an
    # index report's parsed plus reused blobs. One blob under two names that say different
    # things of its language (NOTES, notes.txt) is two. Not part of the fingerprint.
    blob_facts: int = 0
    # The version of the tree rules (indexer/git/tree_names.py TREE_RULES) its tree's names
    # were checked under: "" for a record stored before they were recorded, or imported
    # without being checked here. A re-index trusts the trees it shares with this snapshot
    # only under this code's rules. Not part of the fingerprint.
    tree_rules: str = ""
    # The files whose parse had errors (`BlobFacts.parse_errors`), in path order: what an answer
    # may have missed in them is said without reading every file's facts
    parse_errors: tuple[str, ...] = ()
