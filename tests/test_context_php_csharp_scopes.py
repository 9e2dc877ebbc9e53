"""Where PHP and C# make names visible beyond what a plain reading of one `use` sees: PHP class,
function and namespace names in any case (`use App\\Models\\User as U;` then `new u()`;
`use app\\models\\user;`), its constants and variables not; members of a PHP anonymous class
under `class@anonymous`; a C# `global using` (alias, namespace or static) counting in every
file of its project (the .csproj folder) and in no other; and `using static A.B;` naming the
type B, whose static members the file then calls unqualified. Exact sites, from a real index."""

from __future__ import annotations

from indexer.extract.blob import extract_blob
from tests.indexed import Indexed, sites

FILES = {
    "composer.json": '{"autoload": {"psr-4": {"App\\\\": "src/"}}}\n',
    "src/Models/User.php": "<?php\nnamespace App\\Models;\n\nclass User { static function find() {} }\n",
    "src/Support/functions.php": "<?php\nnamespace App\\Support;\n\nfunction helper() {}\nconst LIMIT = 1;\n",
    "src/Http/Aliased.php": "<?php\nnamespace App\\Http;\n\nuse App\\Models\\User as U;\n\n"
                            "function aliased() {\n"
                            "  $u = new u();\n"  # 7: `u` is U; the variable `$u` is not
                            # 8: U and u; not the property, nor a class constant
                            "  return U::find() ?: u::find() ?: $this->u ?: Events::U;\n"
                            "}\n\nclass K { function user() {} }\n",  # 11: a method, no use of User
    "src/Http/Lower.php": "<?php\nnamespace App\\Http;\n\nuse app\\models\\user;\n\n"
                          "function lower() { $user = 1; return new USER() ?? new \\app\\models\\user(); }\n",
    "src/Http/Fn.php": "<?php\nnamespace App\\Http;\n\n"
                       "use function App\\Support\\helper;\nuse const App\\Support\\LIMIT;\n\n"
                       "function fn1() { return HELPER() + limit + LIMIT; }\n",  # 7: limit is no LIMIT
    "cs/App/App.csproj": "<Project Sdk=\"Microsoft.NET.Sdk\" />\n",
    "cs/App/GlobalUsings.cs": "global using Acct = Shop.Models.Account;\nglobal using Shop.Util;\n"
                              "global using static Shop.Util.MathX;\n",
    "cs/App/Models/Account.cs": "namespace Shop.Models { public class Account {} }\n",
    "cs/App/Util/Text.cs": "namespace Shop.Util {\n  public static class Text { public static string Cut(string s) => s; }\n}\n",
    # MathX is declared in a file not named for it
    "cs/App/Util/Numbers.cs": "namespace Shop.Util {\n  public static class MathX { public static int Twice(int x) => 2 * x; }\n}\n",
    "cs/App/Web/Page.cs": "namespace Shop.Web {\n  class Page {\n    Acct owner;\n    string t = Text.Cut(\"\");\n"
                          "    int n = Twice(2);\n  }\n}\n",
    # the global alias binds Acct only: Account itself is not seen unqualified
    "cs/App/Web/Plain.cs": "namespace Shop.Web { class Plain { Account b; } }\n",
    # another project, referencing App (it sees App's files): App's global usings are none of its own
    "cs/Other/Other.csproj": "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <ItemGroup>\n"
                             "    <ProjectReference Include=\"..\\App\\App.csproj\" />\n  </ItemGroup>\n</Project>\n",
    "cs/Other/Use.cs": "namespace Shop.Other {\n  class Use {\n    Acct a;\n    string t = Text.Cut(\"\");\n"
                       "    int n = Twice(1);\n  }\n}\n",
    "cs/Other/Calc.cs": "using static Shop.Util.MathX;\n\nnamespace Shop.Other { class Calc { int n = Twice(3); } }\n",
}

REPO = Indexed(FILES, "rennet-ctx-php-cs-scopes-", message="scopes")


app = REPO.fixture()


def _edges(prefix: str) -> list[tuple[str, str, str, str]]:
    return [(e.source, e.kind, e.spec, e.target) for e in REPO.record().edges if e.source.startswith(prefix)]


