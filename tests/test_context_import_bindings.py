"""How context.references ties a site to a definition through its file's imports: a named
import reaches it only when it binds the definition (its name, for a method the class it
belongs to, the module as a whole, or a `*` passing it): a file importing other names of the
defining file uses some other `get` (a dict's). A C header passes on what it includes; a PHP
or C# namespace sees its own names without an import (`same_package`)."""

from __future__ import annotations

from indexer.lang.bindings import of_language
from indexer.model import ImportSpec
from tests.indexed import Asked


def _resolutions(asked: Asked, name: str) -> dict[tuple[str, int], str]:
    r = asked.call("context.references", name=name)
    return {(s.path, s.line): s.resolution for s in r.data.sites}


def test_python_import_of_other_names_does_not_reach_a_method(indexed_files):
    found = _resolutions(indexed_files({
        "pkg/__init__.py": "from .models import Headers\n",
        "pkg/models.py": "class Headers:\n    def get(self, key):\n        return key\n\n\nclass Request:\n    pass\n",
        "app.py": "from pkg.models import Request\n\n\ndef f(d):\n    return d.get('a')\n",
        "user.py": "from pkg.models import Headers\n\n\ndef g(h):\n    return Headers(h).get('a')\n",
        "star.py": "from pkg.models import *\n\n\ndef s(h):\n    return Headers(h).get('a')\n",
        # a parameter is typed by its annotation alone: unannotated, its attribute is a name match
        "param.py": "from pkg.models import Headers\n\n\ndef g(h: Headers):\n    return h.get('a')\n",
        "bare.py": "from pkg.models import Headers\n\n\ndef g(h):\n    return h.get('a')\n",
        "whole.py": "import pkg\n\n\ndef k():\n    return pkg.Headers().get('a')\n",
        "unnamed.py": "import pkg\n\n\ndef u(d):\n    return d.get('a')\n",
    }), "get")
    assert found[("app.py", 5)] == "name_match"  # imports Request only: a dict's get
    assert found[("user.py", 5)] == "import"
    assert found[("star.py", 5)] == "import"
    assert found[("param.py", 5)] == "import"
    assert found[("bare.py", 5)] == "name_match"
    # the package re-exports the class: importing it reaches the methods of the class the file names
    assert found[("whole.py", 5)] == "import"
    assert found[("unnamed.py", 5)] == "name_match"


def test_python_function_reached_only_through_an_import_binding_it(indexed_files):
    found = _resolutions(indexed_files({
        "lib/__init__.py": "",
        "lib/api.py": "def get(url):\n    return url\n\n\ndef post(url):\n    return url\n",
        "a.py": "from lib.api import post\n\n\ndef f(d):\n    return d.get('k') or post('u')\n",
        "b.py": "from lib.api import get\n\nX = get('u')\n",
        "c.py": "from lib import api\n\nY = api.get('u')\n",
    }), "get")
    assert found[("a.py", 5)] == "name_match"
    assert found[("b.py", 3)] == "import"
    assert found[("c.py", 3)] == "import"


def _py(spec: str, level: int = 0, names: tuple[str, ...] = (), aliases: tuple[str, ...] = ()) -> ImportSpec:
    return ImportSpec("python", spec, 1, level, names, aliases)


