"""How long an agent tool's string arguments, and how many items its lists, may be. Each bound
is in the tool's input schema (`maxLength`, `maxItems`), so a client can know it, and a longer
argument is `bad_input` before any work is done.

Without them a 4 MiB message chooses the work: libgit2 parses a rev in time quadratic in its
length, a glob filter compiles to a regular expression as long as itself, and each name of a
`focus` list is matched against the whole snapshot.
"""

from indexer.contract.paths import PATH_CHARS as PATH_CHARS  # a path on the machine or in a tree

REV_CHARS = 4096  # a rev: a ref's name is a path under the git directory
NAME_CHARS = 1024  # a name: a symbol's, a kind's, a workspace's or member's
TITLE_CHARS = 4096  # a PR title (GitHub holds one to 256 characters)
BODY_CHARS = 1 << 20  # a PR body (GitHub holds one to 65,536 characters)
LIST_ITEMS = 1024  # items of a list argument: focus, paths, github_allow
