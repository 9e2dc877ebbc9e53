"""JS/TS default exports as references read them: a definition a file exports as `default`
(`export default class Bar`, `export default function make()`, `class Thing {}; export default
Thing;`, `export { Widget as default }`) is what `import Foo from "./bar"` and `import { default
as Foo } from "./bar"` bind to Foo, so Foo's sites are `import` sites of it; the same through an
index re-exporting it (`export { default } from`, `export { default as Gadget2 } from`). An
anonymous default export has no name to alias. CommonJS likewise: `module.exports = Engine` is
what `const Motor = require("./engine")` binds, and `const { Part: Piece } = require(...)` binds
Part as Piece; TypeScript's `export = Engine2` is what `import Motor2 = require(...)` binds.
Extraction records what a file exports its own names as (`BlobFacts.exported_as`). Exact
sites, from a real index."""

from __future__ import annotations

import pytest

import context_tools
from indexer.extract.blob import extract_blob
from tests.indexed import Indexed, sites

FILES = {
    "cls/bar.js": "export default class Bar {}\n",
    "cls/use.js": "import Foo from './bar';\n\nnew Foo();\n",
    "cls/same.js": "import Bar from './bar';\n\nnew Bar();\n",  # the default import under its own name
    "cls/braces.js": "import { default as Brace } from './bar';\n\nnew Brace();\n",
    "cls/other.js": "const Foo = 1;\nFoo;\n",  # a Foo of its own: no site of Bar
    "fn/make.js": "export default function make() {\n  return 1;\n}\n",
    "fn/use.js": "import build from './make';\n\nbuild();\n",
    "later/thing.ts": "class Thing {}\nexport default Thing;\n",
    "later/use.ts": "import T from './thing';\n\nconst t: T = new T();\n",
    "clause/widget.ts": "class Widget {}\nexport { Widget as default };\n",
    "clause/use.ts": "import W from './widget';\n\nnew W();\n",
    # re-exports of a default export, by an index
    "lib/gadget.js": "export default class Gadget {}\n",
    "lib/index.js": "export { default } from './gadget';\nexport { default as Gadget2 } from './gadget';\n",
    "app/a.js": "import G from '../lib';\n\nnew G();\n",  # the index's default: Gadget
    "app/b.js": "import { Gadget2 } from '../lib/index';\n\nnew Gadget2();\n",
    # anonymous default exports: nothing to alias
    "anon/none.js": "function helper() {}\nexport default function () {\n  helper();\n}\n",
    "anon/obj.js": "export default { x: 1 };\n",
    # CommonJS: `module.exports = Engine` is what `require` binds; a destructured name under another
    "cjs/engine.js": "class Engine {}\nmodule.exports = Engine;\n",
    "cjs/use.js": "const Motor = require('./engine');\n\nnew Motor();\n",
    "cjs/parts.js": "class Part {}\nclass Bolt {}\nmodule.exports = { Part, Bolt };\n",
    "cjs/pick.js": "const { Part: Piece, Bolt } = require('./parts');\n\nnew Piece(Bolt);\n",
    "cjs/whole.js": "const parts = require('./parts');\n\nnew parts.Part();\n",
    # a named export under another name
    "rename/tool.js": "class Tool {}\nexport { Tool as Implement };\n",
    "rename/use.js": "import { Implement } from './tool';\n\nnew Implement();\n",
    # TypeScript's CommonJS forms
    "tscjs/engine2.ts": "class Engine2 {}\nexport = Engine2;\n",
    "tscjs/use.ts": "import Motor2 = require('./engine2');\n\nnew Motor2();\n",
    # a namespace import reaches the named exports
    "ns/gear.js": "export class Gear {}\n",
    "ns/use.js": "import * as gears from './gear';\n\nnew gears.Gear();\n",
    "anon/use.js": "import run from './none';\nimport Cfg from './obj';\n\nrun();\nCfg.x;\n",
}


REPO = Indexed(FILES, "rennet-ctx-default-exports-", message="default exports")


@pytest.fixture(scope="module")
def app() -> tuple[context_tools.Client, str]:
    return REPO.asked()


def test_a_default_import_is_an_alias_of_the_default_exported_class(app):
    # use.js's Foo, same.js's Bar and braces.js's Brace are all bar.js's Bar; other.js's Foo is its own
    assert sites(app, "Bar") == [
        ("cls/braces.js", 1, "import"), ("cls/braces.js", 3, "import"),
        ("cls/same.js", 1, "import"), ("cls/same.js", 3, "import"),
        ("cls/use.js", 1, "import"), ("cls/use.js", 3, "import")]


def test_a_default_exported_function_and_a_later_default_export(app):
    assert sites(app, "make") == [("fn/use.js", 1, "import"), ("fn/use.js", 3, "import")]
    # `export default Thing;` is thing.ts's own site of Thing; use.ts's T three times
    assert sites(app, "Thing") == [
        ("later/thing.ts", 2, "same_file"),
        ("later/use.ts", 1, "import"), ("later/use.ts", 3, "import"), ("later/use.ts", 3, "import")]


