"""The "local" role: a parameter or local variable of a function or block scope, and each use
the language's scoping rules resolve to it. A module-level binding is never local; where the
tree does not settle the scoping (Python `global`/`nonlocal`, a function-level import, a
JavaScript `with` body, a nested definition's name) a site keeps the role it had."""

from __future__ import annotations

from indexer.extract.blob import extract_blob


def sites(src: str, path: str, language: str, *names: str) -> list[tuple[str, int, int, str]]:
    """(name, line, column from 1, role) of each site of `names`, in document order."""
    facts = extract_blob(src.encode(), path, language)
    assert not facts.skipped
    return [(o.name, o.line, o.col + 1, o.role) for o in facts.occurrences if o.name in names]


def roles(src: str, path: str, language: str, name: str) -> list[tuple[int, str]]:
    """(line, role) of each site of `name`."""
    return [(line, role) for _, line, _, role in sites(src, path, language, name)]


# --- Python -------------------------------------------------------------------------------

APP = """from pkg.settings import load, Config

def run(load=None):
    return load()

def build():
    Config = dict
    return Config()

def use():
    return load(), Config()
"""


def test_python_parameter_and_local_shadowing_imports_then_a_module_level_use():
    assert sites(APP, "pkg/app.py", "python", "load", "Config") == [
        ("load", 1, 26, "identifier"), ("Config", 1, 32, "identifier"),  # the import's own bindings
        ("load", 3, 9, "local"), ("load", 4, 12, "local"),  # the parameter and its use
        ("Config", 7, 5, "local"), ("Config", 8, 12, "local"),  # a local variable and its use
        ("load", 11, 12, "call"), ("Config", 11, 20, "call"),  # another function: the imports
    ]


def test_python_parameters_of_every_form_and_what_their_list_evaluates_outside():
    src = ("from m import load, Config, kind\n"
           "def f(a, b=load, *args, c: Config = None, d: kind = 1, **kw):\n"
           "    return a, b, args, c, d, kw, load, Config\n"
           "g = lambda x, y=load, *r, **k: (x, y, r, k)\n"
           "def h(x: int, /, y, *, z):\n"
           "    return x + y + z\n")
    got = sites(src, "m.py", "python", "a", "b", "args", "c", "d", "kw", "load", "Config", "kind", "x", "y", "z",
                "r", "k")
    assert got == [
        ("load", 1, 15, "identifier"), ("Config", 1, 21, "identifier"), ("kind", 1, 29, "identifier"),
        ("a", 2, 7, "local"), ("b", 2, 10, "local"), ("load", 2, 12, "identifier"), ("args", 2, 19, "local"),
        ("c", 2, 25, "local"), ("Config", 2, 28, "identifier"), ("d", 2, 43, "local"),
        ("kind", 2, 46, "identifier"), ("kw", 2, 58, "local"),
        ("a", 3, 12, "local"), ("b", 3, 15, "local"), ("args", 3, 18, "local"), ("c", 3, 24, "local"),
        ("d", 3, 27, "local"), ("kw", 3, 30, "local"), ("load", 3, 34, "identifier"), ("Config", 3, 40, "identifier"),
        # a lambda's parameters; its default is read outside it
        ("x", 4, 12, "local"), ("y", 4, 15, "local"), ("load", 4, 17, "identifier"), ("r", 4, 24, "local"),
        ("k", 4, 29, "local"), ("x", 4, 33, "local"), ("y", 4, 36, "local"), ("r", 4, 39, "local"),
        ("k", 4, 42, "local"),
        ("x", 5, 7, "local"), ("y", 5, 18, "local"), ("z", 5, 24, "local"),
        ("x", 6, 12, "local"), ("y", 6, 16, "local"), ("z", 6, 20, "local"),
    ]


def test_python_every_name_a_body_binds_is_local_in_all_of_it():
    src = ("from m import a, b, c, d, e, f, g, h, w, u, v\n"
           "def body(items):\n"
           "    print(a, w, u)\n"  # bound later in the body: local here too (Python's rule)
           "    a, (b, *c) = items\n"
           "    [d, e] = items\n"
           "    for f, g in items:\n"
           "        pass\n"
           "    with open(a) as h, open(b) as (u, v):\n"
           "        pass\n"
           "    try:\n"
           "        pass\n"
           "    except ValueError as err:\n"
           "        print(err)\n"
           "    if (w := len(items)):\n"
           "        del w\n"
           "    return a, b, c, d, e, f, g, h, u, v\n")
    got = sites(src, "m.py", "python", "a", "b", "c", "d", "e", "f", "g", "h", "w", "u", "v", "err")
    assert [s for s in got if s[1] == 1] == [(n, 1, 15 + 3 * i, "identifier") for i, n in enumerate("abcdefghwuv")]
    assert {role for _, line, _, role in got if line > 1} == {"local"}
    assert len([s for s in got if s[1] > 1]) == 29


