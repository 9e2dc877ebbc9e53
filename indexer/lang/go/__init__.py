"""Go: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: embedded types as the bases of structs and interfaces (`BlobFacts.bases`); an import's
#    written name as its alias
# 3: type aliases (`type A = B`) are types
# 4: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 5: a build constraint is evaluated as go/build/constraint does (`!linux && ignore`, an empty
#    or malformed `// +build` line exclude the file), and a block comment ends the leading run
#    that may hold `// +build` lines, as go/build's header reader has it
# 6: an alias of a struct or interface literal (`type A = struct { B }`) has the bases it
#    embeds, and an interface's `*T` term is no base (was: T)
# 7: each name of a const spec (`b, c = 1, 2`: was `b` alone), in a body's bindings too; an
#    all-caps `var` is a variable (was: a constant)
# 8: a struct or interface literal's members are held by the field or variable it types
#    (`S.Sub.Deep`, `Debug.Checkptr`; were `S.Deep`, `Deep`), a method's body's types by its
#    receiver too (`T.Run.local`; was `Run.local`); in a body each name of an anonymous struct's
#    `in, out string` and an anonymous interface's methods are locals (were: all but the first symbols)
# 9: a literal in a generic type's constraint declares no member of it (`type Pair[T interface{ M() }]`:
#    was `Pair.M`)
# 10: a method whose receiver type is parenthesized (`func (x *(T)) m()`) is T's (was: no container)
# 11: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#     regions and a total), so an answer can say a file's definitions may be missing
VERSION = "11"

LANGUAGE = Language(
    name="go",
    version=VERSION,
    grammar=("tree_sitter_go", "language"),
    identifiers="[(identifier) (type_identifier) (field_identifier) (package_identifier)] @id",
    queries=("go/queries.scm",),
    extensions=("go",),
    mode_names=("go",),
    family="go",
    import_kinds=("go",),
    imports="indexer.lang.go.imports",
    scopes="indexer.lang.go.scopes",
    hooks="indexer.lang.go.tags",
    resolver="indexer.lang.go.resolve",
    literals=("interpreted_string_literal", "raw_string_literal", "rune_literal"),
    literal_crlf_is_lf=True,
)
LANGUAGES = (LANGUAGE,)
