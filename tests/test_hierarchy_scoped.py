"""The class hierarchy of the languages whose bases resolve through their scopes (Java, C#, PHP,
Ruby, C++): each declared base an `inherits` edge of the canonical dump, and each class's
ancestors in its language's order, from a real index of tests/fixtures/hierarchy/<lang>_bases.txt,
where comments beside each class say what its bases resolve to (`inherits:`) and the order its
members are looked up in (`mro:`)."""

from __future__ import annotations

import json
import re

import pytest

from indexer.contract.errors import NotFound
from indexer.extract.blob import extract_blob
from tests.annotated import FIXTURES, Case, load
from tests.indexed import Indexed

LANGUAGES = ("java", "csharp", "php", "ruby", "cpp")
CASES = {lang: load(FIXTURES / "hierarchy" / f"{lang}_bases.txt", keys=("inherits:", "mro:")) for lang in LANGUAGES}
REPOS = {lang: Indexed(case.files, f"rennet-hierarchy-{lang}-", message=f"hierarchy {lang}") for lang, case in CASES.items()}


def _notes(case: Case, key: str) -> list[tuple[str, int, str]]:
    """(path, line, value) of each `key` comment: a line may hold several comments
    (`// inherits: ... // mro: ...`), each its own."""
    out = []
    for path, text in case.files.items():
        for i, line in enumerate(text.splitlines(), 1):
            for part in re.split(r"\s(?://|#)\s*", line)[1:]:
                if part.startswith(key):
                    out.append((path, i, part[len(key):].strip()))
    return out


def _inherits(case: Case) -> list[tuple[str, int, str, str, str | None, str | None]]:
    out = []
    for path, line, value in _notes(case, "inherits:"):
        for item in value.split(","):
            spec, status, *where = item.split()
            to, base = where if where else (None, None)
            out.append((path, line, spec, status, to, base))
    return sorted(out)


def _dumped(lang: str) -> list[dict]:
    from indexer.api import open_store, snapshot

    repo, store_path = REPOS[lang].paths
    with open_store(store_path) as store:
        return [json.loads(line) for line in snapshot(repo, "main", store=store).canonical_lines()]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_base_is_an_inherits_edge_as_its_comment_says(lang):
    edges = [d for d in _dumped(lang) if d["type"] == "edge" and d["kind"] == "inherits"]
    assert sorted((d["from"], d["line"], d["spec"], d["status"], d["to"], d["base"]) for d in edges) == _inherits(
        CASES[lang])


def _class_on(lang: str, path: str, line: int) -> str:
    """The qualified name of the class declared on the line, as the dump's symbol has it."""
    d, = [d for d in _dumped(lang) if d["type"] == "symbol" and d["path"] == path and d["line"] == line
          and d["kind"] in ("class", "struct", "interface", "trait", "module")]
    return f"{d['container']}.{d['name']}" if d["container"] else d["name"]


@pytest.mark.parametrize(("lang", "path", "line", "order"), [
    (lang, path, line, value) for lang in LANGUAGES for path, line, value in _notes(CASES[lang], "mro:")])
def test_the_ancestors_in_the_order_its_language_looks_members_up(lang, path, line, order):
    asked = REPOS[lang].asked()
    cls = _class_on(lang, path, line)
    r = asked.call("context.symbol", name=cls, path=path, hierarchy=True)
    assert [x.qualified for x in r.data.hierarchy if x.relation == "base" and x.status == "resolved"] == [
        x.strip() for x in order.split(",")]


# --- members through the hierarchy -----------------------------------------------------------

def _found(lang: str, name: str) -> tuple[str, str, str, str | None, list[str], str | None]:
    d, = REPOS[lang].asked().call("context.symbol", name=name, fuzzy=False).data.definitions
    return (d.qualified, d.path, d.match, d.inherited_from.qualified if d.inherited_from else None,
            [c.qualified for c in d.chain or ()], d.overrides.qualified if d.overrides else None)


