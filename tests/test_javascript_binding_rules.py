"""What JavaScript's and TypeScript's bindings (indexer/lang/javascript/bindings.py) answer,
each row a rule a hand mutant got past, asserted as its docstrings and docs/languages.md say."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language
from indexer.model import ImportSpec


@pytest.mark.parametrize(("line", "col"), [
    # a parameter's name with its type is no use of a binding, first in the list or after another
    ("function f(get: number) {", 11),
    ("function f(get?: number) {", 11),
    ("function f(a: string, get?: number) {", 22),
])
def test_a_typescript_parameter_s_typed_name_is_no_site(line, col):
    found = of_language("typescript").site_syntax(line.encode(), col, "get")
    assert found is not None and found.form == "keyword"


@pytest.mark.parametrize(("parts", "signature", "basis"), [
    (["get"], "export function get(url) {", "js:export"),  # a top-level name when exported
    (["helper"], "function helper(url) {", None),
    (["Store", "get"], "get() {", "js:class_member"),
    (["Store", "_cache"], "_cache() {", None),
    (["Store", "#cache"], "#cache() {", None),  # an ES private member is no part of the class's surface
])
def test_what_is_public(parts, signature, basis):
    assert of_language("javascript").public_basis(parts, "method", signature) == basis


@pytest.mark.parametrize(("names", "aliases", "whole"), [
    (("*",), ("api",), True),  # import * as api
    (("default",), ("api",), True),  # import api from: the default may be an object of names
    (("get",), ("api",), False),  # import { get as api }
])
def test_which_imports_bind_an_object_of_the_module_s_names(names, aliases, whole):
    spec = ImportSpec("js", "./api", 1, 0, names, aliases)
    assert of_language("javascript").binds_namespace(spec, "api") is whole
    assert of_language("javascript").binds_namespace(spec, "other") is False  # binds no `other` at all


def test_a_require_declares_its_variable_on_its_own_line_only():
    spec = ImportSpec("js", "./engine", 3, 0, (), ("W",))
    bindings = of_language("javascript")
    assert [bindings.binds_variable(spec, line) for line in (2, 3, 4)] == [False, True, False]
