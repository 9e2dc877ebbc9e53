"""Rules of Rust's module tree the mutation round of indexer/lang/rust/ found no test holding:
the module path shown for a file when a crate declares a module with no file or a `#[path]`
back to its own root."""

from __future__ import annotations

import pytest

from tests.indexed import Indexed

# lib.rs declares a module with no file (`gone`, before `here` in name order) and a
# `#[path]` back to itself (a cycle of modules, each lib.rs again); tests/big/main.rs is a
# test target whose module big/helper.rs is declared.
FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n\n'
                  '[[bin]]\nname = "tool"\n',
    "src/lib.rs": 'mod gone;\npub mod here;\n#[path = "lib.rs"]\nmod again;\npub struct Root;\n',
    "src/here.rs": "pub struct Here;\n",
    "src/stray.rs": "pub struct Stray;\n",
    "src/main.rs": "pub struct Main;\nfn main() {}\n",
    "tests/big/main.rs": "mod helper;\nfn main() {}\n",
    "tests/big/helper.rs": "pub struct Helper;\n",
}
REPO = Indexed(FILES, "rennet-rust-module-rules-", message="module rules")


@pytest.fixture(scope="module")
def crate():
    return REPO.asked()


def test_the_module_shown_past_a_missing_file_and_a_cycle_of_path_modules(crate):
    client, repo = crate

    def module(name: str) -> list[tuple[str, str]]:
        found = client.call("context.symbol", repo=repo, name=name, fuzzy=False).data.definitions
        return [(d.path, d.module) for d in found]

    assert module("Here") == [("src/here.rs", "demo::here")]
    # no declaration reaches it: its path's name, though `again` leads back to lib.rs forever
    assert module("Stray") == [("src/stray.rs", "stray")]
    # a test target's module: the target's name, then the module
    assert module("Helper") == [("tests/big/helper.rs", "big::helper")]
