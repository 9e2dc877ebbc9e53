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

PY_CASES = [
    # (importer, import, expected targets or status)
    ("app.py", py("pkg.core"), ["src/pkg/core.py"]),  # src-layout root found
    ("app.py", py("pkg"), ["src/pkg/__init__.py"]),
    ("app.py", py("pkg.sub", names=("leaf",)), ["src/pkg/sub/leaf.py"]),  # from-import of a submodule
    ("app.py", py("pkg.sub", names=("leaf", "thing")), ["src/pkg/sub/__init__.py", "src/pkg/sub/leaf.py"]),
    ("app.py", py("pkg.stubs"), ["src/pkg/stubs.pyi"]),
    ("app.py", py("ns.mod"), ["ns/mod.py"]),  # namespace package at the repository root
    ("src/pkg/sub/leaf.py", py("", level=1, names=("deep",)), ["src/pkg/sub/deep/__init__.py"]),
    ("src/pkg/sub/leaf.py", py("core", level=2, names=("f",)), ["src/pkg/core.py"]),  # from ..core import f
    ("src/pkg/sub/deep/x.py", py("", level=3), ["src/pkg/__init__.py"]),  # from ... import (package itself)
    ("src/pkg/sub/deep/x.py", py("", level=2, names=("leaf",)), ["src/pkg/sub/leaf.py"]),
    ("src/pkg/core.py", py("", level=1, names=("sub",)), ["src/pkg/sub/__init__.py"]),  # from . import sub
    ("src/pkg/core.py", py("sub.deep.x", level=1, names=("*",)), ["src/pkg/sub/deep/x.py"]),
    ("tools/run.py", py("helper"), ["tools/helper.py"]),  # script dir is sys.path[0]
    ("app.py", py("os.path"), "external"),
    ("app.py", py("requests", names=("get",)), "external"),
    ("app.py", py("pkg.missing"), "unresolved"),  # top-level is ours, module is not
    ("src/pkg/core.py", py("nothere", level=1, names=("x",)), "unresolved"),
    ("src/pkg/core.py", py("", level=5, names=("x",)), "unresolved"),  # climbs above the root
]


@pytest.mark.parametrize("importer,imp,expected", PY_CASES)
def test_python(importer, imp, expected):
    edges, unresolved = run(PY_TREE, {importer: [imp]})
    if isinstance(expected, str):
        assert edges == []
        assert statuses(unresolved) == [(importer, imp.spec, expected)]
    else:
        assert unresolved == []
        assert sorted(e.target for e in edges) == expected
        assert all(e.source == importer and e.kind == "python" for e in edges)


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


# --- JavaScript / TypeScript ----------------------------------------------------------------

TSCONFIG = """{
  // comments are allowed in tsconfig
  "compilerOptions": {
    "baseUrl": "./src",
    "paths": {
      "@app/*": ["app/*", "fallback/*"],
      "@lib": ["lib/index.ts"],
      "@missing/*": ["nope/*"],
    },
    /* trailing commas too */
  },
}"""

JS_TREE = {
    "web/tsconfig.json": TSCONFIG,
    "web/src/main.ts": "",
    "web/src/util.ts": "",
    "web/src/comp.tsx": "",
    "web/src/types.d.ts": "",
    "web/src/widgets/index.ts": "",
    "web/src/app/store.ts": "",
    "web/src/fallback/only.js": "",
    "web/src/lib/index.ts": "",
    "web/src/shared/log.mjs": "",
    "web/src/esm.ts": "",
    "plain/a.js": "",
    "plain/b.jsx": "",
    "plain/c.cjs": "",
    "plain/dir/index.js": "",
    "plain/data.json": "",
    "packages/ui/package.json": '{"name": "@acme/ui", "main": "./lib/main.js"}',
    "packages/ui/lib/main.js": "",
    "packages/ui/lib/button.js": "",
    # a published package's files: JavaScript beside the declarations that describe it
    "dist/index.d.ts": "", "dist/index.js": "", "dist/add.d.ts": "", "dist/add.js": "",
    "dist/index.d.mts": "", "dist/index.mjs": "", "dist/add.d.mts": "", "dist/add.mjs": "",
    "dist/ui.tsx": "", "dist/ui.jsx": "", "dist/view.ts": "",
}


