"""A Rust builder's chain: a `.name(...)` line under `Command::new("git")` is a method of what
the call before it returns, as its signature says (`-> Self` the type of its impl, `-> Command`),
on the lines above too, four calls deep: `Command::new("git").about(..).arg(..)`. Was: an
attribute of an untyped receiver, a `name_match`: clap's `references Command::about` found no
site outside its own file (17 now), `Command::arg` 10 (32 now). Exact sites, from a real
index."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language
from tests.indexed import Indexed

FILES = {
    "Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": ("pub struct Command {\n    name: String,\n}\n\nimpl Command {\n"
                   "    pub fn new(name: &str) -> Self {\n        Command { name: name.to_string() }\n    }\n\n"
                   "    pub fn about(self, text: &str) -> Self {\n        self\n    }\n\n"
                   "    pub fn arg(self, a: Arg) -> Command {\n        self\n    }\n}\n\n"
                   "pub struct Arg;\n\nimpl Arg {\n    pub fn new() -> Arg {\n        Arg\n    }\n\n"
                   "    pub fn about(&self) -> u8 {\n        0\n    }\n}\n\n"
                   "pub struct Port;\n\nimpl Port {\n    pub fn parse<T>(s: &str) -> Self {\n        Port\n    }\n\n"
                   "    pub fn check(&self) -> u8 {\n        0\n    }\n}\n"),
    # a turbofish between the function and its arguments
    "examples/turbo.rs": "use demo::Port;\n\nfn main() {\n    let n = Port::parse::<u8>(\"1\").check();\n}\n",
    "examples/app.rs": ("use demo::{Arg, Command};\n\nfn main() {\n"
                        "    let c = Command::new(\"git\")\n"  # 4
                        "        .about(\"a tool\")\n"  # 5: what `new` returns, Self: a Command
                        "        .arg(Arg::new())\n"  # 6
                        "        .about(\"again\");\n"  # 7: what `arg` returns, a Command
                        "    let a = Arg::new().about();\n"  # 8: on one line, Arg's
                        "    let v = make().about();\n"  # 9: what no function of the tree returns
                        "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-rust-builder-chains-", message="rust builder chains")


crate = REPO.fixture()


def test_a_method_of_a_chain_is_of_what_the_call_before_it_returns(crate):
    r = crate.call("context.references", name="about")
    owners = sorted((s.path, s.line, r.data.definitions[s.definition].qualified if s.definition is not None
                     else s.resolution) for s in r.data.sites)
    assert owners == [("examples/app.rs", 5, "Command.about"), ("examples/app.rs", 7, "Command.about"),
                      ("examples/app.rs", 8, "Arg.about"), ("examples/app.rs", 9, "name_match")]


@pytest.mark.parametrize(("signature", "result"), [
    ("pub fn new(id: impl Into<Id>) -> Self {", "Self"),
    ("fn get(&self) -> &'a Arg {", "Arg"),
    ("fn f<F: Fn(u8) -> u8>(f: F) -> Wrap<F> {", "Wrap"),  # a `->` in its generics is not its own
    ("pub(crate) fn x() -> Result<Self, E>", "Result"),
    ("fn run(&self) {", None),
    ("fn many(a: u8,", None),  # its parameters go on past the line
    ("fn run<F>(f: F) where F: Fn() -> u8 {", None),  # a `->` of its where clause is not its own
    ("fn make() -> impl Iterator<Item = u8> {", "Iterator"),
    ("fn boxed() -> &'a mut dyn Write {", "Write"),
    ("fn io() -> std::io::Result<()> {", "Result"),
])
def test_the_result_a_rust_signature_says(signature, result):
    assert of_language("rust").result_type(signature) == result


def test_a_call_with_a_turbofish_is_of_what_its_function_returns(crate):
    r = crate.call("context.references", name="check")
    assert [(s.path, s.line, r.data.definitions[s.definition].qualified if s.definition is not None else s.resolution)
            for s in r.data.sites] == [("examples/turbo.rs", 4, "Port.check")]
