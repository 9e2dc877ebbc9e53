"""JavaScript (and JSX: the one grammar reads both); TypeScript imports its shared parts (indexer.lang.language)."""

from indexer.lang.language import Language

# The identifier leaves of the JavaScript grammar; TypeScript adds its type names.
IDENTIFIERS = ("[(identifier) (property_identifier) (shorthand_property_identifier)"
               " (shorthand_property_identifier_pattern) (private_property_identifier)] @id")

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="javascript",
    version=VERSION,
    grammar=('tree_sitter_javascript', 'language'),
    identifiers=IDENTIFIERS,
    queries=('javascript/queries.scm', 'javascript/jsx.scm', 'javascript/locals.scm'),
    extensions=('js', 'jsx', 'mjs', 'cjs'),
    interpreters=('node', 'nodejs', 'bun'),
    mode_names=('js', 'javascript'),
    family="js",
    import_kinds=('js',),
    imports="indexer.lang.javascript.imports",
    hooks="indexer.lang.javascript.tags",
    resolver="indexer.lang.javascript.resolve",
    scopes="indexer.lang.javascript.scopes",
)
LANGUAGES = (LANGUAGE,)