def js(spec: str, line: int = 1) -> ImportSpec:
    return ImportSpec(kind="js", spec=spec, line=line)


JS_CASES = [
    ("web/src/main.ts", "./util", "web/src/util.ts"),
    ("web/src/main.ts", "./comp", "web/src/comp.tsx"),
    ("web/src/main.ts", "./types", "web/src/types.d.ts"),
    ("web/src/main.ts", "./widgets", "web/src/widgets/index.ts"),  # index file
    ("web/src/main.ts", "./esm.js", "web/src/esm.ts"),  # .js names the .ts source
    ("web/src/main.ts", "@app/store", "web/src/app/store.ts"),  # paths wildcard
    ("web/src/main.ts", "@app/only", "web/src/fallback/only.js"),  # second target of the pattern
    ("web/src/main.ts", "@lib", "web/src/lib/index.ts"),  # exact paths key
    ("web/src/main.ts", "shared/log", "web/src/shared/log.mjs"),  # baseUrl
    ("web/src/app/store.ts", "../util", "web/src/util.ts"),
    ("plain/a.js", "./b", "plain/b.jsx"),
    ("plain/a.js", "./c", "plain/c.cjs"),
    ("plain/a.js", "./dir", "plain/dir/index.js"),
    ("plain/a.js", "./data.json", "plain/data.json"),
    ("plain/a.js", "@acme/ui", "packages/ui/lib/main.js"),  # workspace package by name
    ("plain/a.js", "@acme/ui/lib/button", "packages/ui/lib/button.js"),
    ("plain/a.js", "react", "external"),
    ("plain/a.js", "lodash/fp", "external"),
    ("plain/a.js", "./nope", "unresolved"),
    ("web/src/main.ts", "@missing/x", "unresolved"),  # claimed by `paths`, not found
    ("plain/a.js", "../../../x", "unresolved"),
    # TypeScript's order from a TypeScript file; the file named, from a JavaScript one
    ("dist/index.d.ts", "./add.js", "dist/add.d.ts"),
    ("dist/index.js", "./add.js", "dist/add.js"),
    ("dist/index.d.mts", "./add.mjs", "dist/add.d.mts"),
    ("dist/index.mjs", "./add.mjs", "dist/add.mjs"),
    ("dist/index.d.ts", "./add", "dist/add.d.ts"),
    ("dist/index.d.ts", "./ui.jsx", "dist/ui.tsx"),
    ("dist/index.js", "./ui.jsx", "dist/ui.jsx"),
    ("dist/index.d.ts", "./view.js", "dist/view.ts"),
    ("dist/index.js", "./view.js", "dist/view.ts"),  # only the source is in the tree
    ("dist/index.d.ts", "./add.d.ts", "dist/add.d.ts"),
]


@pytest.mark.parametrize("importer,spec,expected", JS_CASES)
def test_js(importer, spec, expected):
    edges, unresolved = run(JS_TREE, {importer: [js(spec)]})
    if expected in ("external", "unresolved"):
        assert edges == [] and statuses(unresolved) == [(importer, spec, expected)]
    else:
        assert unresolved == [] and pairs(edges) == [(importer, expected)]


def test_tsconfig_extends_and_nearest_config():
    tree = {
        "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"~/*": ["core/*"]}}}',
        "apps/web/tsconfig.json": '{"extends": "../../tsconfig.base.json", /* own */ }',
        "apps/web/page.ts": "",
        "core/db.ts": "",
    }
    edges, unresolved = run(tree, {"apps/web/page.ts": [js("~/db")]})
    assert pairs(edges) == [("apps/web/page.ts", "core/db.ts")] and unresolved == []


def test_broken_tsconfig_does_not_crash():
    tree = {"tsconfig.json": "{ this is not json", "a.ts": "", "b.ts": ""}
    edges, unresolved = run(tree, {"a.ts": [js("./b"), js("b")]})
    assert pairs(edges) == [("a.ts", "b.ts")]
    assert statuses(unresolved) == [("a.ts", "b", "external")]


