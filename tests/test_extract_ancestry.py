"""The parents the extraction of C, C++, Go, Bash, C#, Rust, JavaScript, TypeScript and Python
asks of a tree (indexer/lang/ancestry.py).

tree-sitter keeps no parent pointers: `Node.parent` walks down from the root each time, a step
a level, so a walk up to the root costs the square of the depth, and one from each of a file's
nested definitions the cube. A commit chooses the depth: nested `#if`s, namespaces, pointer
and parenthesized declarators, qualified names, composite literals, functions, Rust blocks
and inline modules around `use`s, `mod`s and paths, JavaScript definitions, `require`s and
sites deep in expressions. The extraction asks an `Ancestry`, which walks down once for nodes
asked near one another; these tests hold it to the parents tree-sitter gives, and the
extraction of deep files to steps linear in the tree.
"""

from __future__ import annotations

import ast
import contextlib
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tree_sitter import Node

from indexer.extract.blob import extract_blob
from indexer.lang import ancestry, grammars
from tests.examples import examples

ROOT = Path(__file__).resolve().parent.parent


def _nodes(root: Node) -> list[Node]:
    """Every node of the tree, in document order (a cursor's walk: no parent asked)."""
    out: list[Node] = []
    cursor = root.walk()
    while True:
        node = cursor.node
        assert node is not None
        out.append(node)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


# Pieces a hostile file is made of, per language: openers that nest, and what stands inside.
_PIECES = {
    "c": ["#if A\n", "#else\n", "#endif\n", "int x;", "int (*f)(void);", "struct s {", "};", "{", "}", "(", ")",
          "*", "/* c */", "\"s\"", "#include \"x.h\"\n", "#define M 1\n", "f(", "x", ";", "\n"],
    "cpp": ["namespace n {", "}", "template <class T> ", "struct s : B {", "};", "A::", "operator int() {}",
            "#ifdef A\n", "#endif\n", "int x;", "void f();", "(", ")", "class c {", "\n"],
    "go": ["package p\n", "func f() {", "}", "a := 1\n", "_ = T{a: ", "T{", "}", "a:", "1", ",", "func() {", "\n"],
    "bash": ["f() {", "}", "alias a=b\n", "(", ")", "echo x\n", "g() { :; }\n", "$(", "\n"],
    "csharp": ["class C {", "}", "void M() {", "{", "#if X\n", "#endif\n", "(", ")", "int x;", "\n"],
    "rust": ["mod m {", "}", "use a::{b, c::d};", "fn f() {", "x::y::z();", "#[path = \"p.rs\"]\n", "mod n;", "// c\n",
             "{", "(", ")", "|a| ", "\n"],
}


def _drawn(data: st.DataObject, pieces: list[str], most: int) -> bytes:
    """A source of up to `most` of `pieces`, drawn in any order and number."""
    return "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=most))).encode()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_PIECES)), st.data())
def test_an_ancestry_finds_the_parents_tree_sitter_finds(language, data):
    """Asked in document order (as a query's matches come) and in any order: the same parent as
    `Node.parent`, the same sibling before a node that spans bytes as `Node.prev_sibling`, the
    same first node above, and the same value carried down to it, as a walk up one parent at a
    time, and the same node at a place as `Node.descendant_for_byte_range`."""
    source = _drawn(data, _PIECES[language], 80)
    tree = grammars.parse(language, source)
    if tree is None:
        return
    nodes = _nodes(tree.root_node)
    shuffled = list(nodes)
    random.Random(data.draw(st.integers(0, 2**32))).shuffle(shuffled)
    for order in (nodes, shuffled):
        found = ancestry.Ancestry(tree.root_node)
        for node in order:
            up = found.parent(node)
            assert up == node.parent
            if up is not None:
                children, at = found.place(node, up)
                assert children[at] == node
                if node.start_byte < node.end_byte:  # what is asked (tree-sitter's is odd beside empty nodes)
                    assert (children[at - 1] if at else None) == node.prev_sibling
            first = found.first_above(node, "named", lambda n: not n.is_named or n.type == "ERROR")
            walked = node.parent
            while walked is not None and (not walked.is_named or walked.type == "ERROR"):
                walked = walked.parent
            assert first == walked
            way: list[str] = []
            walked = node.parent
            while walked is not None:
                way.append(walked.type)
                walked = walked.parent
            assert found.carried(node, "types", lambda above, n: (*above, n.type), ()) == tuple(reversed(way))
        ranges = sorted(data.draw(st.lists(st.tuples(st.integers(0, len(source) + 1), st.integers(0, 3)), max_size=30)))
        for start, width in ranges if order is nodes else reversed(ranges):  # as lines are asked, and not
            assert found.descendant(start, start + width) == tree.root_node.descendant_for_byte_range(start, start + width)
            assert found.descendant(start, start) == tree.root_node.descendant_for_byte_range(start, start)
            up = found.descendant(start, start + 1)
            assert up is None or found.parent(up) == up.parent


