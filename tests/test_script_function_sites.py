"""The sites of one JavaScript or TypeScript function reading a name are typed from the lines
of its body binding the name, found once a function and name (`DeclaredNames._bound_in`,
`_later`), not by reading the body again for each site: a function of 4,000 lines each
calling `x.m()` (50 kB) held `context references` for 23 s, growing as the square of its
lines. The work is counted as the lines of script_names.py a query runs (the rest of a site's
typing, its narrowing blocks read back a bounded number of lines, is not this test's), for a
function of N sites and one of 2N: twice the sites may cost about twice the lines, never four
times."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.indexed import Indexed
from tests.lines_run import counted, references_counted

NAMES = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "script_names.py")
SMALL, LARGE = 200, 400
UNTYPED = "defining file"  # the rule of a site of the file defining the member, its receiver untyped
CLASSES = "class T { m() {} }\nclass U { m() {} }\n"
SHAPES = {
    # bound by the parameter: each site reads every line above it for another binding
    "parameter": lambda n: "function f(x: T) {\n" + "  x.m();\n" * n + "}\n",
    # declared above the sites
    "above": lambda n: "function f() {\n  const x = new T();\n" + "  x.m();\n" * n + "}\n",
    # declared below the sites, at the body's own level: each site read every line below it
    "below": lambda n: "function f() {\n" + "  x.m();\n" * n + "  var x = new T();\n}\n",
}


def _repo(shape: str, n: int) -> Indexed:
    return Indexed({"a.ts": CLASSES + SHAPES[shape](n)}, f"rennet-script-sites-{shape}-{n}-")


REPOS = {(shape, n): _repo(shape, n) for shape in SHAPES for n in (SMALL, LARGE)}


def _lines_run(shape: str, n: int) -> int:
    asked = REPOS[shape, n].asked()
    # U's first: what a snapshot keeps once is not counted, nor is the answer kept for T's
    assert asked.call("context.references", name="U.m").data.sites == []
    sites, ran = counted(lambda: asked.call("context.references", name="T.m").data.sites, {NAMES})
    assert sites and all(s.rule != UNTYPED for s in sites)  # typed, a page of them
    return ran


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_function_of_many_sites_costs_lines_in_proportion_to_them(shape):
    small, large = _lines_run(shape, SMALL), _lines_run(shape, LARGE)
    assert large <= 2.5 * small, (small, large)


def test_each_site_is_typed_by_the_bindings_above_or_below_it():
    """What each site of a function is typed as: the last binding above it (untyped after one
    that types nothing), else the parameter's, else the one declaration at the body's level
    below it."""
    asked = Indexed({"a.ts": CLASSES + (
        "function f(x: U) {\n"         # 3
        "  x.m();\n"                   # 4: the parameter, U
        "  let y = new T();\n"         # 5
        "  x.m(); y.m();\n"            # 6: U, T
        "  x = new T();\n"             # 7: no binding
        "  const x = new T();\n"       # 8
        "  x.m();\n"                   # 9: T
        "  const x = foo();\n"         # 10
        "  x.m();\n"                   # 11: untyped
        "  const x = new T();\n"       # 12
        "  x.m(); z.m();\n"            # 13: still untyped (a binding above typed nothing); z below, T
        "  var z = new T();\n"         # 14
        "}\n")}, "rennet-script-sites-mixed-").asked()

    def typed(name: str) -> dict[tuple[int, int], str]:
        return {(s.line, s.col): s.rule for s in asked.call("context.references", name=name).data.sites
                if s.rule != UNTYPED}

    assert typed("T.m") == {(6, 11): "`y = new T(...)`", (9, 4): "`x = new T(...)`", (13, 11): "`z = new T(...)`"}
    assert typed("U.m") == {(4, 4): "annotation `U` of parameter `x`", (6, 4): "annotation `U` of parameter `x`"}


FUNCTIONS = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "script_functions.py")


def _long_parameters(n: int) -> Indexed:
    # a parameter list as long as the body: every site asked for it and read it again
    return Indexed({"a.ts": CLASSES + "function f(x: T, " + "a, " * (4 * n) + "z) {\n" + "  x.m();\n" * n + "}\n"},
                   f"rennet-script-sites-parameters-{n}-")


PARAMETERS = {n: _long_parameters(n) for n in (SMALL, LARGE)}


def test_a_long_parameter_list_is_read_once_a_function():
    """A function of N sites and 4N parameters, and one of 2N and 8N: the lines of
    script_functions.py and script_names.py run about double, never four times (each site
    walked the header's bytes to the list's close, and searched the list for the name)."""
    def run(n: int) -> int:
        asked = PARAMETERS[n].asked()
        answer, ran = references_counted(asked, "T.m", {NAMES, FUNCTIONS}, first="U.m")
        sites = answer.data.sites
        assert sites and all(s.rule == "annotation `T` of parameter `x`" for s in sites)
        return ran

    small, large = run(SMALL), run(LARGE)
    assert large <= 2.5 * small, (small, large)


SITES = str(Path(__file__).resolve().parents[1] / "context_tools" / "query" / "symbols" / "sites.py")
LIB = "function f() {}\nfunction g() {}\nmodule.exports = { f, g };\n"
REQUIRED = {n: Indexed({"lib.js": LIB, "user.js": "require('./lib').f();\n" * n}, f"rennet-required-sites-{n}-")
            for n in (SMALL, LARGE)}


def test_sites_of_a_require_called_in_place_cost_lines_in_proportion_to_them():
    """`require('./lib').f()` on each of N lines: each line is an import and a site, and each
    site asked whether an import on its line reaches the definition by reading every import of
    the file, the square of the lines (a file's import lines that reach it are now found once).
    Twice the sites may cost about twice the lines of sites.py, never four times."""
    def ran(n: int) -> int:
        answer, lines = references_counted(REQUIRED[n].asked(), "f", {SITES}, first="g")
        assert answer.data.by_resolution["import"] == n  # each user.js site, tied through its line's require
        return lines

    small, large = ran(SMALL), ran(LARGE)
    assert large <= 2.5 * small, (small, large)


def _namespaced(n: int) -> Indexed:
    others = {f"m{i}.js": f"export const x{i} = {i};\n" for i in range(n)}
    main = "".join(f"import {{ x{i} }} from './m{i}';\n" for i in range(n)) + "import { repo } from './index';\n" \
        + "repo.makeUser();\n" * n
    return Indexed({**others, "user.js": "export function makeUser() {}\nexport function other() {}\n",
                    "index.js": "export * as repo from './user';\n", "main.js": main}, f"rennet-namespace-sites-{n}-")


NAMESPACED = {n: _namespaced(n) for n in (SMALL // 2, LARGE // 2)}


def test_sites_through_a_reexported_namespace_cost_lines_in_proportion_to_them():
    """`repo.makeUser()` N times in a file of N imports, `repo` an index's `export * as repo`:
    each site looked for the namespace through every import of the file, the square of them
    (now found once a file and name)."""
    def ran(n: int) -> int:
        answer, lines = references_counted(NAMESPACED[n].asked(), "makeUser", {SITES}, first="other")
        assert answer.data.by_resolution["import"] == n
        return lines

    small, large = ran(SMALL // 2), ran(LARGE // 2)
    assert large <= 2.5 * small, (small, large)