def test_what_a_python_import_binds_as_its_rules_say():
    rules = of_language("python")
    # a bare name: a from-import listing it or a `*`; `import get` binds a module, `as fetch` fetch
    assert [rules.binds_bare(s, "get") for s in (
        _py("api", names=("get",)), _py("api", names=("*",)), _py("get"), _py("api", names=("get",), aliases=("fetch",)),
        _py("api", names=("other",)))] == [True, True, False, False, False]
    # the module at the target: `from . import tools`, `... tools as t`, `import lib.tools as t`; not
    # `import lib.tools` (it binds `lib`) nor `from .tools import helper` (a name tools defines)
    assert [rules.binds_module(s, t) for s, t in (
        (_py("", 1, ("tools",)), "pkg/tools.py"), (_py("lib", names=("tools",), aliases=("t",)), "lib/tools.py"),
        (_py("lib.tools", aliases=("t",)), "lib/tools.py"), (_py("lib.tools"), "lib/tools.py"),
        (_py("tools", 1, ("helper",)), "pkg/tools.py"))] == [True, True, True, False, False]
    # `from . import cli` binds cli.py as cli; `from .cli import cli` the name cli.py defines
    assert [rules.binds_module_of(s, t, "cli") for s, t in (
        (_py("", 1, ("cli",)), "pkg/cli.py"), (_py("cli", 1, ("cli",)), "pkg/cli.py"),
        (_py("a.cli", 0, ("cli",)), "a/cli.py"), (_py("", 1, ("other",)), "pkg/cli.py"))] == [True, False, False, False]
    # the dotted module an import binds to a local name: `import a.b as c` -> a.b, `import a` ->
    # a, `from .a import b as c` -> a.b; `import a.b` binds `a` to no module, `import a as b` binds
    # no `a`, a `*` no name, and a renamed name is not bound as itself
    assert [list(rules.modules_bound(s, local)) for s, local in (
        (_py("a.b", aliases=("c",)), "c"), (_py("a"), "a"), (_py("a.b"), "a"), (_py("a", aliases=("b",)), "a"),
        (_py("a", 1), "a"), (_py("a", 0, ("*",)), "*"), (_py("a", 1, ("b",), ("c",)), "c"),
        (_py("a", 1, ("b",), ("c",)), "b"))] == [[["a", "b"]], [["a"]], [], [], [], [], [["a", "b"]], []]
    # the files that are module a.b under some root: their module path ends with a/b
    paths = ["src/a/b.py", "a/b/__init__.py", "x/a/b.pyi", "a/b.txt", "a/bb.py", "b.py", "ab/b.py", "a/b/c.py",
             "a/b/x/b.py"]
    assert sorted(rules.modules_named(paths, ["a", "b"])) == ["a/b/__init__.py", "src/a/b.py", "x/a/b.pyi"]
    assert rules.modules_named(["b.py", "a/b.py"], ["x", "a", "b"]) == frozenset()  # longer than any path
    # public: no part of the name starts with an underscore, dunders aside
    assert [rules.public_basis(parts, "function", "") for parts in (
        ["x"], ["__init__"], ["K", "__call__"], ["_x"], ["pkg", "_y", "z"], ["__version"], ["K", "_m"])] == [
        "python:no_leading_underscore"] * 3 + [None] * 4


def test_python_cls_in_a_classmethod_is_its_class_as_self_is(indexed_files):
    asked = indexed_files({"k.py": (
        "class K:\n    @classmethod\n    def make(cls):\n        return cls.build()\n\n"
        "    @classmethod\n    def build(cls):\n        return cls()\n\n\n"
        "def other(cls):\n    return cls.build()\n")})  # a parameter so named outside a class
    r = asked.call("context.references", name="K.build")
    assert sorted((s.path, s.line, s.resolution) for s in r.data.sites) == [("k.py", 4, "same_file")]


def test_js_named_import_of_another_class_does_not_reach_a_method(indexed_files):
    found = _resolutions(indexed_files({
        "models.js": "export class Headers {\n  get(k) { return k; }\n}\nexport class Request {}\n",
        "app.js": "import { Request } from './models';\nexport function f(d) {\n  return d.get('a');\n}\n",
        "user.js": "import { Headers } from './models';\nexport function g() {\n  return new Headers().get('a');\n}\n",
        "ns.js": "import * as m from './models';\nexport function n() {\n  return new m.Headers().get('a');\n}\n",
    }), "get")
    assert found[("app.js", 3)] == "name_match"  # `d` is untyped, and Request is no class of `get`
    assert found[("user.js", 3)] == "import"
    assert found[("ns.js", 3)] == "import"


def test_c_header_includes_are_followed_to_the_declaration(indexed_files):
    found = _resolutions(indexed_files({
        "zstd/zstd.h": "int ZSTD_isError(int code);\n",
        "ext/module.h": "#include <zstd.h>\n#include \"other.h\"\n",
        "ext/other.h": "int other(void);\n",
        "ext/reader.c": "#include \"module.h\"\n\nint r(int z) {\n    return ZSTD_isError(z);\n}\n",
        "ext/alone.c": "#include \"other.h\"\n\nint a(int z) {\n    return ZSTD_isError(z);\n}\n",
        # a .c file's includes are its own: including it is no way to the header it includes
        "ext/unit.c": "#include \"module.h\"\n",
        "ext/bundle.c": "#include \"unit.c\"\n\nint b(int z) {\n    return ZSTD_isError(z);\n}\n",
    }), "ZSTD_isError")
    assert found[("ext/reader.c", 4)] == "import"  # through module.h, which includes zstd.h
    assert found[("ext/alone.c", 4)] == "name_match"
    assert found[("ext/bundle.c", 4)] == "name_match"