def test_python_closures_nonlocal_and_global():
    src = ("from m import n, count, x, y, later\n"
           "def outer(n):\n"
           "    count = 0\n"
           "    def inner():\n"
           "        return n + later\n"  # n: the enclosing function's parameter (a closure)
           "    def counter():\n"
           "        nonlocal count\n"
           "        count += 1\n"
           "        return count\n"
           "    return inner, counter\n"
           "def uses_global():\n"
           "    global x\n"
           "    x = 1\n"
           "    return x + y\n")
    got = sites(src, "m.py", "python", "n", "count", "x", "y", "later")
    assert got == [
        ("n", 1, 15, "identifier"), ("count", 1, 18, "identifier"), ("x", 1, 25, "identifier"),
        ("y", 1, 28, "identifier"), ("later", 1, 31, "identifier"),
        ("n", 2, 11, "local"), ("count", 3, 5, "local"),
        ("n", 5, 16, "local"), ("later", 5, 20, "identifier"),
        # `nonlocal` and `global` names are exempt: their sites keep their role
        ("count", 7, 18, "identifier"), ("count", 8, 9, "identifier"), ("count", 9, 16, "identifier"),
        ("x", 12, 12, "identifier"), ("x", 13, 5, "identifier"), ("x", 14, 12, "identifier"),
        ("y", 14, 16, "identifier"),
    ]


def test_python_comprehension_variables_are_local_to_the_comprehension():
    src = ("from m import x, k, v, t\n"
           "nums = [x for x in range(3) if x]\n"  # at module level too: the comprehension's own
           "def f(xs):\n"
           "    pairs = {k: v for k, v in xs}\n"
           "    inner = [k for k in [x for x in xs]]\n"
           "    gen = sum(t for t in xs), [s for s in [1] if (t := s)]\n"
           "    return x, k, v, t\n"
           "first = [x for x in x]\n")  # the first iterable is read outside: module-level `x`
    got = sites(src, "m.py", "python", "x", "k", "v", "t")
    assert got == [
        ("x", 1, 15, "identifier"), ("k", 1, 18, "identifier"), ("v", 1, 21, "identifier"),
        ("t", 1, 24, "identifier"),
        ("x", 2, 9, "local"), ("x", 2, 15, "local"), ("x", 2, 32, "local"),
        ("k", 4, 14, "local"), ("v", 4, 17, "local"), ("k", 4, 23, "local"), ("v", 4, 26, "local"),
        ("k", 5, 14, "local"), ("k", 5, 20, "local"), ("x", 5, 26, "local"), ("x", 5, 32, "local"),
        # a walrus in a comprehension binds in the function around it: `t` is f's
        ("t", 6, 15, "local"), ("t", 6, 21, "local"), ("t", 6, 51, "local"),
        ("x", 7, 12, "identifier"), ("k", 7, 15, "identifier"), ("v", 7, 18, "identifier"),
        ("t", 7, 21, "local"),
        ("x", 8, 10, "local"), ("x", 8, 16, "local"), ("x", 8, 21, "identifier"),
    ]


def test_python_a_walrus_in_the_file_s_first_comprehension_binds_at_module_level():
    # the comprehension is the file's first scope: `y` is still the module's, never a local
    src = "[(y := x) for x in xs]\nprint(y)\n"
    assert sites(src, "m.py", "python", "x", "y") == [
        ("y", 1, 3, "identifier"), ("x", 1, 8, "local"), ("x", 1, 15, "local"), ("y", 2, 7, "identifier")]


def test_python_class_bodies_do_not_enclose_their_methods():
    src = ("from m import Config, load\n"
           "class K:\n"
           "    load = 1\n"
           "    attr = load\n"  # the class attribute
           "    def m(self, other):\n"
           "        return self.load + load + other\n"  # `load`: the import; `self.load` an attribute
           "def outer():\n"
           "    Config = 1\n"
           "    class Inner:\n"
           "        Config = 2\n"
           "        v = Config\n"  # the class's own
           "        def meth(self):\n"
           "            return Config\n"  # skips the class body: outer's local
           "    return Inner\n")
    assert sites(src, "m.py", "python", "load", "Config", "self", "other") == [
        ("Config", 1, 15, "identifier"), ("load", 1, 23, "identifier"),
        ("load", 3, 5, "definition"), ("load", 4, 12, "identifier"),
        ("self", 5, 11, "local"), ("other", 5, 17, "local"),
        ("self", 6, 16, "local"), ("load", 6, 21, "identifier"), ("load", 6, 28, "identifier"),
        ("other", 6, 35, "local"),
        ("Config", 8, 5, "local"), ("Config", 10, 9, "definition"), ("Config", 11, 13, "identifier"),
        ("self", 12, 18, "local"), ("Config", 13, 20, "local"),
    ]