def _steps(data: bytes, path: str, language: str) -> tuple[int, object]:
    """How many steps down from a node to the child holding another (`child_with_descendant`,
    the step tree-sitter repeats for each `Node.parent`) the extraction of `data` makes, and its
    facts: a count of work that does not hang on the machine's speed."""
    steps = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal steps
        if event == "c_call" and getattr(arg, "__name__", "") == "child_with_descendant":
            steps += 1

    sys.setprofile(count)
    try:
        facts = extract_blob(data, path, language)
    finally:
        sys.setprofile(None)
    return steps, facts


_N = 300
_DEEP = {  # a shape a commit may nest as deep as it likes, and what is read from it
    "nested #if, a declaration in each": (
        "c", "a.c", "".join(f"#if A{i}\nint v{i};\n" for i in range(_N)) + "#endif\n" * _N,
        lambda f: [(s.name, s.kind, s.container) for s in f.symbols] == [(f"v{i}", "variable", "") for i in range(_N)]),
    "a function under pointers": (
        "c", "a.c", "int " + "*" * _N * 4 + "f(void);\n", lambda f: [s.name for s in f.symbols] == ["f"]),
    "a function under parentheses": (
        "c", "a.c", "int " + "(" * _N * 4 + "f(void)" + ")" * _N * 4 + ";\n", lambda f: [s.name for s in f.symbols] == ["f"]),
    "nested structs, an include in each": (
        "c", "a.c", "".join(f"struct s{i} {{\n#include \"x{i}.h\"\n" for i in range(_N)) + "};\n" * _N,
        lambda f: [i.spec for i in f.imports] == [f"x{i}.h" for i in range(_N)]),
    "nested #ifdef, a declaration in each": (
        "cpp", "a.cc", "".join(f"#ifdef A{i}\nint v{i};\n" for i in range(_N)) + "#endif\n" * _N,
        lambda f: [s.name for s in f.symbols] == [f"v{i}" for i in range(_N)]),
    "nested namespaces": (
        "cpp", "a.cc", "".join(f"namespace n{i} {{ int v{i}; void f{i}(); " for i in range(_N)) + "}" * _N + "\n",
        lambda f: [s.container for s in f.symbols if s.name == "v2"] == ["n0.n1.n2"]),
    "a conversion operator's long qualified name": (
        "cpp", "a.cc", "A::" * _N * 4 + "operator int() { return 0; }\n",
        lambda f: [s.container for s in f.symbols] == [".".join(["A"] * _N * 4)]),
    "nested composite literals keyed by a local": (
        "go", "a.go", "package p\nfunc f() {\n\ta := 1\n\t_ = T{a: " + "T{a: " * _N * 4 + "1" + "}" * _N * 4 + "}\n}\n",
        lambda f: sum(o.name == "a" and o.role == "local" for o in f.occurrences) == 1),
    "nested functions": (
        "bash", "a.sh", "".join(f"f{i}() {{\nalias a{i}=x\n" for i in range(_N)) + "}\n" * _N,
        lambda f: {s.name for s in f.symbols} >= {"f0", "a0", "f255"}),
    "nested blocks, a directive in each, an error after": (
        "csharp", "a.cs", "class C { void M() {\n" + "{\n#if X\n#endif\n" * _N + "}\n" * _N + "} }\nclass D { void N( }\n",
        lambda f: [s.name for s in f.symbols][:2] == ["C", "M"]),
    "nested blocks, a use, a path in code and a mod with its #[path] in each": (
        "rust", "src/lib.rs", "fn f() " + "".join(f"{{\nuse a{i}::x;\nb{i}::c::f();\n// c\n#[path = \"p{i}.rs\"]\nmod m{i};\n"
                                                  for i in range(_N)) + "}\n" * _N + "mod top { use super::y; q::r(); }\n",
        lambda f: [(i.kind, i.spec, i.level, i.names) for i in f.imports] == [
            x for i in range(_N) for x in (("rust_use", f"a{i}::x", 0, ()), ("rust_path", f"b{i}::c", 0, ()),
                                           ("rust_mod", f"m{i}", 0, (f"p{i}.rs",)))]
        + [("rust_path", "q", 1, ()), ("rust_use", "super::y", 1, ())]),
    "nested inline modules, a use and a mod in each": (
        "rust", "src/lib.rs", "".join(f"mod m{i} {{ use super::*; mod s{i};\n" for i in range(_N)) + "}" * _N + "\n",
        lambda f: [i.level for i in f.imports if i.kind == "rust_use"] == list(range(1, _N + 1))
        and [i.spec for i in f.imports if i.kind == "rust_mod"][-1] == "::".join(f"m{i}" for i in range(64)) + "::s63"),
    "a chain of divisions of a local": (
        "javascript", "a.js", "function f(a) { return " + "\n/".join(["a"] * _N * 4) + "; }\n",
        lambda f: sum(o.name == "a" and o.role == "local" for o in f.occurrences) == _N * 4 + 1),
    "a chain of comparisons of a local, in TypeScript": (
        "typescript", "a.ts", "function f(a: number) { return " + "\n<".join(["a"] * _N * 4) + "; }\n",
        lambda f: sum(o.name == "a" and o.role == "local" for o in f.occurrences) == _N * 4 + 1),
    "nested JSX elements named as a local": (
        "javascript", "a.jsx", "function f(div) { return " + "<div>\n" * _N + "x" + "</div>\n" * _N + "; }\n",
        lambda f: sum(o.name == "div" and o.role == "local" for o in f.occurrences) == 1),
    "functions assigned to properties deep in parentheses": (
        "javascript", "a.js", "x = " + "(\n" * _N + "() => {\n" + "".join(f"o.p{i} = function () {{}};\n" for i in range(_N))
        + "module.exports = function g() {};\n}" + ")\n" * _N + ";\n",
        lambda f: [(s.name, s.container) for s in f.symbols] == [(f"p{i}", "o") for i in range(_N)] + [("g", "")]),
    "a prototype's methods deep in parentheses": (
        "javascript", "a.js", "x = " + "(\n" * _N + "() => {\nFoo.prototype = {" + "".join(f"m{i}: function n{i}() {{}},\n"
                                                                                       for i in range(_N)) + "};\n}" + ")\n" * _N + ";\n",
        lambda f: [(s.name, s.container) for s in f.symbols] == [(f"m{i}", "Foo") for i in range(_N)]),
    "requires bound and exported deep in parentheses": (
        "javascript", "a.js", "x = " + "(\n" * _N + "() => {\n" + "".join(f"const m{i} = require('./m{i}');\nexports.x{i} = require('./n{i}').y;\n"
                                                               for i in range(_N)) + "}" + ")\n" * _N + ";\n",
        lambda f: [(i.spec, i.names, i.aliases) for i in f.imports] == [
            x for i in range(_N) for x in ((f"./m{i}", (), (f"m{i}",)), (f"./n{i}", ("y",), (f"x{i}",)))]),
    "nested class expressions": (
        "javascript", "a.js", "x = " + "class { m() { return\n" * _N + "1" + "} }\n" * _N + ";\n",
        lambda f: [s.container for s in f.symbols][:3] == ["", "m", "m.m"] and len(f.symbols) == 257),
    "attributes written apart from their dot, deep in parentheses": (
        "python", "a.py", "def f(a):\n    return " + "(" * _N + " + ".join(["a. a"] * _N * 4) + ")" * _N + "\n",
        lambda f: sum(o.name == "a" and o.role == "local" for o in f.occurrences) == _N * 4 + 1),
}


