"""JavaScript and JSX (one grammar reads both): what the indexer knows of them, in one record
(indexer.lang.language). TypeScript and TSX share its patterns, readers, scopes and resolution."""

from indexer.lang.language import Language

# The identifier leaves of the JavaScript grammar; TypeScript adds its type names.
IDENTIFIERS = ("[(identifier) (property_identifier) (shorthand_property_identifier)"
               " (shorthand_property_identifier_pattern) (private_property_identifier)] @id")

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: the bases each class and interface declares (`BlobFacts.bases`)
# 3: a property-assigned function is one symbol held by its object (`obj.start = function
#    start() {}`: `obj.start`, `Foo.prototype.m`: `Foo.m`), no second one of its own name;
#    CommonJS re-exports (`module.exports = require(...)`, `exports.x = require(...).y`)
# 4: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 5: `export * as /* c */ ns from` re-exports the namespace as ns (was: as the comment's text)
# 6: a generator function assigned to a property, a declarator or a key is a function named by
#    them, as a function expression is (was: no symbol, its own name dropped as a second one)
# 7: a rest parameter with a comment after its dots is local (`... /* c */ rest`), and an intrinsic
#    JSX tag with spaces after its `<` no use of a local of its name (`< div>`)
# 8: a parenthesised name is exported as the name is (`export default (Foo)`, `module.exports =
#    (Foo)`, `exports.Y = (X)`; was: read as a computed value, no local name exported)
# 9: an `export default` split at a line break after `export` makes an ES module (`es_module`)
# 10: private methods (`#evict() {}`) and private function-valued fields are methods (were: no
#     symbol, a field); a class field's named function expression is no second symbol; the
#     fields of a class expression a variable holds are the variable's (`Box.size`, was `size`)
# 11: `var x = require("./a").y` imports a's y as x (was: no import)
# 12: a value a CommonJS module exports at its top is a variable (`exports.VERSION = "1"`,
#     `module.exports.program = new Command()`; was: no symbol)
# 13: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#     regions and a total), so an answer can say a file's definitions may be missing
# 14: a base named by a variable the file's top declares as a dotted name (`const Renamed =
#     Base; class A extends Renamed`) is recorded as that name (`Base`; was: `Renamed`, which
#     resolved to nothing, so A was no subclass of Base)
VERSION = "14"

LANGUAGE = Language(
    name="javascript",
    version=VERSION,
    grammar=("tree_sitter_javascript", "language"),
    identifiers=IDENTIFIERS,
    queries=("javascript/queries.scm", "javascript/commonjs.scm", "javascript/generators.scm", "javascript/jsx.scm", "javascript/locals.scm"),
    extensions=("js", "jsx", "mjs", "cjs"),
    interpreters=("node", "nodejs", "bun"),
    mode_names=("js", "javascript"),
    family="js",
    import_kinds=("js",),
    imports="indexer.lang.javascript.imports",
    scopes="indexer.lang.javascript.scopes",
    hooks="indexer.lang.javascript.tags",
    resolver="indexer.lang.javascript.resolve",
    literals=("string", "template_string", "regex", "jsx_text"),
    literal_crlf_is_lf=True,
)
LANGUAGES = (LANGUAGE,)
