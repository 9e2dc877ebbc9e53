"""A value a CommonJS module exports at its top is a variable of the module, as `export const`
is of an ES module: `exports.VERSION = "1.0"` and `module.exports.program = new Command()`
define VERSION and program, so a `const { VERSION } = require("./lib")` elsewhere is an import
of them. A name or an attribute exported (`exports.X = X`, `exports.X = m.default`: maybe a
module's) and a `require` exported (a re-export) define nothing; nor does an assignment in a block or to another object."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from tests.indexed import definitions, sites

VALUES = [
    ("exports.VERSION = '1.2.3';", "VERSION", "constant"),
    ("module.exports.VERSION = `v${1}`;", "VERSION", "constant"),
    ("exports.defaults = { retries: 3 };", "defaults", "variable"),
    ("exports.names = ['a', 'b'];", "names", "variable"),
    ("exports.program = new Command();", "program", "variable"),
    ("exports.limit = 2 * 1024;", "limit", "variable"),
    ("exports.off = !on;", "off", "variable"),
    ("exports.size = big ? 10 : 1;", "size", "variable"),
    ("exports.ready = await start();", "ready", "variable"),
    ("exports.pattern = /a+/;", "pattern", "variable"),
    ("exports.none = null;", "none", "variable"),
    ("exports.flag = true;", "flag", "variable"),
    ("exports.later = undefined;", "later", "variable"),
    ("exports.client = make(1);", "client", "variable"),
    ("exports.handler = routes.get('/');", "handler", "variable"),
    ("exports.cached = memo(fn)();", "cached", "variable"),
]

NOT_DEFINITIONS = [
    "exports.Command = Command;",  # an export of the module's own binding
    "exports.Command = (Command);",
    "exports.Builder = m.default;",  # an attribute: maybe of a module a `require` binds
    "module.exports.depth = this.depth;",
    "exports.x = require('./a').y;",  # re-exports: imports
    "exports.r = require('./r');",
    "if (ready) { exports.inner = 3; }",  # not at the module's top
    "function f() { exports.late = 1; }",
    "other.x = 1;",  # another object's property
    "other.x = make();",  # another object's, a call's value
    "module.other.x = 1;",
    "exports[key] = 1;",
]


@pytest.mark.parametrize("language", ["javascript", "typescript"])
@pytest.mark.parametrize(("source", "name", "kind"), VALUES)
def test_a_value_exported_at_the_top_is_a_variable(language, source, name, kind):
    facts = extract_blob(source.encode() + b"\n", "lib.js", language)
    assert [(s.name, s.qualified, s.kind, s.line) for s in facts.symbols] == [(name, name, kind, 1)]


@pytest.mark.parametrize("language", ["javascript", "typescript"])
@pytest.mark.parametrize("source", NOT_DEFINITIONS)
def test_names_requires_and_other_objects_define_nothing(language, source):
    facts = extract_blob(source.encode() + b"\n", "lib.js", language)
    assert [s.name for s in facts.symbols if s.kind in ("variable", "constant")] == []


def test_a_typescript_cast_exported_is_a_variable():
    facts = extract_blob(b"exports.port = env.PORT as number;\nexports.conf = {} satisfies Conf;\n",
                         "lib.ts", "typescript")
    assert [(s.name, s.kind) for s in facts.symbols] == [("port", "variable"), ("conf", "variable")]


FILES = {
    "lib/index.js": ("const { Command } = require('./command');\n"
                     "exports.VERSION = '1.2.3';\n"
                     "exports.defaults = { retries: 3 };\n"
                     "exports.Command = Command;\n"),
    "lib/command.js": "class Command {}\nexports.Command = Command;\n",
    "app.js": ("const { VERSION, defaults } = require('./lib');\n"
               "console.log(VERSION, defaults.retries);\n"),
}


def test_a_require_of_the_module_imports_its_exported_values(indexed_files):
    asked = indexed_files(FILES)
    assert definitions(asked, "VERSION") == [("lib/index.js", "VERSION", 2, "exact")]
    assert sorted(sites(asked, "VERSION")) == [("app.js", 1, "import"), ("app.js", 2, "import")]
    assert sorted(sites(asked, "defaults")) == [("app.js", 1, "import"), ("app.js", 2, "import")]
