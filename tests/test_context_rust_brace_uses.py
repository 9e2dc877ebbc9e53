"""Rust use trees whose braces come first (`use {crate::a::X, std::fmt};`, `use ::{demo::X}`):
each item is a `use` of its own, resolved and bound exactly as `use crate::a::X;` is, and its
head says whether it leaves the crate (a `pub(crate) use` re-export is not seen through
`use {demo::Y}` from another crate, as it is not through `use demo::Y`). Each fixture crate has
a twin written with plain `use`s: the edges, minus the path text, and the sites are the same.
Exact edges and site resolutions, from a real index."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob
from tests.indexed import Indexed, sites


def crate(braces: bool) -> dict[str, str]:
    """The fixture, its `use`s braces first or plain."""
    def use(*paths: str) -> str:
        return f"use {{{', '.join(paths)}}};\n" if braces else "".join(f"use {p};\n" for p in paths).replace(
            ";\nuse ", "; use ")  # plain: on one line too, so the lines match
    return {
        "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "pub mod a;\nmod b;\n" + ("pub use {self::a::X};\n" if braces else "pub use self::a::X;\n")
                      + ("pub(crate) use {crate::a::Y};\n" if braces else "pub(crate) use crate::a::Y;\n"),
        "src/a.rs": "pub struct X;\npub struct Y;\npub struct W;\n",
        "src/b.rs": use("crate::a::{W as V}", "crate::X", "std::fmt") + "\npub fn f(_: V, _: X) {}\n",
        "app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n'
                          '[dependencies]\ndemo = { path = ".." }\n',
        # Y only through lib.rs's pub(crate) re-export: not seen from this crate
        "app/src/main.rs": use("demo::X", "demo::Y") + "\nfn main() { let _: (X, Y); }\n",
        "app/src/other.rs": ("use ::{demo::a::W};\n" if braces else "use ::demo::a::W;\n") + "\npub fn g(_: W) {}\n",
        # a leading `::` names the crate demo: lib.rs's pub(crate) use is not seen through it either
        "app/src/colon.rs": ("use ::{demo::Y};\n" if braces else "use ::demo::Y;\n") + "\npub fn k(_: Y) {}\n",
    }


BRACES = Indexed(crate(True), "rennet-ctx-rust-braces-", message="braces first")
PLAIN = Indexed(crate(False), "rennet-ctx-rust-plain-", message="plain uses")


braces = BRACES.fixture()


def test_each_item_of_a_leading_group_is_an_edge_as_its_own_use_is():
    edges = [(e.source, e.line, e.target, e.spec) for e in BRACES.record().edges if e.kind == "rust_use"]
    assert edges == [
        ("app/src/colon.rs", 1, "src/lib.rs", "::demo::Y"),
        ("app/src/main.rs", 1, "src/lib.rs", "demo::X"),
        ("app/src/main.rs", 1, "src/lib.rs", "demo::Y"),
        ("app/src/other.rs", 1, "src/a.rs", "::demo::a::W"),
        ("src/b.rs", 1, "src/a.rs", "crate::a"),
        ("src/b.rs", 1, "src/lib.rs", "crate::X"),
        ("src/lib.rs", 3, "src/a.rs", "self::a::X"),
        ("src/lib.rs", 4, "src/a.rs", "crate::a::Y"),
    ]
    assert [(u.path, u.spec, u.status) for u in BRACES.record().unresolved] == [("src/b.rs", "std::fmt", "external")]
    plain = [(e.source, e.line, e.target, e.spec) for e in PLAIN.record().edges if e.kind == "rust_use"]
    assert plain == edges


def test_sites_through_a_leading_group(braces):
    assert sites(braces, "X") == [
        ("app/src/main.rs", 1, "import"), ("app/src/main.rs", 3, "import"),
        ("src/b.rs", 1, "import"), ("src/b.rs", 3, "import"),
        ("src/lib.rs", 3, "import")]
    # lib.rs's pub(crate) use passes Y on inside the crate only: app's Y is a name match
    assert sites(braces, "Y") == [
        ("src/lib.rs", 4, "import"),
        ("app/src/colon.rs", 1, "name_match"), ("app/src/colon.rs", 3, "name_match"),
        ("app/src/main.rs", 1, "name_match"), ("app/src/main.rs", 3, "name_match")]
    assert sites(braces, "W") == [
        ("app/src/other.rs", 1, "import"), ("app/src/other.rs", 3, "import"),
        ("src/b.rs", 1, "import"), ("src/b.rs", 1, "import"), ("src/b.rs", 3, "import")]  # W as V, V
    assert sites(braces, "W") == sites(PLAIN.asked(), "W")
    assert sites(braces, "Y") == sites(PLAIN.asked(), "Y")


@pytest.mark.parametrize(("source", "specs"), [
    (b"use {crate::a::X, std::fmt};\n", [("crate::a::X", (), ()), ("std::fmt", (), ())]),
    (b"use {crate::a::{X as Y, Z}};\n", [("crate::a", ("X", "Z"), ("Y", ""))]),
    (b"use ::{serde::Serialize, log as l};\n", [("::log", (), ("l",)), ("::serde::Serialize", (), ())]),
    (b"use {{a, b}, /* c */ d::*};\n", [("a", (), ()), ("b", (), ()), ("d", ("*",), ())]),
    (b"use {};\n", []),
])
def test_what_a_leading_group_imports(source, specs):
    imports = extract_blob(source, "src/x.rs", "rust").imports
    assert sorted((i.spec, i.names, i.aliases) for i in imports) == specs


def test_a_leading_group_keeps_its_visibility():
    imports = extract_blob(b"pub(crate) use {a::B, c::D};\n", "src/x.rs", "rust").imports
    assert [(i.spec, i.visibility) for i in imports] == [("a::B", "pub(crate)"), ("c::D", "pub(crate)")]


def test_the_head_of_a_path_after_a_leading_double_colon():
    from indexer.lang.rust.visibility import head_of

    assert [head_of(s) for s in ("::demo::a::W", "crate::a", "", "{crate::a}")] == ["demo", "crate", "", "crate"]
    assert head_of("", ("crate::a::X",)) == "crate"
