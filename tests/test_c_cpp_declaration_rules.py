"""What a C or C++ declaration defines, rule by rule (indexer/lang/c/tags.py, indexer/lang/cpp/tags.py
and bases.py, the queries): variables and constants at file and namespace scope only, never an
`extern` one, nor one error recovery made; calls, macro invocations and constructor-built locals
no functions; export-macro classes; bases without template parameters or `decltype`."""

from __future__ import annotations

from indexer.extract.blob import extract_blob

C = b"""int ok = 1;
extern int ext;
static const char k[] = "x";
const char *p = "s";
const int *const r = 0;
void f(void) { int local = 3; free(local); }
struct S { int field; };
free(m);
int
MY_FUNC(void) { return 0; }
TEST_SUBMODULE(name, m) {
}
int g(void) __THROW;
__exctype (_toupper);
void h(int a, ...);
int broken = 2
"""


def test_c_declarations():
    facts = extract_blob(C, "a.c", "c")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("ok", "variable", "", 1),
        ("k", "constant", "", 3),
        ("p", "variable", "", 4),  # a pointer to const: it can point elsewhere
        ("r", "constant", "", 5),
        ("f", "function", "", 6),
        ("S", "struct", "", 7), ("field", "field", "S", 7),
        ("MY_FUNC", "function", "", 10),  # a built-in return type on the line before
        ("g", "function", "", 13),
        ("h", "function", "", 15),
    ]


CPP = b"""namespace ns { constexpr int kLimit = 3; }
extern "C" { int in_c = 1; }
class K {
  int member = 0;
  MOCK_METHOD(int, Foo, (int));
  K& operator=(const K&);
  operator bool() const;
  void run();
};
void K::run() { log_msg msg(loc, name); const std::string& s2(s); }
ns::K::operator int() const { return 0; }
class API_EXPORT Foo { int x; };
struct API_EXPORT Bar { int y; };
template <typename T> struct D : T, Base<int>, decltype(x) {};
union U { int a; };
template <> union V<int> { int a; };
struct R { int &ref; };
"""


def test_cpp_declarations():
    facts = extract_blob(CPP, "a.cpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("ns", "namespace", "", 1), ("kLimit", "constant", "ns", 1),
        ("in_c", "variable", "", 2),
        ("K", "class", "", 3),
        ("member", "field", "K", 4),
        ("operator=", "method", "K", 6),
        ("operator bool", "method", "K", 7),
        ("run", "method", "K", 8),
        ("run", "method", "K", 10),
        ("operator int", "method", "ns.K", 11),
        ("Foo", "class", "", 12), ("x", "field", "Foo", 12),
        ("Bar", "struct", "", 13), ("y", "field", "Bar", 13),
        ("D", "struct", "", 14),
        ("U", "struct", "", 15), ("a", "field", "U", 15),
        ("V", "struct", "", 16), ("a", "field", "V", 16),
        ("R", "struct", "", 17), ("ref", "field", "R", 17),
    ]
    assert [(b.cls, b.base, b.line) for b in facts.bases] == [("D", "Base", 14)]


def test_macro_invocations_opening_a_line_and_functions_of_macro_shaped_names():
    """A macro-shaped name called at a line's start is an invocation (pybind11's
    `TEST_SUBMODULE(name, m) {`), even opening the file; with a type before it on its line it
    is a function."""
    for language, path in (("c", "a.c"), ("cpp", "a.cpp")):
        assert extract_blob(b"TEST_SUBMODULE(name, m) {\n}\n", path, language).symbols == []
        facts = extract_blob(b"my_t MY_FUNC(void) { return 0; }\n", path, language)
        assert [(s.name, s.kind) for s in facts.symbols] == [("MY_FUNC", "function")]


def test_a_head_with_arguments_no_parameter_list_holds_is_a_call():
    """`f(4, x) {` with no type: a call the grammar took for a head (a number is no parameter);
    `g(a, b) {` names its parameters only."""
    facts = extract_blob(b"f(4, x) { return; }\ng(a, b) { return; }\n", "a.cpp", "cpp")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [("g", "function", 2)]


def test_conversion_operators_are_named_up_to_their_parameters():
    facts = extract_blob(b"class K {\n  operator const char *() const;\n  operator T const &() const;\n};\n",
                         "a.cpp", "cpp")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [
        ("K", "class", 1), ("operator const char *", "method", 2), ("operator T const &", "method", 3)]


