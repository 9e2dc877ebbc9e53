"""JavaScript and TypeScript statements read into blob facts, each row a form a mutant of
indexer/lang/javascript/ (imports.py, assigned.py, bases.py) got past, asserted as the
language reads it and docs/languages.md says."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from indexer.model import BlobFacts, ImportSpec

PATHS = ["m.js", "m.ts"]


def facts(source: str, path: str) -> BlobFacts:
    return extract_blob(source.encode(), path, "javascript" if path.endswith(".js") else "typescript")


def js(spec: str, names: tuple[str, ...] = (), aliases: tuple[str, ...] = (), exports: tuple[str, ...] = ()) -> ImportSpec:
    return ImportSpec("js", spec, 1, 0, names, aliases, exports)


@pytest.mark.parametrize(("source", "imports"), [
    # `$` is a letter of a JavaScript name: `exports.$get` re-exports a's get as $get
    ('exports.$get = require("./a").get;\n', [js("./a", ("get",), ("$get",), ("$get",))]),
    # `exports.default` is a property named default of the module object, not the default an
    # ES import of a CommonJS module binds (its whole `module.exports`): no re-export
    ('exports.default = require("./a").x;\n', [js("./a")]),
    # `exports.X = require("./a")` offers a's default, what a `require` of it binds, as X
    ('exports.X = require("./a");\n', [js("./a", ("default",), ("X",), ("X",))]),
    # `module.exports = m.default` of a module bound whole re-exports its default as the
    # file's, not every name it offers (as `module.exports = m` does)
    ('const m = require("./a");\nmodule.exports = m.default;\n',
     [js("./a", (), ("m",)), js("./a", ("default",), (), ("default",))]),
    # a nested pattern binds none of a's names by name (its names are a's a's)
    ('const { a: { b }, c } = require("./a");\n', [js("./a", ("c",))]),
    # a computed key names no export of a: only b is bound by name
    ('const { [key]: v, b } = require("./a");\n', [js("./a", ("b",))]),
    # the name after `as` is the namespace's, not a comment beside it
    ('export * as /* c */ ns from "./a";\n', [js("./a", ("*",), ("ns",), ("ns",))]),
    ('export * /* c */ as ns from "./a";\n', [js("./a", ("*",), ("ns",), ("ns",))]),
])
@pytest.mark.parametrize("path", PATHS)
def test_what_an_import_or_re_export_binds(source, imports, path):
    assert facts(source, path).imports == imports


@pytest.mark.parametrize(("source", "exported_as"), [
    # `module.exports = function make() {}` exports make, the function keeping its own name
    ("module.exports = function make() {};\n", [("make", "default")]),
    # a function expression's own name binds inside its body only: `exports.Y = function
    # foo() {}` exports no local foo under the name Y
    ("exports.Y = function foo() {};\n", []),
    ("exports.default = make;\nfunction make() {}\n", []),
    # an array is no local name, though it holds one
    ("a;\nexport default [a];\n", []),
    # `export`, `default` and the name each on a line of their own: no semicolon is inserted
    # after `export` or `default`, so the name is the default export
    ("class A {}\nexport\ndefault\nA\n", [("A", "default")]),
    ("export\ndefault\n\nclass B {}\n", [("B", "default")]),
    # `export` then a line that is no `default` exports nothing, whatever follows on it
    ("export\nfoo bar;\n", []),
    ("export\nfoo(bar) baz;\n", []),
    # decorators before `export`, any number of them
    ("@a\n@b\nexport default class A {}\n", [("A", "default")]),
    # ECMA-262, Exports: `export default AssignmentExpression;`, and the Grouping Operator's
    # evaluation of `( Expression )` is that of Expression: a parenthesised name is exported
    # as the name is, through any parentheses and comments; a group of two is a sequence, and
    # a parenthesised function or class an expression binding no local name
    ("class Foo {}\nexport default (Foo);\n", [("Foo", "default")]),
    ("class Foo {}\nexport default ((/* c */ Foo));\n", [("Foo", "default")]),
    ("export default (a, b);\n", []),
    ("export default (f());\n", []),
    ("export default (function f() {});\n", []),
    ("export default (class C {});\n", []),
    # the same split after `export`, which TypeScript's grammar reads as a call of `default`
    ("class Foo {}\nexport\ndefault (Foo);\n", [("Foo", "default")]),
    ("class Foo {}\nexport\ndefault ((/* c */ Foo));\n", [("Foo", "default")]),
    ("export\ndefault (a, b);\n", []),
    ("export\ndefault (Foo)(x);\n", []),
    ("export\ndefault (f());\n", []),
    # CommonJS's assignment the same: `module.exports = (Foo)` is Foo, `exports.Y = (X)` X as Y
    ("class Foo {}\nmodule.exports = (Foo);\n", [("Foo", "default")]),
    ("class X {}\nexports.Y = (X);\n", [("X", "Y")]),
])
@pytest.mark.parametrize("path", PATHS)
def test_what_a_file_exports_under_another_name(source, exported_as, path):
    assert facts(source + "export {};\n", path).exported_as == exported_as


@pytest.mark.parametrize("source", ["export = make();\n", "export = { a: 1 };\n"])
def test_a_typescript_export_of_a_value_exports_no_local_name(source):
    # `export = X` exports the local X as the module's default; a call or an object is no name
    assert facts(source, "m.ts").exported_as == []


def test_a_typescript_export_of_a_parenthesised_name_exports_the_name():
    # `export = (Foo)` is `export = Foo`: parentheses group the expression, changing nothing
    assert facts("class Foo {}\nexport = ((Foo));\n", "m.ts").exported_as == [("Foo", "default")]


@pytest.mark.parametrize("source", ["x;\nexport\n", "const x = 1;\nexport;\n"])
@pytest.mark.parametrize("path", PATHS)
def test_an_export_ending_the_file_leaves_it_read(source, path):
    found = facts(source, path)
    assert (found.skipped, found.exported_as) == ("", [])


@pytest.mark.parametrize(("source", "symbols"), [
    # docs/languages.md: `module.exports = function make() {}` is the module's own, and a named
    # function there keeps its own name
    ("module.exports = function make() {};\n", [("make", "function")]),
    # a holder written through `this` is no name the index can hold: the symbol stays where it
    # is written, in F
    ("function F() {\n  this.start = function () {};\n}\n", [("F", "function"), ("F.start", "function")]),
    # `Foo.prototype = { m() {} }` is Foo.m (docs/languages.md); an object beside
    # `Foo.prototype` but not assigned to it is no prototype's, nor an object assigned to
    # another property
    ("Foo.prototype = { m() {} };\nvar proto = Foo.prototype || { n: function () {} };\n"
     "obj.x = { k: function () {} };\n",
     [("Foo.m", "method"), ("proto", "variable"), ("proto.n", "function"), ("k", "function")]),
    # a function expression's own name is no second symbol where a declarator names it, and
    # names it where a computed or string key (no name of the shipped tags) holds it
    ("const v = function vv() {};\nconst o = { [key]: function g() {}, \"s\": function h() {} };\n",
     [("v", "function"), ("o", "variable"), ("o.g", "function"), ("o.h", "function")]),
    # nor where a pattern destructures the function (no name of the shipped tags names it)
    ("function f() {\n  const { name } = function g() {};\n}\n", [("f", "function"), ("f.g", "function")]),
    # a function expression no definition is made of is named by its own name: a callback, a
    # value assigned to a private member (no property name of the shipped tags)
    ("run(function g() {});\nclass A {\n  #p;\n  m() {\n    this.#p = function h() {};\n  }\n}\n",
     [("g", "function"), ("A", "class"), ("A.#p", "field"), ("A.m", "method"), ("A.m.h", "function")]),
    # the holder is named from the top of the file, wherever the assignment stands, and holds
    # what is defined inside; a property named `exports` of anything but `module` is a property
    ("function F() {\n  obj.start = function () {\n    function inner() {}\n  };\n}\n"
     "foo.exports = function () {};\n",
     [("F", "function"), ("obj.start", "method"), ("obj.start.inner", "function"), ("foo.exports", "method")]),
    # or through a private name (`obj.#p`, `this.#p`): ECMA-262's early errors allow `#p` only
    # in the class body declaring it, so it names that class's member `A.#p`, no object a
    # dotted holder `obj.#p` spells; the function stays where it is written
    ("class A {\n  #p;\n  m(obj) {\n    obj.#p.run = function () {};\n    this.#p.go = () => {};\n  }\n}\n",
     [("A", "class"), ("A.#p", "field"), ("A.m", "method"), ("A.m.run", "function"), ("A.m.go", "function")]),
    # so does one through a field of `this`, a call or a subscript
    ("function F() {\n  this.x.start = function () {};\n  make().run = function () {};\n"
     "  list[0].stop = function () {};\n}\n",
     [("F", "function"), ("F.start", "function"), ("F.run", "function"), ("F.stop", "function")]),
])
@pytest.mark.parametrize("path", PATHS)
def test_property_assigned_functions(source, symbols, path):
    assert [(s.qualified, s.kind) for s in facts(source, path).symbols] == symbols


@pytest.mark.parametrize(("source", "symbols"), [
    # a generator function is a function: assigned to a property it is one symbol held by the
    # object (docs/languages.md), its own name no second one; as a declarator's or a key's
    # value it is named by them, as a function expression is
    ("obj.gen = function* gen() {\n  function inner() {}\n};\n",
     [("obj.gen", "method"), ("obj.gen.inner", "function")]),
    ("Foo.prototype.m = function* () {};\nFoo.prototype = { n: function* () {} };\n",
     [("Foo.m", "method"), ("Foo.n", "method")]),
    ("function f() {\n  const g = function* g() {};\n  const o = { k: function* () {} };\n}\n",
     [("f", "function"), ("f.g", "function"), ("f.k", "function")]),
])
@pytest.mark.parametrize("path", PATHS)
def test_generator_functions_as_values(source, symbols, path):
    assert [(s.qualified, s.kind) for s in facts(source, path).symbols] == symbols


@pytest.mark.parametrize("source", ["class A extends web\n  .Base {}\n", "class A extends web . Base {}\n"])
@pytest.mark.parametrize("path", PATHS)
def test_a_dotted_base_is_read_without_the_spaces_inside_it(source, path):
    assert [(b.cls, b.base) for b in facts(source, path).bases] == [("A", "web.Base")]


@pytest.mark.parametrize("path", PATHS)
def test_bases_are_read_whole_where_the_tags_query_met_its_match_limit(path):
    # the tags' class starts are then not known: the walk for bases looks everywhere
    from indexer.extract.tags import MATCH_LIMIT

    source = "class A extends Base {}\nx = a" + "\n  .b()" * (4 * MATCH_LIMIT) + ";\n"
    found = facts(source, path)
    assert found.symbols_capped
    assert [(b.cls, b.base) for b in found.bases] == [("A", "Base")]


@pytest.mark.parametrize(("source", "es"), [
    ("const b = 2;\nexport const a = 1;\n", True),  # one `export` among other statements
    ("const b = 2;\nmodule.exports = b;\n", False),
    ("const b = 2;\nconst exported = 'export';\n", False),
])
@pytest.mark.parametrize("path", PATHS)
def test_a_file_exporting_by_es_syntax(source, es, path):
    # BlobFacts.es_module: a `require` of the file binds its module object
    assert facts(source, path).es_module is es
