"""Import resolution across the tree: exact edges and statuses per language."""

from __future__ import annotations

import random

import pytest

from corpora.gitbuild import make_repo
from indexer.api import open_store, snapshot
from indexer.build import index
from indexer.model import BlobFacts, Edge, FileEntry, ImportSpec, Occurrence, Symbol, UnresolvedImport
from indexer.resolve import imports as resolve_module
from indexer.resolve.imports import resolve_since
from indexer.store.records import load_record
from tests.reindexed import reindexed_as_cold


def resolve_imports(*args):
    """resolve_since's edges and unresolved imports, the pair these tests compare."""
    edges, unresolved, _ = resolve_since(*args)
    return edges, unresolved


def entry(path: str, mode: int = 0o100644) -> FileEntry:
    return FileEntry(path=path, blob="0" * 40, mode=mode, size=1, lines=1, language="x")


def run(tree: dict[str, bytes | str], imports: dict[str, list[ImportSpec]], facts_extra=None):
    files = [entry(p) for p in sorted(tree)]
    facts = {p: BlobFacts(language="x", lines=1, imports=list(v)) for p, v in imports.items()}
    for p, f in (facts_extra or {}).items():
        facts[p] = f
    data = {p: (v.encode() if isinstance(v, str) else v) for p, v in tree.items()}
    return resolve_imports(files, facts, lambda p: data[p])


def resolve_extracted(tree: dict[str, str]):
    """Every file of `tree` extracted for real (its language detected), then resolved."""
    from indexer.extract.blob import extract_blob
    from indexer.lang.registry import detect_language

    facts = {p: extract_blob(t.encode(), p, detect_language(p, t.encode()[:512])) for p, t in tree.items()}
    return resolve_imports([entry(p) for p in sorted(tree)], facts, lambda p: tree[p].encode())


def pairs(edges: list[Edge]) -> list[tuple[str, str]]:
    return [(e.source, e.target) for e in edges]


def statuses(unresolved: list[UnresolvedImport]) -> list[tuple[str, str, str]]:
    return [(u.path, u.spec, u.status) for u in unresolved]


def py(spec: str, level: int = 0, names: tuple[str, ...] = (), line: int = 1) -> ImportSpec:
    return ImportSpec(kind="python", spec=spec, line=line, level=level, names=names)


# --- Python -------------------------------------------------------------------------------
# (the tables of cases per language are annotated trees: tests/fixtures/resolve/, read by
# tests/test_resolve_fixtures.py)

PY_TREE = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "",
    "src/pkg/sub/__init__.py": "",
    "src/pkg/sub/leaf.py": "",
    "src/pkg/sub/deep/__init__.py": "",
    "src/pkg/sub/deep/x.py": "",
    "src/pkg/stubs.pyi": "",
    "app.py": "",
    "tools/run.py": "",
    "tools/helper.py": "",
    "ns/mod.py": "",
}

def test_python_namespace_dirs_never_shadow_the_standard_library():
    # pytest's testing/io/ and testing/logging/ hold tests, not packages named io and logging
    tree = {"app.py": "", "io/test_saferepr.py": "", "logging/handlers.py": "", "json.py": "",
            "ns/mod.py": "", "src/pkg/__init__.py": "", "src/pkg/core.py": ""}
    imports = {"src/pkg/core.py": [py("io"), py("logging.handlers", line=2), py("json", line=3),
                                   py("ns.mod", line=4), py("ns.gone", line=5)]}
    edges, unresolved = run(tree, imports)
    assert pairs(edges) == [("src/pkg/core.py", "json.py"),  # a regular module does shadow it
                            ("src/pkg/core.py", "ns/mod.py")]  # a namespace package of another name
    assert statuses(unresolved) == [("src/pkg/core.py", "io", "external"),
                                    ("src/pkg/core.py", "logging.handlers", "external"),
                                    ("src/pkg/core.py", "ns.gone", "unresolved")]


def test_python_self_import_is_dropped():
    edges, unresolved = run(PY_TREE, {"src/pkg/__init__.py": [py("", level=1, names=("core", "name"))]})
    assert pairs(edges) == [("src/pkg/__init__.py", "src/pkg/core.py")]
    assert unresolved == []


