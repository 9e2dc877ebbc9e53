"""Rules of Rust's module tree that the mutation round of indexer/lang/rust/ found no test
holding: the crate name of an auto-discovered target, what a `use` of `self` in a group
binds, the module path shown for a file when a crate declares a module with no file or a
`#[path]` back to its own root, and the crate a `[[bin]]` table names."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from indexer.lang.rust.resolve import auto_target, use_bindings
from tests.indexed import Indexed, definitions

DOC = {"package": {"name": "my-app"}}


@pytest.mark.parametrize(("rel", "name"), [
    ("src/main.rs", "my_app"),
    ("src/bin/x-tool.rs", "x_tool"),
    ("src/bin/multi/main.rs", "multi"),
    ("tests/smoke.rs", "smoke"),
    ("tests/big/main.rs", "big"),
    ("examples/demo.rs", "demo"),
    ("benches/speed.rs", "speed"),
    # no target's root: Cargo discovers none of these
    ("src/lib.rs", None),
    ("src/net.rs", None),
    ("lib/wire.rs", None),
    ("src/bin/multi/helper.rs", None),
    ("tests/big/helper.rs", None),
    ("tests/big/deeper/main.rs", None),
    ("tests/notes.txt", None),
])
def test_the_crate_name_of_an_auto_discovered_target(rel, name):
    assert auto_target(DOC, rel) == name


def _binds(source: bytes) -> list[tuple[str, str]]:
    (spec,) = extract_blob(source, "src/x.rs", "rust").imports
    return list(use_bindings(spec.spec, spec.names, spec.aliases))


@pytest.mark.parametrize(("source", "bound"), [
    # `self` in a group is the module before it, however short the path
    (b"use net::{self};\n", [("net", "net")]),
    (b"use net::{self as n};\n", [("net", "n")]),
    (b"use crate::net::{self, Conn};\n", [("net", "net"), ("Conn", "Conn")]),
    # a path ending at `self`, `super` or `crate` alone brings in no name
    (b"use self::{super::Up};\n", [("Up", "Up")]),
])
def test_what_a_use_of_self_in_a_group_binds(source, bound):
    assert _binds(source) == bound


def test_the_bindings_of_a_use_tree_written_out():
    # as use_bindings documents it: an alias written in the tree counts
    assert use_bindings("crate::{net::{self as n, Conn}, *}") == (("net", "n"), ("Conn", "Conn"), ("*", "*"))
    assert use_bindings("a::b", aliases=("c",)) == (("b", "c"),)


def test_an_alias_after_an_empty_group_names_its_own_path():
    # the empty group `{}` names b itself (a path of its own, not renamed): c is still d
    bound = _binds(b"use a::{b::{{}, c as d}};\n")
    assert ("c", "d") in bound and ("b", "d") not in bound and ("c", "c") not in bound


# lib.rs declares a module with no file (`gone`, before `here` in name order) and a
# `#[path]` back to itself (a cycle of modules, each lib.rs again); tests/big/main.rs is a
# test target whose module big/helper.rs is declared.
FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n'
                  '[[bin]]\nname = "tool"\n',
    "src/lib.rs": 'mod gone;\npub mod here;\n#[path = "lib.rs"]\nmod again;\npub struct Root;\n'
                  "pub mod proto {\n    pub mod wire;\n}\n",
    "src/proto/wire.rs": "pub struct Wire;\n",
    "src/here.rs": "pub struct Here;\npub mod a;\n",
    "src/here/a.rs": "pub mod b;\n",
    "src/here/a/b.rs": "pub struct Deep3;\n",
    "src/stray.rs": "pub struct Stray;\n",
    "src/main.rs": "pub struct Main;\nfn main() {}\n",
    "tests/big/main.rs": "mod helper;\nfn main() {}\n",
    "tests/big/helper.rs": "pub struct Helper;\n",
    # binaries found by their crate's name only (no path ends as the name is written)
    "src/bin/multi/main.rs": "pub struct Multi;\nfn main() {}\n",
    "src/bin/my-tool.rs": "pub struct MyTool;\nfn main() {}\n",
    "tools/Cargo.toml": '[package]\nname = "tools"\nversion = "0.1.0"\nedition = "2021"\n',
    "tools/src/bin/deep/main.rs": "pub struct Deep;\nfn main() {}\n",
    "tools/src/bin/run-all.rs": "pub struct RunAll;\nfn main() {}\n",
    # a manifest that does not parse names no crate, though its text spells one
    "broken/Cargo.toml": '[package\nname = "demo"\n',
    "broken/src/lib.rs": "pub struct Broken;\n",
}
REPO = Indexed(FILES, "rennet-rust-module-rules-", message="module rules")


crate = REPO.fixture()


def test_the_module_shown_past_a_missing_file_and_a_cycle_of_path_modules(crate):
    client, repo = crate

    def module(name: str) -> list[tuple[str, str]]:
        found = client.call("context.symbol", repo=repo, name=name, fuzzy=False).data.definitions
        return [(d.path, d.module) for d in found]

    assert module("Here") == [("src/here.rs", "demo::here")]
    assert module("Deep3") == [("src/here/a/b.rs", "demo::here::a::b")]
    # no declaration reaches it: its path's name, though `again` leads back to lib.rs forever
    assert module("Stray") == [("src/stray.rs", "stray")]
    # a test target's module: the target's name, then the module
    assert module("Helper") == [("tests/big/helper.rs", "big::helper")]
    # a binary of a package in a folder of its own
    assert module("RunAll") == [("tools/src/bin/run-all.rs", "run_all")]


def test_a_bin_table_names_its_own_root_only(crate):
    # `[[bin]] name = "tool"` without a path is src/bin/tool.rs (not in the tree): it is not
    # src/main.rs, which only a bin named as the package is
    assert definitions(crate, "tool::Main") == []
    assert definitions(crate, "demo::Main") == [("src/main.rs", "Main", 1, "qualified")]


@pytest.mark.parametrize(("source", "mods"), [
    (b'#[path = "x/y.rs"]\nmod a;\n', [("a", ("x/y.rs",))]),
    # comments and other attributes may stand between the `#[path]` and its `mod`
    (b'#[path = "x/y.rs"]\n// why\n/* it */\n#[cfg(unix)]\nmod a;\n', [("a", ("x/y.rs",))]),
    # an attribute above the `mod` before is not this one's
    (b'#[path = "first.rs"]\nmod a;\nmod b;\n', [("a", ("first.rs",)), ("b", ())]),
    (b'#[path = "p.rs"]\nfn f() {}\nmod b;\n', [("b", ())]),
    # no path given as a string: none given
    (b"#[path]\nmod a;\n", [("a", ())]),
    (b'#[path = concat!("x", ".rs")]\nmod a;\n', [("a", ())]),
    (b'#[doc = "x.rs"]\nmod a;\n', [("a", ())]),
    (b'mod outer {\n    #[path = "in.rs"]\n    mod a;\n}\n', [("outer::a", ("in.rs",))]),
])
def test_the_path_attribute_of_a_mod_declaration(source, mods):
    facts = extract_blob(source, "src/lib.rs", "rust")
    assert facts.skipped == ""
    assert [(i.spec, i.names) for i in facts.imports if i.kind == "rust_mod"] == mods


@pytest.mark.parametrize(("source", "spec", "names", "aliases"), [
    # `x as x` is no alias, at the end of a path as in a group
    (b"use crate::net::Conn as Conn;\n", "crate::net::Conn", (), ()),
    (b"use crate::net::{Conn as Conn, Pool as P};\n", "crate::net", ("Conn", "Pool"), ("", "P")),
    (b"use crate::net::Conn as Link;\n", "crate::net::Conn", (), ("Link",)),
    (b"use crate::net::{self as n};\n", "crate::net", ("self",), ("n",)),
    # no alias anywhere: none recorded; each item's aliases line up with its paths
    (b"use a::{b::{c, d}, e};\n", "a", ("b::{c,d}", "e"), ()),
    (b"use a::{b::{c as d, x}, e as f, g};\n", "a", ("b::{c,x}", "e", "g"), ("d,", "f", "")),
])
def test_the_aliases_a_use_records(source, spec, names, aliases):
    (imp,) = extract_blob(source, "src/lib.rs", "rust").imports
    assert (imp.spec, imp.names, imp.aliases) == (spec, names, aliases)


def test_the_paths_in_code_a_file_records():
    source = (b"use other::build::Builder;\n"  # a `use`'s path: no path in code
              b"extern crate other as o;\n"
              b"fn f() {\n"
              b"    let v = Vec::new();\n"  # a type's: no crate
              b"    let s = std::mem::take(&mut v); core::mem::swap(a, b); alloc::vec::from_elem(0, 1);"
              b" test::bench::black_box(1); proc_macro::token_stream::IntoIter::new();\n"  # the standard crates'
              b"    let b = other::build::Builder::new();\n"
              b"    let c = other::build::Builder::new();\n"  # kept once, at its first line
              b"    let t = other::Builder::<u8>::new();\n"  # up to the turbofish: other's Builder
              b"}\n"
              b"mod inner {\n"
              b"    fn g() { let x = super::util::helper(); let y = crate::net::Conn::new(); }\n"
              b"    mod deeper { fn h() { self::k(); } }\n"
              b"}\n")
    paths = [(i.spec, i.line, i.level) for i in extract_blob(source, "src/lib.rs", "rust").imports
             if i.kind == "rust_path"]
    assert paths == [("other::build::Builder", 6, 0), ("other", 8, 0), ("crate::net::Conn", 11, 1), ("super::util", 11, 1),
                     ("self", 12, 2)]


@pytest.mark.parametrize(("source", "visibility"), [
    (b"pub( crate ) use a::B;\n", "pub(crate)"),
    (b"pub(\n    super\n) use a::B;\n", "pub(super)"),
    (b"pub( self ) use a::B;\n", ""),  # private
    (b"pub(in crate::m) use a::B;\n", "pub(in crate::m)"),
])
def test_a_use_visibility_is_recorded_compact(source, visibility):
    (imp,) = extract_blob(source, "src/lib.rs", "rust").imports
    assert imp.visibility == visibility


@pytest.mark.parametrize(("source", "bound", "unbound"), [
    (b"extern crate serde_json as json;\n", "json", "serde_json"),
    (b"extern crate log;\n", "log", "json"),
    (b"mod net;\n", "net", "mod"),
    (b"mod outer { mod net; }\n", "net", "outer"),
    (b"use crate::net::Conn as Link;\n", "Link", "Conn"),
])
def test_the_local_name_a_declaration_binds(source, bound, unbound):
    from indexer.lang.rust.bindings import RustBindings

    (spec,) = extract_blob(source, "src/lib.rs", "rust").imports
    rules = RustBindings()
    assert rules.binds_local(spec, bound) and rules.binds_bare(spec, bound)
    assert not rules.binds_local(spec, unbound) and not rules.binds_bare(spec, unbound)


def test_the_crates_a_query_names(crate):
    assert definitions(crate, "multi::Multi") == [("src/bin/multi/main.rs", "Multi", 1, "qualified")]
    assert definitions(crate, "my_tool::MyTool") == [("src/bin/my-tool.rs", "MyTool", 1, "qualified")]
    assert definitions(crate, "deep::Deep") == [("tools/src/bin/deep/main.rs", "Deep", 1, "qualified")]
    assert definitions(crate, "run_all::RunAll") == [("tools/src/bin/run-all.rs", "RunAll", 1, "qualified")]
    # `crate` is every crate's root, whatever the manifests spell
    assert definitions(crate, "crate::here::Here") == [("src/here.rs", "Here", 1, "qualified")]
    assert definitions(crate, "demo::Broken") == [] and definitions(crate, "demo::Root") == [
        ("src/lib.rs", "Root", 5, "qualified")]
    # an inline module is no module file: lib.rs's top-level items are not its
    assert definitions(crate, "demo::proto::wire::Wire") == [("src/proto/wire.rs", "Wire", 1, "qualified")]
    assert definitions(crate, "demo::proto::Root") == []


@pytest.mark.parametrize(("signature", "basis"), [
    ("pub fn run() {", "rust:pub"),
    ("    pub struct Conn;", "rust:pub"),
    ("fn run() {", None),
    ("struct Conn;", None),
])
def test_the_public_basis_of_a_rust_item(signature, basis):
    from indexer.lang.bindings import of_language

    assert of_language("rust").public_basis(["demo", "run"], "function", signature) == basis


def test_the_kinds_of_rust_items():
    source = (b"struct S { ID: u32, pub b: u8 }\nunion U { x: u32 }\nstatic MAX: i32 = 1;\nstatic count: i32 = 0;\n"
              b"const Y: i32 = 2;\ntype T = u8;\n")
    kinds = {s.qualified: s.kind for s in extract_blob(source, "src/lib.rs", "rust").symbols}
    # a field is storage in each value, whatever its case; a union is a struct; a static a
    # variable, whatever its case too: its keyword, not its case, says it is no `const`
    assert kinds == {"S": "struct", "S.ID": "field", "S.b": "field", "U": "struct", "U.x": "field",
                     "MAX": "variable", "count": "variable", "Y": "constant", "T": "type"}


# a virtual manifest names no package: its src/main.rs is no crate's root it could name
VIRTUAL = Indexed({"Cargo.toml": '[workspace]\nmembers = []\n', "src/main.rs": "pub struct Alone;\nfn main() {}\n"},
                  "rennet-rust-virtual-", message="virtual")


def test_a_file_of_no_named_crate_keeps_its_path_name():
    client, repo = VIRTUAL.asked()
    found = client.call("context.symbol", repo=repo, name="Alone", fuzzy=False).data.definitions
    assert [(d.path, d.module) for d in found] == [("src/main.rs", "src")]  # main.rs names its folder


def _mods(source: str) -> list[str]:
    facts = extract_blob(source.encode(), "src/lib.rs", "rust")
    assert facts.skipped == ""
    return [i.spec for i in facts.imports if i.kind == "rust_mod"]


@pytest.mark.parametrize(("depth", "read"), [(64, True), (65, False)])
def test_a_mod_inside_the_documented_count_of_inline_modules_is_read(depth, read):
    # docs/limits.md: a `mod m;` inside at most 64 inline `mod` blocks is read
    source = "".join(f"mod m{i} {{ " for i in range(depth)) + "mod x;" + " }" * depth + "\nmod top;\n"
    assert _mods(source) == ([] if not read else ["::".join(f"m{i}" for i in range(depth)) + "::x"]) + ["top"]


@pytest.mark.parametrize(("chars", "read"), [(4096, True), (4097, False)])
def test_a_mod_inside_modules_of_the_documented_name_length_is_read(chars, read):
    # docs/limits.md: the inline blocks' names spell at most 4,096 characters
    source = f"mod {'a' * (chars - 1)} {{ mod b {{ mod x; }} }}\nmod top;\n"
    assert _mods(source) == ([f"{'a' * (chars - 1)}::b::x"] if read else []) + ["top"]


@pytest.mark.parametrize(("depth", "read"), [(64, True), (65, False)])
def test_a_use_nested_to_the_documented_depth_is_read(depth, read):
    # docs/limits.md: a `use` whose groups nest at most 64 deep is read
    source = "use a::" + "{b::" * (depth - 1) + "{c}" + "}" * (depth - 1) + ";\nuse top::d;\n"
    uses = [i.spec for i in extract_blob(source.encode(), "src/lib.rs", "rust").imports]
    assert uses == (["a"] if read else []) + ["top::d"]
