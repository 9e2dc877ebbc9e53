"""JS/TS exports the first pass at default and renamed exports missed
(tests/test_context_default_exports.py): a name qualified by a module re-exporting a default
or renamed export (`lib.Gadget2` over lib/index.js's `export { default as Gadget2 } from
"./gadget"`: the definition is gadget.js's Gadget, matched through the re-export; its
references are the sites of the name asked, Gadget2); `export default` written with a comment
or a line break after `export`; a CommonJS `const W = require(...)`'s W listed as the import
site it is, as `import W from` is; TypeScript's type-only imports. Exact sites, from a real index of
tests/fixtures/sites/js_export_forms.txt, where a comment beside each line says which sites it
holds."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from tests.indexed import NotedSites, definitions

SITES = NotedSites("js_export_forms.txt", "rennet-ctx-js-export-forms-", "js export forms")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_a_name_qualified_through_a_default_export_re_exported_under_a_name(app):
    # the query's last part is the name lib offers; the definition is gadget.js's Gadget
    assert definitions(app, "lib.Gadget2") == [("lib/gadget.js", "Gadget", 1, "qualified")]
    assert definitions(app, "lib.Gadget2.spin") == [("lib/gadget.js", "Gadget.spin", 2, "qualified")]
    assert definitions(app, "outer.Gizmo") == [("lib/gadget.js", "Gadget", 1, "qualified")]  # two renames
    assert definitions(app, "lib.Gadget") == []  # lib offers no Gadget


def test_a_name_qualified_through_a_renamed_export(app):
    # tool.js offers Tool as Implement; lib re-exports Implement
    assert definitions(app, "tool.Implement") == [("lib/tool.js", "Tool", 1, "qualified")]
    assert definitions(app, "lib.Implement") == [("lib/tool.js", "Tool", 1, "qualified")]


@pytest.mark.parametrize(("source", "exported_as"), [
    ("class A {}\nexport /* c */ default A;\n", [("A", "default")]),
    ("export // c\n  default class A {}\n", [("A", "default")]),
    ("export\n  default class A {}\n", [("A", "default")]),
    ("export\ndefault function a() {}\n", [("a", "default")]),
    ("class A {}\nexport\n  default A;\n", [("A", "default")]),
    ("class A {}\nexport /* c */ { A as B };\n", [("A", "B")]),
    ("export\n  default function () {}\n", []),
    ("const x = 1;\nexport\n", []),  # an `export` alone: nothing
    ("@dec\nexport default class A {}\n", [("A", "default")]),  # a decorator before `export`
])
@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_the_form_of_an_export_read_from_the_tree(source, exported_as, path):
    facts = extract_blob(source.encode(), path, "javascript" if path.endswith(".js") else "typescript")
    assert facts.exported_as == exported_as


@pytest.mark.parametrize("path", ["m.js", "m.ts"])
def test_an_export_default_cut_off_at_the_file_s_end_leaves_the_file_read(path):
    # `export`, then `default` alone on the last line: no default, and the rest still read
    facts = extract_blob(b"const x = 1;\nexport\ndefault\n", path, "javascript" if path.endswith(".js") else "typescript")
    assert not facts.skipped
    assert (facts.exported_as, [s.qualified for s in facts.symbols]) == ([], ["x"])


def test_a_re_export_keeps_its_name_beside_an_import_of_it_exported_as_default():
    # `export { x } from` offers x; the import of x that `export default x` exports is the default
    facts = extract_blob(b'export { x } from "./a";\nimport { x } from "./a";\nexport default x;\n',
                         "m.js", "javascript")
    assert [(i.line, i.names, i.exports) for i in facts.imports] == [(1, ("x",), ("x",)), (2, ("x",), ("default",))]


def test_a_require_binding_is_an_import_site_as_an_import_is(app):
    # its sites: the fixture's; Motor stays a variable use.js defines, and Engine one same.js defines
    assert definitions(app, "Motor") == [("cjs/use.js", "Motor", 1, "exact")]
    assert ("cjs/same.js", "Engine", 1, "exact") in definitions(app, "Engine")
