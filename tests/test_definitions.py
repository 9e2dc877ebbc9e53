"""Annotated definition fixtures (tests/fixtures/definitions/): each line says what it defines
(`def: kind qualified, ...`, a C/C++ one with `if CONDITION` when written under a
preprocessor condition) or that it defines nothing (`def: none`); a line without a note
defines nothing either. Extraction must yield exactly the noted definitions, line by line."""

from __future__ import annotations

from collections import defaultdict

import pytest

from indexer.extract.blob import extract_blob
from indexer.lang.registry import CONTENT_DECIDES, detect_language, name_language
from tests.annotated import FIXTURES, Case, load

CASES = sorted((FIXTURES / "definitions").glob("*.txt"))


def expected(case: Case, path: str) -> dict[int, set[tuple[str, str, str]]]:
    out: dict[int, set[tuple[str, str, str]]] = defaultdict(set)
    for note in case.notes:
        if note.path != path or note.value == "none":
            continue
        for item in note.value.split(","):  # `kind qualified`, or `kind qualified if CONDITION` (C/C++)
            head, _, condition = item.partition(" if ")
            kind, qualified = head.split()
            out[note.line].add((kind, qualified, condition.strip()))
    return out


def found(path: str, text: str) -> dict[int, set[tuple[str, str, str]]]:
    data = text.encode()
    language = name_language(path)  # as extraction reads it (pipeline.extract.extract_facts)
    if language in CONTENT_DECIDES:
        language = detect_language(path, data[:8192])
    facts = extract_blob(data, path, language, 1 << 20, sites=False)
    assert not facts.skipped, facts.skipped
    out: dict[int, set[tuple[str, str, str]]] = defaultdict(set)
    for s in facts.symbols:
        out[s.line].add((s.kind, s.qualified, s.condition))
    return out


@pytest.mark.parametrize("fixture", CASES, ids=lambda p: p.stem)
def test_each_line_defines_what_its_note_says(fixture):
    case = load(fixture, keys=("def:",))
    assert case.notes
    for path, text in case.files.items():
        want, got = expected(case, path), found(path, text)
        lines = text.splitlines()
        wrong = {n: (lines[n - 1].strip(), sorted(want.get(n, ())), sorted(got.get(n, ())))
                 for n in sorted(set(want) | set(got)) if want.get(n, set()) != got.get(n, set())}
        assert not wrong, f"{path}: line -> (source, noted, extracted): {wrong}"


def test_zsh_the_bash_grammar_cannot_parse_is_skipped_with_a_reason():
    facts = extract_blob(b"alias ok='ls'\nprint ${(j:,:)array}\nfunction f() { echo hi }\n", "a.zsh", "zsh")
    assert facts.skipped == "unparseable" and not facts.symbols
    # the same text as Bash is read as far as it goes: strictness is zsh's, the borrowed grammar's
    assert extract_blob(b"alias ok='ls'\n", "a.sh", "bash").symbols[0].kind == "alias"
    assert name_language("x/.zshrc") == "zsh" and name_language("a.zsh") == "zsh"
