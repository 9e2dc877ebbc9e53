"""CommonJS re-exports: `module.exports = require("./lib/express")` in index.js makes the
package's main the module it requires, so `require("../")` in a test reaches the factory
lib/express.js exports and the names it exports (`exports.Router = Router` over a module it
binds whole, `exports.json = require("./parsers").json`). Exact sites, from a real index of
tests/fixtures/sites/commonjs_reexports.txt, where a comment beside each line says which
sites it holds; and the import facts each form is read as."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from tests.indexed import NotedSites, sites

SITES = NotedSites("commonjs_reexports.txt", "rennet-ctx-cjs-reexports-", "commonjs re-exports")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_a_name_no_test_uses_has_no_site_there(app):
    assert sites(app, "text") == []


@pytest.mark.parametrize(("source", "names", "aliases", "exports"), [
    ("module.exports = require('./a');", ("default", "*"), (), ("default", "*")),
    ("exports = module.exports = require('./a');", ("default", "*"), (), ("default", "*")),
    ("exports.x = require('./a').y;", ("y",), ("x",), ("x",)),
    ("module.exports.y = require('./a').y;", ("y",), (), ("y",)),
    ("module.exports = require('./a').y;", ("y",), ("default",), ("default",)),
    ("exports.x = require('./a');", ("default",), ("x",), ("x",)),
    ("const m = require('./a');\nmodule.exports = m;", ("default", "*"), (), ("default", "*")),
    ("const m = require('./a');\nexports.x = m;", ("default",), ("x",), ("x",)),
    ("var x = require('./a').y;", ("y",), ("x",), ()),
    ("const y = require('./a').y;", ("y",), (), ()),
    ("const { x } = require('./a').y;", (), (), ()),
    ("require('./a').y;", (), (), ()),
    ("other.x = require('./a').y;", (), (), ()),
])
def test_each_commonjs_re_export_is_read_as_the_export_from_it_stands_for(source, names, aliases, exports):
    facts = extract_blob(source.encode(), "m.js", "javascript")
    assert (names, aliases, exports) in {(i.names, i.aliases, i.exports) for i in facts.imports}
    assert {i.level for i in facts.imports} == {0}  # no relative level (Python's) in JavaScript


def test_exports_of_a_local_name_are_its_names_out():
    facts = extract_blob(b"exports = module.exports = make;\nfunction make() {}\nexports.create = make;\n",
                         "m.js", "javascript")
    assert facts.exported_as == [("make", "default"), ("make", "create")]
