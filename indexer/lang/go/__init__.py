"""Go (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="go",
    version=VERSION,
    grammar=('tree_sitter_go', 'language'),
    identifiers="[(identifier) (type_identifier) (field_identifier) (package_identifier)] @id",
    queries=('go/queries.scm',),
    extensions=('go',),
    mode_names=('go',),
    family="go",
    import_kinds=('go',),
    imports="indexer.lang.go.imports",
    hooks="indexer.lang.go.tags",
    resolver="indexer.lang.go.resolve",
    scopes="indexer.lang.go.scopes",
)
LANGUAGES = (LANGUAGE,)