def test_an_export_clause_as_default(app):
    # the `default` of `export { Widget as default }` is a keyword, no site of Widget
    assert sites(app, "Widget") == [
        ("clause/widget.ts", 2, "same_file"), ("clause/use.ts", 1, "import"), ("clause/use.ts", 3, "import")]


def test_a_definition_exported_under_another_name(app):
    # tool.js's `Implement` is the name it offers Tool under (as a Python re-export's alias is)
    assert sites(app, "Tool") == [
        ("rename/tool.js", 2, "same_file"),
        ("rename/tool.js", 2, "import"), ("rename/use.js", 1, "import"), ("rename/use.js", 3, "import")]


def test_a_default_export_through_an_index_re_exporting_it(app):
    # index.js's Gadget2 (the name it offers), a.js's G (the index's default) and b.js's Gadget2
    assert sites(app, "Gadget") == [
        ("app/a.js", 1, "import"), ("app/a.js", 3, "import"),
        ("app/b.js", 1, "import"), ("app/b.js", 3, "import"),
        ("lib/index.js", 2, "import")]


def test_an_anonymous_default_export_aliases_nothing(app):
    # use.js's `run` is none.js's anonymous default, no use of the helper it calls
    assert sites(app, "helper") == [("anon/none.js", 3, "same_file")]
    assert {resolution for _, _, resolution in sites(app, "run") + sites(app, "Cfg")} == {"name_match"}


def test_commonjs_module_exports_and_destructured_requires(app):
    # use.js's Motor (its declaration's too, the require's binding: test_context_js_export_forms);
    # pick.js's `Part` key and its Piece; whole.js's parts.Part, through the file it requires
    assert sites(app, "Engine") == [("cjs/engine.js", 2, "same_file"), ("cjs/use.js", 1, "import"),
                                    ("cjs/use.js", 3, "import")]
    assert sites(app, "Part") == [
        ("cjs/parts.js", 3, "same_file"),
        ("cjs/pick.js", 1, "import"), ("cjs/pick.js", 1, "import"), ("cjs/pick.js", 3, "import"),
        ("cjs/whole.js", 3, "import")]
    assert sites(app, "Bolt") == [("cjs/parts.js", 3, "same_file"), ("cjs/pick.js", 1, "import"),
                                  ("cjs/pick.js", 3, "import")]
    # TypeScript: `export = Engine2` and `import Motor2 = require(...)`, the alias's own site included
    assert sites(app, "Engine2") == [
        ("tscjs/engine2.ts", 2, "same_file"), ("tscjs/use.ts", 1, "import"), ("tscjs/use.ts", 3, "import")]


def test_a_namespace_import_reaches_the_named_exports(app):
    assert sites(app, "Gear") == [("ns/use.js", 3, "import")]


@pytest.mark.parametrize(("source", "exported_as"), [
    ("export default class Bar {}\n", [("Bar", "default")]),
    ("export default function bar() {}\n", [("bar", "default")]),
    ("class Bar {}\nexport default Bar;\n", [("Bar", "default")]),
    ("class Bar {}\nexport { Bar as default, Bar as Baz, Bar };\n", [("Bar", "default"), ("Bar", "Baz")]),
    ("export default function () {}\n", []),
    ("export default { x: 1 };\n", []),
    ("export class Bar {}\nexport function bar() {}\n", []),  # exported as themselves
    # an imported binding exported is its import's `exports`, not the file's own name
    ("import Foo from './x';\nexport default Foo;\n", []),
    ("class Engine {}\nmodule.exports = Engine;\n", [("Engine", "default")]),
    ("module.exports = { a: 1 };\nmodule.exports.b = 2;\n", []),
])
@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_what_a_file_exports_its_own_names_as(source, exported_as, path):
    facts = extract_blob(source.encode(), path, "javascript" if path.endswith(".js") else "typescript")
    assert facts.exported_as == exported_as


@pytest.mark.parametrize(("source", "names", "aliases"), [
    ("const m = require('./a');\n", (), ("m",)),  # the module itself, as `import m = require`
    ("const { a, b: c, default: d } = require('./a');\n", ("a", "b", "default"), ("", "c", "d")),
    ("const b = require('./a').b;\nrequire('./a');\n", (), ()),  # binds no name the module exports
])
def test_what_a_require_binds(source, names, aliases):
    imports = extract_blob(source.encode(), "m.js", "javascript").imports
    assert [(i.names, i.aliases) for i in imports][:1] == [(names, aliases)]


def test_typescript_default_interfaces_abstract_classes_and_export_assignments():
    source = b"export default interface Shape {}\n"
    assert extract_blob(source, "s.ts", "typescript").exported_as == [("Shape", "default")]
    source = b"class Engine {}\nexport = Engine;\nexport as namespace Motors;\n"  # the UMD name is no export
    assert extract_blob(source, "e.ts", "typescript").exported_as == [("Engine", "default")]
    source = b"export default abstract class Base {}\n"
    assert extract_blob(source, "b.ts", "typescript").exported_as == [("Base", "default")]
