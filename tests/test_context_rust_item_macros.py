"""Items written inside an item macro's braces, as tokio and most crates gate their modules:
`cfg_rt! { pub mod runtime; }`, `cfg_if::cfg_if! { if #[cfg(unix)] { mod unix; ... } else {
... } }`. They are read as items of the module where the macro stands (indexer/lang/rust/
macros.py): its `mod`s reach their files, its `pub use`s re-export, its definitions are
symbols; every `cfg_if!` branch is read, cfg not evaluated. A body that is not items alone
stays a token tree, and a hostile file stays within its bounds. From a real index."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from tests.indexed import Indexed, definitions

FILES = {
    "Cargo.toml": '[package]\nname = "tokio-like"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/macros.rs": "macro_rules! cfg_rt { ($($item:item)*) => { $($item)* } }\n",
    "src/lib.rs": "#[macro_use]\nmod macros;\n\n"
                  "cfg_rt! {\n    pub mod runtime;\n    pub use task::spawn;\n    pub mod task;\n}\n\n"
                  "cfg_if::cfg_if! {\n    if #[cfg(unix)] {\n        mod unix;\n        pub use self::unix::Sys;\n"
                  "    } else {\n        mod windows;\n        pub use self::windows::Sys;\n    }\n}\n\n"
                  "cfg_net! {\n    pub struct Handle;\n    impl Handle {\n        pub fn current() -> Self { Handle }\n    }\n"
                  "    cfg_rt! { pub fn block_on() {} }\n}\n\n"
                  "bitflags! { pub struct Flags: u32 { const A = 1; } }\n"
                  "impl Handle {\n    cfg_rt! { pub fn enter(&self) {} }\n}\n",
    "src/runtime/mod.rs": "mod builder;\npub use self::builder::Builder;\n",
    "src/runtime/builder.rs": "pub struct Builder;\n",
    "src/task.rs": "pub fn spawn() {}\n",
    "src/unix.rs": "pub struct Sys;\n",
    "src/windows.rs": "pub struct Sys;\n",
    "src/user.rs": "use crate::runtime::Builder;\nuse crate::Sys;\n",
}

REPO = Indexed(FILES, "rennet-ctx-rust-item-macros-", message="rust item macros")


crate = REPO.fixture()


def _edges_from(path: str) -> list[tuple[int, str]]:
    return sorted((e.line, e.target) for e in REPO.record().edges if e.source == path)


def test_a_mod_inside_a_macro_reaches_its_file_and_the_modules_below_it(crate):
    assert _edges_from("src/lib.rs") == [
        (2, "src/macros.rs"), (5, "src/runtime/mod.rs"), (6, "src/task.rs"), (7, "src/task.rs"),
        (12, "src/unix.rs"), (13, "src/unix.rs"), (15, "src/windows.rs"), (16, "src/windows.rs")]
    assert _edges_from("src/runtime/mod.rs") == [(1, "src/runtime/builder.rs"), (2, "src/runtime/builder.rs")]
    builder = [("src/runtime/builder.rs", "Builder", 1, "qualified")]
    assert definitions(crate, "tokio_like::runtime::Builder") == builder
    assert definitions(crate, "tokio_like::runtime::builder::Builder") == builder


def test_a_pub_use_inside_a_macro_re_exports(crate):
    assert definitions(crate, "tokio_like::spawn") == [("src/task.rs", "spawn", 1, "qualified")]


def test_both_branches_of_a_cfg_if_are_read(crate):
    assert sorted(definitions(crate, "tokio_like::Sys")) == [
        ("src/unix.rs", "Sys", 1, "qualified"), ("src/windows.rs", "Sys", 1, "qualified")]
    assert _edges_from("src/user.rs") == [(1, "src/runtime/mod.rs"), (2, "src/lib.rs")]


def test_definitions_inside_a_macro_and_one_nested_in_it(crate):
    assert definitions(crate, "tokio_like::Handle") == [("src/lib.rs", "Handle", 21, "qualified")]
    assert definitions(crate, "tokio_like::Handle::current") == [("src/lib.rs", "Handle.current", 23, "qualified")]
    assert definitions(crate, "tokio_like::block_on") == [("src/lib.rs", "block_on", 25, "qualified")]
    # in an impl, a method of its type
    assert definitions(crate, "tokio_like::Handle::enter") == [("src/lib.rs", "Handle.enter", 30, "qualified")]
    # a body that is not items alone stays a token tree; the macros' names stay their sites
    facts = extract_blob(FILES["src/lib.rs"].encode(), "src/lib.rs", "rust")
    assert "Flags" not in {s.name for s in facts.symbols} and facts.parse_errors == []
    assert {"cfg_rt", "cfg_if", "cfg_net", "bitflags"} <= {o.name for o in facts.occurrences}


def test_hostile_macros_stay_bounded(monkeypatch):
    """Bodies nested past MACRO_NESTING stay token trees, so the bytes parsed again are at
    most MACRO_NESTING times the file's (a body inside a body is parsed again with it): a file of
    thousands of nested bodies, or of one huge body, costs a few parses of itself, not one a
    level; past MACRO_BODIES bodies a file's others stay token trees."""
    from indexer.lang import grammars
    from indexer.lang.rust.macros import MACRO_BODIES, MACRO_NESTING

    def nested(depth: int) -> bytes:
        return b"".join(b"m%d! {\n" % i for i in range(depth)) + b"struct Deep;\n" + b"}\n" * depth

    shallow = extract_blob(nested(MACRO_NESTING), "src/lib.rs", "rust")
    assert [s.name for s in shallow.symbols] == ["Deep"]
    # a long comment first, so the bytes bound leaves room: the nesting bound alone stops it
    padded = b"//" + b"x" * 100_000 + b"\n" + nested(MACRO_NESTING + 1)
    assert [s.name for s in extract_blob(padded, "src/lib.rs", "rust").symbols] == []
    assert [s.name for s in extract_blob(padded.replace(b"m0! {", b"mod m0 {"), "src/lib.rs", "rust").symbols] == [
        "m0", "Deep"]
    parsed: list[int] = []
    fragment = grammars.parse_fragment
    monkeypatch.setattr(grammars, "parse_fragment", lambda name, data: (parsed.append(len(data)), fragment(name, data))[1])
    deep = nested(5_000)
    facts = extract_blob(deep, "src/lib.rs", "rust")
    assert facts.skipped == "" and [s.name for s in facts.symbols] == []
    assert 0 < sum(parsed) <= MACRO_NESTING * len(deep)
    parsed.clear()
    huge = b"outer! {\n" + b"pub fn f() {}\n" * 40_000 + b"}\n"
    facts = extract_blob(huge, "src/lib.rs", "rust")
    assert len([s for s in facts.symbols if s.name == "f"]) == 40_000 and sum(parsed) == len(huge) - 10
    many = b"".join(b"m! { struct S%d; }\n" % i for i in range(MACRO_BODIES + 1))
    names = [s.name for s in extract_blob(many, "src/lib.rs", "rust").symbols]
    assert names == [f"S{i}" for i in range(MACRO_BODIES)]


