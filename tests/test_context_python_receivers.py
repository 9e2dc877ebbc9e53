"""Python receivers typed beyond a plain assignment (`context_tools/query/symbols/receivers.py`):
a test's or fixture's parameter by the pytest fixture of its name visible there, annotations of
parameters and module variables, `self.x` by its class's methods, a class defined in a function
through a re-exported base, a call through a package's submodule. Exact sites, from a real index
of tests/fixtures/sites/python_receivers.txt, where a comment beside each line says which sites
it holds (or why it holds none)."""

from __future__ import annotations

import pytest

from tests.indexed import Indexed, NotedSites

SITES = NotedSites("python_receivers.txt", "rennet-ctx-python-receivers-", "python receivers")
app = SITES.app()
test_each_site_is_where_its_comment_says = SITES.each_site_test()


def _rules(app, name: str) -> dict[tuple[str, int], str]:
    r = app.call("context.references", name=name)
    return {(s.path, s.line): s.rule for s in r.data.sites}


@pytest.mark.parametrize(("name", "path", "line", "rule"), [
    ("Scaffold.route", "tests/test_x.py", 10, "pytest fixture `app` of tests/conftest.py"),
    ("Scaffold.route", "tests/test_x.py", 11, "pytest fixture `made` of tests/conftest.py"),
    ("Scaffold.title", "tests/test_x.py", 19, "pytest fixture `app` of tests/conftest.py"),
    ("Scaffold.title", "pkg/logs.py", 5, "annotation `Flask` of parameter `app`"),
    ("Scaffold.title", "pkg/logs.py", 23, "`self.app` an instance in Ctx's methods"),
    ("Jar.take", "tests/test_x.py", 44, "instance `jar` of `pkg.jar.Jar(...)`, module `pkg.jar`"),
    ("Lookup.find", "tests/test_x.py", 52, "`self.lookup` an instance in TestLookup's methods"),
])
def test_each_typed_site_names_the_binding_that_typed_it(app, name, path, line, rule):
    assert _rules(app, name)[(path, line)] == rule


def test_an_untyped_receiver_stays_a_name_match(app):
    # asked by the simple name, the sites the qualified query leaves out are name matches
    r = app.call("context.references", name="route")
    unresolved = {(s.path, s.line) for s in r.data.sites if s.resolution == "name_match"}
    assert {("tests/test_x.py", 12), ("tests/test_x.py", 13), ("tests/test_x.py", 15), ("tests/test_x.py", 23),
            ("tests/test_x.py", 61), ("tests/test_cli.py", 11), ("tests/inner/test_z.py", 2),
            ("other/test_y.py", 2)} <= unresolved


def test_a_dotted_import_binds_its_package_for_qualified_sites(indexed_files):
    # `import pkg.views` runs pkg/__init__.py and binds `pkg`: `pkg.Flask` is what it re-exports
    asked = indexed_files({
        "pkg/__init__.py": "from .app import Flask\n",
        "pkg/app.py": "class Flask:\n    pass\n",
        "pkg/views.py": "",
        "other/__init__.py": "",
        "other/views.py": "",
        "use.py": "import pkg.views\n\npkg.Flask()\n",
        "elsewhere.py": "import other.views\n\nother.Flask()\n",
    })
    r = asked.call("context.references", name="Flask")
    found = {(s.path, s.line): (s.resolution, s.rule) for s in r.data.sites}
    assert found[("use.py", 3)] == ("import", "attribute of module `pkg`, which an import binds")
    assert found[("elsewhere.py", 3)][0] == "name_match"


