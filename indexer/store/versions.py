"""The versions the store's keys carry, each beside the log of what its bumps changed.

Three kinds, so that a change re-does only what it touches:
- blob facts: a facts key (`blob|language|version`) carries `FACTS_VERSION` (what every
  language shares) and the version of the blob's language (`Language.version`, logged in the
  language's package; `PLAIN_VERSION` for files without a grammar). A fix to one language's
  extraction bumps its version alone: a re-index parses that language's blobs again and
  reuses every other blob's facts.
- snapshots: a snapshot record and its rank arcs are keyed by the snapshot version, which
  names `ASSEMBLY_VERSION` and every facts version it was assembled from (`snapshot_version`),
  so the facts keys of its files follow from the record alone (`facts_version`), and any bump
  makes a new snapshot of the same commit.
- the store's layout: `SCHEMA_VERSION` in indexer/store/database.py; a store of another
  layout is refused with the typed error that names the fix.

A snapshot version without `=` is one of the single extractor version that came before
(55 and earlier), which keyed facts by itself alone: read so, a store written then is read
as it was written.
"""

from __future__ import annotations

from functools import cache

from indexer.lang.registry import CONTENT, CONTENT_H, LANGUAGES

# What every language's blob facts share: the per-blob pipeline (indexer/extract: content
# rules, tags, tokens), the BlobFacts record and its layout in the store.
# 56: split from the one extractor version (55): each language's facts carry their own too
# 57: nesting and symbol caps (`symbols_capped`), a match limit on the tags query
#     (`occurrences_capped`)
# 58: a blob over 64 MiB (indexer.git.read.READ_CAP) is listed `too_large` unread, its lines
#     not counted (-1): it was inflated whole to count them; and a name a broken parse left
#     out (tree-sitter's MISSING node, `void A::() {}`) makes no symbol and no site (was: a
#     symbol and an occurrence of no name)
# 59: a base records the scopes its class statement stands in where they are not its name's
#     (`Base.nesting`: Ruby's `class Foo::Bar` in `module A` stands in A, not A::Foo), a field
#     every language's stored bases carry
# 60: the names a file's facts repeat (symbols' containers, bases' classes and scopes) are held
#     to 16 characters a byte of the file and what nesting to the caps takes (extract/tags.py
#     NAME_CHARS_PER_BYTE); what would pass it is not recorded, `symbols_capped`
# 61: an ERROR node is too wide to query past 2000 children that are no comment (was: any
#     children): a long run of comments after an unclosed block no longer makes the file
#     `unparseable` (indexer/lang/grammars.py has_wide_error)
# 62: a parse whose root is an ERROR is one region ending on the file's last line (was: the
#     line after a last line break, `lines 1-4` of a file of 3; grammars.error_regions)
FACTS_VERSION = "62"

# The blob facts of files without a grammar: plain tokenizer occurrences, text and data.
# 1: split from the one extractor version (55)
PLAIN_VERSION = "1"

