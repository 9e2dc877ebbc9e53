"""PHP `use ... as` and C# `using X = ...` aliases as resolution and references read them: a
PHP class imported as `U`, and as `Member` from a group use, whose sites under those names
are the class's; a namespace imported as `M` whose alias is no use of a class `M`; the same
in C#; and a file writing `U` without aliasing anything. Python, JS and Rust imports under
an alias likewise (`from .m import Real as Alias`), straight from the defining file or through
a package re-exporting it. Exact edges and exact site resolutions, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, definitions, sites

FILES = {
    "composer.json": '{"autoload": {"psr-4": {"App\\\\": "src/"}}}\n',
    "src/Models/User.php": "<?php\nnamespace App\\Models;\n\nclass User {}\n",
    "src/Models/Post.php": "<?php\nnamespace App\\Models;\n\nclass Post {}\n",
    "src/Models/M.php": "<?php\nnamespace App\\Models;\n\nclass M {}\n",
    "src/Http/Show.php": "<?php\nnamespace App\\Http;\n\nuse App\\Models\\User as U;\n\n"
                         "class Show {\n  function run(U $u): U { return new U(); }\n}\n",
    "src/Http/Group.php": "<?php\nnamespace App\\Http;\n\nuse App\\{Models\\Post, Models\\User as Member};\n\n"
                          "function group(Member $m, Post $p) {}\n",
    # a namespace under another name: `M\Post` uses Post, and `M` is no use of the class M
    "src/Http/Space.php": "<?php\nnamespace App\\Http;\n\nuse App\\Models as M;\n\n"
                          "function space() { return new M\\Post(); }\n",
    # User as itself, and a `U` this file does not alias
    "src/Http/Plain.php": "<?php\nnamespace App\\Http;\n\nuse App\\Models\\User;\n\nfunction plain(User $u, U $v) {}\n",
    "cs/Models/User.cs": "namespace Shop.Models { public class User {} public class Cart {} }\n",
    "cs/Models/M.cs": "namespace Shop.Models { public class M {} }\n",
    "cs/Web/Page.cs": "using U = Shop.Models.User;\nusing M = Shop.Models;\n\n"
                      "namespace Shop.Web { class Page { U owner; M.Cart cart; } }\n",
    "py/pkg/__init__.py": "from .real import Real\n",
    "py/pkg/real.py": "class Real:\n    pass\n",
    "py/pkg/direct.py": "from .real import Real as Alias\n\n\ndef make():\n    return Alias()\n",
    "py/pkg/plain.py": "from .real import Real\n\nAlias = 3\n",  # an `Alias` of its own
    "py/via.py": "from pkg import Real as Via\n\nVia()\n",  # through the package's re-export
    "js/real.js": "export class Real {}\n",
    "js/use.js": "import { Real as Alias } from './real';\n\nnew Alias();\n",
    "rs/Cargo.toml": '[package]\nname = "rs"\nversion = "0.1.0"\nedition = "2021"\n',
    "rs/src/lib.rs": "mod real;\nmod usage;\n",
    "rs/src/real.rs": "pub struct Real;\n",
    "rs/src/usage.rs": "use crate::real::Real as Alias;\n\nfn make() -> Alias { Alias }\n",
}


APP_REPO = Indexed(FILES, "rennet-ctx-use-aliases-", message="use aliases")


app = APP_REPO.fixture()


def test_a_namespace_alias_is_no_use_of_a_class_so_named():
    edges = [(e.source, e.line, e.target) for e in APP_REPO.record().edges if e.source.startswith(("cs/", "src/"))]
    # Space.php and Page.cs reached M.php and M.cs too: the alias `M` counted as a use of class M
    assert edges == [
        ("cs/Web/Page.cs", 1, "cs/Models/User.cs"),
        ("cs/Web/Page.cs", 2, "cs/Models/User.cs"),  # M.Cart
        ("src/Http/Group.php", 4, "src/Models/Post.php"),
        ("src/Http/Group.php", 4, "src/Models/User.php"),
        ("src/Http/Plain.php", 4, "src/Models/User.php"),
        ("src/Http/Show.php", 4, "src/Models/User.php"),
        ("src/Http/Space.php", 4, "src/Models/Post.php"),  # M\Post
    ]


def test_the_sites_of_an_alias_are_the_imported_definitions(app):
    # Show.php's `U`s and Group.php's `Member`s are User's (each alias's own site included);
    # C#'s `U` is cs/Models/User.cs's User; Plain.php's `U $v` is no alias of anything
    # grouped by the definition each reaches: PHP's User, then C#'s
    assert sites(app, "User") == [
        ("src/Http/Group.php", 4, "import"), ("src/Http/Group.php", 4, "import"),  # `User` and `Member`
        ("src/Http/Group.php", 6, "import"),  # `Member $m`
        ("src/Http/Plain.php", 4, "import"), ("src/Http/Plain.php", 6, "import"),
        ("src/Http/Show.php", 4, "import"), ("src/Http/Show.php", 4, "import"),  # `User` and `U`
        ("src/Http/Show.php", 7, "import"), ("src/Http/Show.php", 7, "import"), ("src/Http/Show.php", 7, "import"),
        ("cs/Web/Page.cs", 1, "import"), ("cs/Web/Page.cs", 1, "import"),  # `U` and `User`
        ("cs/Web/Page.cs", 4, "import")]  # `U owner`
    assert sites(app, "Shop.Models.User") == [
        ("cs/Web/Page.cs", 1, "import"), ("cs/Web/Page.cs", 1, "import"), ("cs/Web/Page.cs", 4, "import")]
    # an alias is no definition of its own, and its name alone resolves to nothing
    assert definitions(app, "U") == [] and definitions(app, "Member") == []
    assert {resolution for _, _, resolution in sites(app, "U")} == {"name_match"}
    # the namespace aliases import no class M: their sites only share its name (they were `import`)
    assert sites(app, "M") == [
        ("cs/Web/Page.cs", 2, "name_match"), ("cs/Web/Page.cs", 4, "name_match"),
        ("src/Http/Space.php", 4, "name_match"), ("src/Http/Space.php", 6, "name_match")]
    assert sites(app, "Post") == [
        ("src/Http/Group.php", 4, "import"), ("src/Http/Group.php", 6, "import"), ("src/Http/Space.php", 6, "import")]


def test_the_sites_of_a_python_js_or_rust_alias_are_the_imported_definitions(app):
    # each file's alias stands for the definition it imports, the alias's own site included;
    # plain.py's `Alias` is a name of its own, and a name only like another
    # grouped by the definition each reaches: Python's Real, Rust's, JavaScript's
    assert [s for s in sites(app, "Real") if s[0].endswith((".py", ".js", ".rs"))] == [
        ("py/pkg/__init__.py", 1, "import"),
        ("py/pkg/direct.py", 1, "import"), ("py/pkg/direct.py", 1, "import"),  # `Real` and `Alias`
        ("py/pkg/direct.py", 5, "import"),
        ("py/pkg/plain.py", 1, "import"),
        ("py/via.py", 1, "import"), ("py/via.py", 1, "import"),  # through pkg/__init__.py
        ("py/via.py", 3, "import"),
        ("rs/src/usage.rs", 1, "import"), ("rs/src/usage.rs", 1, "import"),
        ("rs/src/usage.rs", 3, "import"), ("rs/src/usage.rs", 3, "import"),
        ("js/use.js", 1, "import"), ("js/use.js", 1, "import"),  # `Real` and `Alias`
        ("js/use.js", 3, "import")]
    assert {resolution for _, _, resolution in sites(app, "Alias")} == {"name_match"}
