"""Python definitions as Python's own `ast` has them: every class, function and method with its
kind, container, line, last line, first line (its first decorator's) and end byte; every module
variable and class attribute; on sources written for the edges, on generated ones and on
standard-library modules."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.extract.blob import extract_blob
from tests.examples import examples

Definition = tuple[str, str, str, int, int, int, int]  # name, kind, container, line, end line, first line, end byte


def from_ast(src: bytes) -> set[Definition]:
    tree = ast.parse(src)
    starts = [0]
    for line in src.split(b"\n"):
        starts.append(starts[-1] + len(line) + 1)
    out: set[Definition] = set()
    stack: list[tuple[ast.AST, list[str], bool]] = [(tree, [], False)]
    while stack:
        node, chain, in_class = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                is_class = isinstance(child, ast.ClassDef)
                kind = "class" if is_class else "method" if in_class else "function"
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                end = starts[child.end_lineno - 1] + child.end_col_offset  # type: ignore[operator]
                out.add((child.name, kind, ".".join(chain), child.lineno, child.end_lineno, first, end))  # type: ignore[arg-type]
                stack.append((child, [*chain, child.name], is_class))
            else:
                stack.append((child, chain, in_class and not isinstance(child, ast.Lambda)))
    return out


def from_facts(src: bytes, path: str = "m.py") -> set[Definition]:
    facts = extract_blob(src, path, "python")
    assert not facts.skipped, facts.skipped
    return {(s.name, s.kind, s.container, s.line, s.end_line, src.count(b"\n", 0, s.start_byte) + 1, s.end_byte)
            for s in facts.symbols if s.kind in ("class", "function", "method")}


EDGES = b'''import functools


def plain(a, b=1, *rest, **kw):
    return a
    # a comment indented as the body: still no part of it, as ast has it

    # and another after a blank line


@functools.cache
@other(
    1,
)
async def decorated():
    if True:
        pass
        # trailing the `if` body, inside the function
# at column 0: after the function


class Outer(Base, metaclass=Meta):
    """Doc."""

    class Inner:
        def method(self):
            def nested():
                return """a string
                that ends on a later line"""
            return nested
            # comment

        # comment between

    @property
    def prop(self): return 1  # on the def's line

    lam = lambda self: self
    # the class ends above


def host():
    class Local:
        def m(self):
            pass
    try:
        def in_try():
            pass
    finally:
        pass
        # the finally's


if CONDITION:
    def under_if():
        pass
else:
    class UnderElse: pass
    # the else's
'''


def test_definitions_equal_ast_on_a_source_written_for_the_edges():
    want = from_ast(EDGES)
    assert len(want) == 13
    # was: a definition ended at the last comment of its indented body (`plain` at line 8)
    assert from_facts(EDGES) == want


STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.mark.parametrize("module", ["textwrap.py", "argparse.py", "dataclasses.py", "json/decoder.py", "functools.py"])
def test_definitions_equal_ast_on_standard_library_modules(module):
    src = (STDLIB / module).read_bytes()
    want = from_ast(src)
    assert want
    assert from_facts(src, module) == want


def module_names_from_ast(src: bytes) -> set[tuple[str, int]]:
    """(name, line) of each name an assignment statement binds in the module's own scope: at the
    top level or in any block of a statement there, nested to any depth (every statement but a
    `def` or `class`, whose bodies are scopes of their own): every target of a chain, of a tuple
    or list with or without brackets, nested or starred, and an annotated name. Augmented
    assignments, loop and `with` targets, `except ... as`, walruses and imports are not read."""
    out: set[tuple[str, int]] = set()
    targets: list[ast.expr] = []
    statements: list[ast.AST] = list(ast.parse(src).body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, ast.Assign):
            targets.extend(statement.targets)
        elif isinstance(statement, ast.AnnAssign):
            targets.append(statement.target)
        elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # the statements of its blocks, an `except` clause's and a `case`'s among them
            statements.extend(child for child in ast.iter_child_nodes(statement)
                              if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)))
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            out.add((target.id, target.lineno))
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
    return out


def module_names_from_facts(src: bytes, path: str = "m.py") -> set[tuple[str, int]]:
    facts = extract_blob(src, path, "python")
    assert not facts.skipped, facts.skipped
    return {(s.name, s.line) for s in facts.symbols if s.kind in ("variable", "constant") and not s.container}


MODULE_NAMES = b'''"""Doc."""
a = 1
b = c = 2
d = e = f = g = h = None
i, j = pair
(K, L) = range(2)
[m, n] = pair
o: int = 3
P: int
(q) = 4
obj.attr = 5
items[0] = 6


def fn():
    local = 7
'''


def test_module_level_names_equal_ast_on_a_source_written_for_the_edges():
    names = module_names_from_ast(MODULE_NAMES)
    assert len(names) == 17
    facts = extract_blob(MODULE_NAMES, "m.py", "python")
    # was: a chain's targets past the third (`g`, `h`) and a tuple or list in brackets (`K`, `L`, `m`, `n`)
    assert {(s.name, s.line) for s in facts.symbols if s.kind in ("variable", "constant")} == names
    assert {s.container for s in facts.symbols if s.kind in ("variable", "constant")} == {""}


def test_module_level_names_equal_ast_on_calendar():
    """The running Python's calendar.py, with the line that named the weekdays at module level
    up to Python 3.11 (a tuple target in brackets) at its end: 3.12 moved them into an enum."""
    weekdays = b"\n(MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY, SUNDAY) = range(7)\n"
    src = (STDLIB / "calendar.py").read_bytes() + weekdays
    names = module_names_from_ast(src)
    assert {"MONDAY", "SUNDAY"} <= {name for name, _ in names}
    facts = extract_blob(src, "calendar.py", "python")
    assert {(s.name, s.line) for s in facts.symbols if s.kind in ("variable", "constant") and not s.container} == names


# Each shape of block at module level, with the names `ast` reads there: every one was left out
# before, in part or whole (a single name directly under an `if`/`elif`/`else`, `try` or
# `except` was all that was read, nothing in a block nested in another).
BLOCK_SHAPES = {
    "if_in_try": (b"try:\n    if FAST:\n        A = 1\nexcept ImportError:\n    pass\n", {"A"}),
    "try_in_if": (b"if FAST:\n    try:\n        A = 1\n    except ImportError:\n        B = None\n", {"A", "B"}),
    "chain_under_if": (b"if FAST:\n    A = B = 1\nelse:\n    A = C = 2\n", {"A", "B", "C"}),
    "tuple_under_try": (b"try:\n    A, B = 1, 2\nexcept ImportError:\n    (A, B) = [C, D] = 0, 0\n", {"A", "B", "C", "D"}),
    "try_else": (b"try:\n    import fast\nexcept ImportError:\n    pass\nelse:\n    A = 1\n", {"A"}),
    "finally": (b"try:\n    pass\nfinally:\n    A = 1\n", {"A"}),
    "except_star_chain": (b"try:\n    pass\nexcept* OSError:\n    A = B = 1\n", {"A", "B"}),
    "with": (b"with open(PATH) as handle:\n    A = handle.read()\n", {"A"}),
    "for_else": (b"for item in ITEMS:\n    A = item\nelse:\n    B = None\n", {"A", "B"}),
    "while_else": (b"while GO:\n    A = 1\nelse:\n    B = 2\n", {"A", "B"}),
    "match_case": (b"match MODE:\n    case 1:\n        A = 1\n    case [x, *y] if x:\n        B = y\n    case _:\n        C = 3\n",
                   {"A", "B", "C"}),
    "annotated_in_try_else": (b"try:\n    import fast\nexcept ImportError:\n    pass\nelse:\n    A: int = 1\n    B: int\n",
                              {"A", "B"}),
    "main_block": (b'if __name__ == "__main__":\n    args, rest = parse()\n    for arg in args:\n        seen = arg\n',
                   {"args", "rest", "seen"}),
    "nested_and_starred": (b"first, *rest = ROW\n(c, (d, [e, *f])) = ROW\n", {"first", "rest", "c", "d", "e", "f"}),
    "deep": (b"".join(b"    " * i + b"if X%d:\n" % i for i in range(60)) + b"    " * 60 + b"DEEP = 1\n", {"DEEP"}),
}


@pytest.mark.parametrize("shape", sorted(BLOCK_SHAPES))
def test_module_variables_in_each_shape_of_block_equal_ast(shape):
    src, names = BLOCK_SHAPES[shape]
    want = module_names_from_ast(src)
    assert {name for name, _ in want} == names
    assert module_names_from_facts(src) == want


# What binds a name at module level without being a module variable, and blocks that are scopes
# of their own: none of it is read as one.
NOT_MODULE_VARIABLES = b"""\
import os
from json import loads as parse
total = 0
total += 1
for index in range(3):
    pass
