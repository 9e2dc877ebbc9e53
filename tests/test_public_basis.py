"""Which rule makes a Java, C#, PHP or Go symbol public API (`Bindings.public_basis`, read by
context.novelty): in Java and C#, its `public` modifier wherever it stands among the
modifiers, or a method declared without a body or an access modifier (an interface's); in PHP,
anything not declared `private` or `protected`, `public` being a member's default and a class
or function having no visibility of its own; in Go, a name starting with an upper-case letter
(Unicode's Lu), the method's own name for a method."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language


@pytest.mark.parametrize(("language", "kind", "signature", "basis"), [
    ("java", "method", "public void run() {", "java:public"),
    ("java", "method", "static public void run() {", "java:public"),  # not first among the modifiers
    ("java", "class", "public\tclass K {", "java:public"),  # a tab after it
    ("java", "class", "class K {", None),
    ("java", "field", "int publicCount;", None),  # a name that starts so is no modifier
    ("java", "method", "void run();", "java:interface_member"),
    ("java", "method", "void run() {", None),  # a body: a package-private method
    ("java", "method", "private void run();", None),
    ("java", "method", "protected abstract void run();", None),
    ("java", "field", "int size;", None),  # no parenthesis: no method
    ("csharp", "method", "internal static public void Run() {", "csharp:public"),
    ("csharp", "method", "Task RunAsync();", "csharp:interface_member"),
])
def test_the_public_basis_of_a_member(language, kind, signature, basis):
    assert of_language(language).public_basis(["K", "run"], kind, signature) == basis


@pytest.mark.parametrize(("qualified", "kind", "signature", "basis"), [
    # was: None for each but an explicit `public`: no PHP class or function was public API
    ("App.K", "class", "class K {", "php:public_by_default"),
    ("App.helper", "function", "function helper() {}", "php:public_by_default"),
    ("App.TOP", "constant", "const TOP = 1;", "php:public_by_default"),
    ("App.K.run", "method", "function run() {}", "php:public_by_default"),
    ("App.K.run", "method", "abstract function run();", "php:public_by_default"),
    ("App.K.b", "field", "var $b;", "php:public_by_default"),
    ("App.K.run", "method", "final public function run() {", "php:public"),
    ("App.K.hidden", "method", "protected function hidden() {}", None),
    ("App.K.hidden", "method", "PRIVATE static function hidden() {}", None),  # any case, as PHP reads it
    ("App.K.f", "method", "#[Attr(1, 2)] private function f()", None),
    ("App.K.a", "field", "class K { private $a; }", None),  # on the class's own line
    ("App.K.x", "field", "public function __construct(private int $x, public $y) {}", None),
    ("App.K.y", "field", "public function __construct(private int $x, public $y) {}", "php:public"),
    ("App.K.__construct", "method", "public function __construct(private int $x) {}", "php:public"),
    ("App.K.C", "constant", "private const C = 1;", None),
])
def test_a_php_symbol_is_public_unless_declared_private_or_protected(qualified, kind, signature, basis):
    assert of_language("php").public_basis(qualified.split("."), kind, signature) == basis


@pytest.mark.parametrize(("qualified", "basis"), [
    ("Run", "go:capitalized"),
    ("run", None),
    ("Server.run", None),  # an unexported method of an exported type
    ("server.Run", "go:capitalized"),  # an exported method of an unexported type: still exported
    ("Ölçer", "go:capitalized"),  # an upper-case letter beyond ASCII
    ("_Run", None),
    ("π", None),
])
def test_a_go_name_is_exported_by_its_first_letter(qualified, basis):
    assert of_language("go").public_basis(qualified.split("."), "method", "") == basis


@pytest.mark.parametrize("path, private", [
    ("flask/_paths.py", True), ("_pytest/main.py", True), ("pkg/_vendor/six.py", True),
    ("pkg/__init__.py", False), ("pkg/__main__.py", False), ("pkg/__about__.py", False), ("pkg/api.py", False),
])
def test_a_python_module_an_underscore_names_is_private_and_a_dunder_is_not(path, private):
    assert of_language("python").private_module(path) is private
