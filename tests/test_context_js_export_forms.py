"""JS/TS exports the first pass at default and renamed exports missed
(tests/test_context_default_exports.py): a name qualified by a module re-exporting a default
or renamed export (`lib.Gadget2` over lib/index.js's `export { default as Gadget2 } from
"./gadget"`: the definition is gadget.js's Gadget, matched through the re-export; its
references are the sites of the name asked, Gadget2); `export default` written with a comment
or a line break after `export`; a CommonJS `const W = require(...)`'s W listed as the import
site it is, as `import W from` is; TypeScript's type-only imports. Exact sites, from a real
index."""

from __future__ import annotations

import pytest

import context_tools
from indexer.extract.blob import extract_blob
from tests.indexed import Indexed, definitions, sites

FILES = {
    # an index re-exporting a default export under a name, and a renamed export under its name
    "lib/gadget.js": "export default class Gadget {\n  spin() {}\n}\n",
    "lib/tool.js": "class Tool {}\nexport { Tool as Implement };\n",
    "lib/index.js": ("export { default } from './gadget';\nexport { default as Gadget2 } from './gadget';\n"
                     "export { Implement } from './tool';\n"),
    "app/a.js": "import G from '../lib';\n\nnew G();\n",
    "app/b.js": "import { Gadget2, Implement } from '../lib';\n\nnew Gadget2();\nnew Implement();\n",
    "app/c.js": "import { Implement } from '../lib/tool';\n\nnew Implement();\n",
    # two steps of renaming: outer/index.js offers inner's Gadget2 as Gizmo
    "outer/index.js": "export { Gadget2 as Gizmo } from '../lib';\n",
    "app/d.js": "import { Gizmo } from '../outer';\n\nnew Gizmo();\n",
    # a Gadget2 of its own, nothing to do with lib's
    "other/gadget2.js": "export class Gadget2 {}\n",
    # `export default` after a comment, and after a line break
    "odd/commented.js": "class Commented {}\nexport /* the main one */ default Commented;\n",
    "odd/broken.js": "export\n  default class Broken {}\n",
    "odd/broken2.js": "function brokenFn() {}\nexport\ndefault brokenFn;\n",
    "odd/use.js": ("import C from './commented';\nimport B from './broken';\nimport F from './broken2';\n\n"
                   "new C();\nnew B();\nF();\n"),
    # CommonJS: the binding's own line is an import site of what it binds
    "cjs/engine.js": "class Engine {}\nmodule.exports = Engine;\n",
    "cjs/use.js": "const Motor = require('./engine');\n\nnew Motor();\n",
    "cjs/esm.js": "import Motor from './engine';\n\nnew Motor();\n",
    "cjs/same.js": "const Engine = require('./engine');\n\nnew Engine();\n",  # under its own name
    "cjs/pkg.js": "const Engine = require('engine-pkg');\nEngine();\n",  # a package's: a variable of its own
    # TypeScript: a default-exported interface, imported as a type only
    "ts/props.ts": "export default interface Props {\n  size: number;\n}\nexport interface Named {}\n",
    "ts/a.ts": "import type Props from './props';\n\nconst p: Props = { size: 1 };\n",
    "ts/b.ts": "import { type Named } from './props';\nimport type { Named as N2 } from './props';\n\nlet n: Named;\nlet m: N2;\n",
}


REPO = Indexed(FILES, "rennet-ctx-js-export-forms-", message="js export forms")


@pytest.fixture(scope="module")
def app() -> tuple[context_tools.Client, str]:
    return REPO.asked()


def test_a_name_qualified_through_a_default_export_re_exported_under_a_name(app):
    # the query's last part is the name lib offers; the definition is gadget.js's Gadget
    assert definitions(app, "lib.Gadget2") == [("lib/gadget.js", "Gadget", 1, "qualified")]
    assert definitions(app, "lib.Gadget2.spin") == [("lib/gadget.js", "Gadget.spin", 2, "qualified")]
    assert definitions(app, "outer.Gizmo") == [("lib/gadget.js", "Gadget", 1, "qualified")]  # two renames
    assert definitions(app, "lib.Gadget") == []  # lib offers no Gadget
    # the sites of Gadget2 that are lib's: its own, b.js's, outer/index.js's (its `Gadget2` and
    # the `Gizmo` it offers it as); not a.js's G (lib's `default`, another name lib offers it
    # under), not other/gadget2.js's class of the name
    assert sites(app, "lib.Gadget2") == [("app/b.js", 1, "import"), ("app/b.js", 3, "import"),
                                         ("lib/index.js", 2, "import"),
                                         ("outer/index.js", 1, "import"), ("outer/index.js", 1, "import")]
    assert sites(app, "outer.Gizmo") == [("app/d.js", 1, "import"), ("app/d.js", 3, "import"),
                                         ("outer/index.js", 1, "import")]