def test_python_keyword_arguments_attributes_imports_and_nested_definitions_are_not_locals():
    src = ("import os\n"
           "from m import key, helper\n"
           "def f(key, obj):\n"
           "    g(key=key)\n"  # the keyword is the callee's parameter name
           "    obj.key = (obj.\n"
           "               key)\n"
           "    import os.path\n"  # a function-level import: its sites are the import's
           "    from m import helper as h\n"
           "    def helper():\n"  # a nested definition is a symbol: its name and uses keep their role
           "        return key\n"
           "    return os, h, helper()\n")
    assert sites(src, "m.py", "python", "key", "os", "h", "helper") == [
        ("os", 1, 8, "module"), ("key", 2, 15, "identifier"), ("helper", 2, 20, "identifier"),
        ("key", 3, 7, "local"),
        ("key", 4, 7, "identifier"), ("key", 4, 11, "local"),
        ("key", 5, 9, "identifier"), ("key", 6, 16, "identifier"),
        ("os", 7, 12, "module"), ("helper", 8, 19, "identifier"), ("h", 8, 29, "identifier"),
        ("helper", 9, 9, "definition"), ("key", 10, 16, "local"),
        ("os", 11, 12, "identifier"), ("h", 11, 16, "identifier"), ("helper", 11, 19, "call"),
    ]


def test_python_a_site_is_no_local_as_an_attribute_or_keyword_whatever_the_spacing():
    src = ("def f(key, obj):\n"
           "    g(key = key)\n"  # a keyword, spaced
           "    g(key\t= key)\n"
           "    # a comment that ends with a dot.\n"
           "    key.real\n"  # no attribute: the dot is the comment's
           "    (obj.  # a comment\n"
           "        key)\n"  # an attribute after a comment
           "    return obj.key + key, key==1, key == 2, key")  # the file's last byte
    assert sites(src, "m.py", "python", "key") == [
        ("key", 1, 7, "local"),
        ("key", 2, 7, "identifier"), ("key", 2, 13, "local"),
        ("key", 3, 7, "identifier"), ("key", 3, 13, "local"),
        ("key", 5, 5, "local"),
        ("key", 7, 9, "identifier"),
        ("key", 8, 16, "identifier"), ("key", 8, 22, "local"), ("key", 8, 27, "local"),
        ("key", 8, 35, "local"), ("key", 8, 45, "local"),
    ]
    # lines ended by carriage returns alone: the attribute's name starts one
    cr = "def f(key, obj):\r    return (obj.\rkey)\r"
    assert sites(cr, "m.py", "python", "key") == [("key", 1, 7, "local"), ("key", 1, 35, "identifier")]


def test_python_function_level_imports_and_classes_settle_what_they_bind():
    """A function-level import binds what its edge resolves, and a nested class is a symbol:
    their names' sites keep their roles, a parameter of that name too."""
    for src, name in (
        ("def f(os):\n    import os\n    return os\n", "os"),
        ("def f(os):\n    import os.path\n    return os\n", "os"),
        ("def f(p):\n    import os.path as p\n    return p\n", "p"),
        ("def f(helper):\n    from m import helper\n    return helper\n", "helper"),
        ("def f(K):\n    class K:\n        pass\n    return K\n", "K"),
    ):
        assert "local" not in {role for *_, role in sites(src, "m.py", "python", name)}, src
    # `from m import helper as h` binds h, not helper
    src = "def f(h, helper):\n    from m import helper as h\n    return h, helper\n"
    assert sites(src, "m.py", "python", "h", "helper") == [
        ("h", 1, 7, "identifier"), ("helper", 1, 10, "local"), ("helper", 2, 19, "local"),
        ("h", 2, 29, "identifier"), ("h", 3, 12, "identifier"), ("helper", 3, 15, "local"),
    ]


def test_python_targets_in_brackets_and_with_stars_bind_each_name():
    src = ("def f(items):\n"
           "    for [c, d] in items:\n"
           "        pass\n"
           "    with x as (a), y as (e, *b), z as [g, h]:\n"
           "        pass\n"
           "    for (j), *k in items:\n"
           "        pass\n"
           "    return a, b, c, d, e, g, h, j, k\n")
    got = sites(src, "m.py", "python", *"abcdeghjk")
    assert {role for *_, role in got} == {"local"}
    assert len(got) == 18


