"""A Rust type's members reached through a re-export of the type: a crate root's `pub use
builder::Builder;` offers Builder, so a file importing it there (`use crate::Builder;`, or
an example's `use demo::Builder;`, another crate) reaches `Builder::new` and `b.grow()` as
one importing builder.rs itself does, and so does an import of the type's own file for an
impl in another file. Was: the file reached only the definition's own name
(`grow`), so every such site was a `name_match`, and `references Builder::new` in clap listed
none of its uses outside arg.rs. Exact sites, from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod builder;\nmod app;\nmod plain;\nmod impls;\n\npub use builder::Builder;\n",
    "src/builder.rs": ("pub struct Builder {\n    pub size: u8,\n}\n\nimpl Builder {\n"
                       "    pub fn new(size: u8) -> Builder {\n        Builder { size }\n    }\n\n"
                       "    pub fn grow(&mut self) -> u8 {\n        self.size + 1\n    }\n}\n"),
    # an impl of the type in another file than the type's
    "src/impls.rs": ("use crate::builder::Builder;\n\nimpl Builder {\n    pub fn shrink(&mut self) -> u8 {\n"
                     "        self.size - 1\n    }\n}\n"),
    # through the root's re-export, in the crate
    "src/app.rs": ("use crate::Builder;\n\npub fn run(b: &mut Builder) -> u8 {\n"
                   "    let mut c = Builder::new(1);\n    c.grow() + b.grow() + b.size + b.shrink()\n}\n"),
    # an import of the root naming no Builder: its `grow` is some other value's; and std's
    # thread::Builder, a type of the same name through a module outside the tree
    "src/plain.rs": ("use crate::builder;\nuse std::thread;\n\npub fn other(v: Vec<u8>) -> usize {\n"
                     "    let t = thread::Builder::new();\n    v.grow()\n}\n"),
    # another crate (an example target) through the same re-export
    "examples/demo.rs": ("use demo::Builder;\n\nfn main() {\n    let mut b = Builder::new(2);\n"
                         "    b.grow();\n    b.shrink();\n}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-rust-reexported-members-", message="rust re-exported members")


crate = REPO.fixture()


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
        ("src/plain.rs", 6, "name_match"),
    ]


def test_a_field_of_a_typed_receiver_through_a_reexported_type_is_an_import_site(crate):
    assert ("src/app.rs", 5, "import") in sites(crate, "Builder.size")


def test_a_method_of_an_impl_in_another_file_is_reached_through_the_type_s_file(crate):
    """src/impls.rs's `impl Builder { fn shrink }`: an import of Builder's own file, or of a
    file re-exporting it, reaches `shrink` as one of impls.rs would (was: only through
    impls.rs, which nothing imports: anyhow's `Error::new`, in error.rs for lib.rs's Error,
    had no site in its tests)."""
    assert sorted(sites(crate, "Builder::shrink")) == [("examples/demo.rs", 6, "import"), ("src/app.rs", 5, "import")]


def test_a_path_through_a_module_outside_the_tree_to_a_type_of_the_name_is_no_site(crate):
    """`thread::Builder::new()` is std's thread::Builder's: a path through a module the tree's
    type is not in (was: through a type of the name, so anyhow's `io::Error::new` were sites of
    its `Error::new`)."""
    assert ("src/plain.rs", 5, "name_match") in sites(crate, "new")
    assert ("src/app.rs", 4, "import") in sites(crate, "new")
