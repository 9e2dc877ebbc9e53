"""The symbols and local sites the JavaScript and TypeScript queries (indexer/lang/javascript/
queries.scm, generators.scm, locals.scm, jsx.scm; indexer/lang/typescript/queries.scm) make, each row a form a
hand mutant dropping one of their patterns got past, asserted as docs/languages.md lists
them."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob

LANGUAGES = {"js": "javascript", "jsx": "javascript", "ts": "typescript", "tsx": "tsx"}


def symbols(source: str, path: str) -> list[tuple[str, str]]:
    facts = extract_blob(source.encode(), path, LANGUAGES[path.rsplit(".", 1)[1]])
    return [(s.qualified, s.kind) for s in facts.symbols]


@pytest.mark.parametrize(("source", "expected"), [
    # class fields, private ones too; a field holding a function expression is a method
    ("class A {\n  #count = 0;\n  handle = function () {};\n}\n",
     [("A", "class"), ("A.#count", "field"), ("A.handle", "method")]),
    ("export var data = 1;\n", [("data", "variable")]),
])
def test_javascript_symbols(source, expected):
    assert symbols(source, "m.js") == expected


@pytest.mark.parametrize(("source", "expected"), [
    # a namespace named by a dotted name, and its variables, exported or not
    ("namespace A.B {\n  export var inner = 1;\n  var hidden = 2;\n}\n",
     [("A.B", "namespace"), ("A.B.inner", "variable"), ("A.B.hidden", "variable")]),
    # enum members, with and without a value
    ("enum E { P = 1, Q }\n", [("E", "enum"), ("E.P", "enumerator"), ("E.Q", "enumerator")]),
    # constructor parameter properties, optional ones too, are fields of the class
    ("class C {\n  constructor(private n?: number, readonly m?: number) {}\n}\n",
     [("C", "class"), ("C.constructor", "method"), ("C.n", "field"), ("C.m", "field")]),
    ("export var data = 1;\n", [("data", "variable")]),
    # an object type alias's properties are fields
    ("type T = { a: number };\n", [("T", "type"), ("T.a", "field")]),
    # each name a top-level destructuring binds, `var` too
    ("var [p, q] = pair();\nvar { r } = o;\n", [("p", "variable"), ("q", "variable"), ("r", "variable")]),
])
@pytest.mark.parametrize("path", ["m.ts", "m.tsx"])
def test_typescript_symbols(source, expected, path):
    assert symbols(source, path) == expected


@pytest.mark.parametrize("path", ["m.jsx", "m.tsx"])
def test_a_jsx_member_component_is_a_reference_opened_or_self_closing(path):
    facts = extract_blob(b"const a = <Nav.Item />;\nconst b = <Nav.Item></Nav.Item>;\n", path, LANGUAGES[path[2:]])
    assert [(o.line, o.col) for o in facts.occurrences if o.name == "Item" and o.role == "reference"] == [(1, 15), (2, 15)]


@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_let_in_a_for_loop_and_a_switch_case_is_local_to_it(path):
    # `for (let i ...)` binds i in the loop, `case 1: let j` in the switch's body: their uses
    # there are local sites, a use of the name outside them is not
    source = ("function f() {\n  for (let i = 0; i < 3; i++) { use(i); }\n  switch (k) {\n    case 1:\n"
              "      let j = 2;\n      use(j);\n  }\n}\nuse(i);\nuse(j);\n")
    facts = extract_blob(source.encode(), path, LANGUAGES[path[2:]])
    assert [(o.name, o.line, o.role) for o in facts.occurrences if o.name in ("i", "j")] == [
        ("i", 2, "local"), ("i", 2, "local"), ("i", 2, "local"), ("i", 2, "local"),
        ("j", 5, "local"), ("j", 6, "local"), ("i", 9, "identifier"), ("j", 10, "identifier")]


@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_a_rest_parameter_is_local_with_a_comment_after_its_dots(path):
    source = "function f(... /* c */ rest) {\n  return rest;\n}\n"
    facts = extract_blob(source.encode(), path, LANGUAGES[path[2:]])
    assert [(o.line, o.role) for o in facts.occurrences if o.name == "rest"] == [(1, "local"), (2, "local")]


@pytest.mark.parametrize("path", ["m.jsx", "m.tsx"])
@pytest.mark.parametrize("markup", ["<div><Button/></div>", "< div>< Button/></ div>", "<\n  div\n>x</\n  div>"])
def test_an_intrinsic_tag_is_no_use_of_a_local_of_its_name_spaces_or_not(path, markup):
    # docs/languages.md: a JSX intrinsic tag (`<div>`) is a string, not a local's use; JSX
    # allows spaces after `<` and `</`; a component (`<Button/>`) is a use of its local
    source = f"function f(div, Button) {{\n  return {markup};\n}}\n"
    facts = extract_blob(source.encode(), path, LANGUAGES[path[2:]])
    locals_ = [(o.name, o.line) for o in facts.occurrences if o.role == "local"]
    assert ("div", 1) in locals_ and ("Button", 1) in locals_
    assert [name for name, line in locals_ if line > 1] == (["Button"] if "Button" in markup else [])


# Each form the TypeScript compiler's parser reads as a member, checked against it on npm's
# published code: private methods and private function-valued fields are methods (were: no
# symbol, or a field), and a class field's named function expression is the field's method
# alone (was: a second symbol of the expression's own name, held by the field).
PRIVATE_AND_FIELD_FUNCTIONS = (
    "class P {\n  #evict() {}\n  static #make() {}\n  #onEnd = () => 1;\n"
    "  static fac = function P_Factory() { function inner() {} };\n}\n")
PRIVATE_AND_FIELD_SYMBOLS = [("P", "class"), ("P.#evict", "method"), ("P.#make", "method"),
                             ("P.#onEnd", "method"), ("P.fac", "method"), ("P.fac.inner", "function")]


@pytest.mark.parametrize("path", ["m.js", "m.jsx", "m.ts", "m.tsx"])
def test_private_methods_and_a_field_s_named_function_are_methods_once(path):
    assert symbols(PRIVATE_AND_FIELD_FUNCTIONS, path) == PRIVATE_AND_FIELD_SYMBOLS


@pytest.mark.parametrize(("source", "expected"), [
    # a declaration file's `declare var` globals, exported or not (were: no symbol), the
    # methods of their object type held by them
    ("declare var Obj: { from(x: number): void };\nexport declare var flag: boolean;\n",
     [("Obj", "variable"), ("Obj.from", "method"), ("flag", "variable")]),
    # the variables of `declare global`, of an ambient module and of a `module` (were: none,
    # though their functions were read)
    ("declare global {\n  var ngDevMode: boolean;\n  const seen: number;\n}\n",
     [("ngDevMode", "variable"), ("seen", "variable")]),
    ('declare module "dns" {\n  export const REFUSED: string;\n  var hidden: number;\n'
     '  function lookup(): void;\n}\n',
     [("REFUSED", "constant"), ("hidden", "variable"), ("lookup", "function")]),
    ("module Legacy {\n  export var limit = 1;\n}\n", [("Legacy", "module"), ("Legacy.limit", "variable")]),
])
@pytest.mark.parametrize("path", ["m.ts", "m.tsx", "m.d.ts"])
def test_ambient_and_module_variables_are_symbols(source, expected, path):
    assert symbols(source, path) == expected


@pytest.mark.parametrize("path", ["m.ts", "m.tsx"])
def test_a_top_level_destructuring_s_names_with_defaults_are_variables(path):
    # as the TypeScript compiler binds them (were: left out); a nested pattern's names still are
    source = "const { a = 1, b: c = 2, d } = o;\nvar [x = 1, y] = z;\nexport const { e = 1 } = o;\n"
    assert symbols(source, path) == [("a", "variable"), ("c", "variable"), ("d", "variable"),
                                     ("x", "variable"), ("y", "variable"), ("e", "variable")]


@pytest.mark.parametrize("path", ["m.js", "m.ts", "m.tsx"])
def test_a_class_expression_s_fields_are_held_by_its_variable_as_its_methods_are(path):
    # the bundlers' `var Box = class { ... }` (was: the fields held by nothing, or by the named
    # class alone, while the methods were the variable's)
    source = "var Box = class {\n  size;\n  static NULL = 1;\n  grow() {}\n};\nlet R$1 = class R { static MAX = 2; }\n"
    assert symbols(source, path) == [("Box", "variable"), ("Box.size", "field"), ("Box.NULL", "constant"),
                                     ("Box.grow", "method"), ("R$1", "variable"), ("R$1.R", "class"),
                                     ("R$1.R.MAX", "constant")]


@pytest.mark.parametrize("path", ["m.ts", "m.tsx"])
def test_a_parameter_property_leaves_the_constructor_holding_what_its_body_defines(path):
    # (the class's fields read as held by variables, above, once took the constructor off the
    # holders of the definitions after a parameter property)
    source = "class A {\n  constructor(public owned_: boolean) {\n    this.enhancer_ = (v) => v;\n  }\n}\n"
    assert symbols(source, path) == [("A", "class"), ("A.constructor", "method"), ("A.owned_", "field"),
                                     ("A.constructor.enhancer_", "function")]