def test_python_root_package_wins_over_nested_copy():
    tree = {"pkg/__init__.py": "", "pkg/a.py": "", "vendor/x/pkg/__init__.py": "", "vendor/x/pkg/a.py": "", "m.py": ""}
    edges, _ = run(tree, {"m.py": [py("pkg.a")]})
    assert pairs(edges) == [("m.py", "pkg/a.py")]


def test_python_script_dir_not_used_inside_package():
    tree = {"pkg/__init__.py": "", "pkg/a.py": "", "pkg/util.py": "", "util.py": ""}
    edges, _ = run(tree, {"pkg/a.py": [py("util")]})
    assert pairs(edges) == [("pkg/a.py", "util.py")]


def test_python_the_module_a_file_is():
    from indexer.lang.python.resolve import module_stem

    assert [module_stem(p) for p in ("pkg/sub.py", "pkg/sub/__init__.py", "pkg/sub.pyi", "__init__.py", "m.py")] == [
        "pkg/sub", "pkg/sub", "pkg/sub", "", "m"]  # the root's __init__.py is the root's package: ""


# --- JavaScript / TypeScript ----------------------------------------------------------------

def js(spec: str, line: int = 1) -> ImportSpec:
    return ImportSpec(kind="js", spec=spec, line=line)


def test_tsconfig_extends_and_nearest_config():
    tree = {
        "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"~/*": ["core/*"]}}}',
        "apps/web/tsconfig.json": '{"extends": "../../tsconfig.base.json", /* own */ }',
        "apps/web/page.ts": "",
        "core/db.ts": "",
    }
    edges, unresolved = run(tree, {"apps/web/page.ts": [js("~/db")]})
    assert pairs(edges) == [("apps/web/page.ts", "core/db.ts")] and unresolved == []


