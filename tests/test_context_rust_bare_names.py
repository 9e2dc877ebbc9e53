"""A bare name in a Rust file is a definition's `import` site only where a `use` of the file
binds that very name: naming it, under its alias, or through a glob of a module (a glob of
an enum brings in its variants alone). A `use` of one item of kind.rs brings in no other one:
a bare `helper()` beside `use crate::kind::Kind;` is `name_match`. Exact site resolutions,
from a real index."""

from __future__ import annotations

from tests.indexed import Indexed, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod kind;\npub mod a;\npub mod b;\npub mod c;\npub mod d;\npub mod e;\npub mod f;\n",
    "src/kind.rs": "pub enum Kind {\n    Small,\n    Large,\n}\n\npub fn helper() {}\n",
    # another item of kind.rs, by name
    "src/a.rs": "use crate::kind::Kind;\n\npub fn go(k: Kind) {\n    helper();\n}\n",
    # a glob of the module: every item
    "src/b.rs": "use crate::kind::*;\n\npub fn go() {\n    helper();\n}\n",
    # helper under an alias: the alias is its binding, not its own name
    "src/c.rs": "use crate::kind::{self, helper as h};\n\npub fn go() {\n    h();\n    helper();\n    kind::helper();\n}\n",
    # a glob of the enum: its variants only
    "src/d.rs": "use crate::kind::Kind::*;\n\npub fn go() {\n    helper();\n    let _ = Small;\n}\n",
    # helper itself
    "src/e.rs": "use crate::kind::helper;\n\npub fn go() {\n    helper();\n}\n",
    # a file importing kind.rs's Kind and defining a helper of its own
    "src/f.rs": "use crate::kind::Kind;\n\nfn helper() {}\n\npub fn go(k: Kind) {\n    helper();\n}\n",
}

REPO = Indexed(FILES, "rennet-ctx-rust-bare-", message="rust bare names")


app = REPO.fixture()


def test_a_bare_name_no_use_binds_is_no_import_site(app):
    assert sites(app, "demo::kind::helper") == [
        ("src/b.rs", 4, "import"),  # use crate::kind::*
        # the use (its `helper`, its alias), h(), kind::helper()
        ("src/c.rs", 1, "import"), ("src/c.rs", 1, "import"), ("src/c.rs", 4, "import"), ("src/c.rs", 6, "import"),
        ("src/e.rs", 1, "import"), ("src/e.rs", 4, "import")]
    assert sites(app, "helper", path="src/kind.rs") == [
        ("src/b.rs", 4, "import"),
        ("src/c.rs", 1, "import"), ("src/c.rs", 1, "import"), ("src/c.rs", 4, "import"), ("src/c.rs", 6, "import"),
        ("src/e.rs", 1, "import"), ("src/e.rs", 4, "import"),
        ("src/a.rs", 4, "name_match"),  # use crate::kind::Kind brings in Kind alone
        ("src/c.rs", 5, "name_match"),  # bound as `h`
        ("src/d.rs", 4, "name_match"),  # a glob of the enum: its variants
        ("src/f.rs", 6, "name_match")]  # f.rs's own helper


def test_a_use_binds_the_names_it_brings_in(app):
    assert sites(app, "Kind") == [
        ("src/a.rs", 1, "import"), ("src/a.rs", 3, "import"), ("src/f.rs", 1, "import"), ("src/f.rs", 5, "import")]
    assert sites(app, "Small") == [("src/d.rs", 5, "import")]
    assert [s for s in sites(app, "helper") if s[0] == "src/f.rs"] == [("src/f.rs", 6, "same_file")]
