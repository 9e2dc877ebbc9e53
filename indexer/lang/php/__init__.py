"""PHP (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="php",
    version=VERSION,
    grammar=('tree_sitter_php', 'language_php'),
    identifiers="(name) @id",
    queries=('php/queries.scm',),
    extensions=('php', 'phtml', 'php5', 'php7', 'phps'),
    interpreters=('php',),
    mode_names=('php',),
    family="php",
    import_kinds=('php_require', 'php_use', 'php_use_function', 'php_use_const'),
    imports="indexer.lang.php.imports",
    hooks="indexer.lang.php.tags",
    resolver="indexer.lang.php.resolve",
)
LANGUAGES = (LANGUAGE,)
