"""C and C++ locals (indexer/lang/c/scopes.py): what a declarator in a block or a parameter list
binds: a prototype in a block binds nothing (the function is global), a parameter of function
type binds its name, an initializer's names are uses, a structured binding binds each name."""

from __future__ import annotations

from tests.test_extract_locals import sites


def test_a_prototype_in_a_block_binds_nothing():
    src = "void h(void) {\n    int g(int);\n    int (*p)(int) = g;\n    p(1);\n}\n"
    assert sites(src, "a.c", "c", "g", "p") == [
        ("g", 2, 9, "identifier"), ("p", 3, 11, "local"), ("g", 3, 21, "identifier"), ("p", 4, 5, "local")]


def test_a_parameter_of_function_type_binds_its_name():
    """`int f(int)` as a parameter is a pointer to a function: the name is the parameter's."""
    src = "int apply(int f(int), int x) {\n    return f(x);\n}\n"
    assert [site for site in sites(src, "a.c", "c", "f", "x") if site[1] == 2] == [
        ("f", 2, 12, "local"), ("x", 2, 14, "local")]
    lam = "void h() {\n    auto k = [](int f(int)) { return f(1); };\n}\n"
    assert sites(lam, "a.cpp", "cpp", "f")[-1] == ("f", 2, 38, "local")


def test_an_initializer_names_no_local_and_a_structured_binding_names_each():
    src = "int z;\nvoid h() {\n    int y = z;\n    auto [a, b] = pair();\n    use(y, z, a, b);\n}\n"
    assert [(name, line, role) for name, line, _, role in sites(src, "a.cpp", "cpp", "y", "z", "a", "b")] == [
        ("z", 1, "definition"), ("y", 3, "local"), ("z", 3, "identifier"), ("a", 4, "local"), ("b", 4, "local"),
        ("y", 5, "local"), ("z", 5, "identifier"), ("a", 5, "local"), ("b", 5, "local")]
