"""Rust local sites the mutation round of indexer/lang/rust/scopes.py found no test holding:
the pattern kinds that bind (slice, or, reference patterns, names starting with `_`), a
match guard that binds nothing, `!=` after a name (no macro), and a path's segment or a
field named like a local (no local)."""

from __future__ import annotations

import pytest

from tests.test_extract_locals import sites


@pytest.mark.parametrize(("src", "name", "expected"), [
    # a slice pattern, an or-pattern, a reference pattern bind their names
    ("fn f(v: [i32; 2]) -> i32 {\n    let [a, b] = v;\n    a + b\n}\n", "a", [(2, 10, "local"), (3, 5, "local")]),
    ("fn f(v: E) -> i32 {\n    match v { E::A(x) | E::B(x) => x }\n}\n", "x",
     [(2, 20, "local"), (2, 30, "local"), (2, 36, "local")]),
    ("fn f(p: &i32) -> i32 {\n    let &r = p;\n    r\n}\n", "r", [(2, 10, "local"), (3, 5, "local")]),
    # a name starting with `_` binds too
    ("fn f() -> i32 {\n    let _tmp = 1;\n    _tmp\n}\n", "_tmp", [(2, 9, "local"), (3, 5, "local")]),
    # a match guard binds nothing: `flag` is the static's
    ("static flag: bool = true;\nfn f(v: i32) -> i32 {\n    match v { n if flag => n, _ => 0 }\n}\n", "flag",
     [(1, 8, "definition"), (3, 20, "identifier")]),
    # `load != 2` compares the local; `m::load` is a path's segment, not the local
    ("fn f() -> bool {\n    let load = 1;\n    let _ = m::load;\n    load != 2\n}\n", "load",
     [(2, 9, "local"), (3, 16, "identifier"), (4, 5, "local")]),
    # a field named like a local is the field
    ("fn f(s: S) -> i32 {\n    let load = 1;\n    s.load + load\n}\n", "load",
     [(2, 9, "local"), (3, 7, "identifier"), (3, 14, "local")]),
    # a parameter is local from where it is written: not the function's own name before it
    ("fn load(load: i32) -> i32 {\n    load\n}\n", "load", [(1, 4, "definition"), (1, 9, "local"), (2, 5, "local")]),
    # a tuple struct pattern's path is no binding, whatever its case
    ("struct pt(i32);\nfn f(p: pt) -> i32 {\n    let pt(a) = p;\n    a\n}\n", "pt",
     [(1, 8, "definition"), (2, 9, "identifier"), (3, 9, "identifier")]),
])
def test_rust_local_sites(src, name, expected):
    assert [(line, col, role) for _, line, col, role in sites(src, "lib.rs", "rust", name)] == expected
