"""Local scopes at their edges (indexer/lang/local_scopes.py): scopes that touch without
nesting, a binding after every scope has ended, a name a later `require` settles, a nested
definition however little it is indented. Each expectation is the language's own scoping."""

from __future__ import annotations

import sys
from bisect import bisect_right
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.extract.blob import extract_blob
from indexer.lang import local_scopes
from indexer.model import BlobFacts
from tests.examples import examples
from tests.test_extract_locals import sites


def test_a_scope_ending_where_the_next_starts_does_not_hold_it():
    # `b` starts at the byte `a` ends at: `a`'s `x` is no binding `b` sees, `b`'s `x` a global
    src = "function a(){var x=1;return x}function b(){return x}\n"
    assert sites(src, "m.js", "javascript", "x") == [
        ("x", 1, 18, "local"), ("x", 1, 29, "local"), ("x", 1, 51, "identifier")]


def test_a_binding_after_the_first_scope_ends_is_at_module_level():
    # `x` and `y` are bound at module level, below the function that reads them: globals
    src = "def a():\n    return x\nx = 1\nfor y in z: pass\ndef b():\n    return y\n"
    assert sites(src, "m.py", "python", "x", "y") == [
        ("x", 2, 12, "identifier"), ("x", 3, 1, "definition"), ("y", 4, 5, "identifier"), ("y", 6, 12, "identifier")]
    # a JavaScript `var` of the module's own loop, below the function reading it: a global too
    src = "function a(){return x}\nfor (var x of xs) {}\n"
    assert sites(src, "m.js", "javascript", "x") == [("x", 1, 21, "identifier"), ("x", 2, 10, "identifier")]


def test_a_var_that_a_later_declaration_binds_to_require_is_settled_before_it_too():
    # one `var f` per function: bound to an import by its second declaration, so no site is a local
    # (`h` binds `f` locally: the name is asked of every site)
    src = 'function g() {\n  var f;\n  f();\n  var f = require("./f");\n  return f;\n}\nfunction h(f) { return f; }\n'
    assert [role for *_, role in sites(src, "m.js", "javascript", "f")] == [
        "identifier", "call", "identifier", "identifier", "local", "local"]
    # without the `require`, every one is
    src = "function g() {\n  var f;\n  f();\n  var f = make();\n  return f;\n}\n"
    assert [role for *_, role in sites(src, "m.js", "javascript", "f")] == ["local"] * 4


def test_a_nested_definitions_name_is_settled_at_any_indentation():
    # `def g` one space in is still nested in `f`: its name is no local of `f`, even where assigned
    for indent in (" ", "    ", "\t"):
        src = f"def f():\n{indent}g = 1\n{indent}def g(): pass\n{indent}return g\n"
        assert [role for *_, role in sites(src, "m.py", "python", "g")] == ["identifier", "definition", "identifier"]


def test_a_function_after_a_closed_sibling_does_not_see_its_parameters():
    # `h` starts after `g` ends: `g`'s parameter `x` is no binding of `h`, whose `x` is a global
    src = "def f():\n    def g(x):\n        return x\n    def h():\n        return x\n"
    assert sites(src, "m.py", "python", "x") == [("x", 2, 11, "local"), ("x", 3, 16, "local"), ("x", 5, 16, "identifier")]


def test_a_name_declared_global_is_no_local_where_it_is_assigned():
    # `global x` settles `x` in `f`, assignment and all; `g`'s parameter `x` is a local of `g` only
    src = "def f():\n    global x\n    x = 1\n    return x\ndef g(x):\n    return x\n"
    assert [role for *_, role in sites(src, "m.py", "python", "x")] == ["identifier"] * 3 + ["local"] * 2


def test_bindings_in_a_file_of_no_scope_are_globals():
    # a loop variable at module level, in a file with no function: never local (and no error)
    assert [role for *_, role in sites("for x in y:\n    pass\nprint(x)\n", "m.py", "python", "x")] == ["identifier"] * 2
    assert [role for *_, role in sites("for (var x of xs) {}\nf(x);\n", "m.js", "javascript", "x")] == ["identifier"] * 2


