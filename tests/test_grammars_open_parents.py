"""A tags pattern compiles with its parent steps two levels or more below its root as
wildcards and a type check each (grammars._open_parents): cheaper to compile, and the same
definitions as the pattern written out, the checks rejecting what the wildcards let through."""

from __future__ import annotations

from tree_sitter import Query, QueryCursor

from indexer.extract.blob import extract_blob
from indexer.lang import grammars

# Module-level assignments in `if`, `elif`, `else`, `try`, `except`, `while`, `with` and `for`
# bodies are definitions; the same statement inside a function is not.
_SOURCE = b"""\
if FAST:
    IN_IF = 1
elif SLOW:
    IN_ELIF = 2
else:
    IN_ELSE = 3
try:
    IN_TRY = 4
except ImportError:
    IN_EXCEPT = 5
while GO:
    IN_WHILE = 6
with ctx:
    IN_WITH = 7
for item in items:
    IN_FOR = 8


def run():
    if FAST:
        LOCAL = 9
"""


def test_module_level_definitions_in_blocks_are_found_and_none_in_a_function():
    facts = extract_blob(_SOURCE, "m.py", "python")
    # was: not those in the `while`, `with` and `for` bodies
    assert [(s.name, s.kind) for s in facts.symbols] == [
        ("IN_IF", "constant"), ("IN_ELIF", "constant"), ("IN_ELSE", "constant"), ("IN_TRY", "constant"),
        ("IN_EXCEPT", "constant"), ("IN_WHILE", "constant"), ("IN_WITH", "constant"), ("IN_FOR", "constant"),
        ("run", "function")]


def test_the_opened_patterns_give_the_matches_of_the_written_ones():
    lang = grammars.language("python")
    written = [
        "(module (if_statement consequence: (block (expression_statement"
        " (assignment left: (identifier) @name) @definition.variable))))",
        "(module (try_statement (except_clause (block (expression_statement"
        " (assignment left: (identifier) @name) @definition.variable)))))",
        "(function_definition body: (block (if_statement consequence: (block (expression_statement"
        " (assignment left: (identifier) @name) @definition.variable)))))",
    ]
    root = grammars.parse("python", _SOURCE).root_node
    for text in written:
        opened, checks = grammars._open_parents(text, lang, 0)
        assert "(_ " in opened and checks  # the nested parents became wildcards with checks
        assert all(len(types) == 1 for _, types in checks)
        want = [m[1]["name"][0].text for m in QueryCursor(Query(lang, text)).matches(root)]
        raw = QueryCursor(Query(lang, opened)).matches(root)
        got = [caps["name"][0].text for _, caps in raw
               if all(caps[capture][0].type in types for capture, types in checks)]
        assert got == want and len(want) == 1
        assert len(raw) >= len(got)  # what the checks reject is all the wildcards added


def test_shallow_patterns_and_those_with_alternations_quantifiers_or_predicates_stay_as_written():
    lang = grammars.language("python")
    for text in (
        "(class_definition body: (block (expression_statement) @x))",  # no parent two levels down
        "(module [(if_statement consequence: (block (expression_statement (assignment) @x)))"
        " (while_statement body: (block (expression_statement (assignment) @x)))])",
        "(module (if_statement consequence: (block (expression_statement (assignment) @x)*)))",
        '((module (if_statement consequence: (block (expression_statement (assignment left: (identifier) @name)))))'
        ' (#eq? @name "x"))',
    ):
        assert grammars._open_parents(text, lang, 0) == (text, ())
