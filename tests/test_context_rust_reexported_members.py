"""A Rust type's members reached through a re-export of the type: a crate root's `pub use
builder::Builder;` offers Builder, so a file importing it there (`use crate::Builder;`, or
an example's `use demo::Builder;`, another crate) reaches `Builder::new` and `b.grow()` as
one importing builder.rs itself does. Was: the file reached only the definition's own name
(`grow`), so every such site was a `name_match`, and `references Builder::new` in clap listed
none of its uses outside arg.rs. Exact sites, from a real index."""

from __future__ import annotations

import pytest

from tests.indexed import Indexed, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod builder;\nmod app;\nmod plain;\n\npub use builder::Builder;\n",
    "src/builder.rs": ("pub struct Builder {\n    pub size: u8,\n}\n\nimpl Builder {\n"
                       "    pub fn new(size: u8) -> Builder {\n        Builder { size }\n    }\n\n"
                       "    pub fn grow(&mut self) -> u8 {\n        self.size + 1\n    }\n}\n"),
    # through the root's re-export, in the crate
    "src/app.rs": ("use crate::Builder;\n\npub fn run(b: &mut Builder) -> u8 {\n"
                   "    let mut c = Builder::new(1);\n    c.grow() + b.grow() + b.size\n}\n"),
    # an import of the root naming no Builder: its `grow` is some other value's
    "src/plain.rs": "use crate::builder;\n\npub fn other(v: Vec<u8>) -> usize {\n    v.grow()\n}\n",
    # another crate (an example target) through the same re-export
    "examples/demo.rs": ("use demo::Builder;\n\nfn main() {\n    let mut b = Builder::new(2);\n"
                         "    b.grow();\n}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-rust-reexported-members-", message="rust re-exported members")


@pytest.fixture(scope="module")
def crate():
    return REPO.asked()


def test_a_method_through_a_reexported_type_is_an_import_site(crate):
    assert sorted(sites(crate, "Builder::new")) == [
        ("examples/demo.rs", 4, "import"),
        ("src/app.rs", 4, "import"),
    ]


def test_a_method_of_a_typed_receiver_through_a_reexported_type_is_an_import_site(crate):
    assert sorted(sites(crate, "grow")) == [
        ("examples/demo.rs", 5, "import"),
        ("src/app.rs", 5, "import"),  # c.grow(), c typed by `Builder::new`
        ("src/app.rs", 5, "import"),  # b.grow(), b a parameter `&mut Builder`
        ("src/plain.rs", 4, "name_match"),
    ]


def test_a_field_of_a_typed_receiver_through_a_reexported_type_is_an_import_site(crate):
    assert ("src/app.rs", 5, "import") in sites(crate, "Builder.size")