def test_php_class_and_function_names_in_any_case_are_the_imported_definitions(app):
    # `use app\models\user;` is User's file, as PHP finds it
    assert ("src/Http/Lower.php", "php_use", "app\\models\\user", "src/Models/User.php") in _edges("src/")
    assert sites(app, "User") == [
        ("src/Http/Aliased.php", 4, "import"), ("src/Http/Aliased.php", 4, "import"),  # `User` and `U`
        ("src/Http/Aliased.php", 7, "import"),  # `new u()`, not `$u`
        ("src/Http/Aliased.php", 8, "import"), ("src/Http/Aliased.php", 8, "import"),  # U::, u::, not ->u
        ("src/Http/Lower.php", 4, "import"),  # `user` of the use
        ("src/Http/Lower.php", 6, "import"), ("src/Http/Lower.php", 6, "import")]  # USER, \app\models\user
    assert [s for s in sites(app, "User", include_definitions=True) if s[0] != "src/Models/User.php"] == \
        sites(app, "User")
    # a function imported by `use function` in any case; a constant only as written
    assert sites(app, "helper") == [("src/Http/Fn.php", 4, "import"), ("src/Http/Fn.php", 7, "import")]
    assert sites(app, "LIMIT") == [("src/Http/Fn.php", 5, "import"), ("src/Http/Fn.php", 7, "import")]
    assert [c for _, _, c in sites(app, "limit")] == ["name_match"]


def test_php_use_function_and_const_resolve_by_their_kind():
    assert _edges("src/Http/Fn.php") == [
        ("src/Http/Fn.php", "php_use_function", "App\\Support\\helper", "src/Support/functions.php"),
        ("src/Http/Fn.php", "php_use_const", "App\\Support\\LIMIT", "src/Support/functions.php")]


def test_php_anonymous_class_members_are_its_own():
    src = (b"<?php\nnamespace N;\n\nfunction make() {\n  return new class(1) extends Base {\n    public $x;\n"
           b"    public function run() { return function () {}; }\n  };\n}\n$top = new class { function go() {} };\n"
           b"class Z { function m() { return new class { const K = 1; }; } }\n")
    facts = extract_blob(src, "a.php", "php")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("N", "namespace", ""),
        ("make", "function", "N"),
        ("x", "field", "N.make.class@anonymous"),
        ("run", "method", "N.make.class@anonymous"),  # was a member of the function `make`
        ("go", "method", "N.class@anonymous"),
        ("Z", "class", "N"),
        ("m", "method", "N.Z"),
        ("K", "constant", "N.Z.m.class@anonymous")]


def test_csharp_global_usings_count_in_every_file_of_their_project(app):
    # a global alias: Page.cs's `Acct` is Account; Use.cs, of another project, aliases nothing
    assert sites(app, "Account") == [
        ("cs/App/GlobalUsings.cs", 1, "import"), ("cs/App/GlobalUsings.cs", 1, "import"),  # `Acct`, `Account`
        ("cs/App/Web/Page.cs", 3, "import"), ("cs/App/Web/Plain.cs", 1, "name_match")]
    assert {c for _, _, c in sites(app, "Acct")} == {"name_match"}
    # a global namespace using: Text of Shop.Util is seen by the project's files unqualified
    assert sites(app, "Text") == [("cs/App/Web/Page.cs", 4, "import"), ("cs/Other/Use.cs", 4, "name_match")]
    # a global using static (App), and a file's own (Calc.cs, in Other): MathX's static members
    assert sites(app, "Twice") == [
        ("cs/App/Web/Page.cs", 5, "import"), ("cs/Other/Calc.cs", 3, "import"), ("cs/Other/Use.cs", 5, "name_match")]


def test_csharp_using_static_names_a_type_not_a_module(app):
    assert ("cs/Other/Calc.cs", "csharp_using", "Shop.Util.MathX", "cs/App/Util/Numbers.cs") in _edges("cs/")
    # MathX of `using static Shop.Util.MathX;` is a use of the class (it was a module path's segment)
    assert sites(app, "MathX") == [("cs/App/GlobalUsings.cs", 3, "import"), ("cs/Other/Calc.cs", 1, "import")]
    facts = extract_blob(b"using static Shop.Util.MathX;\n", "a.cs", "csharp")
    assert [(i.kind, i.spec, i.names) for i in facts.imports] == [("csharp_using", "Shop.Util.MathX", ("*",))]
    assert [(o.name, o.role) for o in facts.occurrences] == [
        ("Shop", "module"), ("Util", "module"), ("MathX", "reference")]