def test_a_long_or_cyclic_tsconfig_extends_chain_is_followed_without_recursion():
    depth = 3000  # was: RecursionError, the whole index internal_error
    tree = {f"c{i}/tsconfig.json": f'{{"extends": "../c{i + 1}/tsconfig.json"}}' for i in range(depth)}
    tree |= {f"c{depth}/tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"~/*": ["lib/*"]}}}',
             f"c{depth}/lib/db.ts": "", "c0/page.ts": "",
             "x/tsconfig.json": '{"extends": "../y/tsconfig.json"}', "x/a.ts": "",
             "y/tsconfig.json": '{"extends": "../x/tsconfig.json", "compilerOptions": {"baseUrl": "."}}', "y/b.ts": ""}
    edges, _ = run(tree, {"c0/page.ts": [js("~/db")], "x/a.ts": [js("b")]})
    assert pairs(edges) == [("c0/page.ts", f"c{depth}/lib/db.ts"), ("x/a.ts", "y/b.ts")]


def test_broken_tsconfig_does_not_crash():
    tree = {"tsconfig.json": "{ this is not json", "a.ts": "", "b.ts": ""}
    edges, unresolved = run(tree, {"a.ts": [js("./b"), js("b")]})
    assert pairs(edges) == [("a.ts", "b.ts")]
    assert statuses(unresolved) == [("a.ts", "b", "external")]


# --- Rust -------------------------------------------------------------------------------

RUST_TREE = {
    "Cargo.toml": '[package]\nname = "my-app"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "",
    "src/main.rs": "",
    "src/net.rs": "",
    "src/net/http.rs": "",
    "src/db/mod.rs": "",
    "src/db/pool.rs": "",
    "src/db/pool/conn.rs": "",
    "src/bin/tool.rs": "",
    "src/bin/helper.rs": "",
    "crates/util/Cargo.toml": '[package]\nname = "my-util"\n',
    "crates/util/src/lib.rs": "",
    "crates/util/src/fmt.rs": "",
}


def ruse(spec: str, names: tuple[str, ...] = ()) -> ImportSpec:
    return ImportSpec(kind="rust_use", spec=spec, line=2, names=names)


def test_rust_extern_crate_of_the_workspace_is_an_edge():
    edges, unresolved = run(RUST_TREE, {"src/main.rs": [ImportSpec("rust_extern", "my_util", 1),
                                                        ImportSpec("rust_extern", "serde", 2, aliases=("s",))]})
    assert pairs(edges) == [("src/main.rs", "crates/util/src/lib.rs")]
    assert statuses(unresolved) == [("src/main.rs", "serde", "external")]


def test_rust_extern_crate_visibility_changes_how_other_files_resolve():
    # `use facade::inner::Thing` of another file walks through facade's alias only when it is `pub`
    from indexer.lang.rust.resolve import changes_others

    def facts(visibility: str) -> BlobFacts:
        return BlobFacts(language="rust", lines=1, imports=[
            ImportSpec("rust_extern", "facade_inner", 1, aliases=("inner",), visibility=visibility)])

    assert changes_others("facade/src/lib.rs", lambda: facts(""), facts("pub"))
    assert changes_others("facade/src/lib.rs", lambda: facts("pub"), facts("pub(crate)"))
    assert not changes_others("facade/src/lib.rs", lambda: facts("pub"), facts("pub"))


def test_rust_edition_inherited_from_the_workspace():
    # a member with `edition.workspace = true` takes the workspace's: 2021, where a bare
    # path that is not a child module names another crate; an explicit 2015 member starts
    # bare paths at its crate root
    tree = {
        "Cargo.toml": '[workspace]\nmembers = ["a", "b"]\n[workspace.package]\nedition = "2021"\n',
        "a/Cargo.toml": '[package]\nname = "a"\nedition.workspace = true\n',
        "a/src/lib.rs": "", "a/src/util.rs": "",
        "b/Cargo.toml": '[package]\nname = "b"\nedition = "2015"\n',
        "b/src/lib.rs": "", "b/src/util.rs": "",
    }
    edges, unresolved = run(tree, {"a/src/util.rs": [ruse("helpers::x")], "b/src/util.rs": [ruse("helpers::x")]})
    assert pairs(edges) == [("b/src/util.rs", "b/src/lib.rs")]
    assert statuses(unresolved) == [("a/src/util.rs", "helpers::x", "external")]


# --- Java -------------------------------------------------------------------------------

# --- C / C++ ----------------------------------------------------------------------------

# --- Ruby, PHP, C# ----------------------------------------------------------------------

# A PHP `use` lands only on a file declaring the class in its namespace (an empty file
# whose path merely ends in Models/User.php is no evidence).
PHP_USER = BlobFacts(language="php", lines=3, package_name="App\\Models", symbols=[
    Symbol("App\\Models", "namespace", "", 1, 1, 0, 21, "namespace App\\Models;"),
    Symbol("User", "class", "App\\Models", 2, 2, 22, 35, "class User {}")])


def test_ruby_php_csharp():
    tree = {
        "lib/shop/cart.rb": "",
        "lib/shop.rb": "",
        "app/run.rb": "",
        "web/index.php": "",
        "web/inc/db.php": "",
        "src/Models/User.php": "",
        "cs/Program.cs": "",
        "cs/Models/User.cs": "",
        "cs/Models/Order.cs": "",
    }
    cs_user = BlobFacts(language="c_sharp", lines=1, package_name="Shop.Models",
                        symbols=[Symbol("User", "class", "", 1, 2, 0, 1, "class User")])
    cs_order = BlobFacts(language="c_sharp", lines=1, package_name="Shop.Models",
                         symbols=[Symbol("Order", "class", "", 1, 2, 0, 1, "class Order")])
    program = BlobFacts(
        language="c_sharp", lines=1,
        imports=[ImportSpec("csharp_using", "Shop.Models", 1), ImportSpec("csharp_using", "System.Text", 2)],
        occurrences=[Occurrence("User", 5, 4, "reference")],
    )
    edges, unresolved = run(
        tree,
        {
            "app/run.rb": [ImportSpec("ruby_require", "shop/cart", 1), ImportSpec("ruby_require", "json", 2),
                           ImportSpec("ruby_require", "./missing", 3)],
            "web/index.php": [ImportSpec("php_require", "__DIR__ . '/inc/db.php'", 1),
                              ImportSpec("php_require", "App\\Models\\User", 2),
                              ImportSpec("php_require", "Vendor\\Lib\\Thing", 3)],
        },
        {"cs/Program.cs": program, "cs/Models/User.cs": cs_user, "cs/Models/Order.cs": cs_order,
         "src/Models/User.php": PHP_USER},
    )
    assert pairs(edges) == [
        ("app/run.rb", "lib/shop/cart.rb"),
        ("cs/Program.cs", "cs/Models/User.cs"),  # only the file defining a name Program uses
        ("web/index.php", "src/Models/User.php"),
        ("web/index.php", "web/inc/db.php"),
    ]
    assert statuses(unresolved) == [
        ("app/run.rb", "json", "external"),
        ("app/run.rb", "./missing", "unresolved"),
        ("cs/Program.cs", "System.Text", "external"),
        ("web/index.php", "Vendor\\Lib\\Thing", "external"),
    ]


# --- whole-run properties ---------------------------------------------------------------

def test_output_sorted_deduplicated_and_independent_of_input_order():
    imports = {
        "app.py": [py("pkg.core", line=2), py("pkg.core", line=2), py("os"), py("pkg.sub", names=("leaf",), line=1)],
        "tools/run.py": [py("helper"), py("pkg", line=4)],
    }
    edges, unresolved = run(PY_TREE, imports)
    assert pairs(edges) == [
        ("app.py", "src/pkg/core.py"),
        ("app.py", "src/pkg/sub/leaf.py"),
        ("tools/run.py", "src/pkg/__init__.py"),
        ("tools/run.py", "tools/helper.py"),
    ]
    assert len(edges) == len(set(edges)) == 4
    assert statuses(unresolved) == [("app.py", "os", "external")]
    files = [entry(p) for p in sorted(PY_TREE)]
    shuffled = list(imports.items())
    random.Random(7).shuffle(shuffled)
    facts = {p: BlobFacts(language="python", lines=1, imports=v[::-1]) for p, v in shuffled}
    assert resolve_imports(files, facts, lambda p: b"") == (edges, unresolved)


def test_symlinks_and_submodules_are_not_targets():
    files = [entry("a.py"), entry("b.py", mode=0o120000), entry("c", mode=0o160000)]
    facts = {"a.py": BlobFacts(language="python", lines=1, imports=[py("b"), py("c")])}
    edges, unresolved = resolve_imports(files, facts, lambda p: b"")
    assert edges == []
    assert statuses(unresolved) == [("a.py", "b", "external"), ("a.py", "c", "external")]


def test_unknown_kind_is_kept_as_unresolved():
    edges, unresolved = run({"a.x": ""}, {"a.x": [ImportSpec("cobol_copy", "BOOK", 1)]})
    assert edges == [] and statuses(unresolved) == [("a.x", "BOOK", "unresolved")]


# --- encodings produced by the extractor ----------------------------------------------

def test_rust_use_groups_as_the_extractor_encodes_them():
    cases = [
        ("src/main.rs", ImportSpec("rust_use", "crate::db", 2, names=("pool", "Thing")), ["src/db/mod.rs", "src/db/pool.rs"]),
        ("src/main.rs", ImportSpec("rust_use", "crate", 2, names=("net::http", "db::pool::conn")),
         ["src/db/pool/conn.rs", "src/net/http.rs"]),
        ("src/main.rs", ImportSpec("rust_use", "crate::db", 2, names=("self",)), ["src/db/mod.rs"]),
        ("src/main.rs", ImportSpec("rust_use", "crate::net", 2, names=("*",)), ["src/net.rs"]),
        ("src/lib.rs", ImportSpec("rust_use", "", 2, names=("net::http", "std::fmt")), ["src/net/http.rs"]),
    ]
    for importer, imp, expected in cases:
        edges, unresolved = run(RUST_TREE, {importer: [imp]})
        assert sorted(e.target for e in edges) == expected, imp
        assert unresolved == []
    edges, unresolved = run(RUST_TREE, {"src/lib.rs": [ImportSpec("rust_use", "", 2, names=("std::fmt", "serde"))]})
    assert edges == [] and statuses(unresolved) == [("src/lib.rs", "", "external")]


def test_rust_use_trees_read_as_paths_and_names():
    from indexer.lang.rust.resolve import use_bindings, use_paths

    def use_names(*use):  # the names a `use` brings in, under their aliases
        return tuple(dict.fromkeys(local for _, local in use_bindings(*use)))

    assert use_paths("crate", ("net::{self,conn::{A,B}}", "Socket")) == [
        ["crate", "net", "self"], ["crate", "net", "conn", "A"], ["crate", "net", "conn", "B"], ["crate", "Socket"]]
    assert use_paths("crate::a::{b, c::{self, D as E}, *}") == [
        ["crate", "a", "b"], ["crate", "a", "c", "self"], ["crate", "a", "c", "D"], ["crate", "a", "*"]]
    assert use_paths("a::b as c") == [["a", "b"]] and use_paths("crate::net::{}") == [["crate", "net"]]
    assert use_paths("", ("x", "z::{w}")) == [["x"], ["z", "w"]] and use_paths("") == []
    # what a `use` brings in, as a re-export passes it on: under the alias the file gives it
    assert use_names("net::Conn") == ("Conn",) and use_names("crate::net::{self}") == ("net",)
    assert use_names("crate", ("net::{self,Conn}", "util::*", "Socket")) == ("net", "Conn", "*", "Socket")
    assert use_names("super", ("*",)) == ("*",) and use_names("self::wire::Wire as W") == ("W",)
    # the extractor's encoding: an item's alias lists its paths' aliases, joined by ","
    assert use_names("a::b", (), ("c",)) == ("c",) and use_bindings("a::b", (), ("c",)) == (("b", "c"),)
    assert use_bindings("a", ("b::{c,x}", "e", "g"), ("d,", "f", "")) == (
        ("c", "d"), ("x", "x"), ("e", "f"), ("g", "g"))
    assert use_bindings("crate::net", ("conn::{self,A}", "*"), ("k,B", "")) == (
        ("conn", "k"), ("A", "B"), ("*", "*"))
    assert use_paths("crate::net", ("conn::{self,A}", "*")) == [
        ["crate", "net", "conn", "self"], ["crate", "net", "conn", "A"], ["crate", "net", "*"]]


def test_rust_nested_use_groups_reach_every_module_they_name():
    # an item of a group nested in another was split at the inner `{`: `net::{conn::{A}}`
    # stopped at net.rs; a path under a missing module went on from where the walk stopped
    tree = {
        "Cargo.toml": '[package]\nname = "k"\nedition = "2021"\n',
        "src/lib.rs": "pub mod net;\npub mod util;\n",
        "src/net.rs": "pub mod conn;\n",
        "src/net/conn.rs": "",
        "src/util.rs": "",
        "src/a.rs": "use crate::{net::{conn::{A, B}, Conn}};\n",
        "src/b.rs": "use crate::{\n    net::{conn as c, Conn}, // the wire\n    /* helpers */ util,\n};\n",
        "src/c.rs": "use crate::net::{conn::{self as k, A}, Conn};\n",
        "src/d.rs": "use {crate::net::{conn::A}, std::fmt};\n",
        "src/e.rs": "use self::super::net::{conn};\n",
        "src/f.rs": "use crate::ghost::{util};\n",
    }
    edges, unresolved = resolve_extracted(tree)
    assert [(e.source, e.line, e.target) for e in edges] == [
        ("src/a.rs", 1, "src/net.rs"), ("src/a.rs", 1, "src/net/conn.rs"),
        ("src/b.rs", 1, "src/net.rs"), ("src/b.rs", 1, "src/net/conn.rs"), ("src/b.rs", 1, "src/util.rs"),
        ("src/c.rs", 1, "src/net.rs"), ("src/c.rs", 1, "src/net/conn.rs"),
        ("src/d.rs", 1, "src/net/conn.rs"),
        ("src/e.rs", 1, "src/net/conn.rs"),
        ("src/f.rs", 1, "src/lib.rs"),  # crate::ghost::util is not crate::util
        ("src/lib.rs", 1, "src/net.rs"), ("src/lib.rs", 2, "src/util.rs"),
        ("src/net.rs", 1, "src/net/conn.rs"),
    ]
    # braces first: `std::fmt` is an import of its own, as `use std::fmt;` is
    assert [(u.path, u.spec, u.status) for u in unresolved] == [("src/d.rs", "std::fmt", "external")]


