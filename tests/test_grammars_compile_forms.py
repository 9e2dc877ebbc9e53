"""A language's tags query compiles in one of two forms (grammars.compile_quickly): the one
that matches cheapest, for runs that parse many of its blobs, and the one that compiles
cheapest, for runs that parse few. A blob's facts are cached by its content, so both forms
must give the very same facts for every blob: here, for every fixture file of every
language, a hostile nesting past the cursor's match limit included."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from indexer.extract.blob import extract_blob
from indexer.lang import grammars
from indexer.lang.registry import GRAMMAR_LANGUAGES, HEAD_BYTES, detect_language
from tests.annotated import FIXTURES, load
from tests.test_hostile_bounds import nested_js

ROOT = Path(__file__).resolve().parent.parent


def _sources() -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for path in sorted((ROOT / "corpora" / "polyglot").rglob("*")):
        if path.is_file():
            found.append((str(path.relative_to(ROOT)), path.read_bytes()))
    for fixture in sorted(FIXTURES.rglob("*.txt")):
        for name, text in load(fixture).files.items():
            found.append((f"{fixture.parent.name}/{fixture.stem}/{name}", text.encode()))
    return found


SOURCES = _sources()


def _facts(path: str, data: bytes, quick: bool) -> bytes:
    language = detect_language(path, data[:HEAD_BYTES])
    grammars.compile_quickly(GRAMMAR_LANGUAGES if quick else ())
    try:
        return msgspec.msgpack.encode(extract_blob(data, path, language))
    finally:
        grammars.compile_quickly(())


def test_the_fixtures_cover_every_grammar_language_but_the_shells_zsh():
    languages = {detect_language(path, data[:HEAD_BYTES]) for path, data in SOURCES}
    assert GRAMMAR_LANGUAGES - {"zsh"} <= languages


@pytest.mark.parametrize("path, data", SOURCES, ids=[p for p, _ in SOURCES])
def test_both_forms_give_the_same_facts(path, data):
    assert _facts(path, data, quick=True) == _facts(path, data, quick=False)


def test_the_form_that_compiles_cheapest_is_other_text_with_the_same_patterns():
    for name in sorted(GRAMMAR_LANGUAGES):
        quick, matching = grammars.tags_query(name, grammars.COMPILING_FORM), grammars.tags_query(name)
        assert quick.pattern_count == matching.pattern_count
    lang = grammars.language("python")
    text = "(module (expression_statement (identifier) @name) @definition.variable)"
    assert grammars._open_parents(text, lang, 0) == (text, ())  # nothing two levels down has children
    opened, checks = grammars._open_parents(text, lang, 0, grammars.COMPILING_FORM)
    assert opened.startswith("(module (_ ") and checks == (("rennet.type.0", frozenset({"expression_statement"})),)


def test_past_the_match_limit_the_form_that_matches_cheapest_decides():
    from tree_sitter import QueryCursor

    from indexer.extract.tags import MATCH_LIMIT

    for depth in (200, 1000):
        data = nested_js(depth).encode()
        root = grammars.parse("javascript", data).root_node
        cursor = QueryCursor(grammars.tags_query("javascript", grammars.COMPILING_FORM), match_limit=MATCH_LIMIT)
        cursor.matches(root)
        if depth == 1000:
            assert cursor.did_exceed_match_limit  # the quick form alone would drop matches here
        assert _facts("a.js", data, quick=True) == _facts("a.js", data, quick=False)


def test_a_run_compiles_quickly_only_the_languages_it_parses_few_blobs_of():
    from indexer.pipeline import extract
    from indexer.pipeline.plan import BlobJob

    jobs = [BlobJob(f"{i:040x}", f"m{i}.py", "python", "v") for i in range(extract.QUICK_COMPILE_MAX + 1)]
    jobs += [BlobJob(f"{i:040x}", f"m{i}.go", "go", "v") for i in range(3)]
    try:
        extract.compile_forms(jobs)
        assert grammars.form("go") == grammars.COMPILING_FORM
        assert grammars.form("python") == grammars.MATCHING_FORM
        assert grammars.form("rust") == grammars.MATCHING_FORM  # not in the run
    finally:
        grammars.compile_quickly(())


def test_a_few_headers_compile_both_languages_a_header_may_be_quickly():
    """A `.h` blob's language is C or C++ by its content, read in the worker: a run parsing a
    few headers (and few other C or C++ blobs) compiles both in the form that compiles cheapest,
    and a run parsing many counts them against both."""
    from indexer.lang.registry import CONTENT_H
    from indexer.pipeline import extract
    from indexer.pipeline.plan import BlobJob

    headers = [BlobJob(f"{i:040x}", f"h{i}.h", CONTENT_H, "v") for i in range(3)]
    try:
        extract.compile_forms(headers)
        assert grammars.form("c") == grammars.form("cpp") == grammars.COMPILING_FORM
        many = [BlobJob(f"{i:040x}", f"m{i}.cpp", "cpp", "v") for i in range(extract.QUICK_COMPILE_MAX - 2)]
        extract.compile_forms(headers + many)
        assert grammars.form("cpp") == grammars.MATCHING_FORM and grammars.form("c") == grammars.COMPILING_FORM
    finally:
        grammars.compile_quickly(())


def test_a_language_of_at_most_quick_compile_max_blobs_compiles_quickly():
    """The bound is inclusive: QUICK_COMPILE_MAX blobs of a language still compile cheapest,
    one more matches cheapest."""
    from indexer.pipeline import extract
    from indexer.pipeline.plan import BlobJob

    def jobs(n: int) -> list[BlobJob]:
        return [BlobJob(f"{i:040x}", f"m{i}.py", "python", "v") for i in range(n)]

    try:
        extract.compile_forms(jobs(extract.QUICK_COMPILE_MAX))
        assert grammars.form("python") == grammars.COMPILING_FORM
        extract.compile_forms(jobs(extract.QUICK_COMPILE_MAX + 1))
        assert grammars.form("python") == grammars.MATCHING_FORM
    finally:
        grammars.compile_quickly(())
