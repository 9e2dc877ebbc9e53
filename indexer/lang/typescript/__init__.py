"""TypeScript and TSX: one package, two grammars of one wheel (indexer.lang.language). Both read
JavaScript's shipped tags first and share its JSX patterns, local scopes and module system."""

from indexer.lang.javascript import IDENTIFIERS as JS_IDENTIFIERS
from indexer.lang.language import Language

IDENTIFIERS = JS_IDENTIFIERS.replace("] @id", " (type_identifier)] @id")

# The extractor version of TypeScript's and TSX's blob facts: bump it on any change to the
# facts made of the same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: the bases each class and interface declares (`BlobFacts.bases`)
# 3: `export var`, destructured top-level bindings, constructor parameter properties (fields)
#    and a namespace's variables
# 4: a property-assigned function is one symbol held by its object, CommonJS re-exports
#    (as JavaScript's 3)
# 5: a generic call signature starting its own line no longer swallows the rest of the file
#    (the retry view, typescript/retry.py)
# 6: an `export` then `default` that end the file read as no default, the rest of the file kept
#    (was: the whole file's facts lost, skipped as `extract_error`)
# 7: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 8: `export * as /* c */ ns from` re-exports the namespace as ns (as JavaScript's 5)
# 9: a generator function as a property's, a declarator's or a key's value is a function named
#    by them (as JavaScript's 6)
# 10: a rest parameter with a comment after its dots is local, an intrinsic tag with spaces
#     after its `<` no use of a local (as JavaScript's 7)
# 11: `export`, `default` and the name exported each on a line of their own export the name as
#     the default (was: nothing; the JavaScript grammar's reading was right)
# 12: a parenthesised name is exported as the name is (as JavaScript's 8; `export = (Foo)` too)
# 13: `export`, then `default (Foo);` on the next line (read by the grammar as a call of
#     `default`) exports Foo as the default; a split `export default` makes an ES module (as
#     JavaScript's 9)
# 14: private methods and fields, class expressions' fields as JavaScript's 10; `declare var` globals, and the variables of
#     `declare global { }`, `declare module "x" { }` and `module M { }`, and a top-level
#     destructuring's names bound with a default (`const { a = 1 } = o`) (were: no symbol); the
#     retry view reads a generic call signature whose type parameters span lines too
# 15: `const x = require("./a").y` imports a's y as x, as JavaScript's 11
# 16: a value a CommonJS module exports at its top is a variable, as JavaScript's 12
# 17: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#     regions and a total), so an answer can say a file's definitions may be missing
# 18: a base named by a variable the file's top declares as a dotted name is that name, as
#     JavaScript's 14
VERSION = "18"

LANGUAGE = Language(
    name="typescript",
    version=VERSION,
    grammar=("tree_sitter_typescript", "language_typescript"),
    identifiers=IDENTIFIERS,
    queries=("typescript/queries.scm", "javascript/commonjs.scm", "javascript/generators.scm", "javascript/locals.scm"),
    tags_base="javascript",
    extensions=("ts", "mts", "cts"),
    interpreters=("deno", "ts-node", "tsx"),
    mode_names=("typescript",),
    family="js",
    import_kinds=("js",),
    imports="indexer.lang.javascript.imports",
    hooks="indexer.lang.typescript.tags",
    scopes="indexer.lang.typescript.scopes",
    retry="indexer.lang.typescript.retry",
    literals=("string", "template_string", "template_literal_type", "regex"),
    literal_crlf_is_lf=True,
)

TSX = Language(
    name="tsx",
    version=VERSION,
    grammar=("tree_sitter_typescript", "language_tsx"),
    identifiers=IDENTIFIERS,
    queries=("typescript/queries.scm", "javascript/commonjs.scm", "javascript/generators.scm", "javascript/jsx.scm", "javascript/locals.scm"),
    tags_base="javascript",
    extensions=("tsx",),
    family="js",
    import_kinds=("js",),
    imports="indexer.lang.javascript.imports",
    hooks="indexer.lang.typescript.tags",
    scopes="indexer.lang.typescript.scopes",
    retry="indexer.lang.typescript.retry",
    literals=("string", "template_string", "template_literal_type", "regex", "jsx_text"),
    literal_crlf_is_lf=True,
)
LANGUAGES = (LANGUAGE, TSX)