def test_php_names_of_the_same_namespace_need_no_import(indexed_files):
    found = _resolutions(indexed_files({
        "src/Stream.php": "<?php\nnamespace App\\Psr7;\n\nclass Stream {}\n",
        "src/Utils.php": "<?php\nnamespace App\\Psr7;\n\nfunction open() {\n    return new Stream();\n}\n",
        "other/Use.php": "<?php\nnamespace Other;\n\nfunction make() {\n    return new Stream();\n}\n",
    }), "Stream")
    assert found[("src/Utils.php", 5)] == "same_package"
    assert found[("other/Use.php", 5)] == "name_match"  # Other\\Stream, which nothing defines


def test_csharp_names_of_the_same_namespace_need_no_import(indexed_files):
    found = _resolutions(indexed_files({
        "Shop/Account.cs": "namespace Shop.Models;\n\npublic class Account {}\n",
        "Shop/Bank.cs": "namespace Shop.Models;\n\npublic class Bank {\n    Account a = new Account();\n}\n",
        "Else/Bank.cs": "namespace Else;\n\npublic class Bank {\n    Account a = new Account();\n}\n",
    }), "Account")
    assert found[("Shop/Bank.cs", 4)] == "same_package"
    assert found[("Else/Bank.cs", 4)] == "name_match"


def test_ruby_constants_of_the_same_outer_module_need_no_import(indexed_files):
    found = _resolutions(indexed_files({
        "lib/rack/request.rb": "module Rack\n  class Request\n  end\nend\n",
        "lib/rack/lobster.rb": "module Rack\n  class Lobster\n    def call(env)\n      Request.new(env)\n    end\n  end\nend\n",
        "lib/other/app.rb": "module Other\n  class App\n    def call(env)\n      Request.new(env)\n    end\n  end\nend\n",
    }), "Request")
    assert found[("lib/rack/lobster.rb", 4)] == "same_package"
    assert found[("lib/other/app.rb", 4)] == "name_match"


def test_ruby_class_written_with_its_module_is_of_that_module(indexed_files):
    # `class Rack::Request` is Rack's: its file is of Rack's package, and the class is
    # `Rack.Request` as `module Rack; class Request` makes it (was: a top-level Request,
    # its file of a package "Request")
    asked = indexed_files({
        "lib/rack/request.rb": "class Rack::Request\n  def body; end\nend\n",
        "lib/rack/lobster.rb": "module Rack\n  class Lobster\n    def call(env)\n      Request.new(env)\n    end\n  end\nend\n",
        "lib/other/app.rb": "module Other\n  class App\n    def call(env)\n      Request.new(env)\n    end\n  end\nend\n",
        # the outermost module of a longer path; a module holding no class; a constant before it
        "lib/rack/handler/thin.rb": "class Rack::Handler::Thin\n  def run\n    Request.new\n  end\nend\n",
        "lib/rack/utils.rb": "module Rack\n  def self.parse\n    Request.new\n  end\nend\n",
        "lib/rack/version.rb": "RELEASE = 1\nmodule Rack\n  def self.v\n    Request.new\n  end\nend\n",
    })
    found = _resolutions(asked, "Request")
    assert found[("lib/rack/lobster.rb", 4)] == "same_package"
    assert found[("lib/other/app.rb", 4)] == "name_match"
    assert found[("lib/rack/handler/thin.rb", 3)] == "same_package"
    assert found[("lib/rack/utils.rb", 3)] == "same_package"
    assert found[("lib/rack/version.rb", 4)] == "same_package"