# --- Go ---------------------------------------------------------------------------------

GO_TREE = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "cmd/shop/main.go": "",
    "internal/cart/cart.go": "",
    "internal/cart/price.go": "",
    "internal/cart/cart_test.go": "",
    "internal/cart/sub/x.go": "",
    "tools/go.mod": "module example.com/shop/tools\n",
    "tools/gen/gen.go": "",
    "empty/README.md": "",
    "vendor/github.com/google/uuid/uuid.go": "",
}


def go(spec: str) -> ImportSpec:
    return ImportSpec(kind="go", spec=spec, line=3)


GO_CASES = [
    ("cmd/shop/main.go", "example.com/shop/internal/cart", ["internal/cart/cart.go", "internal/cart/price.go"]),
    ("cmd/shop/main.go", "example.com/shop/internal/cart/sub", ["internal/cart/sub/x.go"]),
    ("cmd/shop/main.go", "example.com/shop/tools/gen", ["tools/gen/gen.go"]),  # nested module claims its tree
    ("cmd/shop/main.go", "fmt", "external"),
    ("cmd/shop/main.go", "github.com/x/y", "external"),
    ("cmd/shop/main.go", "github.com/google/uuid", ["vendor/github.com/google/uuid/uuid.go"]),  # go mod vendor
    ("tools/gen/gen.go", "github.com/google/uuid", "external"),  # tools module has no vendor copy
    ("cmd/shop/main.go", "example.com/shop/empty", "unresolved"),
    ("cmd/shop/main.go", "example.com/shop/nowhere", "unresolved"),
]


@pytest.mark.parametrize("importer,spec,expected", GO_CASES)
def test_go(importer, spec, expected):
    edges, unresolved = run(GO_TREE, {importer: [go(spec)]})
    if isinstance(expected, str):
        assert edges == [] and statuses(unresolved) == [(importer, spec, expected)]
    else:
        assert unresolved == [] and [e.target for e in edges] == expected


def test_go_test_file_of_package_gets_edges_to_siblings_not_itself():
    edges, _ = run(GO_TREE, {"internal/cart/cart_test.go": [go("example.com/shop/internal/cart")]})
    assert [e.target for e in edges] == ["internal/cart/cart.go", "internal/cart/price.go"]


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


def rmod(name: str) -> ImportSpec:
    return ImportSpec(kind="rust_mod", spec=name, line=1)


def ruse(spec: str, names: tuple[str, ...] = ()) -> ImportSpec:
    return ImportSpec(kind="rust_use", spec=spec, line=2, names=names)


RUST_CASES = [
    ("src/lib.rs", rmod("net"), ["src/net.rs"]),  # crate root: children beside it
    ("src/lib.rs", rmod("db"), ["src/db/mod.rs"]),  # x/mod.rs form
    ("src/net.rs", rmod("http"), ["src/net/http.rs"]),  # non-root file: children in net/
    ("src/db/mod.rs", rmod("pool"), ["src/db/pool.rs"]),  # mod.rs: children beside it
    ("src/db/pool.rs", rmod("conn"), ["src/db/pool/conn.rs"]),
    ("src/bin/tool.rs", rmod("helper"), ["src/bin/helper.rs"]),  # bin target is a crate root
    ("src/lib.rs", rmod("ghost"), "unresolved"),
    ("src/main.rs", ruse("crate::net::http::Client"), ["src/net/http.rs"]),  # deepest module file
    ("src/net/http.rs", ruse("crate::db::pool::Pool"), ["src/db/pool.rs"]),
    ("src/net/http.rs", ruse("crate::Config"), ["src/lib.rs"]),
    ("src/net/http.rs", ruse("super::helpers"), ["src/net.rs"]),
    ("src/db/pool/conn.rs", ruse("super::super::Db"), ["src/db/mod.rs"]),
    ("src/db/mod.rs", ruse("self::pool::conn::Conn"), ["src/db/pool/conn.rs"]),
    ("src/net.rs", ruse("crate::db::{pool, Thing}"), ["src/db/mod.rs", "src/db/pool.rs"]),
    ("src/main.rs", ruse("my_util::fmt::pretty"), ["crates/util/src/fmt.rs"]),  # workspace crate
    ("src/lib.rs", ruse("net::http"), ["src/net/http.rs"]),  # 2018 path from a child module
    ("src/lib.rs", ruse("std::collections::HashMap"), "external"),
    ("src/lib.rs", ruse("serde::Serialize"), "external"),
]