with open(PATH) as handle:
    pass
try:
    pass
except OSError as error:
    pass
if (found := search()):
    del found
if FAST:
    class Holder:
        field = 1
        if DEBUG:
            flag = True

    def helper():
        local = 2
        for n in x:
            inner = n
try:
    async def later():
        awaited = await thing()
except ImportError:
    lam = lambda: None
"""


def test_only_assignment_statements_of_the_module_scope_are_module_variables():
    want = module_names_from_ast(NOT_MODULE_VARIABLES)
    assert want == {("total", 3), ("lam", 29)}  # `total += 1`: a rebinding of the name bound above
    assert module_names_from_facts(NOT_MODULE_VARIABLES) == want
    facts = extract_blob(NOT_MODULE_VARIABLES, "m.py", "python")
    assert {(s.name, s.kind, s.container) for s in facts.symbols if s.kind not in ("variable", "constant")} == {
        ("Holder", "class", ""), ("field", "field", "Holder"), ("helper", "function", ""), ("later", "function", "")}


def test_module_variables_of_blocks_keep_the_kind_rules_and_the_span_of_their_assignment():
    src = b"try:\n    MAX, size = 1, 2\nexcept ImportError:\n    if OLD:\n        AB = c = 3\n"
    facts = extract_blob(src, "m.py", "python")
    got = [(s.name, s.kind, s.container, s.line, s.signature, src[s.start_byte:s.end_byte]) for s in facts.symbols]
    assert got == [
        ("MAX", "constant", "", 2, "MAX, size = 1, 2", b"MAX, size = 1, 2"),
        ("size", "variable", "", 2, "MAX, size = 1, 2", b"MAX, size = 1, 2"),
        ("AB", "constant", "", 5, "AB = c = 3", b"AB = c = 3"),
        ("c", "variable", "", 5, "AB = c = 3", b"c = 3"),  # a chain's inner target: the inner assignment
    ]
    sites = {(o.name, o.line): o.role for o in facts.occurrences}
    assert sites[("c", 5)] == sites[("size", 2)] == "definition"


def test_module_variables_nested_past_what_ast_parses_are_read_with_no_recursion():
    """`ast` refuses 100 levels of indentation; a tree-sitter tree goes deeper, and the walk of
    the module's blocks holds a stack, not Python frames."""
    depth = 250
    kinds = (b"if X:", b"with C:", b"for i in Y:", b"while Z:")
    src = b"".join(b" " * i + kinds[i % 4] + b"\n" for i in range(depth)) + b" " * depth + b"DEEP = AB, c = 1, 2\n"
    facts = extract_blob(src, "deep.py", "python")
    assert facts.skipped == ""
    assert {(s.name, s.kind, s.container) for s in facts.symbols} == {
        ("DEEP", "constant", ""), ("AB", "constant", ""), ("c", "variable", "")}