@pytest.mark.parametrize(("lang", "name", "expected"), [
    # Java: the superclass chain before an interface's default method
    ("java", "App.handle", ("Base.handle", "src/main/java/com/acme/base/Base.java", "inherited", "Base",
                            ["App", "Handler", "Base"], None)),
    ("java", "App.greet", ("Greeter.greet", "src/main/java/com/acme/base/Greeter.java", "inherited", "Greeter",
                           ["App", "Handler", "Base", "Named", "Greeter"], None)),
    ("java", "Handler.close", ("Handler.close", "src/main/java/com/acme/web/Handler.java", "exact", None, [],
                               "Base.close")),
    # C#: a partial class's members in any of its files, an interface's default method last
    ("csharp", "Admin.Audit", ("Shop.Models.User.Audit", "Shop/Models/User.Audit.cs", "inherited", "Shop.Models.User",
                               ["Shop.Models.Admin", "Shop.Models.User"], None)),
    ("csharp", "Admin.Key", ("Shop.Core.IKeyed.Key", "Shop/Core/Entity.cs", "inherited", "Shop.Core.IKeyed",
                             ["Shop.Models.Admin", "Shop.Models.User", "Shop.Core.Entity", "Shop.Models.INamed",
                              "Shop.Core.IKeyed"], None)),
    ("csharp", "User.Save", ("Shop.Models.User.Save", "Shop/Models/User.cs", "exact", None, [], "Shop.Core.Entity.Save")),
    # PHP: a trait's method before the parent's; the class's own before its traits'
    ("php", "Admin.save", ("App\\Core.Timestamps.save", "src/Core/Model.php", "inherited", "App\\Core.Timestamps",
                           ["App\\Models.Admin", "App\\Models.User", "App\\Core.Timestamps"], None)),
    ("php", "User.delete", ("App\\Core.SoftDeletes.delete", "src/Core/Model.php", "inherited", "App\\Core.SoftDeletes",
                            ["App\\Models.User", "App\\Core.Timestamps", "App\\Core.Model", "App\\Core.SoftDeletes"],
                            None)),
    ("php", "Model.save", ("App\\Core.Model.save", "src/Core/Model.php", "exact", None, [], "App\\Core.Timestamps.save")),
    # Ruby: a prepended module before the class, an included one (and what it includes) after it
    ("ruby", "Admin.save", ("Shop.Audit.save", "lib/shop/base.rb", "inherited", "Shop.Audit", ["Admin", "Shop.Audit"],
                            None)),
    ("ruby", "User.trace", ("Shop.Tracing.trace", "lib/shop/mixins.rb", "inherited", "Shop.Tracing",
                            ["Shop.User", "Shop.Audit", "Shop.Cache", "Shop.Tracing"], None)),
    # what a prepended module defines overrides the class's, not the other way
    ("ruby", "User.save", ("Shop.User.save", "lib/shop/user.rb", "exact", None, [], "Shop.Base.save")),
    # C++: declaration order, depth first
    ("cpp", "Ring.draw", ("geo.Shape.draw", "include/geo/shape.h", "inherited", "geo.Shape",
                          ["Ring", "geo.Circle", "geo.Shape"], None)),
    ("cpp", "Ring.get", ("geo.Holder.get", "include/geo/shape.h", "inherited", "geo.Holder",
                         ["Ring", "geo.Circle", "geo.Shape", "geo.Holder"], None)),
    ("cpp", "Circle.area", ("geo.Circle.area", "include/geo/circle.h", "exact", None, [], "geo.Shape.area")),
])
def test_a_member_is_found_through_its_class_ancestors(lang, name, expected):
    assert _found(lang, name) == expected


def test_a_member_no_ancestor_defines_is_not_found():
    with pytest.raises(NotFound):
        REPOS["java"].asked().call("context.symbol", name="App.missing", fuzzy=False)