@pytest.mark.parametrize("importer,imp,expected", RUST_CASES)
def test_rust(importer, imp, expected):
    edges, unresolved = run(RUST_TREE, {importer: [imp]})
    if isinstance(expected, str):
        assert edges == [] and statuses(unresolved) == [(importer, imp.spec, expected)]
    else:
        assert unresolved == [] and sorted(e.target for e in edges) == expected


# serde's shape: a 2015 crate (no `edition`), modules loaded by `#[path]`, an inline module in
# the root that `use` paths name, a renamed dependency and an `extern crate ... as`.
RUST_2015_TREE = {
    "Cargo.toml": '[package]\nname = "serde"\n[dependencies]\nserde-derive = "1"\n'
                  '[target.\'cfg(unix)\'.dependencies]\nlibc = "0.2"\n[dev-dependencies.json]\npackage = "serde_json"\n',
    "src/lib.rs": "",
    "src/de/mod.rs": "",
    "src/de/value.rs": "",
    "src/de/seed.rs": "",
    "src/private/mod.rs": "",
    "src/private/de.rs": "",
    "src/ser.rs": "",
    "src/ser/impls.rs": "",
    "tests/it.rs": "",
}


def rmod_at(spec: str, path: str | None = None, level: int = 0) -> ImportSpec:
    return ImportSpec(kind="rust_mod", spec=spec, line=1, level=level, names=(path,) if path else ())


def ruse_in(spec: str, level: int, names: tuple[str, ...] = ()) -> ImportSpec:
    return ImportSpec(kind="rust_use", spec=spec, line=2, level=level, names=names)


RUST_2015_CASES = [
    ("src/ser/impls.rs", ruse("de::value::MapDeserializer"), ["src/de/value.rs"]),  # from the crate root
    ("src/ser/impls.rs", ruse("lib::fmt"), ["src/lib.rs"]),  # an item of the root, not a file
    ("src/de/value.rs", ruse("ser", ("Serialize", "impls")), ["src/ser.rs", "src/ser/impls.rs"]),
    ("src/lib.rs", ruse("", ("de::value", "std::fmt")), ["src/de/value.rs"]),
    ("src/de/mod.rs", ruse("std::fmt"), "external"),
    ("src/de/mod.rs", ruse("core::marker::PhantomData"), "external"),
    ("src/de/mod.rs", ruse("serde_derive::Deserialize"), "external"),  # a dependency, underscored
    ("src/de/mod.rs", ruse("libc::c_int"), "external"),  # a target's dependency
    ("tests/it.rs", ruse("json::Value"), "external"),  # a renamed dev-dependency: the name the code uses
    ("src/de/mod.rs", ruse("fmt_int::Buffer"), "external"),  # `extern crate itoa as fmt_int`
    ("src/de/mod.rs", ruse("itoa::Buffer"), "external"),
    ("src/lib.rs", rmod_at("__private", "private/mod.rs"), ["src/private/mod.rs"]),  # #[path], beside the file
    ("src/lib.rs", rmod_at("seed", "de/seed.rs"), ["src/de/seed.rs"]),
    ("src/de/mod.rs", rmod_at("seed", "./seed.rs"), ["src/de/seed.rs"]),
    ("src/de/mod.rs", rmod_at("gone", "gone.rs"), "unresolved"),
    ("src/lib.rs", rmod_at("up", "../../x.rs"), "unresolved"),  # climbs out of the tree
    ("src/ser.rs", rmod_at("nest::impls", level=1), "unresolved"),  # not src/ser/impls.rs
    ("src/ser.rs", rmod_at("impls"), ["src/ser/impls.rs"]),
    # inline modules: `mod tests { use super::*; }` is the file's own module (a self import, dropped)
    ("src/ser/impls.rs", ruse_in("super::Serialize", 1), []),
    ("src/ser/impls.rs", ruse_in("self::helper", 1), []),
    ("src/ser/impls.rs", ruse_in("super::super::Serializer", 1), ["src/ser.rs"]),
    ("src/ser/impls.rs", ruse_in("super::super::super::X", 2), ["src/ser.rs"]),
    ("src/ser/impls.rs", ruse_in("super::super", 3), []),
    ("src/de/mod.rs", ruse_in("super::value::Seq", 1), ["src/de/value.rs"]),  # the file's module, then down
]


