"""The class hierarchy in the Repo Map: each declared base an `inherits` edge of the canonical
dump, from the class's file to the base's, with both names; unresolved bases kept with their
status. Exact edges, from a real index of tests/fixtures/hierarchy/python_bases.txt, where a
comment beside each class says what its bases resolve to."""

from __future__ import annotations

import json

import pytest

from indexer.extract.blob import extract_blob
from tests.annotated import FIXTURES, load, noted_sites
from tests.indexed import Indexed, sites

CASE = load(FIXTURES / "hierarchy" / "python_bases.txt", keys=("inherits:", "site:"))
REPO = Indexed(CASE.files, "rennet-hierarchy-", message="hierarchy")


def _noted(case=CASE) -> list[tuple[str, int, str, str, str | None, str | None]]:
    out = []
    for n in case.notes:
        if n.key != "inherits:":
            continue
        for item in n.value.split(","):
            spec, status, *where = item.split()
            to, base = where if where else (None, None)
            out.append((n.path, n.line, spec, status, to, base))
    return sorted(out)


@pytest.fixture(scope="module")
def dumped() -> list[dict]:
    from indexer.api import open_store, snapshot

    repo, store_path = REPO.paths
    with open_store(store_path) as store:
        lines = snapshot(repo, "main", store=store).canonical_lines()
        return [json.loads(line) for line in lines]


def test_each_base_is_an_inherits_edge_as_its_comment_says(dumped):
    edges = [d for d in dumped if d["type"] == "edge" and d["kind"] == "inherits"]
    assert sorted((d["from"], d["line"], d["spec"], d["status"], d["to"], d["base"]) for d in edges) == _noted()


def test_an_inherits_edge_names_its_class(dumped):
    edges = {(d["from"], d["spec"]): d["class"] for d in dumped if d["type"] == "edge" and d["kind"] == "inherits"}
    assert edges[("app.py", "web.Plain")] == "Sub.Inner"
    assert edges[("app.py", "Base")] == "factory.Made"
    assert edges[("pkg/web.py", "Root")] == "Handler"


def test_inherits_edges_cast_no_vote_in_fan_in(dumped):
    # a base is not an import: pkg/base.py's fan-in is its three importers, not more
    files = {d["path"]: d for d in dumped if d["type"] == "file"}
    assert files["pkg/base.py"]["fan_in"] == 3


@pytest.mark.parametrize(("source", "bases"), [
    ("class A(B, C): pass\n", [("A", "B"), ("A", "C")]),
    ("class A(m.n.B, metaclass=M): pass\n", [("A", "m.n.B")]),
    ("class A(Generic[T], Mapping[str, int]): pass\n", [("A", "Generic"), ("A", "Mapping")]),
    ("class A(f(), *mixins, **kw): pass\n", []),
    ("class A(f().C, g()[0].D, B): pass\n", [("A", "B")]),  # an attribute of no dotted name
    # the names alone, joined by dots (was "m.#themoduleB", "n#c.C", "n.\\C")
    ("class A(m.  # the module\n        B, n  # c\n        .C, n.\\\n  D, m . E): pass\n",
     [("A", "m.B"), ("A", "n.C"), ("A", "n.D"), ("A", "m.E")]),
    ("class A: pass\n", []),
    ("class A:\n    class B(A): pass\n", [("A.B", "A")]),
    ("@d\nclass A(B): pass\n", [("A", "B")]),
    # the walk enters only what holds a class the tags found: nested in blocks and functions too
    ("def f():\n    if x:\n        class A(B): pass\n", [("f.A", "B")]),
    ("x = [1]\nclass A(B):\n    def m(self):\n        y = 2\n        class C(D): pass\n\nclass E(F): pass\n",
     [("A", "B"), ("A.m.C", "D"), ("E", "F")]),
])
def test_the_bases_read_from_the_tree(source, bases):
    facts = extract_blob(source.encode(), "m.py", "python")
    assert [(b.cls, b.base) for b in facts.bases] == bases


