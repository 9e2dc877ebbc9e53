"""A glob `use` of a module brings in the module's items, not what they hold (a type's
methods, an enum's variants), unless the module itself brings such a name in with a `use`
of its own, or also defines it at its top. Exact site resolutions, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, definitions, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod util;\npub mod kind;\npub mod user;\npub mod shapes;\npub mod drawing;\npub mod painting;\npub mod relay;\n",
    "src/util.rs": "pub fn helper() {}\n",
    # `helper` is a method here and brought in from util.rs; `build` is a method and a top-level function;
    # `only` a method alone
    "src/kind.rs": "pub use crate::util::helper;\n\npub struct S;\n\nimpl S {\n"
                   "    pub fn helper(&self) {}\n    pub fn build() {}\n    pub fn only() {}\n}\n\npub fn build() {}\n",
    "src/user.rs": "use crate::kind::*;\n\npub fn go() {\n    helper();\n    build();\n    only();\n}\n",
    # two enums named Kind: the glob is of the one its path ends at, inner::Kind
    "src/shapes.rs": "pub enum Kind {\n    Small,\n}\n\nimpl Kind {\n    pub fn make() -> Kind { Kind::Small }\n}\n\n"
                     "pub mod inner {\n    pub enum Kind {\n        Tiny,\n    }\n}\n",
    "src/drawing.rs": "use crate::shapes::inner::Kind::*;\n\npub fn go() {\n    let _ = Tiny;\n    let _ = Small;\n}\n",
    # a glob of an enum brings in its variants, not the functions of its impl
    "src/painting.rs": "use crate::shapes::Kind::*;\n\npub fn go() {\n    let _ = Small;\n    make();\n}\n",
    # a re-export of the enum's glob passes on its variants, not the functions of its impl
    "src/relay.rs": "pub use crate::shapes::Kind::*;\n",
}
REPO = Indexed(FILES, "rennet-ctx-rust-glob-items-", message="glob items")


app = REPO.fixture()


def test_a_glob_passes_a_name_the_module_brings_in_though_it_also_holds_one(app):
    assert ("src/user.rs", 4, "import") in sites(app, "demo::util::helper")


def test_a_glob_passes_a_top_level_name_though_a_type_also_holds_one(app):
    assert ("src/user.rs", 5, "import") in sites(app, "demo::kind::build")


def test_a_glob_does_not_pass_a_name_only_a_type_holds(app):
    assert not [s for s in sites(app, "only") if s[0] == "src/user.rs" and s[2] == "import"]


def test_a_glob_of_an_enum_is_of_the_one_its_whole_path_names(app):
    assert sites(app, "Tiny") == [("src/drawing.rs", 4, "import")]
    assert [s for s in sites(app, "Small") if s[0] == "src/drawing.rs"] == [("src/drawing.rs", 5, "name_match")]


def test_a_glob_of_an_enum_brings_in_its_variants_not_its_functions(app):
    assert [s for s in sites(app, "Small") if s[0] == "src/painting.rs"] == [("src/painting.rs", 4, "import")]
    assert [s for s in sites(app, "make") if s[0] == "src/painting.rs"] == [("src/painting.rs", 5, "name_match")]


def test_a_pub_use_of_an_enum_glob_re_exports_its_variants_not_its_functions(app):
    assert definitions(app, "demo::relay::Small") == [("src/shapes.rs", "Kind.Small", 2, "qualified")]
    assert definitions(app, "demo::relay::make") == []
