"""The bases of one file's classes are resolved with what the file's imports reach read once
for all of them (`indexer/lang/file_imports.py`, the per-file tables of `_Bindings`, `GoBases`,
`RustBases` and `scoped_bases._Scope`): a file of N imports and N classes, each deriving from
what one import brings in, costs about twice the work at 2N, never four times (was: each base
read the file's imports and edges again; a megabyte of such Python took minutes to index, 800
Go packages embedded in one struct 8.8 s, 6,000 C# `using`s 35 s). The work is the lines of
Rennet's code resolving the file's bases, as `context symbol --hierarchy` has them resolved
(assembly runs the same code); the answer is checked too."""

from __future__ import annotations

from typing import Callable

import pytest

from tests.indexed import Indexed
from tests.lines_run import lines_run

SMALL, LARGE = 200, 400


def _python(n: int) -> dict[str, str]:
    return {"m.py": "".join(f"class X{k}: pass\n" for k in range(n)),
            "a.py": "".join(f"from m import X{k}\n" for k in range(n)) + "".join(f"class C{k}(X{k}): pass\n" for k in range(n))}


def _go(n: int) -> dict[str, str]:
    files = {"go.mod": "module x\n\ngo 1.21\n"}
    files.update({f"p{k}/a.go": f"package p{k}\n\ntype X{k} struct{{}}\n" for k in range(n)})
    imports = "".join(f'\t"x/p{k}"\n' for k in range(n))
    fields = "".join(f"\tp{k}.X{k}\n" for k in range(n))
    files["a/a.go"] = f"package a\n\nimport (\n{imports})\n\ntype C0 struct {{\n{fields}}}\n"
    return files


def _rust(n: int) -> dict[str, str]:
    return {"Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub mod m;\npub mod a;\n",
            "src/m.rs": "".join(f"pub trait X{k} {{}}\n" for k in range(n)),
            "src/a.rs": "".join(f"use crate::m::X{k};\n" for k in range(n))
            + "".join(f"pub struct C{k};\nimpl X{k} for C{k} {{}}\n" for k in range(n))}


def _java(n: int) -> dict[str, str]:
    return {**{f"src/p/X{k}.java": f"package p;\n\npublic class X{k} {{}}\n" for k in range(n)},
            "src/q/A.java": "package q;\n" + "".join(f"import p.X{k};\n" for k in range(n))
            + "".join(f"class C{k} extends X{k} {{}}\n" for k in range(n))}


def _php(n: int) -> dict[str, str]:
    return {"m.php": "<?php\nnamespace P;\n" + "".join(f"class X{k} {{}}\n" for k in range(n)),
            "a.php": "<?php\nnamespace Q;\n" + "".join(f"use P\\X{k};\n" for k in range(n))
            + "".join(f"class C{k} extends X{k} {{}}\n" for k in range(n))}


def _csharp(n: int) -> dict[str, str]:
    return {"m.cs": "".join(f"namespace N{k} {{ class X{k} {{}} }}\n" for k in range(n)),
            "a.cs": "".join(f"using N{k};\n" for k in range(n))
            + "namespace Q {\n" + "".join(f"class C{k} : X{k} {{}}\n" for k in range(n)) + "}\n"}


def _ruby(n: int) -> dict[str, str]:
    files = {"m.rb": "".join(f"class X{k}; end\n" for k in range(n))}
    files.update({f"r{k}.rb": f"R{k} = 1\n" for k in range(n)})
    files["a.rb"] = "".join(f"require_relative 'r{k}'\n" for k in range(n)) + "require_relative 'm'\n" + "".join(
        f"class C{k} < X{k}; end\n" for k in range(n))
    return files


def _ruby_ancestors(n: int) -> dict[str, str]:
    """A class of n ancestors holding n classes whose superclasses are constants of one of
    them, found past the lexical scopes (`scoped_bases.ruby_ancestors`)."""
    return {"m.rb": "class Base\n" + "".join(f"  class X{k}; end\n" for k in range(n)) + "end\n"
            + "".join(f"module M{k}; end\n" for k in range(n)),
            "a.rb": "require_relative 'm'\nclass C0 < Base\n" + "".join(f"  include M{k}\n" for k in range(n))
            + "".join(f"  class K{k} < X{k}; end\n" for k in range(n)) + "end\n"}


# language -> (its files of n imports and classes, the class asked, its base's qualified name and file)
CASES: dict[str, tuple[Callable[[int], dict[str, str]], str, str, str]] = {
    "python": (_python, "C0", "X0", "m.py"),
    "go": (_go, "C0", "X0", "p0/a.go"),
    "rust": (_rust, "C0", "X0", "src/m.rs"),
    "java": (_java, "C0", "X0", "src/p/X0.java"),
    "php": (_php, "C0", "P.X0", "m.php"),
    "csharp": (_csharp, "C0", "N0.X0", "m.cs"),
    "ruby": (_ruby, "C0", "X0", "m.rb"),
    "ruby_ancestors": (_ruby_ancestors, "K0", "Base.X0", "m.rb"),
}
REPOS = {(language, n): Indexed(made(n), f"rennet-bases-{language}-{n}-", message="bases")
         for language, (made, *_) in CASES.items() for n in (SMALL, LARGE)}


def _hierarchy(language: str, n: int):
    _, asked, _, _ = CASES[language]
    return REPOS[(language, n)].asked().call("context.symbol", name=asked, hierarchy=True).data.hierarchy


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_file_of_many_imports_and_bases_resolves_them_in_proportion(language):
    _, _, base, defining = CASES[language]
    found = _hierarchy(language, SMALL)
    assert [(r.relation, r.status, r.qualified, r.path) for r in found][:1] == [("base", "resolved", base, defining)]
    lines = {}
    for n in (SMALL, LARGE):
        _hierarchy(language, n)  # once first: what a query reads and keeps once a snapshot is not counted
        lines[n] = lines_run(lambda n=n: _hierarchy(language, n))
    assert lines[LARGE] <= 2.5 * lines[SMALL], lines