def test_shell_source_and_php_use():
    tree = {"bin/run.sh": "", "bin/lib/common.sh": "", "env.sh": "", "src/Models/User.php": "", "web/a.php": ""}
    edges, unresolved = run(tree, {
        "bin/run.sh": [ImportSpec("bash_source", '"$DIR/lib/common.sh"', 1), ImportSpec("bash_source", "env.sh", 2),
                       ImportSpec("bash_source", "/etc/profile", 3), ImportSpec("bash_source", "$HOME/x/$Y.sh", 4)],
        "web/a.php": [ImportSpec("php_use", "App\\Models\\User", 1), ImportSpec("php_require", "./gone.php", 2)],
    }, {"src/Models/User.php": PHP_USER})
    assert pairs(edges) == [("bin/run.sh", "bin/lib/common.sh"), ("bin/run.sh", "env.sh"), ("web/a.php", "src/Models/User.php")]
    assert statuses(unresolved) == [
        ("bin/run.sh", "/etc/profile", "external"),
        ("bin/run.sh", "$HOME/x/$Y.sh", "unresolved"),
        ("web/a.php", "./gone.php", "unresolved"),
    ]


def test_resolution_of_real_extraction_output():
    """Sources parsed by the real extractor resolve to the expected files."""
    tree = {
        "src/pkg/__init__.py": "from .core import run\n",
        "src/pkg/core.py": "import os\nfrom . import util\nfrom pkg.util import helper\n",
        "src/pkg/util.py": "def helper(): pass\n",
        "web/app.ts": "import { x } from './lib';\nexport * from './lib/extra';\nimport React from 'react';\n",
        "web/lib/index.ts": "export const x = 1;\n",
        "web/lib/extra.ts": "export const y = 2;\n",
        "Cargo.toml": '[package]\nname = "k"\n',
        "src/lib.rs": "mod net;\nuse crate::net::{http, Client};\nuse std::fmt;\n",
        "src/net.rs": "pub mod http;\npub struct Client;\n",
        "src/net/http.rs": "use super::Client;\n",
        "c/main.c": '#include "util.h"\n#include <stdio.h>\n',
        "c/util.h": "int f(void);\n",
        "scripts/go.sh": "#!/bin/sh\n. ./env.sh\n",
        "scripts/env.sh": "X=1\n",
    }
    edges, unresolved = resolve_extracted(tree)
    assert sorted(set(pairs(edges))) == [
        ("c/main.c", "c/util.h"),
        ("scripts/go.sh", "scripts/env.sh"),
        ("src/lib.rs", "src/net.rs"),
        ("src/lib.rs", "src/net/http.rs"),
        ("src/net.rs", "src/net/http.rs"),
        ("src/net/http.rs", "src/net.rs"),
        ("src/pkg/__init__.py", "src/pkg/core.py"),
        ("src/pkg/core.py", "src/pkg/util.py"),
        ("web/app.ts", "web/lib/extra.ts"),
        ("web/app.ts", "web/lib/index.ts"),
    ]
    assert sorted((u.path, u.spec, u.status) for u in unresolved) == [
        ("c/main.c", "stdio.h", "external"),
        ("src/lib.rs", "std::fmt", "external"),
        ("src/pkg/core.py", "os", "external"),
        ("web/app.ts", "react", "external"),
    ]