def test_the_bases_of_a_tree_whose_class_starts_are_not_known_are_all_read():
    from indexer.lang import grammars
    from indexer.lang.python.bases import bases

    data = b"def f():\n    class A(B): pass\nclass C(D, m.E): pass\n"
    got = bases(grammars.parse("python", data).root_node, data)  # no starts: the whole tree walked
    assert [(b.cls, b.base) for b in got] == [("f.A", "B"), ("C", "D"), ("C", "m.E")]


@pytest.mark.parametrize(("path", "language", "source", "bases"), [
    ("a.js", "javascript", "class A extends B {}\n", [("A", "B")]),
    ("a.js", "javascript", "describe(() => {\n  const x = 1;\n  class A extends m.B {}\n});\nclass C extends D {}\n",
     [("A", "m.B"), ("C", "D")]),
    ("a.js", "javascript", "function f() {\n  if (x) {\n    class A extends B {}\n  }\n}\n", [("f.A", "B")]),
    ("a.ts", "typescript", "namespace N {\n  export abstract class A extends B implements I {}\n}\n"
     "interface K extends L {}\nconst v = 1;\n", [("N.A", "B"), ("N.A", "I"), ("K", "L")]),
])
def test_the_js_and_ts_bases_read_from_the_tree(path, language, source, bases):
    facts = extract_blob(source.encode(), path, language)
    assert [(b.cls, b.base) for b in facts.bases] == bases


@pytest.mark.parametrize(("source", "bases"), [
    # a sealed type's `permits` lists its subclasses, no base of its own
    ("sealed interface Shape permits Circle, Square {}\nfinal class Circle implements Shape {}\n",
     [("Circle", "Shape")]),
    ("public sealed class A<T> extends b.B<T> implements I, J<T> permits C {}\n",
     [("A", "b.B"), ("A", "I"), ("A", "J")]),
    ("record R(int x) implements Comparable<R> {}\nenum E implements I {}\ninterface K extends L, M {}\n",
     [("R", "Comparable"), ("E", "I"), ("K", "L"), ("K", "M")]),
])
def test_the_java_bases_read_from_the_tree(source, bases):
    facts = extract_blob(source.encode(), "A.java", "java")
    assert [(b.cls, b.base) for b in facts.bases] == bases


@pytest.mark.parametrize(("path", "language"), [("a.js", "javascript"), ("a.ts", "typescript")])
def test_a_base_spelled_in_bytes_that_are_not_utf8_keeps_the_file_read(path, language):
    # a Latin-1 file: the base keeps its place, its odd byte replaced; the file is not lost
    facts = extract_blob(b"class A extends lib.\xc9clair {}\nclass B {}\n", path, language)
    assert not facts.skipped
    assert [s.qualified for s in facts.symbols] == ["A", "B"]
    assert [(b.cls, b.base, b.line) for b in facts.bases] == [("A", "lib.\ufffdclair", 1)]


# --- members through the hierarchy (context.symbol) ------------------------------------------

app = REPO.fixture()


def _ref(r) -> tuple[str, str, int]:
    return r.qualified, r.path, r.line


def test_a_member_inherited_through_the_mro_is_found_with_its_class_and_chain(app):
    d, = app.call("context.symbol", name="App.handle", fuzzy=False).data.definitions
    assert (d.path, d.qualified, d.line, d.match) == ("pkg/base.py", "Base.handle", 2, "inherited")
    assert _ref(d.inherited_from) == ("Base", "pkg/base.py", 1)
    assert [c.qualified for c in d.chain] == ["App", "Handler", "Base"]  # Base before Mixin: C3


def test_the_nearest_class_of_the_mro_wins(app):
    # Sub(App, Local): App defines other, Mixin does too, further along
    d, = app.call("context.symbol", name="Sub.other", fuzzy=False).data.definitions
    assert (d.path, d.qualified, d.match) == ("app.py", "App.other", "inherited")
    assert [c.qualified for c in d.chain] == ["Sub", "App"]


def test_an_override_is_reported(app):
    d, = app.call("context.symbol", name="App.other", fuzzy=False).data.definitions
    assert d.match == "exact" and d.inherited_from is None
    assert _ref(d.overrides) == ("Mixin.other", "pkg/base.py", 10)
    d, = app.call("context.symbol", name="Mixin.other", fuzzy=False).data.definitions
    assert d.overrides is None