def test_super_calls_the_member_the_next_class_of_the_order_has(tmp_path):
    """`super().name()` in class X's body is the member of the first class after X in X's
    order that has one, as Python finds it: Base.run from C, A.run (an override between) from
    B, none of a class whose bases define none, nothing outside a class (was: every
    `super().run()` an attribute of what `super(...)` returns, a `name_match` a qualified
    query left out, so `references Base.run` missed each override calling its base)."""
    import context_tools
    from corpora.gitbuild import RepoBuilder

    b = RepoBuilder(tmp_path / "repo")
    b.commit({
        "m.py": "class Base:\n    def run(self):\n        pass\n",
        "c.py": ("from m import Base\n\n\n"
                 "class C(Base):\n    def run(self):\n        super().run()\n\n\n"           # 6
                 "class A(Base):\n    def run(self):\n        pass\n\n\n"
                 "class B(A):\n    def run(self):\n        return super().run()\n\n\n"     # 16
                 "class Lone:\n    def go(self):\n        super().run()\n\n\n"              # 21
                 "super().run()\n"),                                                        # 24
    })
    client = context_tools.Client(store=str(tmp_path / "home"))

    def sites(name: str) -> dict[int, tuple[str, str]]:
        r = client.call("context.references", repo=str(tmp_path / "repo"), rev="main", name=name)
        return {s.line: (s.resolution, s.rule) for s in r.data.sites if s.path == "c.py"}

    assert sites("Base.run") == {6: ("import", "super() in C")}
    assert sites("A.run") == {16: ("same_file", "super() in B")}
    loose = sites("run")
    assert loose[21] == ("name_match", "super() in Lone, whose bases the index knows define no run")
    assert loose[24] == ("name_match", "attribute of super() outside a class")


def test_super_skips_a_class_without_the_member_and_names_an_override_it_reaches(tmp_path):
    """The first class after X that has the member is the one `super().name` reaches: past
    Mid, which has no `run`, E's reaches Base.run; B's reaches the override A.run between, so
    for Base's `run` alone it is a `name_match` that names A.run."""
    from tests.indexed import index_files

    asked = index_files(tmp_path, {
        "m.py": "class Base:\n    def run(self):\n        pass\n",
        "c.py": ("from m import Base\n\n\n"
                 "class Mid(Base):\n    def go(self):\n        pass\n\n\n"
                 "class E(Mid):\n    def run(self):\n        super().run()\n\n\n"          # 11
                 "class A(Base):\n    def run(self):\n        pass\n\n\n"
                 "class B(A):\n    def run(self):\n        return super().run()\n"),      # 21
    })

    def sites(name: str, **more: str) -> list[tuple[int, str, str]]:
        r = asked.call("context.references", name=name, **more)
        return [(s.line, s.resolution, s.rule) for s in r.data.sites if s.path == "c.py"]

    assert sites("Base.run") == [(11, "import", "super() in E")]
    assert sites("run", path="m.py") == [(11, "import", "super() in E"),
                                         (21, "name_match", "super() in B reaches A.run")]


def _chain(n: int) -> str:
    """A test class whose fixture f0 makes a Flask and f1 ... f{n} each return the one before."""
    lines = ["import pytest\nfrom app import Flask\n\n\nclass TestChain:\n",
             "    @pytest.fixture\n    def f0(self):\n        return Flask()\n\n"]
    lines += [f"    @pytest.fixture\n    def f{k}(self, f{k - 1}):\n        return f{k - 1}\n\n" for k in range(1, n + 1)]
    lines += [f"    def test_{k}(self, f{k}):\n        f{k}.route()\n\n" for k in range(n + 1)]
    return "".join(lines)


def test_a_class_s_own_fixtures_are_followed_as_far_as_the_visible_ones(indexed_files):
    """A test class's own fixtures are followed as far as the fixtures of the file and its
    conftest.py files are (FIXTURE_DEPTH), and two of them asking for each other are a name
    match (was: followed without end: `internal_error`, RecursionError, for any query that
    typed the receiver)."""
    from context_tools.query.symbols.receivers import FIXTURE_DEPTH

    asked = indexed_files({
        "app.py": "class Flask:\n    def route(self):\n        pass\n",
        "test_chain.py": _chain(FIXTURE_DEPTH + 1),
        "test_loop.py": "import pytest\nfrom app import Flask\n\n\nclass TestLoop:\n"
                        "    @pytest.fixture\n    def a(self, b):\n        return b\n\n"
                        "    @pytest.fixture\n    def b(self, a):\n        return a\n\n"
                        "    def test_it(self, a):\n        a.route()\n",
    })
    r = asked.call("context.references", name="route")
    found = {(s.path, s.line): s.resolution for s in r.data.sites}
    assert found[("test_loop.py", 15)] == "name_match"
    # test_k's `fk.route()`: fk, then k fixtures more to reach f0's Flask()
    lines = {k: 7 + 4 * (FIXTURE_DEPTH + 2) + 3 * k for k in range(FIXTURE_DEPTH + 2)}
    typed = {k for k, line in lines.items() if found[("test_chain.py", line)] != "name_match"}
    assert typed == set(range(FIXTURE_DEPTH)), found


