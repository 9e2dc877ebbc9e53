"""Rust: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: crate-qualified paths in code (`other::Builder::new()`) as `rust_path` imports
# 3: the traits an impl or a trait's bounds name, as bases (`BlobFacts.bases`)
# 4: an `extern crate`'s visibility (`pub extern crate x as y;`), which says who walks through it
# 5: a `use` whose groups nest deeper than USE_NESTING is not read, the rest of the file is (was: `extract_error`)
# 6: a `mod m;` inside more inline modules than MOD_NESTING, or whose names spell more than
#    MOD_CHARS, is not read (was: its spec spelled them all, the square of the file)
# 7: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 8: a function of an `extern` block, methods of an impl for a primitive, a reference, a path's
#    generic type or a trait object (`impl str`, `impl Tr for &a::B<T>`, `impl dyn Any`), and a
#    `static` a variable whatever its case (was: missed, free functions, a constant); a field of a struct in a const's initializer block is the const's too (`_.S.a`, was `S.a`)
#    and an impl for a type without a name holds its items under rustdoc's name of it (`slice.sort`)
# 9: a `mod`'s `#[cfg_attr(pred, path = "...")]` paths are read (names ("", "u.rs"); was: none)
# 10: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#     regions and a total), so an answer can say a file's definitions may be missing
# 11: the items inside an item macro's `{ ... }` body (`cfg_rt! { pub mod runtime; }`, each
#     branch of a `cfg_if!`) are read as the enclosing module's (was: a token tree, not read)
# 12: crate-qualified paths in a macro's arguments (`format!("{}", crate::output::Usage::new(c))`)
#     are `rust_path` imports as in code (was: none, so such a path reached nothing unless the
#     file wrote it outside a macro too)
# 13: a body whose macro call has a comment before its `;` (`inner!(x) /* why */;`) is items
#     alone, read as 11 reads one (was: a token tree)
VERSION = "13"

LANGUAGE = Language(
    name="rust",
    version=VERSION,
    grammar=("tree_sitter_rust", "language"),
    identifiers="[(identifier) (type_identifier) (field_identifier) (shorthand_field_identifier)] @id",
    queries=("rust/queries.scm",),
    extensions=("rs",),
    mode_names=("rust",),
    family="rust",
    import_kinds=("rust_mod", "rust_use", "rust_extern", "rust_path"),
    imports="indexer.lang.rust.imports",
    scopes="indexer.lang.rust.scopes",
    hooks="indexer.lang.rust.tags",
    resolver="indexer.lang.rust.resolve",
    view="indexer.lang.rust.macros",
    literals=("string_literal", "raw_string_literal", "char_literal"),
    literal_crlf_is_lf=True,
)
LANGUAGES = (LANGUAGE,)
