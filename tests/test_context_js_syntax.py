"""Each JavaScript and TypeScript site resolved by its own syntax (`Bindings.site_syntax`): an
attribute by its receiver (a module bound whole, a class or an instance of it, `this`, the
file's own `exports`), an object key or a TypeScript member's typed name no site, a bare name no
site of a method; each site says which binding decided it (`rule`). Exact sites, from a real
index of tests/fixtures/sites/js_syntax.txt, where a comment beside each line says which sites
it holds."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language
from tests.indexed import NotedSites, sites

SITES = NotedSites("js_syntax.txt", "rennet-ctx-js-syntax-", "js syntax")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_each_site_says_which_binding_decided_it(app):
    r = app.call("context.references", name="get")
    rules = {(s.path, s.line): s.rule for s in r.data.sites}
    assert rules[("app.js", 9)] == "attribute of an untyped receiver `session`"
    assert rules[("app.js", 10)] == "attribute of module `other`, which does not reach it"
    assert rules[("app.js", 11)] == "import"
    assert rules[("app.js", 17)] == "attribute of an untyped receiver"
    assert rules[("app.js", 26)] == "attribute of a module `require(...)` binds, which does not reach it"
    assert rules[("other.js", 4)] == "bare name an import of another module binds"
    p = app.call("context.references", name="parse")
    assert {(s.col, s.rule) for s in p.data.sites if s.path == "app.js" and s.line == 24} == {
        (8, "a name of the file's own exports"), (22, "attribute of module `other`, which does not reach it")}
    f = app.call("context.references", name="fetch")
    assert [s.rule for s in f.data.sites if s.line == 22] == ["bare name, not a method's"]


def test_super_in_a_class_is_its_bases_member_never_its_own(app):
    """`super.area()` in Square, which declares its own area, is Shape's: no site of
    Square.area (it was a `name_match` of every area, its receiver untyped)."""
    assert sites(app, "Square.area") == []
    r = app.call("context.references", name="area")
    assert {(s.line, s.rule) for s in r.data.sites if s.path == "lib/shape.js"} == {
        (8, "defining file"), (13, "attribute of super outside a class")}


def test_a_qualified_query_lists_no_bare_call(app):
    assert ("app.js", 22, "name_match") not in sites(app, "Client.fetch")


@pytest.mark.parametrize(("language", "line", "col", "name", "form", "receiver"), [
    ("javascript", "s.get(url)", 2, "get", "attribute", ("s",)),
    ("javascript", "s?.get(url)", 3, "get", "attribute", ("s",)),
    ("javascript", "$a.b . get()", 7, "get", "attribute", ("$a", "b")),
    ("javascript", "f().get()", 4, "get", "attribute", ("f",)),
    ("javascript", "new a.B(x, g(y)).get()", 17, "get", "attribute", ("a", "B")),
    ("javascript", "a[0].get()", 5, "get", "attribute", ()),
    ("javascript", "`x`.get()", 4, "get", "attribute", ()),
    ("javascript", "this.get()", 5, "get", "attribute", ("this",)),
    ("javascript", "const o = { get: 1 };", 12, "get", "keyword", ()),
    ("javascript", "f({ a, get: 1 })", 7, "get", "keyword", ()),
    ("javascript", "  get: g,", 2, "get", "keyword", ()),
    ("javascript", "const { get: g } = o;", 8, "get", "keyword", ()),
    ("javascript", "const { get } = o;", 8, "get", "bare", ()),
    ("javascript", "x ? get : y", 4, "get", "bare", ()),
    ("javascript", "case get:", 5, "get", "bare", ()),
    ("typescript", "  get?: number;", 2, "get", "keyword", ()),
    ("typescript", "get(1)", 0, "get", "bare", ()),
    ("typescript", "this.lid!.get()", 10, "get", "attribute", ("this", "lid")),
    ("typescript", "a.b! . c!.get()", 10, "get", "attribute", ("a", "b", "c")),
    ("javascript", "x = !.5; y.get()", 11, "get", "attribute", ("y",)),
])
def test_the_form_of_a_site_read_from_its_line(language, line, col, name, form, receiver):
    found = of_language(language).site_syntax(line.encode(), col, name)
    assert found is not None and (found.form, found.receiver) == (form, receiver)


def test_this_in_a_class_is_the_member_the_class_has(app):
    """`this.set` in Parser, which has no `set` (its subclass DateParser declares one), is no
    site of DateParser.set nor of setter.js's ValueSetter.set that parser.js imports (date-fns'
    Parser went to ValueSetter.set)."""
    r = app.call("context.references", name="set")
    assert [(s.path, s.line, s.resolution, s.rule) for s in r.data.sites] == [
        ("lib/parser.js", 4, "name_match", "attribute of this in Parser, which has no member set")]
    assert app.call("context.references", name="ValueSetter.set").data.sites == []


def test_this_in_a_class_declaring_the_member_is_that_class_s_not_its_interface_s(app):
    """`this.get()` in Store, which implements IStore and declares its own `get`, is Store.get:
    never IStore.get's (mobx's `this.get()` in ComputedValue was listed for IComputedValue.get)."""
    r = app.call("context.references", name="get")
    owners = {(s.path, s.line): r.data.definitions[s.definition] for s in r.data.sites if s.definition is not None}
    assert (owners[("src/store.ts", 12)].path, owners[("src/store.ts", 12)].line) == ("src/store.ts", 7)
    assert [(s.path, s.line) for s in app.call("context.references", name="IStore.get").data.sites] == []
    assert [(s.path, s.line) for s in app.call("context.references", name="IStore.size").data.sites] == []
    assert [(s.path, s.line) for s in app.call("context.references", name="Store.size").data.sites] == [
        ("src/store.ts", 12)]
    # a class inheriting the member without declaring it still reaches the base's: Sub's `this.fetch`
    assert ("src/sub.ts", 9) in [(s.path, s.line) for s in app.call("context.references", name="Client.fetch").data.sites]


def test_a_definition_a_function_holds_is_reached_by_no_import(app):
    """`get: function () {}` in the object describe() returns is describe's own: main.js's `export
    { get } from "./lib/index"` (whose `export *` of desc.js passes only what desc.js exports)
    is api.js's `get`, never it (mobx's `export { get } from "./internal"` went to such a `get`)."""
    assert app.call("context.references", name="describe.get").data.sites == []
    r = app.call("context.references", name="get")
    [site] = [s for s in r.data.sites if s.path == "main.js"]
    assert (r.data.definitions[site.definition].path, site.resolution) == ("lib/api.js", "import")


def test_an_object_s_function_is_reached_through_its_object_only(app):
    """`measure` in `const table = { measure: function () {} }` is table's: main.js's `export {
    measure } from "./lib/index"` names nothing desc.js exports (mobx's `export { set }` went to
    the `set:` of a descriptor object), while `t.measure()` after an import of table is it."""
    assert [(s.path, s.line, s.resolution) for s in app.call("context.references", name="table.measure").data.sites
            ] == [("main.js", 4, "import")]
    r = app.call("context.references", name="measure")
    assert {(s.line, s.rule) for s in r.data.sites if s.path == "main.js"} == {
        (2, "bare name, not a method's"), (4, "import")}


@pytest.mark.parametrize(("line", "said"), [
    ("const self = this;", True),
    ("  var self = this", True),
    ("let self = this, other = 1;", True),
    ("const self: Counter = this;", True),
    ("const $self = this;", None),
    ("const self$ = this;", None),
    ("const self = this.parent;", False),
    ("const self = other;", False),
    ("let self;", False),
    ("items.map((self) => self.total())", False),
    ("items.map(self => self.total())", False),
    ("items.forEach(function (a, self) {", False),
    ("return self.total();", None),
    ("if (self.size) {", None),
    ("const selfish = this;", None),
])
def test_a_line_declaring_an_alias_of_this(line, said):
    assert of_language("typescript").instance_alias(line.encode(), "self") is said
