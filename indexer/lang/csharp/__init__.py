"""C#: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: the bases each class, struct, interface and record declares (`BlobFacts.bases`)
# 3: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 4: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#    regions and a total), so an answer can say a file's definitions may be missing
VERSION = "4"

LANGUAGE = Language(
    name="csharp",
    version=VERSION,
    grammar=("tree_sitter_c_sharp", "language"),
    identifiers="(identifier) @id",
    queries=("csharp/queries.scm",),
    extensions=("cs",),
    mode_names=("csharp",),
    family="csharp",
    import_kinds=("csharp_using", "csharp_global_using"),
    imports="indexer.lang.csharp.imports",
    hooks="indexer.lang.csharp.tags",
    resolver="indexer.lang.csharp.resolve",
    retry="indexer.lang.csharp.retry",
    literals=("string_literal", "verbatim_string_literal", "raw_string_literal", "interpolated_string_expression",
              "character_literal"),
)
LANGUAGES = (LANGUAGE,)