def test_python_module_level_bindings_are_never_local():
    src = "x = 1\nfor i in range(3):\n    y = i\nwith open(p) as fh:\n    pass\nprint(x, i, y, fh)\n"
    assert {o.role for o in extract_blob(src.encode(), "m.py", "python").occurrences} <= {
        "definition", "identifier", "call"}


# --- JavaScript, TypeScript -----------------------------------------------------------------

def test_js_block_let_shadows_an_import_only_inside_its_block():
    src = ("import { load } from './m';\n"
           "export function f(a) {\n"
           "  if (a) { let load = 2; load(); }\n"
           "  return load();\n"
           "}\n")
    assert roles(src, "a.js", "javascript", "load") == [
        (1, "identifier"), (3, "local"), (3, "local"), (4, "call")]


def test_js_parameters_destructuring_defaults_rest_and_arrows():
    src = ("import { load, x } from './m';\n"
           "function f(a, b = load, {c, d: e, g = x}, [h, ...i], ...j) {\n"
           "  return [a, b, c, d, e, g, h, i, j, load, x];\n"
           "}\n"
           "const z = (aa, {bb}) => aa + bb + load;\n"
           "const cc = dd => dd;\n")
    got = sites(src, "a.js", "javascript", "a", "b", "c", "d", "e", "g", "h", "i", "j", "load", "x", "aa", "bb",
                "dd")
    assert got == [
        ("load", 1, 10, "identifier"), ("x", 1, 16, "identifier"),
        ("a", 2, 12, "local"), ("b", 2, 15, "local"), ("load", 2, 19, "identifier"), ("c", 2, 26, "local"),
        ("d", 2, 29, "identifier"), ("e", 2, 32, "local"), ("g", 2, 35, "local"), ("x", 2, 39, "identifier"),
        ("h", 2, 44, "local"), ("i", 2, 50, "local"), ("j", 2, 57, "local"),
        ("a", 3, 11, "local"), ("b", 3, 14, "local"), ("c", 3, 17, "local"), ("d", 3, 20, "identifier"),
        ("e", 3, 23, "local"), ("g", 3, 26, "local"), ("h", 3, 29, "local"), ("i", 3, 32, "local"),
        ("j", 3, 35, "local"), ("load", 3, 38, "identifier"), ("x", 3, 44, "identifier"),
        ("aa", 5, 12, "local"), ("bb", 5, 17, "local"), ("aa", 5, 25, "local"), ("bb", 5, 30, "local"),
        ("load", 5, 35, "identifier"),
        ("dd", 6, 12, "local"), ("dd", 6, 18, "local"),
    ]


def test_js_var_catch_loops_require_and_with():
    src = ("import { v, q, s, m, u, w } from './m';\n"
           "function f(o) {\n"
           "  if (o) { v; }\n"  # a `var` is the function's, before its declaration too
           "  { var v = 1; }\n"
           "  for (var q in o) { q; }\n"
           "  for (const m of o) { m; }\n"
           "  try { } catch ({ s }) { s; }\n"
           "  const u = require('./u');\n"  # an import's binding, not a local
           "  u();\n"
           "  with (o) { w; }\n"  # sloppy mode: maybe a property of `o`
           "  return [m, s, w];\n"
           "}\n")
    got = sites(src, "a.js", "javascript", "v", "q", "s", "m", "u", "w")
    assert got == [
        ("v", 1, 10, "identifier"), ("q", 1, 13, "identifier"), ("s", 1, 16, "identifier"),
        ("m", 1, 19, "identifier"), ("u", 1, 22, "identifier"), ("w", 1, 25, "identifier"),
        ("v", 3, 12, "local"), ("v", 4, 9, "local"), ("q", 5, 12, "local"), ("q", 5, 22, "local"),
        ("m", 6, 14, "local"), ("m", 6, 24, "local"), ("s", 7, 20, "local"), ("s", 7, 27, "local"),
        ("u", 8, 9, "identifier"), ("u", 9, 3, "call"), ("w", 10, 14, "identifier"),
        ("m", 11, 11, "identifier"), ("s", 11, 14, "identifier"), ("w", 11, 17, "identifier"),
    ]


def test_js_a_name_in_a_with_body_is_no_local_even_where_one_is_bound_outside():
    # `with (o) { x; }` may read `o.x`: that site keeps its role; outside the body `x` is f's
    src = "function f(x) {\n  with (o) { x; }\n  return x;\n}\n"
    assert sites(src, "a.js", "javascript", "x") == [("x", 1, 12, "local"), ("x", 2, 14, "identifier"), ("x", 3, 10, "local")]