def test_a_member_no_class_of_the_mro_defines_is_not_found(app):
    from indexer.contract.errors import NotFound

    with pytest.raises(NotFound):
        app.call("context.symbol", name="App.missing", fuzzy=False)


def test_hierarchy_lists_bases_in_mro_then_unresolved_then_subclasses(app):
    r = app.call("context.symbol", name="App", hierarchy=True)
    assert [(x.relation, x.spec, x.status, x.path, x.line) for x in r.data.hierarchy] == [
        ("base", "Handler", "resolved", "pkg/web.py", 8),
        ("base", "Base", "resolved", "pkg/base.py", 1),
        ("base", "Mixin", "resolved", "pkg/base.py", 6),
        ("subclass", "Sub", "resolved", "app.py", 16),
    ]
    r = app.call("context.symbol", name="Client", hierarchy=True)
    assert [(x.relation, x.spec, x.status) for x in r.data.hierarchy] == [
        ("base", "Session", "external"), ("base", "Missing", "unresolved")]
    r = app.call("context.symbol", name="Base", hierarchy=True)
    assert [(x.relation, x.spec, x.path) for x in r.data.hierarchy] == [("subclass", "Handler", "pkg/web.py")]


def test_hierarchy_is_paged(app):
    first = app.call("context.symbol", name="App", hierarchy=True, limit=3)
    assert [x.spec for x in first.data.hierarchy] == ["Handler", "Base", "Mixin"]
    assert first.page.truncated
    rest = app.call("context.symbol", name="App", hierarchy=True, limit=3, cursor=first.page.cursor)
    assert [x.spec for x in rest.data.hierarchy] == ["Sub"]


def test_hierarchy_of_what_is_no_class_is_not_found(app):
    from indexer.contract.errors import NotFound

    with pytest.raises(NotFound):
        app.call("context.symbol", name="factory", hierarchy=True)


# --- references through the hierarchy -------------------------------------------------------

@pytest.mark.parametrize("name", sorted(noted_sites(CASE)))
def test_references_qualified_through_a_class_or_a_known_subclass(app, name):
    assert sorted(sites(app, name)) == noted_sites(CASE)[name]


def test_references_of_an_inherited_member_resolve_against_the_base(app):
    r = app.call("context.references", name="App.handle")
    assert [(d.path, d.qualified, d.match) for d in r.data.definitions] == [("pkg/base.py", "Base.handle", "inherited")]
    kept = app.call("context.references", name="App.handle", path="pkg/base.py", kind=r.data.definitions[0].kind)
    assert [d.path for d in kept.data.definitions] == ["pkg/base.py"]  # the member's own file and kind
    from indexer.contract.errors import NotFound

    with pytest.raises(NotFound):  # App's file, not that of the member it inherits
        app.call("context.references", name="App.handle", path="app.py")


# --- JavaScript and TypeScript ----------------------------------------------------------------

JS = load(FIXTURES / "hierarchy" / "js_ts_bases.txt", keys=("inherits:", "site:"))
JS_REPO = Indexed(JS.files, "rennet-hierarchy-js-", message="hierarchy js")


def test_js_and_ts_bases_are_inherits_edges_as_their_comments_say():
    from indexer.api import open_store, snapshot

    repo, store_path = JS_REPO.paths
    with open_store(store_path) as store:
        dumped = [json.loads(line) for line in snapshot(repo, "main", store=store).canonical_lines()]
    edges = [d for d in dumped if d["type"] == "edge" and d["kind"] == "inherits"]
    assert sorted((d["from"], d["line"], d["spec"], d["status"], d["to"], d["base"]) for d in edges) == _noted(JS)


def test_a_ts_member_is_found_through_its_class_bases():
    d, = JS_REPO.asked().call("context.symbol", name="Handler.handle", fuzzy=False).data.definitions
    assert (d.path, d.qualified, d.match) == ("src/base.ts", "Base.handle", "inherited")


def test_a_js_member_is_found_through_the_extends_chain_in_declaration_order():
    d, = JS_REPO.asked().call("context.symbol", name="Sub.close", fuzzy=False).data.definitions
    assert (d.path, d.qualified, d.line, d.match) == ("lib/web.js", "Handler.close", 3, "inherited")
    assert _ref(d.inherited_from) == ("Handler", "lib/web.js", 1)
    assert [c.qualified for c in d.chain] == ["Sub", "App", "Handler"]