def test_a_nested_function_declaration_at_a_line_start_settles_its_name():
    # JavaScript: `function g` in `f`, though at column 0, names the symbol `g` in `f`: `var g`
    # there binds no local (`h`'s parameter `g` makes the name one to ask of every site)
    src = "function f() {\nvar g;\nfunction g() {}\nreturn g;\n}\nfunction h(g) { return g; }\n"
    assert [role for *_, role in sites(src, "m.js", "javascript", "g")] == [
        "identifier", "definition", "identifier", "local", "local"]
    # a method's name is bound in no scope around its class: `m` is still `g`'s parameter
    src = "function g(m) { class A { m() {} } return m; }\n"
    assert [role for *_, role in sites(src, "m.js", "javascript", "m")] == ["local", "definition", "local"]


def test_a_walrus_in_a_comprehension_binds_in_the_first_function_too():
    # `y :=` in a comprehension binds in the function around it, the file's first scope
    src = "def f():\n    print([(y := x) for x in z])\n    return y\n"
    assert [role for *_, role in sites(src, "m.py", "python", "y")] == ["local", "local"]


def test_a_lambda_in_a_default_is_a_scope_before_the_function_body():
    # the lambda's region comes before `f`'s body, though `f` starts first: its `b` is its own;
    # `b` in the body is a global
    src = "def f(a=lambda b: b):\n    return a + b\n"
    assert sites(src, "m.py", "python", "a", "b") == [
        ("a", 1, 7, "local"), ("b", 1, 16, "local"), ("b", 1, 19, "local"), ("a", 2, 12, "local"),
        ("b", 2, 16, "identifier")]


def test_a_walrus_to_a_name_declared_global_binds_no_local():
    # `global y` settles `y` in `f`: `y :=` there, in a condition or a comprehension, binds a global
    for bind in ("if (y := 1):\n        return y\n", "return [(y := x) for x in z]\n"):
        src = f"def f():\n    global y\n    {bind}def g(y):\n    return y\n"
        roles = [role for *_, role in sites(src, "m.py", "python", "y")]
        assert roles == ["identifier"] * (len(roles) - 2) + ["local"] * 2


def test_a_rust_fn_item_in_a_function_leaves_a_let_of_its_name_local():
    # Rust: a local `let g` shadows the item `fn g` in the same block; the item settles nothing
    src = "fn f() -> i32 {\n    let g = 1;\n    fn g() {}\n    g\n}\n"
    assert [role for *_, role in sites(src, "m.rs", "rust", "g")] == ["local", "definition", "local"]


def test_each_var_is_bound_in_its_own_function():
    # two `var`s in two functions, each placed by the scope around its own site
    src = "function a() { var x; return x; }\nfunction b() { var y; return y; }\n"
    assert [role for *_, role in sites(src, "m.js", "javascript", "x", "y")] == ["local"] * 4


@pytest.mark.parametrize("src, expected", [
    ("g = lambda x: x\ndef f(y):\n    return x + y\n", ["local", "local", "local", "identifier", "local"]),
    ("def f(y):\n    return x + y\ng = lambda x: x + y\n", ["local", "identifier", "local", "local", "local", "identifier"]),
])
def test_two_scopes_found_in_either_order_are_placed_in_document_order(src, expected):
    # a lambda (read from the scopes' own pattern) and a function (from the definitions): each
    # name is local in its own scope only, whichever comes first in the file
    assert [role for *_, role in sites(src, "m.py", "python", "x", "y")] == expected


def test_a_default_value_is_read_outside_the_function_body():
    # a parameter's default is read where the function is made: not the body's `var b`, not the
    # lambda's own parameter `b`
    src = "function f(a = b) { var b = 1; return a + b; }\n"
    assert [role for *_, role in sites(src, "m.js", "javascript", "b")] == ["identifier", "local", "local"]
    assert [role for *_, role in sites("f = lambda b=b: b\n", "m.py", "python", "b")] == ["local", "identifier", "local"]
    assert [role for *_, role in sites("def f(b=b):\n    return b\n", "m.py", "python", "b")] == [
        "local", "identifier", "local"]


def test_a_c_prototype_is_no_scope():
    # the parameter name of a prototype binds nothing: only the definition's `x` is local
    src = "int f(int x);\nint g(int x) { return x; }\n"
    assert [role for *_, role in sites(src, "m.c", "c", "x")] == ["identifier", "local", "local"]


def test_an_anonymous_class_body_is_a_barrier():
    # Java: `x` in the anonymous class's method may be a field it inherits (`Runnable` is not in
    # the file), so it is not looked for in the method around: it keeps its role
    src = "class A { void f() { int x = 1; Runnable r = new Runnable() { public void run() { use(x); } }; } }\n"
    assert [role for *_, role in sites(src, "m.java", "java", "x")] == ["local", "identifier"]


