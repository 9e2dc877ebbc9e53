"""Python: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: the bases each class declares (`BlobFacts.bases`)
VERSION = "2"

LANGUAGE = Language(
    name="python",
    version=VERSION,
    grammar=("tree_sitter_python", "language"),
    identifiers="(identifier) @id",
    queries=("python/queries.scm",),
    extensions=("py", "pyi", "pyw"),
    interpreters=("python", "pypy"),
    mode_names=("python",),
    family="python",
    import_kinds=("python",),
    imports="indexer.lang.python.imports",
    scopes="indexer.lang.python.scopes",
    hooks="indexer.lang.python.tags",
    resolver="indexer.lang.python.resolve",
)
LANGUAGES = (LANGUAGE,)
