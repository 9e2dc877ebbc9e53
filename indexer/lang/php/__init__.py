"""PHP: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: the bases each class, interface, trait and enum declares, its traits too (`BlobFacts.bases`)
# 3: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 4: a constant's value naming another constant is no definition; `define` in any case and
#    fully qualified (`\define`)
# 5: a source with errors is parsed again from a view naming each keyword key or property
#    (`"$a[extends]"`, `"$a->class"`) otherwise, and that tree kept when it has fewer errors
# 6: a function or class declared in a function body is its namespace's (was: the function's)
# 7: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#    regions and a total), so an answer can say a file's definitions may be missing
VERSION = "7"

LANGUAGE = Language(
    name="php",
    version=VERSION,
    grammar=("tree_sitter_php", "language_php"),
    identifiers="(name) @id",
    queries=("php/queries.scm",),
    extensions=("php", "phtml", "php5", "php7", "phps"),
    interpreters=("php",),
    mode_names=("php",),
    family="php",
    import_kinds=("php_require", "php_use", "php_use_function", "php_use_const"),
    imports="indexer.lang.php.imports",
    hooks="indexer.lang.php.tags",
    retry="indexer.lang.php.retry",
    resolver="indexer.lang.php.resolve",
    literals=("string", "encapsed_string", "heredoc", "nowdoc", "shell_command_expression", "text"),
)
LANGUAGES = (LANGUAGE,)
