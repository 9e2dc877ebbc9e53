"""C++: what the indexer knows of it, in one record (indexer.lang.language). What it shares
with C lives in indexer/lang/c."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: file- and namespace-scope variables and constants; class, struct and function template
#    specialisations; export/convention/attribute macros before a declaration; calls, macro
#    invocations and locals no longer functions or methods
# 3: C's view and rules (c VERSION 3)
# 4: C's conditions (c VERSION 4)
# 5: the bases each class and struct declares (`BlobFacts.bases`)
# 6: every pattern's root carries a capture, so the query's matches in progress are bounded
#    by its match limit (was: a root capturing nothing held one per enclosing node, quadratic);
#    a scope's template arguments holding a comparison (`A<(1 < 2)>::f`) keep their brackets
#    paired; a variable no longer holds the class its declaration defines; a name qualified
#    from the global namespace (`void ::f() {}`, `::ns::g`) is a function, or ns's
# 7: C's view, its continued lines, parameters of function type, argument lists (c VERSION 7)
# 8: C's constants (c VERSION 8); a `constexpr` pointer is a constant
# 9: C's rule for a declaration list's parameters (c VERSION 9)
# 10: a macro-made return type opening a head (`STACK_OF(X509) *f(void)`) or around a pointer
#     parameter's type (`int use(STACK_OF(X509) *sk)`) leaves its argument as the type (was: no function)
# 11: the same of a type so made returned by value (`LHASH_OF(V) f(void)`; was: no function)
# 12: C's declarators each by its own pointers (c VERSION 10)
# 13: C's `extern` among a block's declaration's specifiers alone (c VERSION 11)
# 14: C's macro view and declarator shapes of c VERSION 12; a leading export macro before a
#     return type whose template arguments hold a space (`API std::vector<unsigned char> f();`)
#     is blanked (was: a method of `std.vector`); not one before a type and a pre-ANSI wrapper
#     (`ZPOS64_T f OF((...))`); a specifier before an out-of-line conversion operator is not shown
#     to the parser (`inline S::operator bool() const {`; was: a function `bool`)
# 15: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#     regions and a total), so an answer can say a file's definitions may be missing
VERSION = "15"

LANGUAGE = Language(
    name="cpp",
    version=VERSION,
    grammar=("tree_sitter_cpp", "language"),
    identifiers="[(identifier) (type_identifier) (field_identifier) (namespace_identifier)] @id",
    queries=("c/c_family.scm", "cpp/queries.scm"),
    extensions=("cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl", "ixx"),
    mode_names=("c++", "cpp"),
    family="c",
    import_kinds=("c_include", "c_system_include"),
    imports="indexer.lang.c.imports",
    scopes="indexer.lang.cpp.scopes",
    hooks="indexer.lang.cpp.tags",
    view="indexer.lang.c.macros",
    literals=("string_literal", "raw_string_literal", "char_literal", "system_lib_string", "preproc_arg"),
    literal_crlf_is_lf=True,
    literal_trimmed=("preproc_arg",),
)
LANGUAGES = (LANGUAGE,)
