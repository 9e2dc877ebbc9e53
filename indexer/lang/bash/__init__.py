"""Bash: what the indexer knows of it, in one record (indexer.lang.language)."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: `alias name=value` defines an `alias`
# 3: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 4: top-level variables in compound commands nested to any depth (`if`, `case`, loops, `{ }`,
#    `&&` lists), and `a=1 b=2` alone (the grammar groups them, or joins them to a command
#    on a later line)
# 5: an assignment whose value the grammar ends at a `$name` inside the word, taking the rest
#    for a command's name (`j=$top/.$name.jinfo`), is a variable
# 6: a `source` path the grammar splits at a backquote is read whole
# 7: an `alias` argument quoted whole (`alias 'la=ls -a'`) defines its alias
# 8: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#    regions and a total), so an answer can say a file's definitions may be missing
VERSION = "8"

LANGUAGE = Language(
    name="bash",
    version=VERSION,
    grammar=("tree_sitter_bash", "language"),
    identifiers="(variable_name) @id\n(command_name (word) @id)\n(function_definition name: (word) @id)",
    queries=("bash/queries.scm",),
    extensions=("sh", "bash"),
    filenames=(".bashrc", ".bash_profile", ".profile", "pkgbuild", "apkbuild"),
    interpreters=("bash", "sh", "dash", "ksh", "ash"),
    mode_names=("sh", "bash", "shell-script"),
    family="bash",
    import_kinds=("bash_source",),
    imports="indexer.lang.bash.imports",
    hooks="indexer.lang.bash.tags",
    resolver="indexer.lang.bash.resolve",
    retry="indexer.lang.bash.retry",
    literals=("string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body", "heredoc_end", "regex",
              "word"),
    literal_lines=("heredoc_body", "heredoc_end"),
)
# zsh, read with the Bash grammar where that parses it whole (strict); otherwise skipped as
# `unparseable`. Its own version: zsh files were not parsed before.
# 1: parsed with the Bash grammar (functions, variables, aliases, `source`)
# 2: every pattern's root carries a capture, so the query's matches in progress are
#    bounded by its match limit (was: a root capturing nothing held one per enclosing node, quadratic)
# 3: top-level variables as Bash's (its 4)
# 4: as Bash's 5
# 5: as Bash's 6
# 6: as Bash's 7
ZSH_VERSION = "6"
ZSH = LANGUAGE._replace(
    name="zsh", version=ZSH_VERSION, extensions=("zsh",),
    filenames=(".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout"), interpreters=("zsh",),
    mode_names=("zsh",), resolver="", strict=True)
LANGUAGES = (LANGUAGE, ZSH)