def test_a_go_package_is_its_folder_and_clause_and_code_names_it_by_the_clause(indexed_files):
    from pathlib import Path

    from indexer import api

    asked = indexed_files({
        "lib/kit/v2/tool.go": "package kit\n\nfunc Run() {}\n",
        "lib/kit/v2/tool_test.go": "package kit_test\n\nfunc TestRun() {}\n",
        "spf13/cobra/command.go": "package cobra\n\nfunc Execute() {}\n",
        "main.go": "package main\n\nfunc main() {}\n",
        "a/b/notes.go": "// no package clause\n",
        "README.md": "# go\n",
    })
    rules = of_language("go")
    with api.open_store(str(Path(asked.repo).parent / "store")) as store:  # index_files' layout
        snap = api.snapshot(asked.repo, "main", store=store, index_if_absent=False)
        # an external test package in the folder is another package; a file with no package
        # clause, or no Go file, is in none
        assert [rules.package_of(snap, p) for p in ("lib/kit/v2/tool.go", "lib/kit/v2/tool_test.go",
                                                    "main.go", "a/b/notes.go", "README.md")] == [
            ("go", "lib/kit/v2", "kit"), ("go", "lib/kit/v2", "kit_test"), ("go", "", "main"), None, None]
        # the import path's folders, the last named as the clause names the package
        assert [rules.package_names(snap, p) for p in ("lib/kit/v2/tool.go", "spf13/cobra/command.go", "main.go",
                                                       "a/b/notes.go")] == [
            ["lib", "kit", "kit"], ["spf13", "cobra"], ["main"], ["a", "b"]]


def test_a_java_case_label_after_a_comma_is_a_use_not_a_named_argument():
    # Java has no named arguments: in `case MONDAY, FRIDAY:` FRIDAY is the enum constant's use
    line = b"            case MONDAY, FRIDAY: return 1;"
    found = of_language("java").site_syntax(line, line.index(b"FRIDAY"), "FRIDAY")
    assert found is not None and found.form == "bare"


def test_a_java_package_is_its_declaration(indexed_files):
    from pathlib import Path

    from indexer import api

    asked = indexed_files({
        "a/src/com/acme/A.java": "package com.acme;\n\nclass A {}\n",
        "b/lib/B.java": "package com.acme;\n\nclass B {}\n",  # the folder does not decide
        "Top.java": "class Top {}\n",  # the unnamed package
        "README.md": "# java\n",
    })
    rules = of_language("java")
    with api.open_store(str(Path(asked.repo).parent / "store")) as store:  # index_files' layout
        snap = api.snapshot(asked.repo, "main", store=store, index_if_absent=False)
        assert [rules.package_of(snap, p) for p in ("a/src/com/acme/A.java", "b/lib/B.java", "Top.java",
                                                    "README.md")] == [
            ("java", "com.acme"), ("java", "com.acme"), None, None]


def test_a_go_import_binds_its_name_or_the_one_goimports_assumes():
    # an import outside the tree binds the name goimports assumes of its path: the last
    # segment, a major version `/vN` aside, `go-` dropped, cut where no identifier goes on
    rules = of_language("go")
    bound = {spec: next(n for n in ("kafka", "stripe", "yaml", "chi", "sqlite3", "uuid", "v2", "cmp", "f", "my_pkg", "größe")
                        if rules.binds_local(ImportSpec("go", spec, 1, aliases=aliases), n))
             for spec, aliases in (("github.com/segmentio/kafka-go", ()), ("github.com/stripe/stripe-go/v72", ()),
                                   ("gopkg.in/yaml.v3", ()), ("github.com/go-chi/chi/v5", ()),
                                   ("github.com/mattn/go-sqlite3", ()), ("github.com/satori/go.uuid", ("uuid",)),
                                   ("v2", ()), ("github.com/google/go-cmp/cmp", ()), ("fmt", ("f",)),
                                   ("example.com/my_pkg", ()), ("example.com/größe-go", ()))}
    assert bound == {"github.com/segmentio/kafka-go": "kafka", "github.com/stripe/stripe-go/v72": "stripe",
                     "gopkg.in/yaml.v3": "yaml", "github.com/go-chi/chi/v5": "chi",
                     "github.com/mattn/go-sqlite3": "sqlite3", "github.com/satori/go.uuid": "uuid", "v2": "v2",
                     "github.com/google/go-cmp/cmp": "cmp", "fmt": "f",
                     "example.com/my_pkg": "my_pkg", "example.com/größe-go": "größe"}
    # a dot or blank import binds no name
    assert not any(rules.binds_local(ImportSpec("go", "example.com/x", 1, aliases=(a,)), n)
                   for a in (".", "_") for n in (".", "_", "x"))