def test_a_js_override_is_reported():
    d, = JS_REPO.asked().call("context.symbol", name="App.serve", fuzzy=False).data.definitions
    assert (d.path, d.match, d.inherited_from) == ("lib/app.js", "exact", None)
    assert _ref(d.overrides) == ("Handler.serve", "lib/web.js", 2)


@pytest.mark.parametrize("name", sorted(noted_sites(JS)))
def test_js_references_qualified_through_a_class_or_a_known_subclass(name):
    assert sorted(sites(JS_REPO.asked(), name)) == noted_sites(JS)[name]
    subclass = name.replace("Handler.", "Sub.")
    assert sorted(sites(JS_REPO.asked(), subclass)) == noted_sites(JS)[name]


# --- a base a package re-exports ----------------------------------------------------------------

REEXPORTED = {
    "pkg/__init__.py": "from .base import Base\n",
    "pkg/base.py": "class Base:\n    def handle(self):\n        return 1\n",
    "app.py": ("import pkg\n\n\nclass Mine(pkg.Base):\n    pass\n\n\n"
               "def make():\n    class Local(pkg.Base):\n        pass\n\n    return Local().handle()\n"),
}


def test_a_base_a_package_re_exports_is_the_class_it_leads_to(indexed_files):
    # `pkg.Base` lands on pkg/__init__.py, which only passes pkg/base.py's Base on
    app = indexed_files(REEXPORTED)
    d, = app.call("context.symbol", name="Mine.handle", fuzzy=False).data.definitions
    assert (d.path, d.qualified, d.match) == ("pkg/base.py", "Base.handle", "inherited")
    assert [c.qualified for c in d.chain] == ["Mine", "Base"]
    r = app.call("context.symbol", name="Base", hierarchy=True)
    assert [(x.relation, x.spec, x.path) for x in r.data.hierarchy] == [
        ("subclass", "Mine", "app.py"), ("subclass", "make.Local", "app.py")]
    # a class defined in a function is a subclass its sites are qualified through
    r = app.call("context.references", name="Base.handle")
    assert [(s.path, s.line, s.resolution) for s in r.data.sites] == [("app.py", 12, "import")]


def test_two_classes_of_one_name_each_have_their_own_subclasses(indexed_files):
    """`Base.run` of a.py and of b.py: each Base's subclass is its own, so `SA().run()` is a.py's
    and `SB().run()` b.py's, though one hierarchy answers both (each class's subclasses are
    kept by the class, never by its name)."""
    app = indexed_files({
        "a.py": "class Base:\n    def run(self):\n        return 1\n",
        "b.py": "class Base:\n    def run(self):\n        return 2\n",
        "sa.py": "from a import Base\n\n\nclass SA(Base):\n    pass\n",
        "sb.py": "from b import Base\n\n\nclass SB(Base):\n    pass\n",
        "use_a.py": "from sa import SA\n\nSA().run()\n",
        "use_b.py": "from sb import SB\n\nSB().run()\n",
    })
    r = app.call("context.references", name="Base.run")
    assert [(d.path, d.sites) for d in r.data.definitions] == [("a.py", 1), ("b.py", 1)]
    assert [(s.path, s.line, s.resolution, s.definition) for s in r.data.sites] == [
        ("use_a.py", 3, "import", 0), ("use_b.py", 3, "import", 1)]


def test_a_member_defined_twice_in_its_class_is_found_at_the_first(indexed_files):
    """A property and its setter are two definitions of `value` in Base: the member a subclass
    inherits, and the one an override overrides, is the first, the getter on line 3."""
    app = indexed_files({
        "m.py": ("class Base:\n    @property\n    def value(self):\n        return self._v\n\n"
                 "    @value.setter\n    def value(self, v):\n        self._v = v\n\n\n"
                 "class Sub(Base):\n    pass\n\n\nclass Over(Base):\n    def value(self):\n        return 0\n"),
    })
    inherited, = app.call("context.symbol", name="Sub.value", fuzzy=False).data.definitions
    assert (inherited.path, inherited.line, inherited.match) == ("m.py", 3, "inherited")
    over, = app.call("context.symbol", name="Over.value", fuzzy=False).data.definitions
    assert (over.line, over.overrides.qualified, over.overrides.line) == (16, "Base.value", 3)


