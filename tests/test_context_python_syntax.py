"""Each Python site resolved by its own syntax (`Bindings.site_syntax`): an attribute by its
receiver, a keyword argument's name no site, a bare name no site of a method; each site says
which binding decided it (`rule`). Exact sites, from a real index of
tests/fixtures/sites/python_syntax.txt, where a comment beside each line says which sites it
holds."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language
from tests.indexed import NotedSites

SITES = NotedSites("python_syntax.txt", "rennet-ctx-python-syntax-", "python syntax")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def test_each_site_says_which_binding_decided_it(app):
    r = app.call("context.references", name="get")
    rules = {(s.line, s.col): s.rule for s in r.data.sites}
    assert rules[(10, 8)] == "attribute of an untyped receiver `session`"
    assert rules[(11, 11)] == "attribute of module `os`, which does not reach it"
    assert rules[(12, 4)] == "import"
    assert rules[(16, 3)] == "attribute of an untyped receiver"
    f = app.call("context.references", name="fetch")
    assert {(s.line, s.rule) for s in f.data.sites if s.path == "app.py" and s.line >= 18} == {
        (18, "import"), (19, "import"), (20, "bare name, not a method's")}


@pytest.mark.parametrize(("line", "col", "name", "form", "receiver"), [
    ("s.get(url)", 2, "get", "attribute", ("s",)),
    ("a.b . get()", 6, "get", "attribute", ("a", "b")),
    ("f().get()", 4, "get", "attribute", ("f",)),
    ("a.B(x, g(y)).get()", 13, "get", "attribute", ("a", "B")),
    ("f()().get()", 6, "get", "attribute", ()),
    ("a[0].get()", 5, "get", "attribute", ()),
    ("''.join(x)", 3, "join", "attribute", ()),
    ("f(x).y.get()", 7, "get", "attribute", ()),
    ("f(get=get)", 2, "get", "keyword", ()),
    ("f(get=get)", 6, "get", "bare", ()),
    ("f(a, get = 1)", 5, "get", "keyword", ()),
    ("    get=1,", 4, "get", "keyword", ()),
    ("if get == 1:", 3, "get", "bare", ()),
    ("f(get == 1)", 2, "get", "bare", ()),  # a comparison in a call, no keyword
    ("a = get = 1", 4, "get", "bare", ()),  # a chain's target, no keyword
    ("a . b.get()", 6, "get", "attribute", ("a", "b")),  # spaces around a dot of the receiver
    ("get(1)", 0, "get", "bare", ()),
])
def test_the_form_of_a_site_read_from_its_line(line, col, name, form, receiver):
    found = of_language("python").site_syntax(line.encode(), col, name)
    assert found is not None and (found.form, found.receiver) == (form, receiver)


def test_a_class_member_is_seen_in_its_class_body_alone(indexed_files):
    """A class body's statements see the names its earlier ones bind; its methods do not. A
    method's own name called in its body is what the file's import binds (`dumps(...)` in the
    method `dumps` is json.py's `dumps`; was: no site of it, the method taken for a binding
    holding the site), and a bare name in the class body below a method is that method (`tag =
    to_json`, `@name.setter`; was: a `name_match`, a bare name no method's), but not in a lambda
    or comprehension there, whose scope skips the class's, nor on the line binding it first
    (`dumps = dumps` reads the import), nor outside the class."""
    asked = indexed_files({
        "pkg/__init__.py": "",
        "pkg/json.py": "def dumps(v):\n    return str(v)\n",
        "pkg/tag.py": ("from .json import dumps\n\n\n"
                       "class Serializer:\n"
                       "    def dumps(self, value):\n"
                       "        return dumps(value)\n\n"                       # 6
                       "    def to_json(self, value):\n"
                       "        return value\n\n"
                       "    tag = to_json\n"                                   # 11
                       "    keyed = lambda self: to_json(self)\n"              # 12
                       "    many = [to_json for _ in range(2)]\n\n"            # 13
                       "    @property\n    def name(self):\n        return 1\n\n"
                       "    @name.setter\n    def name(self, v):\n        pass\n\n"   # 19
                       "    loads = staticmethod(dumps)\n\n\n"                 # 23
                       "def free():\n    return to_json\n\n\n"               # 27
                       "class Plain:\n    dumps = dumps\n"),                  # 31
    })

    def sites(name: str) -> dict[int, tuple[str, str]]:
        r = asked.call("context.references", name=name)
        return {s.line: (s.resolution, s.rule) for s in r.data.sites if s.path == "pkg/tag.py"}

    assert sites("pkg.json.dumps") == {1: ("import", "import"), 6: ("import", "import"), 31: ("import", "import")}
    below = "bare name in the body of class Serializer, below its definition"
    assert sites("Serializer.dumps") == {23: ("same_file", below)}
    assert sites("Serializer.to_json") == {11: ("same_file", below)}
    loose = sites("to_json")
    assert {line: loose[line][0] for line in (12, 13, 27)} == {12: "name_match", 13: "name_match", 27: "name_match"}
    assert sites("Serializer.name") == {19: ("same_file", below)}
