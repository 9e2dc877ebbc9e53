"""Ruby (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="ruby",
    version=VERSION,
    grammar=('tree_sitter_ruby', 'language'),
    identifiers="[(identifier) (constant)] @id",
    queries=('ruby/queries.scm',),
    extensions=('rb', 'rake', 'gemspec', 'ru'),
    filenames=('gemfile', 'rakefile', 'guardfile', 'podfile', 'vagrantfile', 'brewfile', 'berksfile', 'capfile'),
    interpreters=('ruby',),
    mode_names=('ruby',),
    family="ruby",
    import_kinds=('ruby_require',),
    imports="indexer.lang.ruby.imports",
    hooks="indexer.lang.ruby.tags",
    resolver="indexer.lang.ruby.resolve",
)
LANGUAGES = (LANGUAGE,)