def _symbols(source: bytes) -> list[str]:
    return [s.name for s in extract_blob(source, "src/lib.rs", "rust").symbols]


def test_only_a_braced_body_at_item_position_is_read_in_a_trait_and_an_extern_block_too():
    # `m!( ... );` and `m![ ... ];` are no item macro with braces: their tokens stay a token tree,
    # in a file that has one (`x! { ... }`)
    assert _symbols(b"impl T {\n    m!(fn f() {});\n    n![fn g() {}];\n}\nx! { struct X; }\n") == ["X"]
    assert _symbols(b"trait T {\n    m! { fn tm(&self); }\n}\nextern \"C\" {\n    m! { fn ext(); }\n}\n") == [
        "T", "tm", "ext"]


def test_a_body_with_no_blank_beside_its_braces_is_read_and_an_empty_one_keeps_its_site():
    facts = extract_blob(b"m!{struct S;}\nn!{}\nstruct U;\n", "src/lib.rs", "rust")
    assert [s.name for s in facts.symbols] == ["S", "U"] and facts.parse_errors == []
    assert "n" in {o.name for o in facts.occurrences}


@pytest.mark.parametrize("source", [
    b"m! { let a = 1; struct L; }\n", b"m! { foo(); struct C; }\n", b"m! { ; struct E; }\n",
    b"cfg_if! { if (x) { struct A; } }\n", b"cfg_if! { foo { struct B; } }\n"])
def test_a_body_not_items_alone_or_a_cfg_if_of_another_shape_stays_a_token_tree(source):
    assert _symbols(source) == []


def test_the_bodies_past_the_bound_are_the_last_in_the_file():
    from indexer.lang.rust.macros import MACRO_BODIES, MACRO_NESTING

    assert (MACRO_NESTING, MACRO_BODIES) == (4, 1024)  # docs/limits.md
    # a body inside a module comes first in the file: read before the ones after the module
    many = b"mod m {\n    n! { struct A; }\n}\n" + b"".join(b"m! { struct S%d; }\n" % i for i in range(MACRO_BODIES))
    assert _symbols(many) == ["m", "A"] + [f"S{i}" for i in range(MACRO_BODIES - 1)]


def test_a_file_is_parsed_once_and_each_body_holding_text_once(monkeypatch):
    from indexer.lang import grammars

    parsed: list[int] = []
    whole = grammars._parse
    monkeypatch.setattr(grammars, "_parse", lambda name, data: (parsed.append(len(data)), whole(name, data))[1])
    # a body not items alone leaves the file as it was: its tree, made to find the bodies, is the one kept
    source = b"bitflags! { pub struct F: u32 { const A = 1; } }\n"
    assert _symbols(source) == [] and parsed == [len(source), len(b" pub struct F: u32 { const A = 1; } ")]
    parsed.clear()
    # a blank branch of a cfg_if is not parsed
    source = b"cfg_if! { if #[cfg(a)] { } else { struct B; } }\n"
    assert _symbols(source) == ["B"] and parsed == [len(source), len(b" struct B; "), len(source)]


def test_a_macro_call_with_a_comment_before_its_semicolon_is_an_item_of_the_body():
    # the comment is a second child of the call's statement: the body is items alone still
    assert _symbols(b"m! { inner!(x) /* why */; struct K; }\n") == ["K"]
    assert _symbols(b"m! { inner!(x) /* why */ + 1; struct K; }\n") == []