def test_a_member_is_its_own_class_definitions_not_a_same_named_class_elsewhere(indexed_files):
    """b.py's App has no `run`: a.py's App.run is another class's, so Sub(App) of b inherits none;
    a Ruby class reopens only in Ruby files, so store.py's Store.run is no member of the Ruby
    Store; and the subclass found in sub.py is the top-level Sub its edge names, not the class
    Holder.Sub defined before it."""
    from indexer.contract.errors import NotFound

    app = indexed_files({
        "a.py": "class App:\n    def run(self):\n        return 1\n",
        "b.py": "class App:\n    pass\n",
        "c.py": "from b import App\n\n\nclass Sub(App):\n    pass\n",
        "base.py": "class Base:\n    pass\n",
        "sub.py": "from base import Base\n\n\nclass Holder:\n    class Sub:\n        pass\n\n\nclass Sub(Base):\n    pass\n",
        "lib/store.rb": "class Store\nend\n",
        "lib/sub.rb": "class RSub < Store\nend\n",
        "store.py": "class Store:\n    def run(self):\n        pass\n",
    })
    for name in ("Sub.run", "RSub.run"):
        with pytest.raises(NotFound):
            app.call("context.symbol", name=name, fuzzy=False)
    r = app.call("context.symbol", name="Base", hierarchy=True)
    assert [(x.relation, x.spec, x.path, x.line) for x in r.data.hierarchy] == [("subclass", "Sub", "sub.py", 9)]


def test_subclasses_of_names_differing_in_case_are_each_their_own(indexed_files):
    """ITEM subclasses Item and Sub subclasses ITEM: the files naming each are found for that
    name as spelled, so `Sub().run()` is a site of Item.run, two subclasses down."""
    app = indexed_files({
        "a.py": "class Item:\n    def run(self):\n        return 1\n",
        "s.py": "from a import Item\n\n\nclass ITEM(Item):\n    pass\n",
        "t.py": "from s import ITEM\n\n\nclass Sub(ITEM):\n    pass\n",
        "u.py": "from t import Sub\n\nSub().run()\n",
    })
    r = app.call("context.references", name="Item.run")
    assert [(s.path, s.line, s.resolution) for s in r.data.sites] == [("u.py", 3, "import")]


def test_a_member_asked_through_a_reexported_alias_of_its_class_goes_through_the_hierarchy(indexed_files):
    """pkg re-exports Real as Alias: `pkg.Alias.run` names Real.run as `Real.run` does, so its
    sites through Real's subclass Sub are its own, and `pkg.Alias.go` is the member Real
    inherits from Base (was: the hierarchy was asked only when a class was named `Alias`: no
    site through Sub, and `pkg.Alias.go` not found by context.symbol nor context.references)."""
    app = indexed_files({
        "pkg/__init__.py": "from .m import Real as Alias\n",
        "pkg/base.py": "class Base:\n    def go(self):\n        return 0\n",
        "pkg/m.py": "from pkg.base import Base\n\n\nclass Real(Base):\n    def run(self):\n        return 1\n",
        "sub.py": "from pkg.m import Real\n\n\nclass Sub(Real):\n    pass\n",
        "use.py": "from sub import Sub\n\nSub().run()\nSub().go()\n",
    })
    own = app.call("context.references", name="pkg.Alias.run")
    assert [(d.path, d.qualified, d.match) for d in own.data.definitions] == [("pkg/m.py", "Real.run", "qualified")]
    assert [(s.path, s.line, s.resolution) for s in own.data.sites] == [("use.py", 3, "import")]
    found, = app.call("context.symbol", name="pkg.Alias.go", fuzzy=False).data.definitions
    assert (found.path, found.qualified, found.match) == ("pkg/base.py", "Base.go", "inherited")
    assert [c.qualified for c in found.chain] == ["Real", "Base"]
    inherited = app.call("context.references", name="pkg.Alias.go")
    assert [(s.path, s.line, s.resolution) for s in inherited.data.sites] == [("use.py", 4, "import")]


