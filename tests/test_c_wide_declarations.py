"""A C or C++ declaration of many names (`int a0, a1, ...;`, which a commit under review may
hold by the thousand on one line) costs work in proportion to its names: each name's reading
of the declaration stops at what it needs (its specifiers, its own declarator), and so does
the search for `extern` before a local. Work is counted (lines run, bytes searched), at n
names and 2n."""

from __future__ import annotations

import re

import pytest

from indexer.extract.blob import extract_blob
from indexer.lang.ancestry import __file__ as ANCESTRY
from indexer.lang.c import scopes
from indexer.lang.c.tags import __file__ as C_TAGS
from tests.lines_run import counted

LANGUAGES = [("a.c", "c"), ("a.cpp", "cpp")]


def _file_scope(n: int) -> bytes:
    # every other name a const pointer: each declarator's kind is its own
    return b"char " + b", ".join(b"*const k%d = 0" % i if i % 2 else b"*v%d = 0" % i for i in range(n)) + b";\n"


@pytest.mark.parametrize(("path", "language"), LANGUAGES)
def test_the_names_of_one_file_scope_declaration_cost_each_their_own_declarator(path, language):
    def work(n: int) -> int:
        facts, ran = counted(lambda: extract_blob(_file_scope(n), path, language), [C_TAGS, ANCESTRY])
        kinds = {s.name: s.kind for s in facts.symbols}
        assert (kinds["v0"], kinds["k1"], kinds["v2"], kinds["k3"]) == ("variable", "constant", "variable", "constant")
        return ran

    small, large = work(500), work(1000)
    assert large <= 2.5 * small, (small, large)


class _Searched:
    """`scopes._EXTERN`, counting the bytes its searches are given."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self.pattern = pattern
        self.bytes = 0

    def search(self, data: bytes, start: int, end: int) -> re.Match[bytes] | None:
        self.bytes += max(0, end - start)
        return self.pattern.search(data, start, end)


@pytest.mark.parametrize(("path", "language"), LANGUAGES)
def test_extern_is_looked_for_among_a_local_declaration_s_specifiers(path, language, monkeypatch):
    """A block's `int a0 = 0, a1 = 0, ...;`: each name searched the declaration up to itself
    for `extern`, the square of the names in bytes."""
    def searched(n: int) -> int:
        counter = _Searched(scopes._EXTERN)
        monkeypatch.setattr(scopes, "_EXTERN", counter)
        src = b"void f(void) { int " + b", ".join(b"a%d = 0" % i for i in range(n)) + b"; a1 = 2; }\n"
        facts = extract_blob(src, path, language)
        assert [o.role for o in facts.occurrences if o.name == "a1"] == ["local", "local"]
        return counter.bytes

    small, large = searched(500), searched(1000)
    assert large <= 2.5 * small, (small, large)


@pytest.mark.parametrize(("path", "language"), LANGUAGES)
def test_extern_in_a_declarator_s_value_makes_no_name_global(path, language):
    """`extern` is a specifier: the word in an initializer's string names nothing, so the
    declarators after it are locals as the ones before are; `extern int a, b;` names globals."""
    src = b'int a, d;\nvoid f(void) {\n  extern int a, b;\n  int c = g("extern"), d;\n  use(a, b, c, d);\n}\n'
    roles = [(o.name, o.line, o.role) for o in extract_blob(src, path, language).occurrences
             if o.name in ("a", "b", "c", "d") and o.line > 2]
    assert roles == [("a", 3, "identifier"), ("b", 3, "identifier"), ("c", 4, "local"), ("d", 4, "local"),
                     ("a", 5, "identifier"), ("b", 5, "identifier"), ("c", 5, "local"), ("d", 5, "local")]
