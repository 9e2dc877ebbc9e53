"""Ruby: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: each class's superclass and the modules it includes, extends, prepends (`BlobFacts.bases`)
# 3: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 4: a class or module written with its scope (`class Foo::Bar` in `module A`) is a member of
#    that scope as looked up from there (`A.Foo`; `::Foo::Bar`: `Foo`), and so is the container
#    of what is defined inside it (was: A's Bar, and `A.Bar` the container of its methods);
#    a top-level `alias` is a function, as a `def` there (was: a method of no container);
#    `def Foo.bar` is Foo's method, as in `class << Foo` (was: the enclosing scope's)
# 5: a scope only written (`class Foo::Bar` in `module A`: A::Foo) is no lexical scope, so the
#    names it holds are not found from inside (`class Bar::Q` there is not Bar's own Q), and
#    `class self::Foo::Bar` is the enclosing class's Foo's, not looked up (was: Bar's Q, and a
#    Foo enclosing the class)
# 6: nothing written in a method or a constant's value is its member: a `def`, `define_method`,
#    `alias_method` run in a method are the class's (was: `Err.status_code.status_code`, a
#    function), a class in a constant's value the scope's around it; constants of `A::B = 1`
#    (A's), `A, B = ...`, `X ||= ...`; `A::B = Struct.new` a class (was: none); `alias $ARGV $*`
#    no function; `class X < self` has the class around for its superclass (`::A::Switch`;
#    was: none)
# 7: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#    regions and a total), so an answer can say a file's definitions may be missing
# 8: local sites: a method's, block's or lambda's parameters and the names assignments bind in
#    them are `local`, and so is a bare name after such a binding in its scope (was: every
#    bare name read as a method's)
# 9: a module's `included`, `extended` or `prepended` hook mixing modules into what it is handed
#    (`base.extend ClassMethods`, `base.send :include, Shell`) gives the module those bases
VERSION = "9"

LANGUAGE = Language(
    name="ruby",
    version=VERSION,
    grammar=("tree_sitter_ruby", "language"),
    identifiers="[(identifier) (constant)] @id",
    queries=("ruby/queries.scm",),
    extensions=("rb", "rake", "gemspec", "ru"),
    filenames=("gemfile", "rakefile", "guardfile", "podfile", "vagrantfile", "brewfile", "berksfile", "capfile"),
    interpreters=("ruby",),
    mode_names=("ruby",),
    family="ruby",
    import_kinds=("ruby_require",),
    imports="indexer.lang.ruby.imports",
    scopes="indexer.lang.ruby.scopes",
    hooks="indexer.lang.ruby.tags",
    resolver="indexer.lang.ruby.resolve",
    literals=("string", "heredoc_body", "regex", "string_array", "symbol_array", "subshell", "delimited_symbol",
              "character"),
    literal_lines=("heredoc_body",),
)
LANGUAGES = (LANGUAGE,)
