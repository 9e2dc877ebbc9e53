"""A Go composite literal's or a Rust struct expression's key is a field of the type the
literal names, the brace on its line or lines above (`routeRegexpOptions{\\n strictSlash: v,`):
where two types have a field of the name, each key goes to its own type's. Was: to the first
definition by resolution, so gorilla/mux's `routeRegexpOptions{strictSlash: ...}` in route.go
was listed as a site of `routeConf.strictSlash`. From a real index."""

from __future__ import annotations

import pytest

from context_tools.query.symbols.literal_keys import literal_type
from tests.indexed import Indexed, sites

FILES = {
    "go.mod": "module example.com/conf\n\ngo 1.21\n",
    "conf/types.go": "package conf\n\ntype A struct{ Size int }\n\ntype B struct{ Size int }\n",
    "conf/make.go": ("package conf\n\nfunc make() (A, *B) {\n"
                     "\ta := A{Size: 1}\n"  # 4
                     "\tb := &B{\n"
                     "\t\tSize: 2,\n"  # 6
                     "\t}\n\treturn a, b\n}\n"),
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": ("pub struct A {\n    pub size: u8,\n}\n\npub struct B {\n    pub size: u8,\n}\n\n"
                   "pub fn make() -> (A, B) {\n"
                   "    let a = A { size: 1 };\n"  # 10
                   "    let b = B {\n"
                   "        size: 2,\n"  # 12
                   "    };\n    (a, b)\n}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-literal-keys-", message="literal keys")


both = REPO.fixture()


def test_a_go_literal_key_is_a_field_of_the_type_it_names(both):
    assert sorted(sites(both, "Size", "path", "line", "qualified")) == [("conf/make.go", 4, "A.Size"), ("conf/make.go", 6, "B.Size")]


def test_a_rust_struct_expression_key_is_a_field_of_the_type_it_names(both):
    assert sorted(sites(both, "size", "path", "line", "qualified")) == [("src/lib.rs", 10, "A.size"), ("src/lib.rs", 12, "B.size")]


@pytest.mark.parametrize(("source", "line", "col", "named"), [
    (["o := routeRegexpOptions{", "\tstrictSlash: v,"], 2, 1, "routeRegexpOptions"),
    (["x := &pkg.Options{Level: 1}"], 1, 18, "Options"),
    (["let k = Kind::Big { size: 1 };"], 1, 20, "Big"),
    (["b := Box[int]{V: 1}"], 1, 14, "Box"),
    (["p := P{Inner: Inner{", "x: 1}, Y: 2}"], 2, 7, "P"),  # past a nested literal
    (["xs := []T{", "\t{a: 1},"], 2, 2, None),  # an elided element type
    (["if ok {", "\tdone: 1"], 2, 1, None),  # a block's brace
    (["a: 1"], 1, 0, None),  # no brace
])
def test_the_type_a_literal_names(source, line, col, named):
    assert literal_type([s.encode() for s in source], line, col) == named