# How a snapshot is assembled from blob facts (import resolution above all: a re-index
# carries its parent's edges over for unchanged files), fan-in, rank, manifests, the
# canonical serialization the fingerprint hashes, and the snapshot record's layout.
# 56: split from the one extractor version (55); the snapshot version names every facts version
# 57: the classes' `inherits` edges in the canonical serialization (indexer/resolve/hierarchy.py)
# 58: files that define nothing rank below every file that defines something (indexer/rank/boilerplate.py)
# 59: a Rust glob of an enum (`use a::Kind::*;`) resolves no trait base (indexer/lang/rust/globs.py)
# 60: a Java import never lands on a Kotlin file named like a package of the tree (indexer/lang/java/resolve.py)
# 61: a workspace package's entry as the importer's language finds it (indexer/lang/javascript/resolve.py)
# 62: a Ruby require names a file with `.rb` added, never one named exactly as written (indexer/lang/ruby/resolve.py)
# 63: a Python package wins over a module of its name, as CPython finds them (a/__init__.py
#     before a.py), and a from-import of a namespace package's module lands on it (`from ns
#     import mod`; indexer/lang/python/resolve.py)
# 64: a Rust `#[path]` file's own modules are beside it even where the folder named after it
#     holds a file of the same name (indexer/lang/rust/resolve.py)
# 65: a Rust path from a module beside a `[[bin]] path` or `[lib] path` root sees the root's
#     private `extern crate` (indexer/lang/rust/visibility.py)
# 66: a Rust trait named through a module the file declares (`impl net::Greet for T` over
#     `mod net;`) resolves to that module's file (indexer/lang/rust/bases.py)
# 67: a Rust trait base resolves among the files its own import or path reaches, not another's
#     on the same line (indexer/lang/rust/bases.py)
# 68: a symbolic link whose target is over 4 KiB is listed `too_large` with no target (it was
#     read whole into the record; indexer/pipeline/assemble.py)
# 69: a go.mod or go.work string is one token, its escapes undone (`replace x => "../my dir"`:
#     was `"../my`), a raw string too, and a `//` inside either no comment; a line with a string
#     left open is skipped (indexer/manifests/go.py)
# 70: a Go base a dot import brings into the file (`import . "a/b"`) resolves to that package's
#     file, an import's package name is read from the first of its files with a package
#     clause, and an import outside the tree binds the name goimports assumes (`kafka-go`
#     kafka; indexer/lang/go/bases.py)
# 71: `linguist-generated` and `linguist-vendored` set to any value but `false` mark a file, as
#     linguist reads them (`=1` was left to the path rules; indexer/git/attributes.py)
# 72: a Go file declaring `package documentation` is no member of its folder's package, as
#     go/build passes over it (indexer/lang/go/resolve.py)
# 73: in Go's own source (a go.mod of `module std`), a standard-library import from its files
#     and the cmd module's is the tree's package, not external (indexer/lang/go/resolve.py)
# 74: a Go import naming a testdata, `_x` or `.x` directory reaches its package, as the go tool
#     finds it (was: unresolved; indexer/lang/go/resolve.py)
# 75: a JavaScript/TypeScript import of a directory holding a package.json finds its entry
#     field, and a workspace package's `exports` map comes first (indexer/lang/javascript/resolve.py)
# 76: a tsconfig `paths` target in node_modules claims no specifier: `external`, not `unresolved`
# 77: a JavaScript/TypeScript `#` specifier is resolved by its package.json's `imports` map
# 78: from TypeScript, a workspace package's TypeScript entry or index before its JavaScript one
# 79: a tsconfig's `extends` array, and an `extends` naming a workspace package's file, are followed
# 80: a Rust module declared again under another `#[cfg]` with another `#[path]` is each
#     declaration's own file (was: the last declaration's; indexer/lang/rust/resolve.py)
# 81: a Rust `mod` with `#[cfg_attr(pred, path = "...")]`s reaches each of their files, and its
#     usual file when no plain `#[path]` is there (was: the usual file alone; rust/resolve.py)
# 82: each config of a tsconfig `extends` array is applied whole, with all it extends, as
#     TypeScript applies it (a config reached twice applies twice), and each config's settings
#     are made once (indexer/lang/javascript/resolve.py)
# 83: a JavaScript base a `require` binds whole (`const Store = require("./store")`, then
#     `class Sub extends Store`) is the module's default export, as an ES default import's is
#     (was: not resolved; the `inherits` edges of the canonical serialization change)
# 84: a Ruby base found in no lexical scope is looked for in the ancestors of the innermost one
#     before the top, as Ruby looks a constant up (`class EmptyScope < EmptyLinkedList` in `class
#     Scope < LinkedList`: LinkedList's; was: a top-level EmptyLinkedList, else external;
#     indexer/resolve/scoped_bases.py)
ASSEMBLY_VERSION = "84"

_ASSEMBLY = "assembly"
_FACTS = "facts"
_PLAIN = "plain"


def snapshot_version() -> str:
    """The version this code writes snapshots at: `assembly=56;facts=56;bash=1;...;plain=1`."""
    parts = [(_ASSEMBLY, ASSEMBLY_VERSION), (_FACTS, FACTS_VERSION),
             *sorted((name, language.version) for name, language in LANGUAGES.items()), (_PLAIN, PLAIN_VERSION)]
    return ";".join(f"{name}={version}" for name, version in parts)


def facts_version(snapshot: str, language: str) -> str:
    """The version in the facts key of a blob whose name says `language` (a language, or what
    `name_language` answers when the content decides), for the snapshot version `snapshot`."""
    table = _facts_versions(snapshot)
    if table is None:
        return snapshot  # the single version of old: it keyed facts by itself
    found = table.get(language)
    return found if found is not None else table[_PLAIN]


def facts_versions(snapshot: str) -> frozenset[str]:
    """Every version the facts keys a snapshot of version `snapshot` reads may carry."""
    table = _facts_versions(snapshot)
    return frozenset(table.values()) if table is not None else frozenset((snapshot,))


@cache
def _facts_versions(snapshot: str) -> dict[str, str] | None:
    if "=" not in snapshot:
        return None
    named = dict(part.partition("=")[::2] for part in snapshot.split(";"))
    facts = named.pop(_FACTS, "")
    named.pop(_ASSEMBLY, None)
    plain = named.pop(_PLAIN, "")
    table = {name: f"{facts}.{version}" for name, version in named.items()}
    table[_PLAIN] = f"{facts}.{plain}"
    # the content decides: a `.h` is C or C++; an unnamed file any language a shebang or a
    # mode line names, or text
    table[CONTENT_H] = f"{facts}.{named.get('c', '')}.{named.get('cpp', '')}"
    table[CONTENT] = ".".join([facts, *(named[name] for name in sorted(named)), plain])
    return table
