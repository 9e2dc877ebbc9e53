"""JS/TS default exports as references read them: a definition a file exports as `default`
(`export default class Bar`, `export default function make()`, `class Thing {}; export default
Thing;`, `export { Widget as default }`) is what `import Foo from "./bar"` and `import { default
as Foo } from "./bar"` bind to Foo, so Foo's sites are `import` sites of it; the same through an
index re-exporting it (`export { default } from`, `export { default as Gadget2 } from`). An
anonymous default export has no name to alias. CommonJS likewise: `module.exports = Engine` is
what `const Motor = require("./engine")` binds, and `const { Part: Piece } = require(...)` binds
Part as Piece; TypeScript's `export = Engine2` is what `import Motor2 = require(...)` binds.
Extraction records what a file exports its own names as (`BlobFacts.exported_as`). Exact
sites, from a real index of tests/fixtures/sites/js_default_exports.txt, where a comment beside
each line says which sites it holds."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from tests.indexed import NotedSites, sites

SITES = NotedSites("js_default_exports.txt", "rennet-ctx-default-exports-", "default exports")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_an_anonymous_default_export_aliases_nothing(app):
    # use.js's `run` and `Cfg` are none.js's and obj.js's anonymous defaults: nothing defines them
    assert {resolution for _, _, resolution in sites(app, "run") + sites(app, "Cfg")} == {"name_match"}


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
    ("const c = require('./a').b;\nrequire('./a');\n", ("b",), ("c",)),  # a's b as c
    ("require('./a').b;\nrequire('./a');\n", (), ()),  # binds nothing
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