EXTERN_ITOA = ImportSpec("rust_extern", "itoa", 2, aliases=("fmt_int",))  # the root's `extern crate itoa as fmt_int;`


@pytest.mark.parametrize("importer,imp,expected", RUST_2015_CASES)
def test_rust_2015_path_attributes_and_inline_modules(importer, imp, expected):
    imports = {importer: [imp], "src/lib.rs": [EXTERN_ITOA]} if importer != "src/lib.rs" else {importer: [imp, EXTERN_ITOA]}
    edges, unresolved = run(RUST_2015_TREE, imports)
    assert statuses([u for u in unresolved if u.kind == "rust_extern"]) == [("src/lib.rs", "itoa", "external")]
    unresolved = [u for u in unresolved if u.kind != "rust_extern"]
    if isinstance(expected, str):
        assert edges == [] and statuses(unresolved) == [(importer, imp.spec, expected)]
    else:
        assert unresolved == [] and sorted(e.target for e in edges) == expected


def test_rust_inline_module_declarations_and_paths():
    tree = {"Cargo.toml": '[package]\nname = "a"\nedition = "2021"\n', "src/lib.rs": "", "src/net.rs": "",
            "src/tests/helpers.rs": "", "src/net/inner/wire.rs": "", "src/net/inner/raw.rs": "",
            "src/inner/x.rs": "", "src/net/sub/mod.rs": ""}
    cases = [
        ("src/lib.rs", rmod_at("tests::helpers", level=1), ["src/tests/helpers.rs"]),
        ("src/net.rs", rmod_at("inner::wire", level=1), ["src/net/inner/wire.rs"]),  # non-mod-rs: under net/
        ("src/net.rs", rmod_at("inner::w", "raw.rs", 1), ["src/net/inner/raw.rs"]),
        ("src/lib.rs", rmod_at("inner::y", "x.rs", 1), ["src/inner/x.rs"]),  # mod-rs: beside, then inner/
        # 2018 bare path inside an inline module: that module's children, not the file's
        ("src/lib.rs", ruse_in("net::Socket", 1), "external"),
        ("src/lib.rs", ruse_in("net::Socket", 0), ["src/net.rs"]),
    ]
    for importer, imp, expected in cases:
        edges, unresolved = run(tree, {importer: [imp]})
        if isinstance(expected, str):
            assert edges == [] and statuses(unresolved) == [(importer, imp.spec, expected)], imp
        else:
            assert unresolved == [] and sorted(e.target for e in edges) == expected, imp


def test_rust_binary_modules_when_the_library_lives_elsewhere():
    # `[lib] path` out of src/: src/main.rs is alone there, so `crate::` in src/cli.rs is main.rs
    tree = {"Cargo.toml": '[package]\nname = "a"\nedition = "2021"\n[lib]\npath = "core/a.rs"\n',
            "core/a.rs": "", "core/x.rs": "", "src/main.rs": "", "src/cli.rs": "", "src/cli/args.rs": ""}
    cases = [
        ("src/cli.rs", ruse("crate::Root"), ["src/main.rs"]),
        ("src/cli/args.rs", ruse("crate::cli::Cli"), ["src/cli.rs"]),
        ("core/x.rs", ruse("crate::Root"), ["core/a.rs"]),
        ("src/cli.rs", ruse("a::x::X"), ["core/x.rs"]),  # the library by its crate name
    ]
    for importer, imp, expected in cases:
        edges, unresolved = run(tree, {importer: [imp]})
        assert unresolved == [] and sorted(e.target for e in edges) == expected, (importer, imp)