def test_js_a_var_in_the_file_s_first_block_is_the_module_s():
    # the block (a scope for its `let`) is the file's first scope: its `var` is still no local
    src = "{\n  let a = 1;\n  var v = a;\n  use(v);\n}\nfunction f() { return v; }\n"
    assert sites(src, "a.js", "javascript", "v", "a") == [
        ("a", 2, 7, "local"), ("v", 3, 7, "identifier"), ("a", 3, 11, "local"), ("v", 4, 7, "identifier"),
        ("v", 6, 23, "identifier")]


def test_js_nested_definitions_and_jsx_keep_their_roles():
    src = ("import { helper, label } from './m';\n"
           "export function App(label) {\n"
           "  function helper() { return label; }\n"
           "  return <label>{helper(label)}</label>;\n"
           "}\n")
    assert sites(src, "App.jsx", "javascript", "helper", "label") == [
        ("helper", 1, 10, "identifier"), ("label", 1, 18, "identifier"),
        ("label", 2, 21, "local"),
        ("helper", 3, 12, "definition"), ("label", 3, 30, "local"),
        ("label", 4, 11, "identifier"), ("helper", 4, 18, "call"), ("label", 4, 25, "local"),
        ("label", 4, 34, "identifier"),  # an intrinsic element's name is a string, no variable
    ]


def test_typescript_types_are_not_shadowed_by_a_local_value():
    src = ("import { Config } from './m';\n"
           "export function f(Config: number, b?: Config): Config {\n"
           "  const c: Config = Config;\n"
           "  return c;\n"
           "}\n")
    for language in ("typescript", "tsx"):
        assert roles(src, "a.ts", language, "Config") == [
            (1, "identifier"), (2, "local"), (2, "reference"), (2, "reference"), (3, "reference"), (3, "local")]


def test_typescript_a_nested_abstract_class_s_name_is_settled_as_a_class_s():
    # a class nested in a function binds its name in the block around it, which the scopes leave
    # unsettled: every site of the name keeps its role, the `let` of it too, abstract or not
    for head in ("abstract class", "class"):
        src = ("export function g() {\n"
               "  let Shape = 1;\n"
               "  {\n"
               f"    {head} Shape {{}}\n"
               "    new Shape();\n"
               "  }\n"
               "  return Shape;\n"
               "}\n")
        for language in ("typescript", "tsx"):
            assert roles(src, "a.ts", language, "Shape") == [
                (2, "identifier"), (4, "definition"), (5, "reference"), (7, "identifier")], (head, language)


# --- Go, Java, Rust, C, C++ -------------------------------------------------------------------

def test_go_parameters_results_short_declarations_range_and_shadowing():
    src = ("package p\n\nvar load = 1\n\n"
           "func (r *T) f(a, b int, c ...string) (n int, err error) {\n"
           "\tprintln(load)\n"  # before the `:=`: the package's
           "\tload := load + 1\n"  # the right side still reads the package's
           "\tfor i, v := range c { _ = i + v }\n"
           "\tfor k = range c {}\n"  # `=` assigns what is bound already
           "\tif s := g(); s > 0 { return s, nil }\n"
           "\treturn T{a: b, r: r.x}.n + load, err\n"  # a composite literal's key is a field
           "}\n\nfunc other() int { return load }\n")
    assert sites(src, "p.go", "go", "load", "r", "a", "b", "c", "n", "err", "i", "v", "k", "s") == [
        ("load", 3, 5, "definition"),
        ("r", 5, 7, "local"), ("a", 5, 15, "local"), ("b", 5, 18, "local"), ("c", 5, 25, "local"),
        ("n", 5, 39, "local"), ("err", 5, 46, "local"),
        ("load", 6, 10, "identifier"),
        ("load", 7, 2, "local"), ("load", 7, 10, "identifier"),
        ("i", 8, 6, "local"), ("v", 8, 9, "local"), ("c", 8, 20, "local"), ("i", 8, 28, "local"),
        ("v", 8, 32, "local"),
        ("k", 9, 6, "identifier"), ("c", 9, 16, "local"),
        ("s", 10, 5, "local"), ("s", 10, 15, "local"), ("s", 10, 30, "local"),
        ("a", 11, 11, "identifier"), ("b", 11, 14, "local"), ("r", 11, 17, "identifier"), ("r", 11, 20, "local"),
        ("n", 11, 25, "identifier"),  # a selector's field
        ("load", 11, 29, "local"), ("err", 11, 35, "local"),
        ("load", 14, 27, "identifier"),
    ]