# --- Incremental resolution: starting from an earlier snapshot ---------------------------

POLY_BASE = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "cmd/main.go": 'package main\n\nimport "example.com/app/lib"\n\nfunc main() { lib.Run() }\n',
    "lib/lib.go": "package lib\n\nfunc Run() {}\n",
    "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["web/lib/*"]}}}\n',
    "web/app.ts": 'import { util } from "@lib/util";\nimport { other } from "@alt/other";\nutil(); other();\n',
    "web/lib/util.ts": "export function util() {}\n",
    "web/alt/other.ts": "export function other() {}\n",
    "Cargo.toml": '[package]\nname = "my-crate"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod a;\nuse crate::a::thing;\npub fn f() { thing(); }\n",
    "src/a.rs": "pub fn thing() {}\n",
    "src/b.rs": "use helpers::assist;\n",  # a 2015 crate: from the crate root until `extern crate helpers`
    "tools/Cargo.toml": '[package]\nname = "tools"\nversion = "0.1.0"\n',
    "tools/src/main.rs": "use my_crate::f;\nfn main() { f(); }\n",
    "java/com/acme/App.java": "package com.acme;\n\nimport org.odd.Odd;\nimport com.acme.util.Helper;\n\n"
                              "public class App { Odd o; Helper h; }\n",
    "java/com/acme/util/Helper.java": "package com.acme.util;\n\npublic class Helper {}\n",
    "misc/Odd.java": "package org.odd;\n\npublic class Odd {}\n",
    "cs/Models/User.cs": "namespace Acme.Models {\n  public class User {}\n}\n",
    "cs/App.cs": "using Acme.Models;\n\nclass App { User u; }\n",
    # a global using: the namespace's every file; a type (not named for its file) by its declaration
    "cs/Global.cs": "global using Acme.Models;\nglobal using static Acme.Models.Tools;\n",
    "cs/Models/Kit.cs": "namespace Acme.Models {\n  public static class Tools {}\n}\n",
    "pkg/__init__.py": "",
    "pkg/core.py": "def run():\n    return 1\n",
    "app.py": "from pkg import core\n\ncore.run()\n",
    "include/util.h": "int util(void);\n",
    "main.c": '#include "util.h"\nint main(void) { return util(); }\n',
}

# Each step changes existing paths only (so starting from the step before is allowed),
# chosen so that a file's change alters how *other*, unchanged files resolve.
POLY_STEPS = [
    ("plain edits", {"pkg/core.py": "def run():\n    return 2\n",
                     "app.py": "from pkg import core\nimport json\n\ncore.run()\n",
                     "main.c": '#include "util.h"\n#include <stdio.h>\nint main(void) { return util(); }\n'}),
    ("go module renamed", {"go.mod": "module example.com/other\n\ngo 1.22\n"}),
    ("tsconfig paths changed", {"tsconfig.json": '{"compilerOptions": {"paths": {"@alt/*": ["web/alt/*"]}}}\n'}),
    ("java package moved", {"misc/Odd.java": "package org.even;\n\npublic class Odd {}\n"}),
    ("java body edit", {"java/com/acme/util/Helper.java": "package com.acme.util;\n\npublic class Helper { int x; }\n"}),
    ("c# namespace changed", {"cs/Models/User.cs": "namespace Acme.Other {\n  public class User {}\n}\n"}),
    ("crate renamed", {"Cargo.toml": '[package]\nname = "renamed"\nversion = "0.1.0"\n'}),
    ("rust extern crate added", {"src/lib.rs": "extern crate helpers;\nmod a;\nuse crate::a::thing;\npub fn f() { thing(); }\n"}),
    ("c# static type moved", {"cs/Models/Kit.cs": "namespace Acme.Models {\n  public static class Gear {}\n}\n",
                              "cs/Models/User.cs": "namespace Acme.Models {\n  public class User {}\n"
                                                   "  public static class Tools {}\n}\n"}),
]


@pytest.fixture()
def spy_to_resolve(monkeypatch):
    """Records what incremental resolution chose to redo (the real function runs)."""
    calls = []
    real = resolve_module.to_resolve

    def recording(files, facts, tree, prior):
        out = real(files, facts, tree, prior)
        calls.append(out)
        return out

    monkeypatch.setattr(resolve_module, "to_resolve", recording)
    return calls


def test_reindexing_a_history_of_edits_resolves_as_a_cold_index(tmp_path, spy_to_resolve):
    commits = [POLY_BASE] + [change for _, change in POLY_STEPS]
    oids = make_repo(tmp_path / "repo", commits)
    reindexed_as_cold(str(tmp_path / "repo"), oids, tmp_path / "warm")  # edges and unresolved are in the bytes
    warm = open_store(tmp_path / "warm")
    try:
        warm_records = [load_record(warm, oid) for oid in oids]
    finally:
        warm.close()
    assert len(spy_to_resolve) == len(POLY_STEPS)  # every re-index started from the parent
    redone = dict(zip([name for name, _ in POLY_STEPS], spy_to_resolve))
    assert redone["plain edits"] == {"pkg/core.py", "app.py", "main.c"}  # nothing else affected
    assert redone["java body edit"] == {"java/com/acme/util/Helper.java"}  # same package: no one else
    assert {"web/app.ts", "tsconfig.json"} <= redone["tsconfig paths changed"]
    assert "cmd/main.go" in redone["go module renamed"] and "app.py" not in redone["go module renamed"]
    assert "java/com/acme/App.java" in redone["java package moved"]
    assert "cs/App.cs" in redone["c# namespace changed"]
    assert "tools/src/main.rs" in redone["crate renamed"]
    assert "src/b.rs" in redone["rust extern crate added"]
    assert "cs/Global.cs" in redone["c# static type moved"]

    # the steps did change other files' resolution: the comparison above was not vacuous
    pairs_at = [{(e.source, e.target) for e in r.edges} for r in warm_records]
    assert ("cmd/main.go", "lib/lib.go") in pairs_at[1] and ("cmd/main.go", "lib/lib.go") not in pairs_at[2]
    assert ("web/app.ts", "web/alt/other.ts") not in pairs_at[2] and ("web/app.ts", "web/alt/other.ts") in pairs_at[3]
    assert ("java/com/acme/App.java", "misc/Odd.java") in pairs_at[3]
    assert ("java/com/acme/App.java", "misc/Odd.java") not in pairs_at[4]
    assert ("cs/App.cs", "cs/Models/User.cs") in pairs_at[5] and ("cs/App.cs", "cs/Models/User.cs") not in pairs_at[6]
    assert ("tools/src/main.rs", "src/lib.rs") in pairs_at[6] and ("tools/src/main.rs", "src/lib.rs") not in pairs_at[7]
    static = [{e.target for e in r.edges if e.spec == "Acme.Models.Tools"} for r in warm_records]
    assert static[8] == {"cs/Models/Kit.cs"} and static[9] == {"cs/Models/User.cs"}
    assert ("cs/Global.cs", "cs/Models/User.cs") in pairs_at[9]  # the namespace's every file


def _snapshot_inputs(tmp_path, commits):
    """files, facts and a reader for each commit, from a real index of each."""
    oids = make_repo(tmp_path / "repo", commits)
    store = open_store(tmp_path / "store")
    out = []
    try:
        for oid in oids:
            index(str(tmp_path / "repo"), oid, store=store, workers=1)
            snap = snapshot(str(tmp_path / "repo"), oid, store=store)
            facts = {f.path: snap.facts(f.path) for f in snap.files if snap.facts(f.path) is not None}
            data = {f.path: snap.blob_bytes(f.path) for f in snap.files if f.mode in (0o100644, 0o100755)}
            out.append((snap.record, facts, data))
    finally:
        store.close()
    return out


def test_added_or_removed_path_means_a_full_resolution(tmp_path):
    commits = [POLY_BASE,
               {"lib/extra.go": "package lib\n\nfunc Extra() {}\n"},  # added: the Go package grows
               {"pkg/core.py": None}]  # removed: app.py's import no longer lands
    (r0, f0, d0), (r1, f1, d1), (r2, f2, d2) = _snapshot_inputs(tmp_path, commits)
    for (before, before_facts), (record, facts, data) in [((r0, f0), (r1, f1, d1)), ((r1, f1), (r2, f2, d2))]:
        prior = resolve_module.Prior(before.files, before.edges, before.unresolved, before_facts.get)
        tree = resolve_module.tree_of(record.files)
        assert resolve_module.to_resolve(record.files, facts, tree, prior) is None
        full = resolve_imports(record.files, facts, data.__getitem__)
        assert resolve_imports(record.files, facts, data.__getitem__, prior) == full
        assert full == (record.edges, record.unresolved)
    assert ("cmd/main.go", "lib/extra.go") in {(e.source, e.target) for e in r1.edges}
    assert ("app.py", "pkg/core.py") not in {(e.source, e.target) for e in r2.edges}


def test_starting_from_an_earlier_snapshot_equals_full_resolution_for_every_step(tmp_path):
    """Any earlier snapshot with the same paths will do, not only the parent: start every
    step from the first snapshot and compare with a full resolution."""
    commits = [POLY_BASE] + [change for _, change in POLY_STEPS]
    snaps = _snapshot_inputs(tmp_path, commits)
    first, first_facts, _ = snaps[0]
    prior = resolve_module.Prior(first.files, first.edges, first.unresolved, first_facts.get)
    for record, facts, data in snaps[1:]:
        tree = resolve_module.tree_of(record.files)
        todo = resolve_module.to_resolve(record.files, facts, tree, prior)
        assert todo is not None and len(todo) < len(facts)
        assert resolve_imports(record.files, facts, data.__getitem__, prior) == \
            resolve_imports(record.files, facts, data.__getitem__)
