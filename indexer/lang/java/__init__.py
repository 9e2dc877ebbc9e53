"""Java: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: the elements of an annotation type are its methods
# 3: the bases each class, interface, enum and record declares (`BlobFacts.bases`)
# 4: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 5: a record's compact constructor (`R { ... }`) is a method, as its other constructors are
# 6: a field holds what its initializer defines (an anonymous class's fields, and its methods
#    under the one field whose initializer it is in `Object a = 1, b = new Object() {...};`)
# 7: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#    regions and a total), so an answer can say a file's definitions may be missing
VERSION = "7"

LANGUAGE = Language(
    name="java",
    version=VERSION,
    grammar=("tree_sitter_java", "language"),
    identifiers="[(identifier) (type_identifier)] @id",
    queries=("java/queries.scm",),
    extensions=("java",),
    mode_names=("java",),
    family="java",
    import_kinds=("java",),
    imports="indexer.lang.java.imports",
    scopes="indexer.lang.java.scopes",
    hooks="indexer.lang.java.tags",
    resolver="indexer.lang.java.resolve",
    literals=("string_literal", "character_literal"),
    literal_crlf_is_lf=True,
)
LANGUAGES = (LANGUAGE,)