def test_go_function_literals_block_declarations_and_switches_bind_locals():
    # a function literal's parameters, variadic ones too, and named results; a body's `var (...)`
    # list and `const` (shadowing the package's); a type switch's alias; a switch's `:=`
    src = ("package p\n\nvar x, y = 1, 2\n\nconst c = 3\n\n"
           "func f(v any) int {\n"
           "\tg := func(a int, rest ...int) (out int) { return a + len(rest) + out }\n"
           "\tvar (\n\t\tx = 1\n\t\ty = 2\n\t)\n"
           "\tconst c = 4\n"
           "\tswitch t := v.(type) {\n\tcase int:\n\t\treturn t\n\t}\n"
           "\tswitch s := x; s {\n\tcase 1:\n\t\treturn s\n\t}\n"
           "\treturn g(x, y) + c\n"
           "}\n")
    assert sites(src, "p.go", "go", "x", "y", "c", "a", "rest", "out", "t", "s", "g") == [
        ("x", 3, 5, "definition"), ("y", 3, 8, "definition"), ("c", 5, 7, "definition"),
        ("g", 8, 2, "local"), ("a", 8, 12, "local"), ("rest", 8, 19, "local"), ("out", 8, 33, "local"),
        ("a", 8, 51, "local"), ("rest", 8, 59, "local"), ("out", 8, 67, "local"),
        ("x", 10, 3, "local"), ("y", 11, 3, "local"), ("c", 13, 8, "local"),
        ("t", 14, 9, "local"), ("t", 16, 10, "local"),
        ("s", 18, 9, "local"), ("x", 18, 14, "local"), ("s", 18, 17, "local"), ("s", 20, 10, "local"),
        ("g", 22, 9, "local"), ("x", 22, 11, "local"), ("y", 22, 14, "local"), ("c", 22, 19, "local"),
    ]


def test_java_parameters_locals_loops_catch_lambdas_and_anonymous_classes():
    src = ("class A {\n"
           "  int c;\n"
           "  static int load() { return 1; }\n"
           "  void f(int a, String... b) {\n"
           "    int load = load(); this.c = c; use(load, a, b);\n"  # `load()` calls the method
           "    for (String s : b) { s.length(); }\n"
           "    try { } catch (Exception e) { e.printStackTrace(); }\n"
           "    F g = (x, y) -> x + y;\n"
           "    new Object() { int c; void m() { c++; } };\n"  # the anonymous class's field
           "  }\n"
           "  void g() { c++; }\n"
           "}\n")
    got = sites(src, "A.java", "java", "load", "a", "b", "c", "s", "e", "x", "y")
    assert got == [
        ("c", 2, 7, "definition"), ("load", 3, 14, "definition"),
        ("a", 4, 14, "local"), ("b", 4, 27, "local"),
        ("load", 5, 9, "local"), ("load", 5, 16, "call"), ("c", 5, 29, "identifier"), ("c", 5, 33, "identifier"),
        ("load", 5, 40, "local"), ("a", 5, 46, "local"), ("b", 5, 49, "local"),
        ("s", 6, 17, "local"), ("b", 6, 21, "local"), ("s", 6, 26, "local"),
        ("e", 7, 30, "local"), ("e", 7, 35, "local"),
        ("x", 8, 12, "local"), ("y", 8, 15, "local"), ("x", 8, 21, "local"), ("y", 8, 25, "local"),
        ("c", 9, 24, "definition"), ("c", 9, 38, "identifier"),
        ("c", 11, 14, "identifier"),
    ]


