"""C: what the indexer knows of it, in one record (indexer.lang.language). C++ shares its query
file c_family.scm, its include readers and resolution, and its parser view."""

from indexer.lang.language import Language

# The extractor version of its blob facts: bump it on any change to the facts made of the
# same bytes (indexer/store/versions.py). What each changed:
# 1: its own version, split from the one extractor version (55) of every language
# 2: file-scope variables and constants (function pointers too); calls, macro invocations and
#    locals no longer functions; macros before a declaration (export, calling convention)
#    blanked for the parser; an enum entry after a `#define` between entries
# 3: #defines between enum entries, attribute macros after prototypes, a struct body in an
#    #if group, pointer-returning function-pointer fields, built-in-named typedefs; macro
#    invocations after a statement, or opening their line (TEST_SUBMODULE(m) {), no longer functions
# 4: definitions marked with the preprocessor conditions they are written under (condition)
# 5: a `.h` is judged C or C++ by its code past its leading comments, and an `extern "C"` no
#    `#ifdef __cplusplus` guards is C++ (indexer/lang/c/header.py)
# 6: every pattern's root carries a capture, so the query's matches in progress are bounded
#    by its match limit (was: a root capturing nothing held one per enclosing node, quadratic);
#    a function returning a function pointer spans its whole definition; a variable no longer
#    holds the struct, enum or class its declaration defines
# 7: a line a backslash joins to the one before is no directive of its own (conditions, the
#    view's `#if` groups and enum-body directives); a macro's line looked back at from within
#    _LOOKAROUND only (indexer/lang/c/macros.py `_previous_token`); an `enum {` that opens no
#    body (in a comment, then a `;`) no longer ends the reading of later enum bodies, whose
#    `#undef`s are blanked as their `#define`s; an `#if` group holding one that holds another is
#    left as written, as one holding a group; a macro alone on its line after a block comment
#    and a line comment (`/* doc */`, `// more`) is blanked as after the block comment alone;
#    a parameter of function type (`int apply(int f(int))`) is no function, nor a declarator
#    whose parentheses hold arguments (`int x(4);`, a call after a macro the parser took for a type)
# 8: a file-scope object is a constant when the pointer nearest its name is const (`char *const q`,
#    `void (*const f)(void)`, an array of const pointers), not when an outer one is (`const char
#    *const *s`); `volatile` on a pointer no longer reads as const
# 9: a parameter of function type an old-style definition's declaration list declares
#    (`int apply(f) int f(int); {`) is no function nor a definition site (was: `apply.f`)
# 10: each declarator of a declaration is a constant or not by its own pointers (`char *p, *const
#     q;`; was: all as the first one)
# 11: `extern` is read among a block's declaration's specifiers alone (`int c = g("extern"), d;`
#     declares locals c and d; was: d global, and the declaration searched up to each name)
# 12: a block comment inside a continued `#define` body is not shown to the parser (the body
#     ended at it); a struct body's last member macro before its `}` is blanked; arrays of arrays
#     and pointer-returning function pointers without an initialiser are variables; error
#     recovery's `else if (x)` under an `#if` in a body is no function `if`; a function named in
#     parentheses (`LUA_API int (lua_gettop) (lua_State *L);`) is one, past an export macro; the
#     parameter declarations of an old-style definition returning a pointer are no variables;
#     an export macro opening a head before a return type and a name is blanked in C too
#     (`LUAI_FUNC lua_Integer luaV_idiv (lua_State *L, ...)`; was: a function `lua_Integer`)
#     a file-scope declaration through a typedef of a function type in the same file is a function
#     (`typedef int handler(int); static handler on_open;`; was: a variable)
# 13: a parse with errors records where it failed (`BlobFacts.parse_errors`: the first
#     regions and a total), so an answer can say a file's definitions may be missing
VERSION = "13"

LANGUAGE = Language(
    name="c",
    version=VERSION,
    grammar=("tree_sitter_c", "language"),
    identifiers="[(identifier) (type_identifier) (field_identifier)] @id",
    queries=("c/c_family.scm",),
    extensions=("c",),
    mode_names=("c",),
    family="c",
    import_kinds=("c_include", "c_system_include"),
    imports="indexer.lang.c.imports",
    scopes="indexer.lang.c.scopes",
    hooks="indexer.lang.c.tags",
    resolver="indexer.lang.c.resolve",
    view="indexer.lang.c.macros",
    literals=("string_literal", "char_literal", "system_lib_string", "preproc_arg"),
    literal_crlf_is_lf=True,
    literal_trimmed=("preproc_arg",),
)
LANGUAGES = (LANGUAGE,)
