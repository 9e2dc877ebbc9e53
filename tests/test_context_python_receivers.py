"""Python receivers typed beyond a plain assignment (`context_tools/query/symbols/receivers.py`):
a test's or fixture's parameter by the pytest fixture of its name visible there, annotations of
parameters and module variables, `self.x` by its class's methods, a class defined in a function
through a re-exported base, a call through a package's submodule. Exact sites, from a real index
of tests/fixtures/sites/python_receivers.txt, where a comment beside each line says which sites
it holds (or why it holds none)."""

from __future__ import annotations

import pytest

from tests.indexed import NotedSites

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