@pytest.mark.parametrize("shape", sorted(_DEEP))
def test_deep_files_are_read_in_steps_linear_in_the_tree(shape):
    """Each of these walked up a parent at a time, from each definition, site or directive,
    through every level above it: the cube of the depth (300 nested `#if`s, 8 kB: 0.07 s; 1,000,
    26 kB: 5.5 s; 2,000 over 60 s). Through the file's Ancestry the steps down stay under the
    tree's nodes, and the facts are those read before."""
    language, path, source, read = _DEEP[shape]
    data = source.encode()
    steps, facts = _steps(data, path, language)
    tree = grammars.parse(language, data)
    assert tree is not None
    assert 0 < steps <= tree.root_node.descendant_count  # was: no step counted, each parent a walk from the root
    assert facts.skipped == "" and read(facts)


# The modules whose walks up a tree go through an Ancestry; `Node.parent` is read by none.
_WALKERS = ["indexer/lang/c/tags.py", "indexer/lang/c/imports.py", "indexer/lang/cpp/tags.py",
            "indexer/lang/cpp/bases.py", "indexer/lang/go/scopes.py", "indexer/lang/bash/tags.py",
            "indexer/lang/retry_views.py", "indexer/extract/tags.py", "indexer/lang/rust/imports.py",
            "indexer/lang/javascript/assigned.py", "indexer/lang/javascript/imports.py", "indexer/lang/javascript/scopes.py",
            "indexer/lang/python/scopes.py"]