def test_hierarchy_lists_known_subclasses_after_the_bases():
    r = REPOS["ruby"].asked().call("context.symbol", name="Cache", hierarchy=True)
    assert [(x.relation, x.qualified, x.path) for x in r.data.hierarchy] == [
        ("base", "Shop.Tracing", "lib/shop/mixins.rb"), ("subclass", "Shop.Multi", "lib/shop/multi.rb"),
        ("subclass", "Shop.User", "lib/shop/user.rb")]
    r = REPOS["cpp"].asked().call("context.symbol", name="Lost", hierarchy=True)
    assert [(x.relation, x.spec, x.status) for x in r.data.hierarchy] == [("base", "Orphan", "unresolved")]


def test_what_a_ruby_hook_hands_on_is_its_includer_s_not_the_module_s():
    # Ruby 3.1: Hook::Base.ancestors is [Hook::Base]; its hook's modules are Command's
    r = REPOS["ruby"].asked().call("context.symbol", name="Hook.Base", hierarchy=True)
    assert [(x.relation, x.qualified) for x in r.data.hierarchy] == [("subclass", "Hook.Command")]
    r = REPOS["ruby"].asked().call("context.symbol", name="Hook.Base.ClassMethods", hierarchy=True)
    assert r.data.hierarchy == []
    r = REPOS["ruby"].asked().call("context.symbol", name="Hook.Command.option")
    assert [(d.qualified, d.match) for d in r.data.definitions] == [("Hook.Base.ClassMethods.option", "inherited")]


# --- the bases read from the tree -------------------------------------------------------------

@pytest.mark.parametrize(("lang", "path", "source", "bases"), [
    ("java", "A.java", "class A extends a.b.B<T> implements I, J<K> {}\n",
     [("A", "a.b.B", ""), ("A", "I", ""), ("A", "J", "")]),
    ("java", "A.java", "interface K extends I, J {}\nenum E implements I {}\nrecord R(int x) implements I {}\n",
     [("K", "I", ""), ("K", "J", ""), ("E", "I", ""), ("R", "I", "")]),
    ("csharp", "A.cs", "namespace N { class A : global::M.B, IList<int> { class C : A {} } }\n",
     [("N.A", "M.B", ""), ("N.A", "IList", ""), ("N.A.C", "A", "")]),
    ("php", "a.php", "<?php\nnamespace N;\nclass A extends B implements \\C { use T, U; }\n",
     [("N.A", "B", ""), ("N.A", "\\C", ""), ("N.A", "T", "use"), ("N.A", "U", "use")]),
    ("ruby", "a.rb", "class A < B::C\n  include M, N\n  extend E\n  prepend P\n  x.include Q\nend\n",
     [("A", "B::C", ""), ("A", "M", "include"), ("A", "N", "include"), ("A", "E", "extend"), ("A", "P", "prepend")]),
    ("ruby", "a.rb", "class A < Struct.new(:a)\n  def f\n    include Z\n  end\nend\n", []),
    # `< self` is the class around, named from the top (optparse's `class NoArgument < self` in
    # `class Switch`; was: no base); at the top it names no class
    ("ruby", "a.rb", "class O\n  class Switch\n    class NoArgument < self\n    end\n  end\nend\nclass T < self; end\n",
     [("O.Switch.NoArgument", "::O::Switch", "")]),
    # a call that is no mixin names no base, nor does a mixin of a variable or of nothing
    ("ruby", "a.rb", "module A\n  helper Formatting\n  include mod\n  include\n  include M::N\nend\n",
     [("A", "M::N", "include")]),
    ("cpp", "a.cpp", "namespace n { class A : public B, private ns::C<int>, virtual D {}; }\n",
     [("n.A", "B", ""), ("n.A", "ns::C", ""), ("n.A", "D", "")]),
    ("cpp", "a.cpp", "template <typename T> struct S : T, Base<T> {};\n", [("S", "Base", "")]),
])
def test_the_bases_read_from_the_tree(lang, path, source, bases):
    facts = extract_blob(source.encode(), path, lang)
    assert [(b.cls, b.base, b.relation) for b in facts.bases] == bases
