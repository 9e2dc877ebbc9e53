"""CommonJS re-exports of an ES module's default, and `require` of an ES module: `exports.X =
require("./y").default`, `const y = require("./y"); exports.X = y.default;` and
`module.exports.X = y.default` make X an alias of y's default export, as `export { default as X }
from "./y"` does, for `context references` and `context symbol`; `require` of a file that exports
by ES syntax binds its module object, whose `.default` is the default export (`y.default()` is
a use of it, `y()` is not), while `require` of a CommonJS module still binds what it assigns to
`module.exports`. Exact sites, from a real index."""

from __future__ import annotations

import pytest

import context_tools
from indexer.extract.blob import extract_blob
from tests.indexed import Indexed, definitions, sites

FILES = {
    "esm/make.js": "export default function make() {\n  return 1;\n}\n",
    "esm/relay1.js": "exports.Maker = require('./make').default;\n",
    "esm/relay2.js": "const m = require('./make');\nexports.Builder = m.default;\nmodule.exports.Former = m.default;\n",
    "esm/relay3.js": "module.exports = require('./make').default;\n",
    "esm/use1.js": "const { Maker } = require('./relay1');\n\nMaker();\n",
    "esm/use2.mjs": "import { Builder, Former } from './relay2';\n\nBuilder();\nFormer();\n",
    "esm/use3.js": "const Whole = require('./relay3');\n\nWhole();\n",
    # the module object of an ES module: its `default` is make, the object itself is not
    "esm/callers.js": "const y = require('./make');\n\ny.default();\ny();\n",
    # a CommonJS module: `require` binds what `module.exports` is
    "cjs/engine.js": "class Engine {}\nmodule.exports = Engine;\n",
    "cjs/use.js": "const Motor = require('./engine');\n\nnew Motor();\nMotor.default;\n",
    # an ES module whose default is a class of the name the requiring file binds: no definition
    "esm2/gear.js": "export default class Gear {}\n",
    "esm2/use.js": "const Gear = require('./gear');\n\nnew Gear.default();\n",
}

REPO = Indexed(FILES, "rennet-ctx-cjs-defaults-", message="commonjs defaults")


@pytest.fixture(scope="module")
def app() -> tuple[context_tools.Client, str]:
    return REPO.asked()


def test_commonjs_re_exports_of_a_default_are_aliases_of_it(app):
    assert sites(app, "make") == [
        ("esm/callers.js", 3, "import"),  # y.default()
        ("esm/relay1.js", 1, "import"),  # exports.Maker
        ("esm/relay2.js", 2, "import"), ("esm/relay2.js", 2, "import"),  # m.default, exports.Builder
        ("esm/relay2.js", 3, "import"), ("esm/relay2.js", 3, "import"),  # m.default, Former
        ("esm/use1.js", 1, "import"), ("esm/use1.js", 3, "import"),
        ("esm/use2.mjs", 1, "import"), ("esm/use2.mjs", 1, "import"),
        ("esm/use2.mjs", 3, "import"), ("esm/use2.mjs", 4, "import"),
        # relay3.js names it nothing (`module.exports = ...default`): its default, use3.js's Whole
        ("esm/use3.js", 1, "import"), ("esm/use3.js", 3, "import")]


def test_a_name_qualified_through_a_commonjs_re_export(app):
    assert definitions(app, "relay1.Maker") == [("esm/make.js", "make", 1, "qualified")]
    assert definitions(app, "relay2.Former") == [("esm/make.js", "make", 1, "qualified")]


def test_require_of_a_commonjs_module_binds_its_module_exports(app):
    assert sites(app, "Engine") == [
        ("cjs/engine.js", 2, "same_file"),
        ("cjs/use.js", 1, "import"), ("cjs/use.js", 3, "import"), ("cjs/use.js", 4, "import")]


def test_require_of_an_es_module_binds_its_module_object(app):
    # use.js's Gear is the module object, a variable of its own; its `.default` is the class
    assert definitions(app, "Gear") == [("esm2/gear.js", "Gear", 1, "exact"), ("esm2/use.js", "Gear", 1, "exact")]
    assert sites(app, "Gear", include_definitions=True) == [
        ("esm2/gear.js", 1, "same_file"),
        ("esm2/use.js", 1, "same_file"), ("esm2/use.js", 3, "same_file"),  # the module object
        ("esm2/use.js", 3, "import")]  # Gear.default


@pytest.mark.parametrize(("source", "imports"), [
    (b"exports.X = require('./y').default;\n", [(("default",), ("X",), ("X",))]),
    (b"module.exports.X = require('./y').default;\n", [(("default",), ("X",), ("X",))]),
    (b"module.exports = require('./y').default;\n", [(("default",), (), ("default",))]),
    (b"exports.X = require('./y').other;\n", [((), (), ())]),  # not the default: nothing bound
    (b"foo.X = require('./y').default;\n", [((), (), ())]),
    (b"const y = require('./y');\nexports.X = y.default;\nexports.X = y.default;\n",
     [((), ("y",), ()), (("default",), ("X",), ("X",))]),
    (b"const y = require('./y');\nexports.X = y.other;\nz.X = y.default;\n", [((), ("y",), ())]),
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
])
def test_an_es_module_is_one_exporting_by_es_syntax(source, es):
    assert extract_blob(source, "m.js", "javascript").es_module is es


def test_a_typescript_export_assignment_is_no_es_module():
    assert extract_blob(b"class E {}\nexport = E;\n", "e.ts", "typescript").es_module is False
    assert extract_blob(b"export class E {}\n", "e.ts", "typescript").es_module is True
