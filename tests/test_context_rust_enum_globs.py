"""A Rust glob `use` of an enum's variants (`use crate::kind::Kind::*;`) resolves to the file
of the module defining the enum, as a glob of that module does (`use crate::kind::*;`), but
brings in the variants alone: a `pub use` of it re-exports no other item of the file, and a
glob import of the re-exporting module reaches the variants only. Exact lookups and site
resolutions, from a real index."""

from __future__ import annotations

import pytest

from tests.indexed import Indexed, definitions, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod kind;\npub mod variants;\npub mod everything;\npub mod user;\npub mod wide;\n"
                  "pub mod mode;\npub mod quiet;\npub mod loud;\n\npub use variants::*;\n",
    "src/kind.rs": "pub enum Kind {\n    Small,\n    Large,\n}\n\npub fn helper() {}\n",
    # a glob of the enum, re-exported: its variants, not `helper`
    "src/variants.rs": "pub use crate::kind::Kind::*;\n",
    # a glob of the module, re-exported: its items (`Kind`, `helper`), not the enum's variants
    "src/everything.rs": "pub use crate::kind::*;\n",
    # a glob of a module that re-exports its enum's variants itself: those too
    "src/loud.rs": "use crate::mode::*;\n\npub fn go() {\n    let _ = On;\n}\n",
    # through the enum glob's re-export: `Large` is kind.rs's, `helper` some other one
    "src/user.rs": "use crate::variants::*;\n\npub fn go() {\n    helper();\n    let _ = Large;\n}\n",
    # through the module glob's re-export: `helper` is kind.rs's, a bare `Large` no name it brings in
    "src/wide.rs": "use crate::everything::*;\n\npub fn go() {\n    helper();\n    let _ = Large;\n}\n",
    # the enum's own file re-exporting its variants, by the enum's name and through `self`
    "src/mode.rs": "pub enum Mode {\n    On,\n}\n\npub enum Tone {\n    Loud,\n}\n\npub use Mode::*;\npub use self::Tone::*;\n",
    # a private glob of the file's own enum: seen inside the module only
    "src/quiet.rs": "pub enum Level {\n    Low,\n}\n\nuse Level::*;\n\npub fn low() -> Level { Low }\n",
}


REPO = Indexed(FILES, "rennet-ctx-rust-enum-globs-", message="rust enum globs")


app = REPO.fixture()


def test_a_glob_of_an_enum_re_exports_no_other_item_of_its_file(app):
    helper = [("src/kind.rs", "helper", 6, "qualified")]
    assert definitions(app, "demo::variants::helper") == []
    assert definitions(app, "demo::everything::helper") == helper
    assert definitions(app, "demo::variants::Kind") == [] and definitions(app, "demo::everything::Kind") == [
        ("src/kind.rs", "Kind", 1, "qualified")]


def test_a_variant_is_found_through_a_re_exported_glob_of_its_enum(app):
    # `use demo::variants::Small;` brings in kind.rs's Kind::Small, as `demo::Small` does
    # through lib.rs's glob of variants
    assert definitions(app, "demo::variants::Small") == [("src/kind.rs", "Kind.Small", 2, "qualified")]
    assert definitions(app, "demo::variants::Large") == [("src/kind.rs", "Kind.Large", 3, "qualified")]
    assert definitions(app, "demo::Large") == [("src/kind.rs", "Kind.Large", 3, "qualified")]
    assert definitions(app, "demo::everything::Small") == []  # a glob of kind.rs re-exports its top level only
    assert ("src/user.rs", 5, "import") in sites(app, "demo::variants::Large")


def test_a_variant_is_found_through_its_own_file_s_glob_of_its_enum(app):
    assert definitions(app, "demo::mode::On") == [("src/mode.rs", "Mode.On", 2, "qualified")]
    assert definitions(app, "demo::mode::Loud") == [("src/mode.rs", "Tone.Loud", 6, "qualified")]
    assert definitions(app, "demo::quiet::Low") == []  # a private `use` is no path from outside
    assert definitions(app, "demo::quiet::Level::Low") == [("src/quiet.rs", "Level.Low", 2, "qualified")]


def test_sites_through_a_re_exported_enum_glob_are_its_variants_only(app):
    assert sites(app, "helper") == [("src/wide.rs", 4, "import"), ("src/user.rs", 4, "name_match")]
    assert sites(app, "Large") == [("src/user.rs", 5, "import"), ("src/wide.rs", 5, "name_match")]


def test_a_module_glob_passes_on_the_variants_the_module_re_exports(app):
    assert ("src/loud.rs", 4, "import") in sites(app, "On")


@pytest.mark.parametrize(("use", "names"), [
    ("use crate::kind::Kind::*;", {"Small", "Large"}),
    ("use super::inner::Mode::*;", {"On"}),  # an enum of an inline module of the file
    ("use crate::{kind::Kind::*, other::Thing};", {"Small", "Large"}),
    ("use crate::kind::*;", None),  # the module's glob: every name
    ("use crate::{kind::Kind::*, kind::*};", None),
    ("use crate::kind::Other::*;", None),  # no enum of the file: read as a module's
])
def test_what_a_glob_brings_in_from_a_file(use, names):
    from indexer.extract.blob import extract_blob
    from indexer.lang.rust.globs import globbed_names

    kind = extract_blob(b"pub enum Kind { Small, Large }\nmod inner { pub enum Mode { On } }\npub fn helper() {}\n",
                        "src/kind.rs", "rust")
    spec, = extract_blob(use.encode(), "src/a.rs", "rust").imports
    found = globbed_names(spec, kind.symbols)
    assert (set(found) if found is not None else None) == names
