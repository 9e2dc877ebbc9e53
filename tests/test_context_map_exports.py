"""context.map lists the module-level variables and constants a module exports, by its
language's rule (Python `__all__` or public names, Go capitalised names, Rust `pub`, JS/TS
`export`), and files that define nothing (boilerplate) rank below every file that defines
something. From a real index of a small repository; every expected answer written by hand."""

from __future__ import annotations

from tests.indexed import Indexed

FILES = {
    # a package whose public names are module variables
    "flaskish/globals.py": "from flaskish.proxy import Proxy\n\n"
                           "current = Proxy(lambda: 1)\nstate = {}\n_private = 2\nMAX_SIZE = 10\n__version__ = '1'\n\n\n"
                           "def helper():\n    local = 1\n    return local\n",
    # `__all__` decides: `listed` and `LIMIT` are listed, `unlisted` is not
    "flaskish/api.py": "__all__ = [\n    'listed',\n    \"LIMIT\",\n]\n\nlisted = object()\nunlisted = object()\n"
                       "LIMIT = 3\n",
    "flaskish/proxy.py": "class Proxy:\n    RETRIES = 3\n\n    def __init__(self, make):\n        self.make = make\n",
    # boilerplate: imports and `__all__` only, and an empty module; both imported a lot
    "flaskish/__init__.py": "# Copyright (c) the authors. Licensed under the MIT license.\n"
                            "from flaskish.globals import current, state\nfrom flaskish.api import listed\n\n"
                            "__all__ = ['current', 'state', 'listed']\n",
    "flaskish/empty.py": "",
    "app.py": "import flaskish\nimport flaskish.empty\nfrom flaskish import current, state\n\n\n"
              "def main():\n    return current, state, flaskish.listed\n",
    "tests/test_app.py": "import flaskish\nimport flaskish.empty\n\n\ndef test_it():\n    assert flaskish.current\n",
    # Go: package-level names with a capital are exported; a file of build tags is boilerplate
    "go.mod": "module example.com/conf\n\ngo 1.21\n",
    "conf/vars.go": "package conf\n\nvar Default = New()\nvar (\n\tShared = 1\n\thidden = 2\n)\n\n"
                    "const MaxItems = 3\nconst minItems = 1\n\nfunc New() int { return 0 }\n",
    "conf/doc.go": "// Package conf holds settings.\n//go:build linux\n\npackage conf\n",
    "cmd/main.go": "package main\n\nimport \"example.com/conf\"\n\nfunc main() { _ = conf.Default }\n",
    # Rust: `pub static` and `pub const` are listed, private ones not
    "Cargo.toml": "[package]\nname = \"globals\"\nversion = \"0.1.0\"\n",
    "src/lib.rs": "pub static GLOBAL: u32 = 1;\npub const MAX: usize = 2;\nconst PRIVATE: u8 = 3;\n"
                  "static HIDDEN: u8 = 4;\n\npub fn run() -> u32 { GLOBAL }\n",
    # TypeScript and JavaScript: declarations written with `export`
    "web/api.ts": "export const api = createApi();\nexport let mutable = 1;\nconst local = 2;\n\n"
                  "export function createApi() { return local; }\n",
    "web/store.js": "export const store = {};\nconst internal = 1;\nexport default store;\n",
    # `export` begins the declaration, not a string in it
    "web/note.js": 'const note = "export now";\nexport const shown = 1;\n',
    # Rust: `pub(crate)` is `pub` too
    "src/scoped.rs": "pub(crate) const SCOPED: u8 = 1;\nconst HIDDEN: u8 = 2;\n",
    # C: a file-scope constant is listed, a variable not
    "c/limits.c": "static const int kLimit = 3;\nint counter = 0;\n",
    # `__all__` lists an underscored name; a class's `__all__` is no module's
    "py/under.py": "__all__ = ['_impl']\n\n_impl = 1\nother = 2\n",
    "py/classall.py": "class K:\n    __all__ = ['nothing']\n\n\npublic_var = 1\n",
    # a long `__all__`: every name is read, up to 64 kB of it
    "py/long_all.py": "__all__ = [\n" + "".join(f"    'name_{i:03}',\n" for i in range(120)) + "]\n\n"
                      + "".join(f"name_{i:03} = {i}\n" for i in (0, 119)),
    "py/huge_all.py": "__all__ = ['early', " + "'pad_name', " * 7000 + "'late']\n\nearly = 1\nlate = 2\n",
}

INDEXED = Indexed(FILES, "rennet-map-exports-")


def _map() -> list:
    client, repo = INDEXED.asked()
    return client.call("context.map", repo=repo, budget=65536).data.files


def _symbols(path: str) -> list[str]:
    return next(f for f in _map() if f.path == path).symbols


def test_python_public_module_variables_and_constants_are_listed():
    assert _symbols("flaskish/globals.py") == ["current = Proxy(lambda: 1)", "state = {}", "MAX_SIZE = 10",
                                               "def helper():"]


def test_python_all_decides_what_a_module_exports():
    assert _symbols("flaskish/api.py") == ["listed = object()", "LIMIT = 3"]


def test_a_class_constant_stays_under_its_class():
    assert _symbols("flaskish/proxy.py") == ["class Proxy:", "  RETRIES = 3", "  def __init__(self, make):"]


def test_go_exported_package_level_vars_and_consts():
    assert _symbols("conf/vars.go") == ["var Default = New()", "Shared = 1", "const MaxItems = 3",
                                        "func New() int { return 0 }"]


def test_rust_pub_statics_and_consts():
    assert _symbols("src/lib.rs") == ["pub static GLOBAL: u32 = 1;", "pub const MAX: usize = 2;",
                                      "pub fn run() -> u32 { GLOBAL }"]


def test_script_exported_consts():
    assert _symbols("web/api.ts") == ["export const api = createApi();", "export let mutable = 1;",
                                      "export function createApi() { return local; }"]
    assert _symbols("web/store.js") == ["export const store = {};"]


def test_files_that_define_nothing_rank_below_every_file_that_defines_something():
    files = _map()
    order = [f.path for f in files]
    boilerplate = {"flaskish/__init__.py", "flaskish/empty.py", "conf/doc.go", "go.mod", "Cargo.toml"}
    defining = [p for p in order if p not in boilerplate]
    assert order.index("flaskish/__init__.py") > max(order.index(p) for p in defining)
    assert order.index("flaskish/empty.py") > max(order.index(p) for p in defining)
    assert order.index("conf/doc.go") > max(order.index(p) for p in defining)
    ranks = {f.path: f.rank for f in files}
    assert max(ranks[p] for p in boilerplate) <= min(ranks[p] for p in defining) / 2
    # the ranks still sum to one over every file of the snapshot
    assert abs(sum(INDEXED.record().rank.values()) - 1.0) < 1e-6


def test_what_each_language_exports_at_its_edges():
    assert _symbols("web/note.js") == ["export const shown = 1;"]
    assert _symbols("src/scoped.rs") == ["pub(crate) const SCOPED: u8 = 1;"]
    assert _symbols("c/limits.c") == ["static const int kLimit = 3;"]


def test_python_all_read_whole_up_to_its_bound():
    assert _symbols("py/under.py") == ["_impl = 1"]
    assert _symbols("py/classall.py") == ["class K:", "public_var = 1"]
    assert _symbols("py/long_all.py") == ["name_000 = 0", "name_119 = 119"]
    # past the first 64 kB of the assignment a name is not read
    assert _symbols("py/huge_all.py") == ["early = 1"]