def test_a_module_instance_relayed_through_files_importing_each_other_is_looked_for_once_a_hop(
        indexed_files, monkeypatch):
    """`from m0 import codes` then `codes.get()`: the instance is looked for through the files'
    imports binding `codes`, RELAY_HOPS files away at most, each file, name and hop once (was:
    once a way: eight files importing it from one another made 7 to the 5th ways; 16 such
    files held `context references` for 5 s, 40 for minutes). A chain within the hops types
    the site, one a file longer does not."""
    from context_tools.query.symbols.imports import RELAY_HOPS
    from context_tools.query.symbols.receivers import PythonReceivers

    n = 8
    files = {"lookup.py": "class LookupDict:\n    def get(self):\n        pass\n",
             "use.py": "from m0 import codes\nfrom t0 import near\nfrom u0 import far\n\n"
                       "codes.get()\nnear.get()\nfar.get()\n"}
    files.update({f"m{i}.py": "".join(f"from m{j} import codes\n" for j in range(n) if j != i) for i in range(n)})
    for prefix, name, last in (("t", "near", RELAY_HOPS), ("u", "far", RELAY_HOPS + 1)):
        files.update({f"{prefix}{k}.py": f"from {prefix}{k + 1} import {name}\n" for k in range(last)})
        files[f"{prefix}{last}.py"] = f"from lookup import LookupDict\n\n{name} = LookupDict()\n"
    asked = indexed_files(files)
    looked: list[tuple[str, str]] = []
    assigned = PythonReceivers.assigned_class

    def counted(self, path, name):
        looked.append((path, name))
        return assigned(self, path, name)

    monkeypatch.setattr(PythonReceivers, "assigned_class", counted)
    found = {s.line: s.resolution for s in asked.call("context.references", name="LookupDict.get").data.sites
             if s.path == "use.py"}
    assert found == {6: "import"}, found  # near.get(); codes.get() and far.get() reach no instance
    assert len([x for x in looked if x[1] == "codes"]) <= n * (RELAY_HOPS + 1), len(looked)


def _receivers(n: int) -> dict[str, str]:
    """A function of n sites `x.get()`, and n one-line functions of one site each."""
    return {"lookup.py": "class LookupDict:\n    def get(self):\n        pass\n",
            "long.py": "def f(x):\n" + "    x.get()\n" * n,
            "many.py": "".join(f"def f{k}(x):\n    x.get()\n" for k in range(n))}


RECEIVERS = {n: Indexed(_receivers(n), f"rennet-receivers-{n}-", message="receivers") for n in (300, 600)}


def test_a_receiver_is_looked_for_in_its_functions_in_proportion_to_the_sites():
    """Each site `x.get()` looks for what `x` is in the functions holding it: the functions
    around a line found from the file's nesting, and a function's assignments of a name found
    once (was: every function of the file tried for each site, and each site read its function
    back to its start: a function of 15,000 such lines held `context references` for 30 s).
    The lines of Rennet's code the query runs for 300 sites a shape and for 600 may grow 2.5
    times at most, never four; the sites stay name matches (nothing types `x`)."""
    from tests.lines_run import lines_run

    def ask(n: int):
        return RECEIVERS[n].asked().call("context.references", name="LookupDict.get").data.sites

    lines = {}
    for n in RECEIVERS:
        assert ask(n) == []  # `x` is no LookupDict the file shows: no site is the method's
        lines[n] = lines_run(lambda n=n: ask(n))
    assert lines[600] <= 2.5 * lines[300], lines


