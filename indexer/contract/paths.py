"""How long a path may be, wherever one is read: in a git tree (`indexer.git.tree_names`) or
named by a client (`context_tools.faces.argument_bounds`). How many files a tree may hold,
and their paths' characters together, are limits (`indexer.contract.limits`). Imports
nothing, so a face may take it without loading pygit2."""

# Past this many characters a path is refused: no file system git checks out to takes it
# (PATH_MAX), and paths repeating a long folder name at every level of a deep tree would
# otherwise cost memory quadratic in the size of the trees that hold them.
PATH_CHARS = 4096
