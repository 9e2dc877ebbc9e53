"""The module path shown for a Rust file is searched along the crate's `mod` declarations
within a bounded work, whatever the declarations: `#[path]` lets every file of a folder
declare every other, and a search that walked each way to a module again grew as the
factorial of the files (nine files held `context symbol` for most of a minute)."""

from __future__ import annotations

import pytest

from indexer.lang.rust.resolve import MODULE_DEPTH, ModuleTree
from tests.indexed import Indexed

MANIFEST = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'
N = 7
EVERY = "".join(f'#[path = "f{i}.rs"]\nmod m{i};\n' for i in range(N))

# Every file declares every other: no declaration reaches zzz.rs, which is looked for below each.
MESH = Indexed({"Cargo.toml": MANIFEST, "src/lib.rs": EVERY,
                **{f"src/f{i}.rs": EVERY + f"pub struct F{i};\n" for i in range(N)},
                "src/zzz.rs": "pub struct Zed;\n"}, "rennet-rust-mesh-", message="mesh")

# A chain of `#[path]` modules too deep for the search (a, c1 ... c10, x, y.rs: 13 below the
# root), which reaches c10 again from b, 10 nearer the root: y.rs is found that way.
CHAIN = {"Cargo.toml": MANIFEST, "src/lib.rs": '#[path = "a.rs"]\nmod a;\n#[path = "b.rs"]\nmod b;\n',
         "src/a.rs": '#[path = "c1.rs"]\nmod c1;\n',
         **{f"src/c{k}.rs": f'#[path = "c{k + 1}.rs"]\nmod c{k + 1};\n' for k in range(1, 10)},
         "src/c10.rs": '#[path = "x.rs"]\nmod x;\n', "src/x.rs": '#[path = "y.rs"]\nmod y;\n',
         "src/b.rs": '#[path = "c10.rs"]\nmod c10;\n', "src/y.rs": "pub struct Why;\n"}
DEEP = Indexed(CHAIN, "rennet-rust-chain-", message="chain")


@pytest.fixture
def searches(monkeypatch):
    calls: list[str] = []
    search = ModuleTree._search

    def counted(self, at, *args, **kwargs):
        calls.append(at.file)
        return search(self, at, *args, **kwargs)

    monkeypatch.setattr(ModuleTree, "_search", counted)
    return calls


def _module(asked, name: str) -> list[tuple[str, str]]:
    return [(d.path, d.module) for d in asked.call("context.symbol", name=name, fuzzy=False).data.definitions]


def test_a_folder_whose_files_all_declare_each_other_is_searched_once_a_module_a_depth(searches):
    asked = MESH.asked()
    assert _module(asked, "F3") == [("src/f3.rs", "demo::m0::m1::m2::m3")]
    searches.clear()
    assert _module(asked, "Zed") == [("src/zzz.rs", "zzz")]
    # each of the N + 1 modules searched through at most once for each depth it is met at, each
    # time asking after its N + 1 declared modules (was: 13,700 searches, growing as N!)
    assert 0 < len(searches) <= (N + 1) * MODULE_DEPTH * (N + 1), len(searches)


def test_a_module_met_first_too_deep_is_searched_again_when_met_nearer_the_root():
    assert _module(DEEP.asked(), "Why") == [("src/y.rs", "demo::b::c10::x::y")]