def test_a_call_of_the_class_through_a_module_path_or_over_lines_is_an_instance(indexed_files):
    """`pkg.Request(...).prepare()` where `import pkg.adapters` binds `pkg`, whose __init__
    re-exports Request, is Request.prepare's, with the rule naming the module path (was: a
    `name_match` in a file no import ties); not through a package that offers no Request. A
    call closing on a later line (`pkg.Request(\\n    1,\\n).prepare()`) is read as one line
    (was: an attribute of an untyped receiver), brackets in its strings and comments aside;
    not back past `SITE_TEXT` bytes, the bound of a site's reading."""
    asked = indexed_files({
        "pkg/__init__.py": "from .models import Request\n",
        "pkg/models.py": "class Request:\n    def prepare(self):\n        return 1\n\n\n"
                         "class Other:\n    def prepare(self):\n        return 2\n",
        "pkg/adapters.py": "",
        "other/__init__.py": "",
        "other/adapters.py": "",
        "use.py": ("import pkg.adapters\nimport other.adapters\n\n"
                   "pkg.Request(1).prepare()\n"                  # 4
                   "other.Request(1).prepare()\n"                # 5
                   "pkg.Other(1).prepare()\n"                    # 6
                   "p = pkg.Request(\n    1,\n).prepare()\n"),   # 9
        "tied.py": ("from pkg.models import Request\n\n"
                    "a = Request(\n    'GET',\n).prepare()\n"                # 5
                    "b = Request(\n    '(',\n    # )\n).prepare()\n"        # 9
                    "c = Request(\n    '" + "x" * 1100 + "',\n).prepare()\n"),  # 12: past SITE_TEXT
    })

    def sites(name: str) -> dict[tuple[str, int], tuple[str, str]]:
        r = asked.call("context.references", name=name)
        return {(s.path, s.line): (s.resolution, s.rule) for s in r.data.sites}

    through = "instance `pkg.Request(...)`, module `pkg`"
    assert sites("Request.prepare") == {("use.py", 4): ("import", through), ("use.py", 9): ("import", through),
                                        ("tied.py", 5): ("import", "import"), ("tied.py", 9): ("import", "import")}
    loose = sites("prepare")
    assert loose[("use.py", 5)][0] == loose[("use.py", 6)][0] == "name_match"


def test_self_attribute_is_typed_by_the_first_class_of_the_order_binding_it(indexed_files):
    """`self.json` in a subclass's method is typed by the base whose `__init__` binds it
    (`self.json: Provider = Provider()` in App, used in Flask(App); was: the class's own body
    alone, a `name_match`); a subclass binding it itself decides (Mine's `self.json =
    object()`), and one its base binds to no instance stays untyped."""
    asked = indexed_files({
        "pkg/__init__.py": "",
        "pkg/provider.py": "class Provider:\n    def response(self, v):\n        return v\n",
        "pkg/base.py": ("from .provider import Provider\n\n\n"
                        "class App:\n    def __init__(self):\n        self.json: Provider = Provider()\n"
                        "        self.other = make()\n"),
        "pkg/app.py": ("from .base import App\n\n\n"
                       "class Flask(App):\n    def run(self, rv):\n        return self.json.response(rv)\n\n"  # 6
                       "    def go(self, rv):\n        return self.other.response(rv)\n\n\n"                 # 9
                       "class Mine(App):\n    def __init__(self):\n        self.json = object()\n\n"
                       "    def run(self, rv):\n        return self.json.response(rv)\n"),                    # 17
    })
    r = asked.call("context.references", name="Provider.response")
    assert [(s.path, s.line, s.resolution, s.rule) for s in r.data.sites] == [
        ("pkg/app.py", 6, "import", "`self.json` an instance in App's methods")]
    loose = asked.call("context.references", name="response")
    assert {(s.line, s.resolution) for s in loose.data.sites if s.path == "pkg/app.py"} == {
        (6, "import"), (9, "name_match"), (17, "name_match")}