def test_ruby_parameters_assignments_blocks_and_scope_gates():
    src = ("class Shell\n"
           "  def indent(count = 1)\n"
           "    old = padding\n"
           "    self.padding = padding + count\n"
           "  end\n"
           "  def table(list, padding: 0, &blk)\n"
           "    start = padding ? 1 : 0 if list\n"
           "    list.each do |item, (a, b)|\n"
           "      width = item.size + start + a + b\n"
           "    end\n"
           "    puts width, count, padding(1)\n"
           "    begin; rescue => err; err; end\n"
           "    for s in list; s; end\n"
           "    head, *rest = list; total ||= head\n"
           "    fn = ->(q) { q + head + total }\n"
           "  end\n"
           "  width = 3\n"
           "  def other = width\n"
           "end\n")
    got = sites(src, "lib/shell.rb", "ruby", "count", "old", "padding", "list", "blk", "start", "item", "a", "b",
                "width", "err", "s", "head", "rest", "fn", "q", "total")
    assert got == [
        ("count", 2, 14, "local"), ("old", 3, 5, "local"), ("padding", 3, 11, "identifier"),  # a method
        ("padding", 4, 10, "call"), ("padding", 4, 20, "identifier"), ("count", 4, 30, "local"),
        ("list", 6, 13, "local"), ("padding", 6, 19, "local"), ("blk", 6, 32, "local"),  # a keyword parameter
        ("start", 7, 5, "local"), ("padding", 7, 13, "local"), ("list", 7, 32, "local"),
        ("list", 8, 5, "local"), ("item", 8, 19, "local"), ("a", 8, 26, "local"), ("b", 8, 29, "local"),
        ("width", 9, 7, "local"), ("item", 9, 15, "local"), ("start", 9, 27, "local"), ("a", 9, 35, "local"),
        ("b", 9, 39, "local"),
        # the block's own local is no local after it; another method's parameter none here; a
        # call with arguments a method's whatever local is so named
        ("width", 11, 10, "identifier"), ("count", 11, 17, "identifier"), ("padding", 11, 24, "call"),
        ("err", 12, 22, "local"), ("err", 12, 27, "local"), ("s", 13, 9, "local"), ("list", 13, 14, "local"), ("s", 13, 20, "local"),
        ("head", 14, 5, "local"), ("rest", 14, 12, "local"), ("list", 14, 19, "local"), ("total", 14, 25, "local"),
        ("head", 14, 35, "local"),
        ("fn", 15, 5, "local"), ("q", 15, 13, "local"), ("q", 15, 18, "local"), ("head", 15, 22, "local"),
        ("total", 15, 29, "local"),
        # a class body's local, and a `def` that does not see it
        ("width", 17, 3, "local"), ("width", 18, 15, "identifier"),
    ]


def test_rust_let_patterns_parameters_closures_matches_and_nested_fns():
    src = ("use crate::cfg::load;\n"
           "static MAX: i32 = 1;\n"
           "fn f(a: i32, (b, mut c): (i32, i32), P { x, y: py }: P) -> i32 {\n"
           "    let load = load(a) + MAX;\n"  # the right side still calls the import
           "    let cl = |p, r: i32| p + r + a;\n"
           "    match o { Some(m) => m, None => 0, n @ 1..=5 => n, _ => b };\n"
           "    if let Some(w) = z { w; } else { w; }\n"
           "    fn inner() -> i32 { a }\n"  # a nested fn sees no local of f
           "    println!(\"{}\", load);\n"
           "    load!(c);\n"
           "    self::load(x) + py + cl(c, 1)\n"
           "}\n")
    got = sites(src, "lib.rs", "rust", "load", "a", "b", "c", "x", "py", "cl", "p", "r", "m", "n", "None", "w")
    assert got == [
        ("load", 1, 17, "identifier"),
        ("a", 3, 6, "local"), ("b", 3, 15, "local"), ("c", 3, 22, "local"), ("x", 3, 42, "local"),
        ("py", 3, 48, "local"),
        ("load", 4, 9, "local"), ("load", 4, 16, "call"), ("a", 4, 21, "local"),
        ("cl", 5, 9, "local"), ("p", 5, 15, "local"), ("r", 5, 18, "local"), ("p", 5, 26, "local"),
        ("r", 5, 30, "local"), ("a", 5, 34, "local"),
        ("m", 6, 20, "local"), ("m", 6, 26, "local"), ("None", 6, 29, "identifier"), ("n", 6, 40, "local"),
        ("n", 6, 53, "local"), ("b", 6, 61, "local"),
        ("w", 7, 17, "local"), ("w", 7, 26, "local"), ("w", 7, 38, "identifier"),
        ("a", 8, 25, "identifier"),
        ("load", 9, 20, "local"), ("load", 10, 5, "call"), ("c", 10, 11, "local"),
        ("load", 11, 11, "call"), ("x", 11, 16, "local"), ("py", 11, 21, "local"), ("cl", 11, 26, "local"),
        ("c", 11, 29, "local"),
    ]


def test_c_parameters_block_declarations_extern_and_prototypes():
    src = ("int load(int);\n"
           "int f(int a, char *b[], int (*cb)(int)) {\n"
           "    int c = load(a), *d; extern int e; int g(int);\n"
           "    for (int i = 0; i < c; i++) { cb(i); }\n"
           "    struct s v = { .c = 1 }; v.c = e;\n"
           "    return c + g(1) + d[0] + b[0][0];\n"
           "}\n")
    assert sites(src, "a.c", "c", "load", "a", "b", "cb", "c", "d", "e", "g", "i") == [
        ("load", 1, 5, "definition"),
        ("a", 2, 11, "local"), ("b", 2, 20, "local"), ("cb", 2, 31, "local"),
        ("c", 3, 9, "local"), ("load", 3, 13, "call"), ("a", 3, 18, "local"), ("d", 3, 23, "local"),
        ("e", 3, 37, "identifier"), ("g", 3, 44, "identifier"),  # `extern` and a prototype: the globals
        ("i", 4, 14, "local"), ("i", 4, 21, "local"), ("c", 4, 25, "local"), ("i", 4, 28, "local"),
        ("cb", 4, 35, "local"),  # a parameter called: a function pointer
        ("i", 4, 38, "local"),
        ("c", 5, 21, "identifier"), ("c", 5, 32, "identifier"),  # a designator, a field
        ("e", 5, 36, "identifier"),
        ("c", 6, 12, "local"), ("g", 6, 16, "call"), ("d", 6, 23, "local"), ("b", 6, 30, "local"),
    ]


