"""A Rust file's map entry lists each impl block's first line before the first of its members
shown: a method's signature does not name its type, and impls are written apart from their
types (after other types, or in another file), so `fn fmt` under the last type listed read as
that type's (was: anyhow's error.rs showed ErrorImpl's methods under `struct ContextError`, and
three `fn fmt` of no type). A Go method, a top-level declaration naming its receiver, is not
indented under the type listed before it. From a real index."""

from __future__ import annotations

import msgspec
import pytest

from context_tools.query.impl_headers import impl_line
from tests.indexed import Indexed

FMT = "fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {"
FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "pub mod shape;\n\n"
        "pub struct Square {\n    pub side: u8,\n}\n\n"
        "pub struct Circle {\n    pub r: u8,\n}\n\n"
        "impl Square {\n    /// Its area.\n    #[inline]\n    pub fn area(&self) -> u8 {\n        self.side * self.side\n    }\n\n"
        "    pub fn side(&self) -> u8 {\n        self.side\n    }\n}\n\n"
        "impl std::fmt::Display for Square\nwhere\n    Self: Sized,\n{\n"
        f"    {FMT}\n        Ok(())\n    }}\n}}\n\n"
        f"unsafe impl Send for Circle {{}}\n\nimpl std::fmt::Display for Circle {{\n    {FMT}\n        Ok(())\n    }}\n}}\n\n"
        "pub trait Named {\n    fn name(&self) -> String;\n}\n"),
    # an impl of a type another file defines
    "src/shape.rs": "impl crate::Square {\n    pub fn double(&self) -> u8 {\n        self.side * 2\n    }\n}\n",
}

REPO = Indexed(FILES, "rennet-map-rust-impls-", message="rust impls")


crate = REPO.fixture()


def _entry(crate, path: str, **more):
    files = crate.call("context.map", **({"budget": 65536} | more)).data.files
    return next(f for f in files if f.path == path)


def test_each_impl_line_comes_before_its_first_member(crate):
    assert _entry(crate, "src/lib.rs").symbols == [
        "pub mod shape;",
        "pub struct Square {",
        "pub struct Circle {",
        "impl Square",
        "  pub fn area(&self) -> u8 {",
        "  pub fn side(&self) -> u8 {",
        "impl std::fmt::Display for Square",  # its `where` clause and `{` on lines of their own
        f"  {FMT}",
        "impl std::fmt::Display for Circle",
        f"  {FMT}",
        "pub trait Named {",
        "  fn name(&self) -> String;",  # a trait's own member: the trait's line is its header
    ]


def test_an_impl_of_a_type_of_another_file_is_listed_by_its_line(crate):
    assert _entry(crate, "src/shape.rs").symbols == ["impl crate::Square", "  pub fn double(&self) -> u8 {"]


def test_a_first_file_shedding_its_members_sheds_an_impl_line_left_alone(crate):
    """At a budget too small for it, the first file sheds its definitions from the end, and an
    impl's line whose members all went goes too."""
    for budget in range(256, 700, 8):
        result = crate.call("context.map", focus=["src/lib.rs"], budget=budget).data
        first = result.files[0]
        assert first.path == "src/lib.rs" and result.bytes == len(msgspec.json.encode(result.files)) <= budget
        assert not first.symbols or not first.symbols[-1].startswith("impl")


@pytest.mark.parametrize(("source", "line", "found"), [
    (["impl A {", "    fn a() {}", "}"], 2, (1, "impl A")),
    (["pub trait T {", "    fn a();", "}"], 2, None),  # a trait's member
    (["mod m {", "    fn a() {}", "}"], 2, None),
    (["fn a() {}"], 1, None),  # at the top
    (["impl<T> X<T>", "where", "    T: Clone,", "{", "    fn a() {}", "}"], 5, (1, "impl<T> X<T>")),
    (["unsafe impl Sync for X {", "    fn a() {}", "}"], 2, (1, "unsafe impl Sync for X")),
    (["impl A {", "", "    // note", "    fn a() {}", "}"], 4, (1, "impl A")),
    (["impl A {"], 5, None),  # no such line
])
def test_the_impl_line_of_a_member(source, line, found):
    assert impl_line([s.encode() for s in source], line) == found


GO = {
    "go.mod": "module example.com/mux\n\ngo 1.21\n",
    "mux.go": ("package mux\n\ntype Router struct{}\n\ntype routeConf struct{}\n\n"
               "func (r *Router) Match() bool { return true }\n\n"
               "type matcher interface {\n\tMatch() bool\n}\n"),
}
GO_REPO = Indexed(GO, "rennet-map-go-methods-", message="go methods")


def test_a_go_method_is_listed_at_the_top_not_under_the_type_before_it():
    """A Go method is a top-level declaration naming its receiver: indented, `Router.Match`
    read as a member of `routeConf`, the type listed before it (was: gorilla/mux's map showed
    Router's methods under `type routeConf struct`). An interface's methods are in its body."""
    files = GO_REPO.asked().call("context.map", budget=65536).data.files
    assert next(f for f in files if f.path == "mux.go").symbols == [
        "type Router struct{}",
        "type routeConf struct{}",
        "func (r *Router) Match() bool { return true }",
        "type matcher interface {",
        "  Match() bool",
    ]