_NAMES = st.sampled_from(["a", "b", "MAX", "Size_2", "x"])
# one-line statements, each a form of binding or not: `{}` takes a name each
_SIMPLE = st.sampled_from([
    "{} = 1", "{} = {} = 2", "{} = {} = {} = {} = {} = {} = 3", "{}, {} = p", "({}, [{}, *{}]) = q", "[{}] = r",
    "{}: int = 4", "{}: int", "{} += 1", "{}.attr = {} = 5", "{}[0], {} = s", "import os as {}", "({} := 6)",
    "del {}", "pass", "print({})",
])


def _simple(draw: st.DrawFn) -> list[str]:
    template = draw(_SIMPLE)
    return [template.format(*(draw(_NAMES) for _ in range(template.count("{}"))))]


def _block(draw: st.DrawFn, depth: int) -> list[str]:
    return ["    " + line for line in draw(_statements(depth + 1))]


@st.composite
def _statements(draw: st.DrawFn, depth: int = 0) -> list[str]:
    """Lines of one to three statements, each one line or a compound statement whose blocks
    hold more of them, down to a few levels: every block shape Python has, `def` and `class`
    bodies among them."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        shape = draw(st.sampled_from(["simple"] * 3 + ["if", "try", "with", "for", "while", "match", "def", "class"])
                     if depth < 4 else st.just("simple"))
        name = draw(_NAMES)
        if shape == "simple":
            lines += _simple(draw)
        elif shape == "if":
            lines += ["if c:", *_block(draw, depth)]
            for _ in range(draw(st.integers(0, 2))):
                lines += ["elif d:", *_block(draw, depth)]
            if draw(st.booleans()):
                lines += ["else:", *_block(draw, depth)]
        elif shape == "try":
            lines += ["try:", *_block(draw, depth)]
            handlers = draw(st.integers(0, 2))
            star = draw(st.booleans())
            for _ in range(handlers):
                lines += [f"except{'*' if star else ''} E as {name}:", *_block(draw, depth)]
            if handlers and draw(st.booleans()):
                lines += ["else:", *_block(draw, depth)]
            if not handlers or draw(st.booleans()):
                lines += ["finally:", *_block(draw, depth)]
        elif shape in ("for", "while"):
            lines += [f"for {name}, y in z:" if shape == "for" else "while c:", *_block(draw, depth)]
            if draw(st.booleans()):
                lines += ["else:", *_block(draw, depth)]
        elif shape == "with":
            lines += [f"with c as {name}, d:", *_block(draw, depth)]
        elif shape == "match":
            lines += ["match s:"]
            for pattern in draw(st.lists(st.sampled_from(["1", f"[{name}, *rest]", "_"]), min_size=1, max_size=3)):
                lines += [f"    case {pattern}:", *("    " + line for line in _block(draw, depth))]
        else:
            lines += [f"def f({name}):" if shape == "def" else "class K:", *_block(draw, depth)]
    return lines


@settings(max_examples=examples(100), deadline=None)
@given(_statements())
def test_module_variables_equal_ast_on_any_nesting_of_blocks(lines):
    src = ("\n".join(lines) + "\n").encode()
    assert module_names_from_facts(src) == module_names_from_ast(src)


def test_module_variables_equal_ast_on_every_top_level_standard_library_module():
    """Every name `ast` reads as bound by an assignment in a module's scope (blocks nested to any
    depth) is a module variable, and nothing else is. Was: chains and tuples under an `if` or
    `try` left out, and any name in a block nested in another, in a `with`, `for`, `while` or
    `match`, or in a `try`'s `else` or `finally`."""
    modules = sorted(STDLIB.glob("*.py"))
    assert len(modules) > 100
    wrong: dict[str, tuple[list[tuple[str, int]], list[tuple[str, int]]]] = {}
    total = 0
    for module in modules:
        src = module.read_bytes()
        want = module_names_from_ast(src)
        got = module_names_from_facts(src, module.name)
        total += len(want)
        if got != want:
            wrong[module.name] = (sorted(want - got), sorted(got - want))
    assert total > 1_500
    assert wrong == {}