def test_cpp_range_for_lambdas_catch_local_classes_and_qualified_names():
    src = ("namespace ns { int load(int); }\n"
           "int f(std::vector<int>& v, int n = 3) {\n"
           "    for (auto& x : v) { x; }\n"
           "    auto lam = [&](int y) { return y + n; };\n"
           "    try { } catch (const std::exception& e) { e.what(); }\n"
           "    struct L { int n; int g() { return n; } };\n"  # a local class's member, no local
           "    int load = ns::load(n);\n"
           "    return lam(load) + x;\n"
           "}\n")
    got = sites(src, "a.cpp", "cpp", "v", "n", "x", "lam", "y", "e", "load")
    assert got == [
        ("load", 1, 20, "definition"),
        ("v", 2, 25, "local"), ("n", 2, 32, "local"),
        ("x", 3, 16, "local"), ("v", 3, 20, "local"), ("x", 3, 25, "local"),
        ("lam", 4, 10, "local"), ("y", 4, 24, "local"), ("y", 4, 36, "local"), ("n", 4, 40, "local"),
        ("e", 5, 42, "local"), ("e", 5, 47, "local"),
        ("n", 6, 20, "definition"), ("n", 6, 40, "identifier"),
        ("load", 7, 9, "local"), ("load", 7, 20, "call"), ("n", 7, 25, "local"),
        ("lam", 8, 12, "local"), ("load", 8, 16, "local"), ("x", 8, 24, "identifier"),  # x: out of its loop
    ]


def test_local_roles_are_a_function_of_the_bytes():
    for src, path, language in ((APP, "pkg/app.py", "python"), ("function f(a) { let b = a; return b; }", "a.js",
                                                                 "javascript")):
        first = extract_blob(src.encode(), path, language)
        again = extract_blob(src.encode(), path, language)
        assert first.occurrences == again.occurrences
        assert any(o.role == "local" for o in first.occurrences)


def test_java_a_field_of_a_parameter_s_name_is_no_local():
    # `this.a` is the field, though the constructor's parameter `a` is in scope
    src = "class B {\n  int a;\n  B(int a) { this.a = a; }\n}\n"
    assert sites(src, "B.java", "java", "a") == [
        ("a", 2, 7, "definition"), ("a", 3, 9, "local"), ("a", 3, 19, "identifier"), ("a", 3, 23, "local")]


def test_java_a_receiver_parameter_and_a_comment_among_parameters_bind_nothing():
    # `B this` (a receiver parameter) and a comment are no parameters: only a and b bind
    src = "class B {\n  void f(B this, int a) { use(a); }\n  void g(/* n */ int b) { use(b); }\n}\n"
    assert sites(src, "B.java", "java", "a", "b") == [
        ("a", 2, 22, "local"), ("a", 2, 31, "local"), ("b", 3, 22, "local"), ("b", 3, 31, "local")]


def test_java_a_local_class_s_field_hides_the_method_s_parameter():
    # inside the local class L, `a` is L's field a, not f's parameter a
    src = "class A {\n  void f(int a) {\n    class L { int a; void m() { a++; } }\n  }\n}\n"
    assert sites(src, "A.java", "java", "a") == [
        ("a", 2, 14, "local"), ("a", 3, 19, "definition"), ("a", 3, 33, "identifier")]


def test_go_a_parameter_s_type_binds_nothing():
    # `T(a)` and `int(...)` convert: T and int are the parameters' types, never locals
    src = "package p\n\nfunc f(a T, b int) int {\n\treturn int(T(a)) + b\n}\n"
    assert sites(src, "p.go", "go", "T", "a", "b", "int") == [
        ("a", 3, 8, "local"), ("T", 3, 10, "reference"), ("b", 3, 13, "local"), ("int", 3, 15, "reference"),
        ("int", 3, 20, "reference"), ("int", 4, 9, "call"), ("T", 4, 13, "call"), ("a", 4, 15, "local"),
        ("b", 4, 21, "local")]