# --- cost on deep nesting ----------------------------------------------------------------------

def _lines_run(src: str, path: str, language: str) -> tuple[int, BlobFacts]:
    """How many lines of indexer/lang/local_scopes.py the extraction of `src` runs, and its
    facts: a count of the work scopes and bindings cost, whatever the machine's speed."""
    lines = 0

    def line(frame: FrameType, event: str, arg: object) -> object:
        nonlocal lines
        if event == "line":
            lines += 1
        return line

    def call(frame: FrameType, event: str, arg: object) -> object:
        return line if frame.f_code.co_filename == local_scopes.__file__ else None

    previous = sys.gettrace()
    sys.settrace(call)
    try:
        facts = extract_blob(src.encode(), path, language)
    finally:
        sys.settrace(previous)
    assert not facts.skipped
    return lines, facts


def _local(facts: BlobFacts, name: str) -> int:
    return sum(o.name == name and o.role == "local" for o in facts.occurrences)


_NESTED = {  # a shape a commit may nest as deep as it likes (n levels), and the facts read from it
    "comprehensions using a parameter of the function around": (
        "python", "a.py", lambda n: "def f(a):\n    return " + "[a for _ in a if " * n + "a" + "]" * n + "\n",
        lambda f, n: _local(f, "a") == 2 * n + 2 and _local(f, "_") == n),
    "arrow functions, each using a parameter of the function around": (
        "javascript", "a.js", lambda n: "function f(" + ",\n".join(f"n{i}" for i in range(n)) + ") { return "
        + "".join(f"() => n{i} + (\n" for i in range(n)) + "0" + ")" * n + "; }\n",
        lambda f, n: all(_local(f, f"n{i}") == 2 for i in range(n))),
    "arrow functions, each binding a parameter and using the outer one": (
        "javascript", "a.js", lambda n: "function f(a) { return " + "".join(f"(b{i}) => a + b{i} + (\n" for i in range(n))
        + "0" + ")" * n + "; }\n",
        lambda f, n: _local(f, "a") == n + 1 and all(_local(f, f"b{i}") == 2 for i in range(n))),
    "closed lambdas, then bindings": (
        "python", "a.py", lambda n: "def f():\n    g = " + "lambda: " * n + "0\n" + "".join(f"    x{i} = {i}\n" for i in range(n))
        + "    global y\n    return (y := 1)\n",
        lambda f, n: all(_local(f, f"x{i}") == 1 for i in range(n)) and _local(f, "y") == 0 and _local(f, "g") == 1),
    "closed arrow functions, then vars": (
        "javascript", "a.js", lambda n: "function f() { const g = " + "() =>\n" * n + "0;\n"
        + "".join(f"var v{i} = {i};\n" for i in range(n)) + "}\n",
        lambda f, n: all(_local(f, f"v{i}") == 1 for i in range(n))),
}


@pytest.mark.parametrize("shape", sorted(_NESTED))
def test_deep_scopes_cost_work_linear_in_the_file(shape):
    """Each site asked of a name its own scope does not bind walked up every scope around it,
    and each binding after closed scopes walked up through them: the square of the nesting
    (16,000 nested comprehensions, 224 kB, took 21 s to extract). Four times the nesting is now
    about four times the work, and the facts are the scoping's."""
    language, path, source, read = _NESTED[shape]
    n = 150
    small, facts = _lines_run(source(n), path, language)
    assert read(facts, n)
    large, facts = _lines_run(source(4 * n), path, language)
    assert read(facts, 4 * n)
    assert large < 5 * small  # was: about 14 times


# --- the answers, against the walk up the scopes they replace ---------------------------------

_KINDS = [local_scopes.FUNCTION, local_scopes.BLOCK, local_scopes.CLASS, local_scopes.COMPREHENSION, local_scopes.WITH]