def class_names_from_ast(src: bytes) -> set[tuple[str, str, int]]:
    """(class, name, line) of each name an assignment statement directly in a class body binds."""
    out: set[tuple[str, str, int]] = set()
    stack: list[tuple[ast.AST, list[str]]] = [(ast.parse(src), [])]
    while stack:
        node, chain = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = [*chain, child.name] if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else chain
            stack.append((child, inner))
            if not isinstance(child, ast.ClassDef):
                continue
            targets: list[ast.expr] = []
            for statement in child.body:
                if isinstance(statement, ast.Assign):
                    targets.extend(statement.targets)
                elif isinstance(statement, ast.AnnAssign):
                    targets.append(statement.target)
            while targets:
                target = targets.pop()
                if isinstance(target, ast.Name):
                    out.add((".".join(inner), target.id, target.lineno))
                elif isinstance(target, (ast.Tuple, ast.List)):
                    targets.extend(target.elts)
    return out


CLASS_NAMES = b'''class K:
    a = 1
    b = c = 2
    d = e = f = g = h = None
    i, j = pair
    (k, l) = pair
    size: int
    label: str = "x"
    obj.attr = 3

    def m(self):
        local = other = 4

    class Inner:
        x, y = 0, 0
'''


def test_class_attributes_equal_ast_on_a_source_written_for_the_edges():
    names = class_names_from_ast(CLASS_NAMES)
    assert len(names) == 16
    facts = extract_blob(CLASS_NAMES, "m.py", "python")
    # was: the first target of a class-level chain or tuple only (`c`, `e` to `h`, `i` to `l` missing)
    assert {(s.container, s.name, s.line) for s in facts.symbols if s.kind in ("field", "constant")} == names


def test_class_attributes_equal_ast_on_fractions():
    src = (STDLIB / "fractions.py").read_bytes()
    names = class_names_from_ast(src)
    assert ("Fraction", "__radd__", next(line for _, n, line in names if n == "__add__")) in names
    facts = extract_blob(src, "fractions.py", "python")
    assert {(s.container, s.name, s.line) for s in facts.symbols if s.kind in ("field", "constant")} == names
