"""Rust (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="rust",
    version=VERSION,
    grammar=('tree_sitter_rust', 'language'),
    identifiers="[(identifier) (type_identifier) (field_identifier) (shorthand_field_identifier)] @id",
    queries=('rust/queries.scm',),
    extensions=('rs',),
    mode_names=('rust',),
    family="rust",
    import_kinds=('rust_mod', 'rust_use', 'rust_extern'),
    imports="indexer.lang.rust.imports",
    hooks="indexer.lang.rust.tags",
    resolver="indexer.lang.rust.resolve",
    scopes="indexer.lang.rust.scopes",
)
LANGUAGES = (LANGUAGE,)
