"""How a tags query source splits into its top-level patterns (`grammars._split_patterns`), and
that every language's query is compiled from the patterns the extraction reads (the form
cheaper to compile), not from its whole source: a split that fails falls back to the whole
source silently, with the same facts and every worker paying the slower compile."""

from __future__ import annotations

import pytest

from indexer.lang import grammars
from indexer.lang.registry import GRAMMAR_LANGUAGES


def test_patterns_run_from_their_bracket_through_their_captures_and_quantifiers():
    source = '; a comment (with brackets) [x]\n(a (b) @x) @y\n["x(" (c)] @z\n(d)* @w ; a comment after\n"e" @v\n'
    assert grammars._split_patterns(source) == ['(a (b) @x) @y', '["x(" (c)] @z', '(d)* @w', '"e" @v']
    assert grammars._split_patterns("(a)\n\n(b (c))") == ["(a)", "(b (c))"]


@pytest.mark.parametrize("source", ["(a) junk! (b)", "(a))", "(a", "x (a)", '(a "b)'])
def test_a_source_of_no_shape_we_know_does_not_split(source):
    assert grammars._split_patterns(source) is None


@pytest.mark.parametrize("name", sorted(GRAMMAR_LANGUAGES))
def test_every_tags_query_is_compiled_from_the_patterns_the_extraction_reads(name):
    used = grammars._used_patterns(grammars.tags_source(name))
    assert used is not None
    for level in (grammars.MATCHING_FORM, grammars.COMPILING_FORM):
        assert grammars.tags_query(name, level).pattern_count == len(used)
    assert not any(line.lstrip().startswith(";") for line in grammars.tags_text(name).splitlines())


def test_a_field_alternation_is_narrowed_only_when_each_branch_is_a_concrete_kind():
    lang = grammars.language("python")
    head, tail = "(assignment right: [(identifier) (call) ", "] @v) @definition.variable"
    assert grammars._narrowed(head + "(string)" + tail, lang) == (
        "(assignment right: (_) @rennet.type.0 @v) @definition.variable",
        (("rennet.type.0", frozenset({"identifier", "call", "string"})),))
    # a supertype (`expression`) is no node's type, an unknown kind none either: a check on
    # them would drop every match, so the alternation stays as written; two kinds stay too
    for written in (head + "(expression)" + tail, head + "(no_such_kind)" + tail,
                    "(assignment right: [(identifier) (call)] @v) @definition.variable"):
        assert grammars._narrowed(written, lang) == (written, ())
