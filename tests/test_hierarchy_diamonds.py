"""Method resolution orders over diamonds stacked one on another: each class of level k
derives from (includes, uses) both classes of level k - 1, so a class of level D is reached
from the top on 2 to the D ways. Each class is walked once an order, whatever the ways to it
(was: once a way: at 25 levels, a 50-line file held `context symbol` past a minute in Python,
Ruby and PHP alike). What is counted here is the hierarchy's own step, asking a class for its
bases: at most a few times each class, never once a way."""

from __future__ import annotations

import pytest

from context_tools.query.symbols.hierarchy import Hierarchy
from tests.indexed import Indexed

LEVELS = 12


def _python() -> str:
    out = ["class A0:\n    def foo(self): pass\n", "class B0:\n    def bar(self): pass\n"]
    for k in range(1, LEVELS + 1):
        out.append(f"class A{k}(A{k - 1}, B{k - 1}):\n    pass\n")
        out.append(f"class B{k}(A{k - 1}, B{k - 1}):\n    def bar(self): pass\n")
    return "".join(out) + f"class C(A{LEVELS}, B{LEVELS}):\n    pass\n"


def _ruby() -> str:
    out = ["module A0\n  def foo; end\nend\n", "module B0\n  def bar; end\nend\n"]
    for k in range(1, LEVELS + 1):
        for n in "AB":
            out.append(f"module {n}{k}\n  include A{k - 1}\n  include B{k - 1}\nend\n")
    return "".join(out) + f"class C\n  include A{LEVELS}\n  include B{LEVELS}\nend\n"


def _php() -> str:
    out = ["<?php\ntrait A0 { function foo() {} }\ntrait B0 { function bar() {} }\n"]
    for k in range(1, LEVELS + 1):
        for n in "AB":
            out.append(f"trait {n}{k} {{ use A{k - 1}, B{k - 1}; }}\n")
    return "".join(out) + f"class C {{ use A{LEVELS}, B{LEVELS}; }}\n"


REPO = Indexed({"m.py": _python(), "m.rb": _ruby(), "m.php": _php()}, "rennet-diamonds-", message="diamonds")
CLASSES = 2 * LEVELS + 3  # A0 ... B_LEVELS and C


@pytest.fixture
def asked_for_bases(monkeypatch):
    asked: list[tuple[str, str]] = []
    related = Hierarchy.related

    def counted(self, c):
        asked.append(c.key)
        return related(self, c)

    monkeypatch.setattr(Hierarchy, "related", counted)
    return asked


@pytest.mark.parametrize("path", ["m.py", "m.rb", "m.php"])
def test_a_member_inherited_through_stacked_diamonds_walks_each_class_a_few_times(path, asked_for_bases):
    (found,) = REPO.asked().call("context.symbol", name="C.foo", path=path, fuzzy=False).data.definitions
    assert (found.path, found.qualified, found.inherited_from.qualified) == (path, "A0.foo", "A0")
    assert 0 < len(asked_for_bases) <= 4 * CLASSES, len(asked_for_bases)


def test_the_order_through_stacked_diamonds_is_pythons_own():
    namespace: dict = {}
    exec(compile(_python(), "m.py", "exec"), namespace)  # the classes as Python makes them
    expected = [k.__name__ for k in namespace["C"].__mro__ if k is not object]
    answer = REPO.asked().call("context.symbol", name="C", path="m.py", hierarchy=True).data
    bases = [r.qualified for r in answer.hierarchy if r.relation == "base"]
    assert ["C", *bases] == expected[:len(bases) + 1] and len(bases) == len(expected) - 1


@pytest.mark.parametrize(("path", "source"), [
    ("chain.py", "class C0:\n    pass\n" + "".join(f"class C{k}(C{k - 1}):\n    pass\n" for k in range(1, 80))),
    ("chain.rb", "class C0\nend\n" + "".join(f"class C{k} < C{k - 1}\nend\n" for k in range(1, 80))),
    ("chain.php", "<?php\nclass C0 {}\n" + "".join(f"class C{k} extends C{k - 1} {{}}\n" for k in range(1, 80))),
])
def test_a_method_resolution_order_holds_at_most_64_classes(indexed_files, path, source):
    """docs/security.md: a class's method resolution order is at most 64 classes (`MRO_CAP`),
    the class itself and 63 ancestors, however long its chain of bases."""
    app = indexed_files({path: source})
    first = app.call("context.symbol", name="C79", hierarchy=True, limit=50)
    rest = app.call("context.symbol", name="C79", hierarchy=True, limit=50, cursor=first.page.cursor)
    shown = [x for r in (first, rest) for x in r.data.hierarchy]
    assert [x.qualified for x in shown if x.relation == "base"] == [f"C{k}" for k in range(78, 15, -1)]