@pytest.mark.parametrize("module", _WALKERS + ["indexer/lang/grammars.py:error_bytes"])
def test_no_parent_is_asked_of_tree_sitter_directly(module):
    path, _, function = module.partition(":")
    tree = ast.parse((ROOT / path).read_text())
    if function:
        tree = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    read = [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr in ("parent", "prev_sibling", "prev_named_sibling")
            and not (isinstance(n.value, ast.Name) and n.value.id == "ancestry")]
    assert read == []


def test_error_bytes_of_a_deep_tree_whose_root_is_an_error():
    """A tree whose root is an ERROR counts the tokens standing directly in it: each leaf was
    asked for its parent, a walk from the root (80 kB of nested calls after a stray `(`: 1.5 s,
    twice a parse). The cursor's depth says it; the count is the one the parents give."""
    n = 200
    data = b"#if X\n" + b"(" * n + b"\n#endif\n" + b"class A { int x = " + b"f(" * n + b"1" + b")" * n + b"; }\n" + b"(" * n
    tree = grammars._parse("csharp", data)
    assert tree is not None and tree.root_node.is_error
    root = tree.root_node
    expected, stack = 0, [root]  # as error_bytes counts, its leaves' parents asked of tree-sitter
    while stack:
        node = stack.pop()
        if node.is_missing:
            expected += 1
        elif node.is_error and node != root:
            expected += node.end_byte - node.start_byte
        elif node.child_count == 0:
            expected += node.end_byte - node.start_byte if node.parent == root else 0
        elif node.has_error:
            stack.extend(node.children)
    assert expected > 2 * n
    assert grammars.error_bytes(root) == expected


def _levels_down(data: bytes, path: str, language: str, places: list[int], width: int) -> int:
    """The levels the extraction of `data` walks down to find the node at each of `places`
    (`descendant_for_byte_range(place, place + width)`, asked of them in order): from the node
    each walk starts at to the node found, over a tree whose nodes are told apart by their
    bytes and type (a start counted at the highest such node, a node found at the lowest)."""
    begun: list[tuple[int, int, str]] = []

    def note(frame: object, event: str, arg: object) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") == "descendant_for_byte_range":
            node = arg.__self__  # type: ignore[attr-defined]
            begun.append((node.start_byte, node.end_byte, node.type))

    sys.setprofile(note)
    try:
        extract_blob(data, path, language)
    finally:
        sys.setprofile(None)
    tree = grammars.parse(language, data)
    assert tree is not None and len(begun) == len(places)
    least: dict[tuple[int, int, str], int] = {}
    most: dict[tuple[int, int, str], int] = {}
    cursor = tree.root_node.walk()
    while True:
        node = cursor.node
        assert node is not None
        key = (node.start_byte, node.end_byte, node.type)
        least[key] = min(least.get(key, cursor.depth), cursor.depth)
        most[key] = max(most.get(key, cursor.depth), cursor.depth)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                break
        else:
            continue
        break
    levels = 0
    for key, place in zip(begun, places):
        found = tree.root_node.descendant_for_byte_range(place, place + width)
        assert found is not None
        levels += most[(found.start_byte, found.end_byte, found.type)] - least[key]
    return levels


