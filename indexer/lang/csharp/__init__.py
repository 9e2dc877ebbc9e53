"""C# (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="csharp",
    version=VERSION,
    grammar=('tree_sitter_c_sharp', 'language'),
    identifiers="(identifier) @id",
    queries=('csharp/queries.scm',),
    extensions=('cs',),
    mode_names=('csharp',),
    family="csharp",
    import_kinds=('csharp_using', 'csharp_global_using'),
    imports="indexer.lang.csharp.imports",
    hooks="indexer.lang.csharp.tags",
    resolver="indexer.lang.csharp.resolve",
    retry="indexer.lang.csharp.retry",
)
LANGUAGES = (LANGUAGE,)
