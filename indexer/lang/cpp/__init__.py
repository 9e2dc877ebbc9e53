"""C++ (the C family's shared parts live in indexer/lang/c) (indexer.lang.language)."""

from indexer.lang.language import Language

# Extractor versions of its blob facts (bump on any change to the facts of the same bytes):
# 1: the version of its own, split from the one extractor version (55) of all languages
VERSION = "1"

LANGUAGE = Language(
    name="cpp",
    version=VERSION,
    grammar=('tree_sitter_cpp', 'language'),
    identifiers="[(identifier) (type_identifier) (field_identifier) (namespace_identifier)] @id",
    queries=('c/c_family.scm', 'cpp/queries.scm'),
    extensions=('cc', 'cpp', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h++', 'ipp', 'tpp', 'inl', 'ixx'),
    mode_names=('c++', 'cpp'),
    family="c",
    import_kinds=('c_include', 'c_system_include'),
    imports="indexer.lang.c.imports",
    hooks="indexer.lang.cpp.tags",
    view="indexer.lang.c.macros",
    scopes="indexer.lang.cpp.scopes",
)
LANGUAGES = (LANGUAGE,)
