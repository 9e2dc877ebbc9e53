"""CommonJS re-exports of an ES module's default, and `require` of an ES module: `exports.X =
require("./y").default`, `const y = require("./y"); exports.X = y.default;` and
`module.exports.X = y.default` make X an alias of y's default export, as `export { default as X }
from "./y"` does, for `context references` and `context symbol`; `require` of a file that exports
by ES syntax binds its module object, whose `.default` is the default export (`y.default()` is
a use of it, `y()` is not), while `require` of a CommonJS module still binds what it assigns to
`module.exports`. Exact sites, from a real index of tests/fixtures/sites/commonjs_defaults.txt,
where a comment beside each line says which sites it holds."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from tests.indexed import NotedSites, definitions, sites

SITES = NotedSites("commonjs_defaults.txt", "rennet-ctx-cjs-defaults-", "commonjs defaults")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_a_name_qualified_through_a_commonjs_re_export(app):
    assert definitions(app, "relay1.Maker") == [("esm/make.js", "make", 1, "qualified")]
    assert definitions(app, "relay2.Former") == [("esm/make.js", "make", 1, "qualified")]


def test_require_of_an_es_module_binds_its_module_object(app):
    # use.js's Gear is the module object, a variable of its own; its `.default` is the class
    assert definitions(app, "Gear") == [("esm2/gear.js", "Gear", 1, "exact"), ("esm2/use.js", "Gear", 1, "exact")]
    assert sites(app, "Gear", include_definitions=True) == [
        ("esm2/gear.js", 1, "same_file"), ("esm2/use.js", 3, "import"),  # Gear.default: the class
        ("esm2/use.js", 1, "same_file"), ("esm2/use.js", 3, "same_file")]  # the module object


@pytest.mark.parametrize(("source", "imports"), [
    (b"exports.X = require('./y').default;\n", [(("default",), ("X",), ("X",))]),
    (b"module.exports.X = require('./y').default;\n", [(("default",), ("X",), ("X",))]),
    (b"module.exports = require('./y').default;\n", [(("default",), (), ("default",))]),
    (b"exports.X = require('./y').other;\n", [(("other",), ("X",), ("X",))]),  # any name: commonjs_reexports
    (b"foo.X = require('./y').default;\n", [((), (), ())]),
    (b"const y = require('./y');\nexports.X = y.default;\nexports.X = y.default;\n",
     [((), ("y",), ()), (("default",), ("X",), ("X",))]),
    (b"const y = require('./y');\nexports.X = y.other;\nz.X = y.default;\n", [((), ("y",), ())]),
    # an operand of `||` beside the exports is no assignment to them: nothing re-exported
    (b"var y = module.exports || require('./y');\n", [((), (), ())]),
    (b"var y = exports.X || require('./y').default;\n", [((), (), ())]),
    # a private name is no name a module object offers (reading it throws)
    (b"class K { #p; f() { exports.X = require('./y').#p; } }\n", [((), (), ())]),
])
def test_what_a_commonjs_re_export_of_a_default_imports(source, imports):
    facts = extract_blob(source, "r.js", "javascript")
    assert [(i.names, i.aliases, i.exports) for i in facts.imports] == imports
    assert {i.line for i in facts.imports} == {1}  # the require's line: the edge it resolves to


@pytest.mark.parametrize(("source", "es"), [
    (b"export default function f() {}\n", True),
    (b"export const a = 1;\n", True),
    (b"export * from './x';\n", True),
    (b"module.exports = function f() {};\n", False),
    (b"const a = require('./x');\n", False),
    # an `export default` split at a line break after `export`, as the grammars leave it
    (b"class A {}\nexport\ndefault A;\n", True),
    (b"class A {}\nexport\ndefault (A);\n", True),
    (b"export\ndefault function () {}\n", True),
    (b"export\ndefault\n{};\n", True),
    (b"export\nfoo(bar);\n", False),  # no export: `export` alone, then no `default`
])
@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_an_es_module_is_one_exporting_by_es_syntax(source, es, path):
    assert extract_blob(source, path, "javascript" if path.endswith(".js") else "typescript").es_module is es


def test_a_typescript_export_assignment_is_no_es_module():
    assert extract_blob(b"class E {}\nexport = E;\n", "e.ts", "typescript").es_module is False
    assert extract_blob(b"export class E {}\n", "e.ts", "typescript").es_module is True


def test_a_file_of_another_language_is_no_es_module():
    assert extract_blob(b"x = 1\n", "m.py", "python").es_module is False
    assert extract_blob(b"package m\n", "m.go", "go").es_module is False