def test_a_js_base_a_module_exports_as_its_default_is_its_class_both_ways(indexed_files):
    """`class Kid extends Base` over `import Base from "./base"` (an ES default) or `const CBase =
    require("./cbase")` (`module.exports = CBase`), the alias written as the class is or not.
    Was: the CommonJS base `external`, the ES one listed twice (once as a base it did not resolve),
    and neither class had a subclass. Now each base is its class, once, and each class lists the
    subclasses in the files naming it or importing its file under another name."""
    app = indexed_files({
        "base.js": "export default class Base {\n  go() { return 1; }\n}\n",
        "kid.js": "import Base from './base';\nexport class Kid extends Base {}\n",
        "cbase.js": "class CBase {\n  go() { return 1; }\n}\nmodule.exports = CBase;\n",
        "ckid.js": "const CBase = require('./cbase');\nclass CKid extends CBase {}\nmodule.exports = CKid;\n",
        "other.js": "const Renamed = require('./cbase');\nclass Other extends Renamed {}\n",
        "pool.js": "class Pool {\n  put(x) { return x; }\n}\nclass Shop {\n  constructor() { this.pool = new Pool(); }\n}\n"
                   "module.exports = Shop;\n",
        "branch.js": "const Shop = require('./pool');\nclass Branch extends Shop {\n  add(x) { this.pool.put(x); }\n}\n",
    })

    def relatives(name: str) -> list[tuple[str, str, str, str | None]]:
        r = app.call("context.symbol", name=name, hierarchy=True)
        return [(x.relation, x.spec, x.status, x.path) for x in r.data.hierarchy]

    assert relatives("Kid") == [("base", "Base", "resolved", "base.js")]
    assert relatives("CKid") == [("base", "CBase", "resolved", "cbase.js")]
    assert relatives("Other") == [("base", "CBase", "resolved", "cbase.js")]
    assert relatives("Base") == [("subclass", "Kid", "resolved", "kid.js")]
    # other.js never names CBase: found as a file importing cbase.js (was: left out)
    assert relatives("CBase") == [("subclass", "CKid", "resolved", "ckid.js"), ("subclass", "Other", "resolved", "other.js")]
    d, = app.call("context.symbol", name="Other.go", fuzzy=False).data.definitions
    assert (d.path, d.qualified, d.match) == ("cbase.js", "CBase.go", "inherited")
    # a field the base's constructor assigns types `this.pool` in the subclass too
    r = app.call("context.references", name="Pool.put")
    assert [(x.path, x.line) for x in r.data.sites] == [("branch.js", 3)], r.data.sites


def test_a_class_with_no_c3_order_looks_its_members_up_depth_first(indexed_files):
    """Python refuses `class C(A, B)` where B subclasses A (C3 has no consistent order): the map
    then looks members up depth first in declaration order, C, A, B, so C's `m` is A's, not the
    B.m a merge without the bases' own order would give."""
    app = indexed_files({"m.py": "class A:\n    def m(self):\n        return 1\n\n\nclass B(A):\n    def m(self):\n"
                                 "        return 2\n\n\nclass C(A, B):\n    pass\n"})
    d, = app.call("context.symbol", name="C.m", fuzzy=False).data.definitions
    assert (d.qualified, d.line, d.match, [c.qualified for c in d.chain]) == ("A.m", 2, "inherited", ["C", "A"])
    r = app.call("context.symbol", name="C", hierarchy=True)
    assert [x.qualified for x in r.data.hierarchy if x.relation == "base"] == ["A", "B"]


def test_a_base_resolved_to_a_file_not_defining_it_is_listed_with_that_file(indexed_files):
    """`from m import Gone` reaches m.py, which defines no Gone: A's hierarchy still lists the base,
    resolved, with the file it reached (docs/tools.md `--hierarchy`: the declared bases the map does
    not resolve come after the ancestors, with their status)."""
    app = indexed_files({"m.py": "VALUE = 1\n", "a.py": "from m import Gone\n\n\nclass A(Gone):\n    pass\n"})
    r = app.call("context.symbol", name="A", hierarchy=True)
    assert [(x.relation, x.spec, x.status, x.path) for x in r.data.hierarchy] == [("base", "Gone", "resolved", "m.py")]