def test_the_node_at_each_line_asked_is_found_walking_down_from_the_one_before():
    """The node at each `#include` line the query missed (one in a struct body) and at each
    C# directive was found walking down from the root: the depth each time, the square of the
    nesting over the file (20,000 nested structs each with an `#include`, 758 kB, took 12.8 s
    to extract; 20,000 nested C# blocks each with an `#if`, an error after them, 340 kB, 14 s).
    Each walk now begins at the deepest node of the path to the line before that holds it: the
    levels walked stay under the tree's nodes (were the sum of the depths, 300 x 1,500 here)."""
    n = 300
    structs = ("".join(f"struct s{i} {{\n#include \"x{i}.h\"\n" for i in range(n)) + "};\n" * n).encode()
    hashes = [i for i in range(len(structs)) if structs[i:i + 9] == b"#include "]
    levels = _levels_down(structs, "a.c", "c", hashes, 1)
    tree = grammars.parse("c", structs)
    assert tree is not None and 0 < levels <= tree.root_node.descendant_count
    blocks = ("class C { void M() {\n" + "{\n#if X\n#endif\n" * n + "}\n" * n + "} }\nclass D { void N( }\n").encode()
    words = [i + 1 for i in range(len(blocks)) if blocks[i:i + 2] in (b"#i", b"#e")]
    levels = _levels_down(blocks, "a.cs", "csharp", words, 0)
    tree = grammars.parse("csharp", blocks)
    assert tree is not None and 0 < levels <= tree.root_node.descendant_count


# Pieces whose trees nest nodes that start at one byte (a chain of attributes, calls, binary
# operators, each the left of the next), span the same bytes, or span none (a missing token).
_SHARED_STARTS = {
    "python": ["a", ".b", "(", ")", "[0]", " + ", "-", "\n", "def f():\n ", "lambda: ", "x if y else ", ",", "\n  "],
    "javascript": ["a", ".b", "(", ")", "[0]", " + ", "`${", "}`", "=>", "{", "}", ";", "\n", "function f(", "new "],
    "c": ["x", "+", "*", "(", ")", "[0]", "->f", ".g", "int f(){", "}", "return ", ";", "\n", "{"],
}


def _chain(node: Node) -> list[Node]:
    """The nodes from the root down to `node`'s parent, as tree-sitter's parents give them."""
    way: list[Node] = []
    up = node.parent
    while up is not None:
        way.append(up)
        up = up.parent
    return way[::-1]


_ALL_PIECES = {language: _PIECES.get(language, []) + _SHARED_STARTS.get(language, [])
               for language in sorted({*_PIECES, *_SHARED_STARTS})}


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_ALL_PIECES)), st.data())
def test_the_path_kept_is_the_way_down_to_the_last_nodes_parent(language, data):
    """After each node asked, in document order or any, the Ancestry keeps a path down from the
    root, each node the parent of the next, through the asked node's parent (the path the next
    walk begins on; a node asked that is on it already leaves it as it was).
    In document order it walked into each node of the tree at most once: a step down a node
    plus the last step onto each node asked, however many nodes start at one byte, span the
    same bytes or span none."""
    source = _drawn(data, _ALL_PIECES[language], 60)
    tree = grammars.parse(language, source)
    if tree is None:
        return
    nodes = _nodes(tree.root_node)
    shuffled = list(nodes)
    random.Random(data.draw(st.integers(0, 2**32))).shuffle(shuffled)
    for order in (nodes, shuffled):
        found = ancestry.Ancestry(tree.root_node)
        for node in order:
            assert found.parent(node) == node.parent
            kept = [kept for kept, _, _ in found._path]
            chain = _chain(node)
            assert kept[:len(chain)] == chain
            assert all(below.parent == above for above, below in zip(kept, kept[1:]))
            assert found._at == {each.id: i for i, each in enumerate(kept)}
        if order is nodes:
            assert found.steps <= 2 * len(nodes)


def _empty_nodes_asked_after_each(language: str, source: bytes) -> None:
    """Each node of no bytes (a missing token) asked right after each node of the tree: its
    parent, and a path kept down to it."""
    tree = grammars.parse(language, source)
    if tree is None:
        return
    nodes = _nodes(tree.root_node)
    for empty in (node for node in nodes if node.start_byte == node.end_byte):
        chain = _chain(empty)
        for before in nodes:
            found = ancestry.Ancestry(tree.root_node)
            found.parent(before)
            assert found.parent(empty) == empty.parent
            assert [kept for kept, _, _ in found._path][:len(chain)] == chain