def test_a_name_qualified_through_a_renamed_export(app):
    # tool.js offers Tool as Implement; lib re-exports Implement
    assert definitions(app, "tool.Implement") == [("lib/tool.js", "Tool", 1, "qualified")]
    assert definitions(app, "lib.Implement") == [("lib/tool.js", "Tool", 1, "qualified")]
    assert sites(app, "lib.Implement") == [
        ("lib/tool.js", 2, "same_file"),
        ("app/b.js", 1, "import"), ("app/b.js", 4, "import"),
        ("app/c.js", 1, "import"), ("app/c.js", 3, "import"),
        ("lib/index.js", 3, "import")]


def test_default_exports_written_with_a_comment_or_a_line_break(app):
    assert sites(app, "Commented") == [("odd/commented.js", 2, "same_file"),
                                       ("odd/use.js", 1, "import"), ("odd/use.js", 5, "import")]
    assert sites(app, "Broken") == [("odd/use.js", 2, "import"), ("odd/use.js", 6, "import")]
    assert sites(app, "brokenFn") == [("odd/broken2.js", 3, "same_file"),
                                      ("odd/use.js", 3, "import"), ("odd/use.js", 7, "import")]


@pytest.mark.parametrize(("source", "exported_as"), [
    ("class A {}\nexport /* c */ default A;\n", [("A", "default")]),
    ("export // c\n  default class A {}\n", [("A", "default")]),
    ("export\n  default class A {}\n", [("A", "default")]),
    ("export\ndefault function a() {}\n", [("a", "default")]),
    ("class A {}\nexport\n  default A;\n", [("A", "default")]),
    ("class A {}\nexport /* c */ { A as B };\n", [("A", "B")]),
    ("export\n  default function () {}\n", []),
    ("const x = 1;\nexport\n", []),  # an `export` alone: nothing
])
@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_the_form_of_an_export_read_from_the_tree(source, exported_as, path):
    facts = extract_blob(source.encode(), path, "javascript" if path.endswith(".js") else "typescript")
    assert facts.exported_as == exported_as


def test_a_require_binding_is_an_import_site_as_an_import_is(app):
    # use.js's `const Motor = require` and esm.js's `import Motor from`: each line an import
    # site; same.js's Engine likewise, the variable it declares being the import's binding, not
    # a definition of its own (its sites were `same_file`, its declaration left out); pkg.js's
    # Engine binds a package's, no definition of the answer: pkg.js's own variable, as before
    assert sites(app, "Engine") == [("cjs/engine.js", 2, "same_file"), ("cjs/pkg.js", 2, "same_file"),
                                    ("cjs/esm.js", 1, "import"), ("cjs/esm.js", 3, "import"),
                                    ("cjs/same.js", 1, "import"), ("cjs/same.js", 3, "import"),
                                    ("cjs/use.js", 1, "import"), ("cjs/use.js", 3, "import")]
    # Motor stays a variable use.js defines, and Engine one same.js defines
    assert definitions(app, "Motor") == [("cjs/use.js", "Motor", 1, "exact")]
    assert ("cjs/same.js", "Engine", 1, "exact") in definitions(app, "Engine")


def test_type_only_imports_are_aliases_as_value_imports_are(app):
    assert sites(app, "Props") == [("ts/a.ts", 1, "import"), ("ts/a.ts", 3, "import")]
    # b.ts's line 2 twice: `Named` and its alias N2
    assert sites(app, "Named") == [("ts/b.ts", 1, "import"), ("ts/b.ts", 2, "import"), ("ts/b.ts", 2, "import"),
                                   ("ts/b.ts", 4, "import"), ("ts/b.ts", 5, "import")]