def test_a_specifier_before_an_out_of_line_conversion_operator():
    """`inline S::operator bool() const {`: the grammar read `S::operator` as a return type and
    a function named `bool`; the specifier is not shown to it."""
    source = (b"namespace YAML {\ninline S::operator bool() const { return true; }\n"
              b"inline ns::K::operator int() const { return 1; }\ninline int S::size() const { return 1; }\n}\n")
    facts = extract_blob(source, "a.cpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("YAML", "namespace", "", 1), ("operator bool", "method", "YAML.S", 2),
        ("operator int", "method", "YAML.ns.K", 3), ("size", "method", "YAML.S", 4)]


def test_volatile_is_no_constant_nor_a_pointer_to_const_and_errors_define_nothing():
    src = (b"volatile int v = 0;\n"
           b"const char *pn;\n"  # a pointer to const, not initialised: it can point anywhere
           b"int x = (1;\n"  # error recovery's
           b"ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));\n"
           b"int after = 3;\n")
    facts = extract_blob(src, "a.c", "c")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [
        ("v", "variable", 1), ("pn", "variable", 2), ("deflate", "function", 4), ("after", "variable", 5)]


def test_an_upper_case_field_is_a_field():
    """A struct member is storage in each value, whatever its case; an upper-case variable at file
    scope reads as a constant."""
    facts = extract_blob(b"struct S { int MAX_LEN; };\nint LIMIT = 3;\n", "a.c", "c")
    assert [(s.name, s.kind) for s in facts.symbols] == [("S", "struct"), ("MAX_LEN", "field"), ("LIMIT", "constant")]


def test_a_parameter_of_function_type_is_no_function():
    """C adjusts a parameter of function type to a pointer to a function (C11 6.7.6.3p8): `f`
    in `int apply(int f(int))` is a parameter, as `cb` in `void (*cb)(int)`, not a function."""
    facts = extract_blob(b"int apply(int f(int), int x) {\n    return f(x);\n}\nvoid g(void (*cb)(int), int h(void));\n",
                         "a.c", "c")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [("apply", "function", ""), ("g", "function", "")]
    facts = extract_blob(b"struct K { void on(int f(int) = nullptr); };\nauto k = [](int f(int)) { return f(1); };\n",
                         "a.cpp", "cpp")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("K", "struct", ""), ("on", "method", "K"), ("k", "variable", "")]


def test_a_declarator_holding_arguments_is_no_function():
    """A parameter list holds declarations (C11 6.7.6.3): `int x(4);` initialises a C++ variable,
    and `bar(1);` after a macro the parser took for its type is a call."""
    src = b"static int\nfoo(int a)\n{\n  return a;\n}\nPRAGMA_MACRO(diagnostic push)\nbar(1);\nint x(4);\nint y(int, char *);\n"
    facts = extract_blob(src, "a.c", "c")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [("foo", "function", 2), ("y", "function", 9)]
    facts = extract_blob(src, "a.cpp", "cpp")  # C++ reads `int x(4);` as the variable it is
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [
        ("foo", "function", 2), ("x", "variable", 8), ("y", "function", 9)]


def test_a_function_returning_a_macro_made_type_is_a_function():
    """OpenSSL's `STACK_OF(X509) *f(...)`: the macro is the return type, the function is f (one
    of the same name as the macro before it would be the macro invoked again). The C grammar
    reads a macro type; the C++ one has none, so its view leaves the argument as the type
    (`X509 *f(...)`, what the macro's expansion names), and a parameter's the same (`int
    use(STACK_OF(X509) *sk)`, was a variable built from an argument in C++). A macro times a
    call in a body is still no function (`FOO_BAR(a) * b(c);`). The type made may be returned
    by value as well (`LHASH_OF(V) f(void)`)."""
    src = (b"STACK_OF(X509) *SSL_get_peer_cert_chain(const SSL *s);\n"
           b"LHASH_OF(CONF_VALUE) *conf_hash(void) { return 0; }\n"
           b"static const STACK_OF(X509_NAME) *names(void)\n{\n    return 0;\n}\n"
           b"int use(STACK_OF(X509) *sk, int n);\n"
           b"void k(void) {\n    FOO_BAR(a) * b(c);\n}\n"
           b"LHASH_OF(V) by_value(void);\n"
           b"static STACK_OF(X509) copied(int n) { return 0; }\n")
    for path, lang in (("a.c", "c"), ("a.cpp", "cpp")):
        assert [(s.name, s.kind, s.line, s.end_line) for s in extract_blob(src, path, lang).symbols] == [
            ("SSL_get_peer_cert_chain", "function", 1, 1), ("conf_hash", "function", 2, 2),
            ("names", "function", 3, 6), ("use", "function", 7, 7), ("k", "function", 8, 10),
            ("by_value", "function", 11, 11), ("copied", "function", 12, 12)]


