"""C; C++ shares its query file c_family.scm and its include resolution (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="c",
    version=VERSION,
    grammar=('tree_sitter_c', 'language'),
    identifiers="[(identifier) (type_identifier) (field_identifier)] @id",
    queries=('c/c_family.scm',),
    extensions=('c',),
    mode_names=('c',),
    family="c",
    import_kinds=('c_include', 'c_system_include'),
    imports="indexer.lang.c.imports",
    hooks="indexer.lang.c.tags",
    view="indexer.lang.c.macros",
    resolver="indexer.lang.c.resolve",
    scopes="indexer.lang.c.scopes",
)
LANGUAGES = (LANGUAGE,)
