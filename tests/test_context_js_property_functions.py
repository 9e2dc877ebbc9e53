"""A JavaScript function assigned to a property is one symbol held by its object, and `context
symbol` finds it by the name the code spells it with: `app.init` (`app.init = function init()
{}`), `Foo.m` (`Foo.prototype.m = function () {}`), a function inside it as `app.init.inner`.
From a real index of tests/fixtures/definitions/js_property_functions.txt (whose `def:` notes
test_definitions.py checks line by line)."""

from __future__ import annotations

import pytest

from tests.annotated import FIXTURES, load
from tests.indexed import Indexed, definitions, sites

CASE = load(FIXTURES / "definitions" / "js_property_functions.txt", keys=("def:",))
REPO = Indexed(CASE.files, "rennet-ctx-js-props-", message="js property functions")


app = REPO.fixture()


@pytest.mark.parametrize(("name", "found"), [
    ("app.init", [("lib/app.js", "app.init", 2, "exact")]),
    ("app.init.inner", [("lib/app.js", "app.init.inner", 3, "exact")]),
    ("app.settings.load", [("lib/app.js", "app.settings.load", 8, "exact")]),
    ("Foo.m", [("lib/app.js", "Foo.m", 9, "exact")]),
    ("Foo.p", [("lib/app.js", "Foo.p", 11, "exact")]),
    ("View.render", [("src/view.ts", "View.render", 2, "exact")]),
    ("start", [("lib/app.js", "app.start", 6, "exact")]),
    ("start.start", []),
])
def test_a_property_function_is_found_by_its_object_and_name(app, name, found):
    assert definitions(app, name) == found


def test_a_function_expression_s_own_name_is_no_second_symbol(app):
    assert [d[1] for d in definitions(app, "init")] == ["app.init"]
    assert [d[1] for d in definitions(app, "create")] == ["create"]  # module.exports = function create


def test_a_prototype_member_s_sites_are_those_through_an_instance(app):
    # foo is a Foo; bar is nothing the index can type
    assert sites(app, "Foo.m") == [("lib/app.js", 20, "same_file")]
    assert sites(app, "m") == [("lib/app.js", 20, "same_file"), ("lib/app.js", 21, "name_match")]
