"""The definition kinds that hold members, as the extraction writes them: shared by the
extraction (which functions are methods, which classes declare bases) and the queries that
read a stored hierarchy, which must not import the extraction (tree-sitter) to know them."""

# kinds whose functions are methods (a Rust impl block holds them too)
METHOD_HOSTS = frozenset({"class", "struct", "interface", "trait", "enum", "impl"})

# definition kinds a base may belong to: what holds methods, and a Ruby module
CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "module"})

# The prefix of a base relation a Ruby module's `included` (`extended`, `prepended`) hook records
# (`hook:extend`): a base of what includes the module, not of the module itself.
HOOKED = "hook:"
