"""A Rust receiver typed by a trait: a parameter of a type parameter bounded by it (`<S:
Serializer>`, `where S: Serializer + Clone`), `impl Serializer`, `&mut dyn Write` and a
reference with a lifetime (`&'a mut dyn Write`). Trait methods are called so far more often
than on a named type. Was: `serializer: S` typed as `S`, `impl Tr` as `impl` and `dyn Tr` as
`dyn`, `&'a T` not at all, so in serde `references Serializer.serialize_str` found 1 site and
`Deserializer.deserialize_str` none, every `serializer.serialize_str(v)` a `name_match`. Exact
sites, from a real index."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language
from tests.indexed import Indexed, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod ser;\npub mod out;\n",
    "src/ser.rs": ("pub trait Serializer: Sized {\n    fn serialize_str(self, v: &str) -> u8;\n}\n\n"
                   "pub trait Write {\n    fn write(&mut self, v: &str);\n}\n"),
    "src/out.rs": (
        "use crate::ser::{Serializer, Write};\n\n"
        "pub fn generic<S: Serializer>(serializer: S) -> u8 {\n"  # 3
        "    serializer.serialize_str(\"a\")\n"  # 4
        "}\n\n"
        "pub fn bounded<'a, S>(s: S) -> u8\n"  # 7
        "where\n"
        "    S: Serializer + Clone,\n"
        "{\n"
        "    s.serialize_str(\"b\")\n"  # 11
        "}\n\n"
        "pub fn opaque(w: impl Serializer) -> u8 {\n"  # 14
        "    w.serialize_str(\"c\")\n"  # 15
        "}\n\n"
        "pub fn dynamic<'a>(out: &mut dyn Write, r: &'a mut dyn Write) {\n"  # 18
        "    out.write(\"d\");\n"  # 19
        "    r.write(\"e\");\n"  # 20
        "}\n\n"
        "pub fn other<T: Clone>(t: T) {\n"  # 23
        "    t.serialize_str(\"f\");\n"  # 24: T is bounded by Clone alone
        "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-rust-trait-receivers-", message="rust trait receivers")


crate = REPO.fixture()


def test_a_receiver_of_a_bounded_type_parameter_or_impl_trait_is_the_trait_s(crate):
    assert sorted(sites(crate, "serialize_str")) == [
        ("src/out.rs", 4, "import"),
        ("src/out.rs", 11, "import"),
        ("src/out.rs", 15, "import"),
        ("src/out.rs", 24, "name_match"),
    ]


def test_a_receiver_of_a_dyn_trait_is_the_trait_s(crate):
    assert sorted(sites(crate, "Write.write")) == [("src/out.rs", 19, "import"), ("src/out.rs", 20, "import")]


@pytest.mark.parametrize(("line", "generic", "bounds"), [
    ("fn f<S: Serializer>(s: S) {", "S", ["Serializer"]),
    ("fn f<'de, D: Deserializer<'de>>(d: D) {", "D", ["Deserializer"]),
    ("    S: ?Sized + ser::Serializer + 'static,", "S", ["Serializer"]),  # `?Sized`, a lifetime: none
    ("where S: Serializer + Clone {", "S", ["Serializer", "Clone"]),
    ("fn f(s: S::Ok) {", "S", []),  # a path through it, no bound
    ("fn f<SS: Clone>(s: SS) {", "S", []),  # another parameter ending so
])
def test_the_bounds_a_rust_line_gives_a_type_parameter(line, generic, bounds):
    rust = of_language("rust")
    found = [b for p in rust.bound_typings(generic) for m in p.finditer(line.encode()) for b in rust.bounds_of(m.group(1))]
    assert found == bounds