def test_a_function_cut_by_the_end_of_the_file_is_still_one():
    """A file cut short (a truncated blob): the head before the unclosed body still defines f;
    the call inside does not."""
    facts = extract_blob(b"void f(void) {\n  if (a) {\n    g(s);\n", "a.c", "c")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [("f", "function", 1)]


def test_a_const_pointer_is_a_constant_and_the_pointer_nearest_the_name_decides():
    """A constant is an object its declaration makes const. C11 6.7.6.1p1: in `T * const D`
    the pointer D is const, while a `const` among the specifiers qualifies the type pointed to;
    so the pointer nearest the name decides, and the specifiers only where there is none. An
    array's qualifiers are its elements' (6.7.3p9); `volatile` makes nothing const. C++
    [dcl.constexpr]: `constexpr` declares the object const, a pointer too."""
    src = (b"char *const q = 0;\n"  # a const pointer to char
           b"const char *p = 0;\n"  # a pointer to const char: can point elsewhere
           b"const char *const *s = 0;\n"  # a pointer to a const pointer: s itself can change
           b"const char *volatile u = 0;\n"  # a volatile pointer to const
           b"char *const arr[2];\n"  # an array of const pointers
           b"void (*const on_free)(void *) = 0;\n"  # a const function pointer
           b"void (*handler)(void *) = 0;\n")
    want = [("q", "constant"), ("p", "variable"), ("s", "variable"), ("u", "variable"), ("arr", "constant"),
            ("on_free", "constant"), ("handler", "variable")]
    for path, lang in (("a.c", "c"), ("a.cpp", "cpp")):
        assert [(s.name, s.kind) for s in extract_blob(src, path, lang).symbols] == want
    facts = extract_blob(b'constexpr const char *kName = "x";\n', "a.cpp", "cpp")
    assert [(s.name, s.kind) for s in facts.symbols] == [("kName", "constant")]
    # each declarator of a declaration on its own: its pointers and their qualifiers are its own,
    # the specifiers shared (C11 6.7p1: init-declarator-list)
    src = (b"char *p = 0, *const q = 0;\n"
           b"char *const r = 0, *s = 0;\n"
           b"const int a = 1, b = 2;\n"
           b"int x = 1, *const y = 0;\n"
           b"static char *const arr[2] = {0}, c;\n")
    want = [("p", "variable"), ("q", "constant"), ("r", "constant"), ("s", "variable"), ("a", "constant"),
            ("b", "constant"), ("x", "variable"), ("y", "constant"), ("arr", "constant"), ("c", "variable")]
    for path, lang in (("a.c", "c"), ("a.cpp", "cpp")):
        assert [(s.name, s.kind) for s in extract_blob(src, path, lang).symbols] == want


def test_a_parameter_of_function_type_has_no_definition_site():
    """A parameter is no symbol and its name no definition site, wherever it is declared. C11
    6.9.1p6: an old-style definition's declaration list declares the parameters its identifier
    list names, and 6.9.1p10 with 6.7.6.3p8 adjusts one of function type to a pointer to a
    function, so `int f(int);` there declares the parameter f as `int (*f)(int);` and `int x;`
    would: no function, no definition site (was: the function `apply.f`, defined on line 1)."""
    src = b"int apply(f, x) int f(int); int x; { return f(x); }\nint apply2(f) int (*f)(int); { return f(1); }\n"
    facts = extract_blob(src, "a.c", "c")
    assert [(s.qualified, s.kind) for s in facts.symbols] == [("apply", "function"), ("apply2", "function")]
    assert [(o.name, o.line) for o in facts.occurrences if o.role == "definition"] == [("apply", 1), ("apply2", 2)]
    # a prototype's and a definition's parameter list the same (a plain parameter's roles)
    for path, lang in (("a.c", "c"), ("a.cpp", "cpp")):
        facts = extract_blob(b"int g(int f(int), int x);\nint h(int f(int), int x) { return f(x); }\n", path, lang)
        assert [(o.name, o.line) for o in facts.occurrences if o.role == "definition"] == [("g", 1), ("h", 2)]
        roles = {(o.name, o.line): o.role for o in facts.occurrences if o.col < 24}
        assert roles[("f", 1)] == roles[("x", 1)] and roles[("f", 2)] == roles[("x", 2)]