@pytest.mark.parametrize(("language", "source"), [
    ("cpp", b"A::()"),  # a missing name where the arguments after it start
    ("javascript", b";.b}\n"),  # a missing object where the statement before it ends
])
def test_a_node_of_no_bytes_at_the_edge_of_a_node_beside_it_is_walked_to_from_above(language, source):
    """A node of no bytes at the start or end of a node on the path that does not hold it: the
    path is cut back above that node (a walk down from it finds no child holding the empty one)
    and then leads down to the empty node's parent."""
    _empty_nodes_asked_after_each(language, source)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_ALL_PIECES)), st.data())
def test_a_node_of_no_bytes_asked_after_any_other_keeps_the_way_down_to_it(language, data):
    """As above, wherever a missing token falls in a file of pieces."""
    _empty_nodes_asked_after_each(language, _drawn(data, _ALL_PIECES[language], 12))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_ALL_PIECES)), st.data())
def test_the_node_at_a_place_is_found_from_the_path_the_walks_up_left(language, data):
    """Places asked in order, each after walks up from the node found at the place before and
    from a node under it (as `held_at` asks, the path then deep in the tree): the node tree-sitter
    finds walking down from the root, at places in nodes, at their edges, of no bytes or more."""
    source = _drawn(data, _ALL_PIECES[language], 40)
    tree = grammars.parse(language, source)
    if tree is None:
        return
    root = tree.root_node
    found = ancestry.Ancestry(root)
    places = sorted(data.draw(st.lists(st.tuples(st.integers(0, len(source) + 1), st.integers(0, 3)), max_size=30)))
    for start, width in places:
        node = found.descendant(start, start + width)
        assert node == root.descendant_for_byte_range(start, start + width)
        if node is not None:
            found.parent(node)
            if node.child_count:
                found.parent(node.children[-1])


def _places_asked_after_each(language: str, source: bytes) -> None:
    """The node at each place where a node starts or ends (of no bytes, and of one), asked
    right after the parent of each node of the tree: the node tree-sitter finds from the root."""
    tree = grammars.parse(language, source)
    if tree is None:
        return
    root = tree.root_node
    nodes = _nodes(root)
    places = sorted({node.start_byte for node in nodes} | {node.end_byte for node in nodes})
    for before in nodes:
        for place in places:
            for width in (0, 1):
                found = ancestry.Ancestry(root)
                found.parent(before)
                assert found.descendant(place, place + width) == root.descendant_for_byte_range(place, place + width)


@pytest.mark.parametrize(("language", "source"), [
    ("bash", b"}$(}\n"),  # no bytes where a node on the path starts: tree-sitter stops above it
    ("python", b")"),
])
def test_the_node_at_the_edge_of_a_node_on_the_path_is_the_one_found_from_the_root(language, source):
    """A place at the start or end of a node on the path is not searched for from that node:
    tree-sitter's walk from the root need not pass through it there."""
    _places_asked_after_each(language, source)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_ALL_PIECES)), st.data())
def test_the_node_at_each_edge_after_any_walk_up_is_the_one_found_from_the_root(language, data):
    """As above, wherever the nodes of a file of pieces start and end."""
    _places_asked_after_each(language, _drawn(data, _ALL_PIECES[language], 8))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_PIECES)), st.data())
def test_the_walks_up_are_tree_sitters_inside_a_reading_and_out(language, data):
    """`parent`, `first_above`, `carried` and `place`, asked of the module in a file's reading
    (through its Ancestry) and outside any (through tree-sitter's parents): the same answers as
    a walk up one `Node.parent` at a time, and none left kept once the reading ends."""
    source = _drawn(data, _PIECES[language], 40)
    tree = grammars.parse(language, source)
    if tree is None:
        return
    nodes = _nodes(tree.root_node)
    for inside in (True, False):
        with ancestry.reading(tree.root_node) if inside else contextlib.nullcontext():
            for node in nodes:
                up = ancestry.parent(node)
                assert up == node.parent
                if up is not None:
                    children, at = ancestry.place(node, up)
                    assert children == up.children and children[at] == node
                walked = node.parent
                while walked is not None and walked.is_named:
                    walked = walked.parent
                assert ancestry.first_above(node, "named", lambda n: n.is_named) == walked
                types = tuple(n.type for n in _chain(node))
                assert ancestry.carried(node, "types", lambda above, n: (*above, n.type), ()) == types
        assert ancestry._reading() is None
        assert getattr(ancestry._THREAD, "kept", None) is None  # the tree is not held past its reading


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_PIECES)), st.data())
def test_held_at_is_whether_the_node_at_a_place_or_one_above_it_holds(language, data):
    """`held_at` at places asked in order: whether the node tree-sitter finds there, or any node
    above it (its parents one at a time), is named and of a type the question names."""
    source = _drawn(data, _PIECES[language], 40)
    tree = grammars.parse(language, source)
    if tree is None:
        return
    root = tree.root_node
    kinds = data.draw(st.sets(st.sampled_from(sorted({node.type for node in _nodes(root)})), max_size=3))
    places = sorted(data.draw(st.lists(st.tuples(st.integers(0, len(source)), st.integers(0, 2)), max_size=20)))
    for start, width in places:
        node = root.descendant_for_byte_range(start, start + width)
        held = False
        while node is not None and not held:
            held, node = node.type in kinds, node.parent
        assert ancestry.held_at(root, start, start + width, "kinds", lambda n: n.type in kinds) == held


