"""Python (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="python",
    version=VERSION,
    grammar=('tree_sitter_python', 'language'),
    identifiers="(identifier) @id",
    queries=('python/queries.scm',),
    extensions=('py', 'pyi', 'pyw'),
    interpreters=('python', 'pypy'),
    mode_names=('python',),
    family="python",
    import_kinds=('python',),
    imports="indexer.lang.python.imports",
    hooks="indexer.lang.python.tags",
    resolver="indexer.lang.python.resolve",
    scopes="indexer.lang.python.scopes",
)
LANGUAGES = (LANGUAGE,)
