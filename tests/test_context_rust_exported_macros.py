"""A Rust `#[macro_export]` macro is named at its crate's root, whichever module defines it, as
rustc places it: `context symbol demo::bail` is src/macros.rs's `bail`, and another crate's
`use demo::bail;` then `bail!(1)`, or `demo::bail!(2)`, are its `import` sites. Was: the
qualified name found nothing (anyhow's `anyhow::anyhow` fell back to near names) and every
use of anyhow's `bail!` in its tests was a `name_match`. A macro not exported is named so
nowhere. From a real index."""

from __future__ import annotations

from tests.indexed import Indexed, definitions, sites

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "#[macro_use]\nmod macros;\npub mod run;\n",
    "src/run.rs": "pub fn run() -> u8 {\n    0\n}\n",
    "src/macros.rs": ("/// Returns early.\n#[macro_export]\n#[doc(hidden)]\nmacro_rules! bail {\n"
                      "    ($e:expr) => {\n        return Err($e)\n    };\n}\n\n"
                      "macro_rules! quiet {\n    () => {};\n}\n"),
    # an integration test: a crate of its own, naming the library as `demo`
    "tests/it.rs": ("use demo::bail;\n\nfn f() -> Result<(), u8> {\n    bail!(1);\n}\n\n"
                    "fn g() -> Result<(), u8> {\n    demo::bail!(2);\n}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-rust-exported-macros-", message="rust exported macros")


crate = REPO.fixture()


def test_an_exported_macro_is_named_at_its_crate_s_root(crate):
    assert definitions(crate, "demo::bail") == [("src/macros.rs", "bail", 4, "qualified")]
    assert definitions(crate, "crate::bail") == [("src/macros.rs", "bail", 4, "qualified")]


def test_a_macro_not_exported_is_not_named_at_the_root(crate):
    assert definitions(crate, "demo::quiet") == []


def test_another_crate_s_uses_of_an_exported_macro_are_import_sites(crate):
    assert sorted(sites(crate, "bail")) == [("tests/it.rs", 1, "import"), ("tests/it.rs", 4, "import"),
                                            ("tests/it.rs", 8, "import")]