def test_rust_extern_crate_of_the_workspace_is_an_edge():
    edges, unresolved = run(RUST_TREE, {"src/main.rs": [ImportSpec("rust_extern", "my_util", 1),
                                                        ImportSpec("rust_extern", "serde", 2, aliases=("s",))]})
    assert pairs(edges) == [("src/main.rs", "crates/util/src/lib.rs")]
    assert statuses(unresolved) == [("src/main.rs", "serde", "external")]


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

JAVA_TREE = {
    "core/src/main/java/com/acme/core/Order.java": "",
    "core/src/main/java/com/acme/core/Item.java": "",
    "web/src/main/java/com/acme/web/Api.java": "",
    "web/src/test/java/com/acme/web/ApiTest.java": "",
    "odd/Moved.java": "",
}


def jimp(spec: str) -> ImportSpec:
    return ImportSpec(kind="java", spec=spec, line=1)


JAVA_CASES = [
    ("web/src/main/java/com/acme/web/Api.java", "com.acme.core.Order", ["core/src/main/java/com/acme/core/Order.java"]),
    ("web/src/main/java/com/acme/web/Api.java", "com.acme.core.Order.Line", ["core/src/main/java/com/acme/core/Order.java"]),
    ("web/src/main/java/com/acme/web/Api.java", "static com.acme.core.Order.create", ["core/src/main/java/com/acme/core/Order.java"]),
    (
        "web/src/main/java/com/acme/web/Api.java",
        "com.acme.core.*",
        ["core/src/main/java/com/acme/core/Item.java", "core/src/main/java/com/acme/core/Order.java"],
    ),
    ("web/src/test/java/com/acme/web/ApiTest.java", "com.acme.web.Api", ["web/src/main/java/com/acme/web/Api.java"]),
    ("web/src/main/java/com/acme/web/Api.java", "com.other.Moved", ["odd/Moved.java"]),  # by package clause
    ("web/src/main/java/com/acme/web/Api.java", "java.util.List", "external"),
    ("web/src/main/java/com/acme/web/Api.java", "org.junit.Test", "external"),
]


@pytest.mark.parametrize("importer,spec,expected", JAVA_CASES)
def test_java(importer, spec, expected):
    extra = {"odd/Moved.java": BlobFacts(language="java", lines=1, package_name="com.other")}
    edges, unresolved = run(JAVA_TREE, {importer: [jimp(spec)]}, extra)
    if isinstance(expected, str):
        assert edges == [] and statuses(unresolved) == [(importer, spec, expected)]
    else:
        assert unresolved == [] and [e.target for e in edges] == expected


# --- C / C++ ----------------------------------------------------------------------------

C_TREE = {
    "src/main.c": "",
    "src/local.h": "",
    "src/net/sock.c": "",
    "include/proj/api.h": "",
    "libs/zlib/include/zlib.h": "",
    "third/deep/util/strings.h": "",
}


def inc(spec: str, system: bool = False) -> ImportSpec:
    return ImportSpec(kind="c_system_include" if system else "c_include", spec=spec, line=1)


C_CASES = [
    ("src/main.c", inc("local.h"), "src/local.h"),  # beside the including file
    ("src/net/sock.c", inc("../local.h"), "src/local.h"),
    ("src/net/sock.c", inc("proj/api.h"), "include/proj/api.h"),  # include dir
    ("src/main.c", inc("zlib.h"), "libs/zlib/include/zlib.h"),  # nested include dir
    ("src/main.c", inc("util/strings.h"), "third/deep/util/strings.h"),  # any dir holding the suffix
    ("src/main.c", inc("proj/api.h", system=True), "include/proj/api.h"),
    ("src/main.c", inc("stdio.h", system=True), "external"),
    ("src/main.c", inc("config.h"), "unresolved"),
]


@pytest.mark.parametrize("importer,imp,expected", C_CASES)
def test_c(importer, imp, expected):
    edges, unresolved = run(C_TREE, {importer: [imp]})
    if expected in ("external", "unresolved"):
        assert edges == [] and statuses(unresolved) == [(importer, imp.spec, expected)]
    else:
        assert unresolved == [] and pairs(edges) == [(importer, expected)]


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
