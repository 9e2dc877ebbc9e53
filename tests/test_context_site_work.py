"""What `context references` spends on a file of many sites, each reading a name of its own or
a declaration of its own: the lines that may declare a name are found from the words of the
file's lines, indexed once (`sites._Reading.lines_naming`), a file's fixtures and braces are
read once, and the functions holding a site are found by a search, so twice the sites cost
about twice the work, never four times (was: each name read every line of its file or
function again: 400 such sites cost 3 to 4 times 200). The work is the lines of Rennet's code
the query runs; the answer is checked too. Each shape is asked at n and 2n sites, its n the
fewest at which that old reading still cost well over 2.5 times as much at 2n (`SITES`)."""

from __future__ import annotations

from typing import Callable

import pytest

from tests.indexed import Indexed
from tests.lines_run import lines_run

_DICT_PY = "class LookupDict:\n    def get(self):\n        pass\n    def __enter__(self):\n        return self\n"
_DICT_JS = "export class LookupDict {\n  get() {}\n}\n"

# shape -> (its files of n sites, the method asked, how many sites are the method's)
SHAPES: dict[str, tuple[Callable[[int], dict[str, str]], str, Callable[[int], int]]] = {
    # n one-line TypeScript functions, each reading its typed parameter: the functions holding
    # a site are found by a search (more of them, as each site costs little else)
    "typescript functions": (lambda n: {"lookup.ts": _DICT_JS, "a.ts": 'import { LookupDict } from "./lookup";\n' + "".join(
        f"function f{k}(d: LookupDict) {{ d.get(); }}\n" for k in range(4 * n))}, "LookupDict.get", lambda n: 4 * n),
    # a Python function of n names, each bound by `with ... as` and then read
    "python with-as names": (lambda n: {"lookup.py": _DICT_PY, "a.py": "from lookup import LookupDict\n\ndef f():\n" + "".join(
        f"    with LookupDict() as c{k}:\n        c{k}.get()\n" for k in range(n))}, "LookupDict.get", lambda n: n),
    # n pytest fixtures in conftest.py, each asked by its own test
    "pytest fixtures": (lambda n: {"lookup.py": _DICT_PY, "conftest.py": "import pytest\nfrom lookup import LookupDict\n\n" + "".join(
        f"@pytest.fixture\ndef fx{k}():\n    return LookupDict()\n\n" for k in range(n)),
        "test_a.py": "".join(f"def test_{k}(fx{k}):\n    fx{k}.get()\n" for k in range(n))}, "LookupDict.get", lambda n: n),
    # n JavaScript variables, each declared at the top and read
    "javascript declarations": (lambda n: {"lookup.js": _DICT_JS, "a.js": 'import { LookupDict } from "./lookup.js";\n' + "".join(
        f"const v{k} = new LookupDict();\nv{k}.get();\n" for k in range(n))}, "LookupDict.get", lambda n: n),
    # methods of an object literal, each reading `this` through an alias (its `this` is the
    # object's): the definitions holding a site found by a search, the object's member once
    "javascript object methods": (lambda n: {"lookup.js": _DICT_JS, "a.js": 'import { LookupDict } from "./lookup.js";\n'
        "const o = {\n" + "".join(f"  m{k}() {{\n    const s = this;\n    s.get();\n  }},\n" for k in range(4 * n)) + "};\n"},
        "LookupDict.get", lambda n: 0),
    # n methods of a subclass, each aliasing `this` under a name of its own
    "javascript aliases of this": (lambda n: {"lookup.js": _DICT_JS, "a.js": 'import { LookupDict } from "./lookup.js";\n'
        "class S extends LookupDict {\n" + "".join(f"  m{k}() {{\n    const s{k} = this;\n    s{k}.get();\n  }}\n"
                                                   for k in range(n)) + "}\n"}, "LookupDict.get", lambda n: n),
    # n Go functions, each typing a variable of its own by its literal
    "go typed variables": (lambda n: {"go.mod": "module x\n\ngo 1.21\n",
        "a/l.go": "package a\n\ntype LookupDict struct{}\n\nfunc (d *LookupDict) Get() {}\n",
        "a/s.go": "package a\n\n" + "".join(f"func f{k}() {{\n\tv{k} := &LookupDict{{}}\n\tv{k}.Get()\n}}\n" for k in range(n))},
        "LookupDict.Get", lambda n: n),
}
# shape -> its n: where the old reading's work grew by 3.3 or more at twice the sites, n is
# halved; the shapes whose old work grew by less there are kept at the sizes they were made at
SITES = {"typescript functions": 200, "python with-as names": 200, "pytest fixtures": 100,
         "javascript declarations": 200, "javascript object methods": 200,
         "javascript aliases of this": 100, "go typed variables": 100}
REPOS = {(shape, n): Indexed(made(n), f"rennet-site-work-{n}-", message="sites")
         for shape, (made, _, _) in SHAPES.items() for n in (SITES[shape], 2 * SITES[shape])}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_many_sites_each_reading_its_own_name_cost_in_proportion(shape):
    _, method, resolved = SHAPES[shape]

    def ask(n: int):
        return REPOS[(shape, n)].asked().call("context.references", name=method, limit=200).data

    small, large = SITES[shape], 2 * SITES[shape]
    lines = {}
    for n in (small, large):
        answer = ask(n)  # once first: what a query reads and keeps once a snapshot is not counted
        # each site is the method's, as its receiver's declaration says
        assert sum(v for k, v in answer.by_resolution.items() if k != "name_match") >= resolved(n), answer.by_resolution
        lines[n] = lines_run(lambda n=n: ask(n))
    assert lines[large] <= 2.5 * lines[small], lines