def test_a_node_of_another_tree_has_the_parent_tree_sitter_gives():
    """A node not under the Ancestry's root (its walk down finds no child holding it): the
    parent tree-sitter gives, not None."""
    one = grammars.parse("python", b"def f():\n    return g(x)\n")
    other = grammars.parse("python", b"class A:\n    def f(self):\n        return g(x, y)\n")
    assert one is not None and other is not None
    found = ancestry.Ancestry(one.root_node)
    for node in _nodes(other.root_node)[1:]:
        assert found.parent(node) == node.parent


def test_each_node_is_passed_once_for_a_question_asked_of_every_node():
    """`first_above` and `carried` asked of every node of a deep chain: each question looks at
    each node about once for the tree (its answer kept for every node passed), not once for
    every node below it, and a node's children are listed once for all its children."""
    n = 150
    tree = grammars.parse("python", ("x = " + "a" + ".b" * n + "\n").encode())
    assert tree is not None
    nodes = _nodes(tree.root_node)
    found = ancestry.Ancestry(tree.root_node)
    passed = carried = 0

    def passes(node: Node) -> bool:
        nonlocal passed
        passed += 1
        return node.type != "module"

    def carry(above: int, node: Node) -> int:
        nonlocal carried
        carried += 1
        return above + 1

    for node in nodes:
        assert found.first_above(node, "module", passes) == (tree.root_node if node != tree.root_node else None)
        assert found.carried(node, "depth", carry, 0) == len(_chain(node))
        up = found.parent(node)
        if up is not None:
            children, _ = found.place(node, up)
            places = found._children[up.id]
            assert found.place(up.children[0], up)[0] is children
            assert found._children[up.id] is places  # the places among them: made once a parent
    assert passed <= 2 * len(nodes) and carried <= len(nodes)  # were the sum of the depths: n squared over 2
    # from the deepest node up, each node's answer found on the way up from the one below it
    deepest = tree.root_node.descendant_for_byte_range(4, 5)
    assert deepest is not None
    found = ancestry.Ancestry(tree.root_node)
    passed = 0
    for node in [deepest, *reversed(_chain(deepest))]:
        found.first_above(node, "module", passes)
    assert passed <= 3 * n


_LEFT_NESTED = {  # n nodes each starting where the one around it starts, at the first `a`
    "python": lambda n: "x = " + "a" + ".b" * n + "\n",
    "javascript": lambda n: "a" + "(0)" * n + ";\n",
    "c": lambda n: "int f(){return " + "+".join(["a"] * n) + ";}\n",
}


@pytest.mark.parametrize("language", sorted(_LEFT_NESTED))
def test_nodes_starting_where_their_parent_starts_are_walked_into_once(language):
    """A chain of n nodes each the first child of the next, asked in document order: each
    walk begins at the parent kept, not at the root (the sum of the depths, n squared over 2)."""
    n = 150
    source = _LEFT_NESTED[language](n)
    tree = grammars.parse(language, source.encode())
    assert tree is not None
    nodes = _nodes(tree.root_node)
    found = ancestry.Ancestry(tree.root_node)
    assert [found.parent(node) for node in nodes] == [node.parent for node in nodes]
    deepest = tree.root_node.descendant_for_byte_range(source.index("a"), source.index("a") + 1)
    assert deepest is not None and len(_chain(deepest)) > n
    assert found.steps <= 2 * len(nodes)