@st.composite
def _scope_trees(draw: st.DrawFn) -> tuple[list[list], list[int]]:
    """Scopes in document order as `Collector.finish` sorts them, each [start, end, region
    start, region end, hole start, hole end, kind, barrier], some starting where the one
    before ends or where the one around starts, and each one's parent."""
    count = draw(st.integers(1, 40))
    scopes: list[list] = []
    parents: list[int] = []
    path: list[int] = []
    at = 0
    for i in range(count):
        for _ in range(draw(st.integers(0, len(path)))):  # close some of the open scopes
            at += 1
            scopes[path.pop()][1] = at
        at += draw(st.integers(0, 1))  # the next may start where the one before ends
        parents.append(path[-1] if path else -1)
        scopes.append([at, 0, at, 0, 0, 0, draw(st.sampled_from(_KINDS)), draw(st.booleans())])
        path.append(i)
        at += draw(st.integers(0, 1))  # or where the one around it starts
    while path:
        at += 1
        scopes[path.pop()][1] = at
    for s in scopes:
        s[3] = s[1]
    return scopes, parents


def _walk_up(scopes: list[list], parents: list[int], bound: list[dict[str, int]], i: int, name: str) -> int:
    """LocalSites.threshold as it was: a walk from scope `i` up to a scope that settles `name`."""
    found = local_scopes._NOWHERE
    first = True
    j = i
    while j >= 0:
        s = scopes[j]
        if s[6] == local_scopes.CLASS:
            if first and name in bound[j]:
                break
        elif s[6] == local_scopes.WITH:
            break
        else:
            visible = bound[j].get(name)
            if visible is not None:
                if visible == local_scopes.OPAQUE:
                    break
                found = min(found, visible)
            if s[7]:
                break
        first = False
        j = parents[j]
    return found


@pytest.mark.parametrize("shallow", [0, 3])
@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_scope_trees(), st.data())
def test_a_threshold_is_the_walk_up_the_scopes_in_any_order_asked(monkeypatch, shallow, tree, data):
    """What a site's name resolves to, asked of each scope in document order (as the sites
    come) or in any order (sites asked again): what the walk up the scopes found, through
    class bodies, `with` bodies, barriers and settled names, from every scope (`SHALLOW` 0)
    or from those deeper than a few."""
    monkeypatch.setattr(local_scopes, "SHALLOW", shallow)
    scopes, parents = tree
    values = st.sampled_from([0, 3, 5, 9, local_scopes.OPAQUE])
    names = st.dictionaries(st.sampled_from("abc"), values, max_size=3)  # made once: each made anew is validated anew
    bound = [data.draw(names) for _ in scopes]
    candidates = {name for names in bound for name, v in names.items() if v != local_scopes.OPAQUE}
    asked = [(i, name) for i in range(len(scopes)) for name in "abcd"]
    if data.draw(st.booleans()):
        asked = data.draw(st.permutations(asked))
    local = local_scopes.LocalSites(local_scopes.any_name, scopes, parents, bound, set(), candidates)
    for i, name in asked:
        assert local.threshold(i, name) == _walk_up(scopes, parents, bound, i, name), (i, name)


@settings(max_examples=examples(200), deadline=None)
@given(_scope_trees(), st.data())
def test_a_binding_is_placed_in_the_scope_the_walk_up_found(tree, data):
    """The scope each binding is in, found in one sweep over the bindings in order: the scope
    the walk up from the last scope starting before it found, then the function, or the scope
    that is no comprehension, around that."""
    scopes, parents = tree
    starts = [s[0] for s in scopes]
    ends = [s[1] for s in scopes]
    hows = st.sampled_from([local_scopes.INNERMOST, local_scopes.OF_FUNCTION, local_scopes.PAST_COMPREHENSIONS,
                            local_scopes.STRICT])
    bindings = data.draw(st.lists(st.tuples(hows, st.integers(0, ends[0] + 2 * len(scopes))), max_size=40))
    around = local_scopes._innermost(
        [(anchor - 1, anchor) if how == local_scopes.STRICT else (anchor, anchor) for how, anchor in bindings],
        starts, ends)
    up = local_scopes._Outwards(scopes, parents)
    for (how, anchor), innermost in zip(bindings, around):
        target = bisect_right(starts, anchor - 1 if how == local_scopes.STRICT else anchor) - 1
        while target >= 0 and ends[target] <= anchor:
            target = parents[target]
        assert innermost == target
        if how == local_scopes.OF_FUNCTION:
            while target >= 0 and scopes[target][6] != local_scopes.FUNCTION:
                target = parents[target]
        elif how == local_scopes.PAST_COMPREHENSIONS:
            while target >= 0 and scopes[target][6] == local_scopes.COMPREHENSION:
                target = parents[target]
        assert up.place(how, innermost) == target
