"""Java (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="java",
    version=VERSION,
    grammar=('tree_sitter_java', 'language'),
    identifiers="[(identifier) (type_identifier)] @id",
    queries=('java/queries.scm',),
    extensions=('java',),
    mode_names=('java',),
    family="java",
    import_kinds=('java',),
    imports="indexer.lang.java.imports",
    hooks="indexer.lang.java.tags",
    resolver="indexer.lang.java.resolve",
    scopes="indexer.lang.java.scopes",
)
LANGUAGES = (LANGUAGE,)
