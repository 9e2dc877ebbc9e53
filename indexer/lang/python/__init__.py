"""Python: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: the bases each class declares (`BlobFacts.bases`)
# 3: a definition ends at its last token, as `ast` has it, not at comments trailing its body;
#    module-level chains of four and five targets, tuples and lists in brackets; each target
#    of a chain or tuple in a class body
# 4: module variables in blocks nested to any depth (`with`, `for`, `while`, `match`, a `try`'s
#    `else` and `finally`, one block in another), every target of a chain or tuple there, and
#    nested and starred targets (`(a, (b, *c)) = row`); `__all__` not read under more than
#    100 nested blocks (`dunder_all.NESTING_MAX`); a source whose indentation could stack more
#    than 256 levels in the grammar's scanner is `unparseable`, never parsed (`indents.py`)
# 5: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node,
#    quadratic); `__all__` unknown where a method is called on what a walrus binds, not on
#    `__all__` (`(__all__ := [...]).extend([...])` extended the list bound before); a dotted
#    base is its names joined by dots (a comment or a backslash-newline between them was kept)
# 6: `__all__` unknown where its writes would copy and join more than `NAMES_WORK` names
#    (`dunder_all.py`): many writes one after another cost the square of their number
# 7: a run of comment-only lines is shown to the parser blank (`comments.py`): a file ending in
#    some 1,000 of them was unparseable (was: the parse read on past each, over its budget)
# 8: blank lines among comment lines leave them one run (was: a comment and a blank line in
#    turn, thousands of times, ending a function, made the file unparseable)
# 9: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#    regions and a total), so an answer can say a file's definitions may be missing
VERSION = "9"

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
    unsafe="indexer.lang.python.indents",
    view="indexer.lang.python.comments",
    literals=("string",),
    literal_crlf_is_lf=True,
    view_keeps_tokens=True,
)
LANGUAGES = (LANGUAGE,)
