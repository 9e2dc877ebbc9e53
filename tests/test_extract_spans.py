"""Where a definition's span starts and ends, and the bounds on what a symbol records, at their
edges: a declarator among several spans itself alone, a container of exactly 4,096 characters
is kept and one longer is cut (docs/security.md, nested definitions)."""
from __future__ import annotations

from indexer.extract.blob import extract_blob

CONTAINER_CHARS = 4096  # as documented, not read from the code it checks


def _spans(src: bytes, path: str, language: str) -> list[tuple[str, str, int, int, bytes]]:
    facts = extract_blob(src, path, language)
    assert not facts.skipped, facts.skipped
    return [(s.name, s.kind, s.line, s.end_line, src[s.start_byte:s.end_byte]) for s in facts.symbols]


def test_a_declarator_among_several_spans_itself_and_one_alone_its_declaration():
    src = b"const a = 1,\n  b = 2;\nlet c = () => {\n  return 1;\n};\nvar d;\n"
    assert _spans(src, "m.js", "javascript") == [
        ("a", "variable", 1, 1, b"a = 1"),  # not `const a = 1,\n  b = 2;` (lines 1-2)
        ("b", "variable", 2, 2, b"b = 2"),
        ("c", "function", 3, 5, b"let c = () => {\n  return 1;\n};"),
        ("d", "variable", 6, 6, b"var d;"),
    ]


def _nested(outer: str) -> bytes:
    return f"class {outer}:\n    class B:\n        def f(self):\n            pass\n".encode()


def test_a_container_of_exactly_container_chars_is_kept_one_longer_is_cut():
    # `f`'s container is the outer name, a dot and `B`
    at_cap = extract_blob(_nested("A" * (CONTAINER_CHARS - 2)), "m.py", "python")
    assert [s.name for s in at_cap.symbols][1:] == ["B", "f"] and not at_cap.symbols_capped
    assert len(at_cap.symbols[2].container) == CONTAINER_CHARS
    past = extract_blob(_nested("A" * (CONTAINER_CHARS - 1)), "m.py", "python")
    assert [s.name for s in past.symbols][1:] == ["B"] and past.symbols_capped


def test_a_span_ending_at_a_line_start_ends_on_the_line_before():
    # a `#define` holds its newline: its span ends at the next line's start, its last line is its own
    src = b"#define X 1\n#define F(a) \\\n  ((a) + 1)\nint f(void) {\n  return X;\n}\nstruct S {\n  int a;\n};\n"
    assert _spans(src, "m.c", "c") == [
        ("X", "macro", 1, 1, b"#define X 1\n"),
        ("F", "macro", 2, 3, b"#define F(a) \\\n  ((a) + 1)\n"),
        ("f", "function", 4, 6, b"int f(void) {\n  return X;\n}"),  # a `}` at column 0 ends on its own line
        ("S", "struct", 7, 9, b"struct S {\n  int a;\n}"),
        ("a", "field", 8, 8, b"int a;"),
    ]
    # indented further than its line's number: the rule reads rows, never columns
    assert _spans(b"\n    #define Y 2\n", "m.c", "c") == [("Y", "macro", 2, 2, b"#define Y 2\n")]


def test_a_signature_is_the_line_of_the_name_from_its_start():
    # on the second line, after an empty first one; on the first line; past a decorator
    src = b"\ndef f(a):\n    pass\n"
    assert [s.signature for s in extract_blob(src, "m.py", "python").symbols] == ["def f(a):"]
    assert [s.signature for s in extract_blob(b"def g(): pass", "m.py", "python").symbols] == ["def g(): pass"]
    src = b"@deco\nclass K(Base):  \n    x = 1\n"
    assert [(s.name, s.signature) for s in extract_blob(src, "m.py", "python").symbols] == [
        ("K", "class K(Base):"), ("x", "x = 1")]


def test_definitions_past_the_symbol_cap_are_not_recorded_and_the_facts_say_so():
    # 50,001 module constants, none nested: the first 50,000 are kept (docs/security.md)
    src = b"".join(b"A%d = 0\n" % i for i in range(50_001))
    facts = extract_blob(src, "m.py", "python", sites=False)
    assert len(facts.symbols) == 50_000 and facts.symbols[-1].name == "A49999" and facts.symbols_capped
    assert not extract_blob(src[:src.index(b"A50000")], "m.py", "python", sites=False).symbols_capped


def test_a_go_type_alone_spans_its_type_keyword_one_of_a_group_itself():
    src = b"package m\n\ntype (\n\tA int\n\tB = A\n)\n\ntype C = A\ntype D A\n"
    assert _spans(src, "m.go", "go") == [
        ("A", "type", 4, 4, b"A int"), ("B", "type", 5, 5, b"B = A"),
        ("C", "type", 8, 8, b"type C = A"), ("D", "type", 9, 9, b"type D A")]
